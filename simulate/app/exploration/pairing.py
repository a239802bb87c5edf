"""Paired differences between the rule sets of a race that deal alike.

Rule sets whose deals take the same cards (single deals of the same hand size and decks:
:func:`analysis.statistics.paired.deal_obstacle`) play the very same deals at each index,
so their difference on a measure that is a mean over games (the first seat's advantage,
decisiveness, turns, lead changes, comebacks: :data:`analysis.balance.PAIRED_MEASURES`) is
best read on the games' paired differences, whose spread leaves out the luck of the deal.

From round 2 on, the race's candidates play each block of games in step; for every group
that deals alike and every measure, the block's values give, with four matrix products,
each pair's games in common, the sums of their differences, of their values and of their
squares (:class:`PairTable`): seven numbers per pair and measure, whatever the games.

The measures that are not means are compared on a paired bootstrap of the games in
common (:mod:`analysis.statistics.pair_replicates`): the seat spread from each pair's
games counted by (one's winner, the other's winner), one matrix product per block; the
90th percentile of the length from each candidate's lengths, kept game by game (four
bytes a game) only when that percentile is aimed at; and a mean whose two estimates lie on
either side of a target from the pair's paired covariance.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .measure import Candidate
from .space import Aim

RACE_BLOCK = 1 << 14
"""Games the candidates of a round play in step before their values are paired."""
SPREAD, LENGTH_P90 = "seat_spread", "turns_p90"
"""The aims paired on a bootstrap: their measures are not means."""
RACE_REPLICATES = 500
"""Bootstrap replicates of a pair in the race (the reports' intervals take 2,000): a race
of 144 rule sets bootstraps some 24,000 pairs a search, and its picks are confirmed on
held-out deals."""


def deal_key(candidate: Candidate) -> str | None:
    """What deals alike share (the deal shape); None for match play, which is not paired."""
    request = candidate.request
    if request.match_play:
        return None
    return request.game.spec.deal_shape(request.meta().get("rules", {}), request.players)


class PairTable:
    """Per pair of candidates (by product index) that deal alike, over the games they
    played in step: per measure that is a mean, ``(games, Σd, Σd², Σx_a, Σx_b, Σx_a²,
    Σx_b²)`` with ``d = x_a − x_b`` and ``a`` the smaller index; the games counted by
    (``a``'s winner, ``b``'s winner) when the seat spread is compared; and, when the 90th
    percentile of the length is, each candidate's lengths game by game (four bytes a game
    played in step), from which a pair's games are counted on demand.

    ``measures``: the measures compared (None: every one the games give); ``players``:
    the seats a winner is counted in (None: the seat spread is not paired);
    ``replicates``: each bootstrap's; ``changes``: also count, per pair, the games whose
    winner differs (given to :meth:`add_block` as ``winners``), as the confirmation
    does (the race, with many more pairs, does not)."""

    def __init__(
        self,
        measures=None,
        players: int | None = None,
        *,
        replicates: int = RACE_REPLICATES,
        changes: bool = False,
    ):
        self.sums: dict[tuple[int, int], dict[str, np.ndarray]] = {}
        self.changes: dict[tuple[int, int], np.ndarray] | None = {} if changes else None
        self.measures = None if measures is None else set(measures)
        self.players = players
        self.replicates = replicates
        self.winners: dict[tuple[int, int], np.ndarray] = {}
        self.lengths: dict[int, dict[int, np.ndarray]] = {}
        self._found: dict[tuple, tuple[float, float, float] | None] = {}

    def _wants(self, name: str) -> bool:
        return self.measures is None or name in self.measures

    def add_block(
        self,
        members: list[Candidate],
        values: list[dict[str, np.ndarray]],
        keys: list[str | None],
        *,
        start: int,
        positions: list[np.ndarray] | None = None,
        winners: list[np.ndarray] | None = None,
    ) -> None:
        """Add one block of games played in step by ``members``; ``values[i]`` is
        :func:`analysis.balance.deal_values` of member i's games, in the same game order,
        ``positions[i]`` their :func:`analysis.balance.deal_positions` (needed when the
        seat spread is aimed at), ``winners[i]`` their winning seats (−1: none; needed
        for ``changes``), ``keys[i]`` its :func:`deal_key` (only members of equal keys are
        paired) and ``start`` the block's first game."""
        self._found.clear()
        groups: dict[str, list[int]] = {}
        for i, key in enumerate(keys):
            if key is not None:
                groups.setdefault(key, []).append(i)
        for rows in groups.values():
            if len(rows) < 2:
                continue
            order = [members[i].index for i in rows]
            names = set.intersection(*(set(values[i]) for i in rows))
            for name in sorted(n for n in names if self._wants(n)):
                self._add_means(order, name, np.vstack([values[i][name] for i in rows]))
            if self._wants(LENGTH_P90) and "turns" in names:
                for i in rows:
                    found = self.lengths.setdefault(members[i].index, {})
                    found[start] = values[i]["turns"].astype(np.float32)
            if self._wants(SPREAD) and positions is not None and self.players:
                self._add_winners(order, np.vstack([positions[i] for i in rows]))
            if self.changes is not None and winners is not None:
                for a, b in itertools.combinations(rows, 2):
                    pair = (
                        min(members[a].index, members[b].index),
                        max(members[a].index, members[b].index),
                    )
                    found = self.changes.setdefault(pair, np.zeros(2, np.int64))
                    found += (winners[a].size, np.count_nonzero(winners[a] != winners[b]))

    def _add_means(self, order: list[int], name: str, x: np.ndarray) -> None:
        mask = (~np.isnan(x)).astype(float)
        x = np.nan_to_num(x)
        common = mask @ mask.T  # games both count
        sums = x @ mask.T  # Σ x_a over the games in common with b
        squares = (x * x) @ mask.T
        cross = x @ x.T
        for a, b in itertools.combinations(range(len(order)), 2):
            n = common[a, b]
            if n == 0:
                continue
            diff = sums[a, b] - sums[b, a]
            diff2 = squares[a, b] + squares[b, a] - 2 * cross[a, b]
            first, second = (sums[a, b], squares[a, b]), (sums[b, a], squares[b, a])
            if order[a] > order[b]:  # kept as the smaller index minus the larger
                diff, first, second = -diff, second, first
            pair = (min(order[a], order[b]), max(order[a], order[b]))
            found = self.sums.setdefault(pair, {}).setdefault(name, np.zeros(7))
            found += (n, diff, diff2, first[0], second[0], first[1], second[1])

    def _add_winners(self, order: list[int], seats: np.ndarray) -> None:
        size = self.players + 1
        # one row per (candidate, winner + 1): the block's games as indicators
        onehot = np.zeros((len(order) * size, seats.shape[1]), np.float32)
        rows = np.arange(len(order))[:, None] * size + seats + 1
        onehot[rows, np.arange(seats.shape[1])[None, :]] = 1
        gram = onehot @ onehot.T  # exact: a block's counts are far below 2²⁴
        for a, b in itertools.combinations(range(len(order)), 2):
            cells = gram[a * size : (a + 1) * size, b * size : (b + 1) * size].astype(np.int64)
            if order[a] > order[b]:  # rows: the smaller index's winner
                cells = cells.T
            pair = (min(order[a], order[b]), max(order[a], order[b]))
            found = self.winners.setdefault(pair, np.zeros((size, size), np.int64))
            found += cells

    def loss_interval(
        self, mine: Candidate, other: Candidate, aim: Aim
    ) -> tuple[float, float, float] | None:
        """``(D, lo, hi)`` of ``loss(mine) − loss(other)`` on the aim, over their paired
        games: from the paired mean and its normal interval where the loss is that
        difference up to its sign (:func:`loss_difference`), else from a paired bootstrap
        (:mod:`analysis.statistics.pair_replicates`: the seat spread, the 90th percentile
        of the length, a mean's distance to a target the two lie on either side of).
        None when the two were not paired on the aim's measure."""
        key = (mine.index, other.index, aim)
        if key not in self._found:
            self._found[key] = self._loss(mine, other, aim, self.replicates)
        return self._found[key]

    def difference(
        self, mine: Candidate, other: Candidate, name: str
    ) -> tuple[float, float, float] | None:
        """``(D, lo, hi)`` of measure ``name``, ``mine`` minus ``other``, over their paired
        games (:meth:`loss_interval` of the measure itself); None when not paired on it."""
        return self.loss_interval(mine, other, Aim(name, "min"))

    def winner_changes(
        self, mine: Candidate, other: Candidate
    ) -> tuple[float, float, float] | None:
        """``(share, lo, hi)``: the share of the games both played whose winner differs
        (another seat, or no winner, in one of them), with its 95% Wilson interval; None
        where the two were not paired or the changes not counted."""
        from analysis.statistics.stats import wilson_interval

        a, b = mine.index, other.index
        found = (self.changes or {}).get((min(a, b), max(a, b)))
        if found is None or found[0] == 0:
            return None
        games, changed = (int(x) for x in found)
        lo, hi = wilson_interval(changed, games)
        return changed / games, float(lo), float(hi)

    def names(self, mine: Candidate, other: Candidate) -> list[str]:
        """The measures on which ``mine`` and ``other`` were paired."""
        a, b = mine.index, other.index
        pair = (min(a, b), max(a, b))
        found = list(self.sums.get(pair, {}))
        if pair in self.winners:
            found.append(SPREAD)
        if a in self.lengths and b in self.lengths:
            found.append(LENGTH_P90)
        return found

    def loss_point(self, mine: Candidate, other: Candidate, aim: Aim) -> float | None:
        """``D`` of :meth:`loss_interval` without its interval (no bootstrap: cheap)."""
        found = self._found.get((mine.index, other.index, aim))
        if found is None:
            found = self._loss(mine, other, aim, 0)
        return None if found is None else found[0]

    def _loss(self, mine: Candidate, other: Candidate, aim: Aim, replicates: int):
        from analysis.balance import paired_interval
        from analysis.statistics import pair_replicates as pr

        name = aim.measure
        a, b = mine.index, other.index
        if name == SPREAD:
            joint = self.winners.get((min(a, b), max(a, b)))
            if joint is None or joint.sum() < 2:
                return None
            found = pr.winner_spreads(joint.T if a > b else joint, replicates=replicates)
        elif name == LENGTH_P90:
            x, y = self._common_lengths(mine, other)
            found = None if x is None else pr.quantile_pair(x, y, replicates=replicates)
        else:
            moments = self.sums.get((min(a, b), max(a, b)), {}).get(name)
            if moments is None:
                return None
            n, total, squares, sa, sb, saa, sbb = moments
            mean = paired_interval(n, -total if a > b else total, squares)
            if mean is None:
                return None
            sums, powers = ((sb, sa), (sbb, saa)) if a > b else ((sa, sb), (saa, sbb))
            found = loss_difference(mean, aim, sums[0] / n, sums[1] / n)
            if found is not None:
                return found
            found = pr.mean_pair(n, sums, powers, squares, replicates=replicates)
        if found is None:
            return None
        point, draws = found
        d = aim.loss(point[0]) - aim.loss(point[1])
        if not replicates:
            return d, math.nan, math.nan
        losses = aim.loss(draws)
        return pr.percentile_interval(d, losses[:, 0] - losses[:, 1])

    def _common_lengths(self, mine: Candidate, other: Candidate):
        """The two candidates' lengths over the blocks both played, in game order."""
        ours, theirs = self.lengths.get(mine.index, {}), self.lengths.get(other.index, {})
        starts = sorted(set(ours) & set(theirs))
        if not starts:
            return None, None
        x = np.concatenate([ours[s] for s in starts]).astype(float)
        y = np.concatenate([theirs[s] for s in starts]).astype(float)
        return x, y


class WithBase:
    """A pick's paired differences from the base rules over the held-out deals both played
    (:attr:`Candidate.paired`): a view of the confirmation's :class:`PairTable`."""

    def __init__(self, table: PairTable, pick: Candidate, base: Candidate):
        self.table, self.pick, self.base = table, pick, base

    def names(self) -> list[str]:
        """The measures paired."""
        return self.table.names(self.pick, self.base)

    def interval(self, name: str) -> tuple[float, float, float] | None:
        """``(D, lo, hi)``: the pick minus the base on measure ``name``."""
        return self.table.difference(self.pick, self.base, name)

    def loss_interval(self, aim: Aim) -> tuple[float, float, float] | None:
        """``(D, lo, hi)``: the pick's loss minus the base's on ``aim``."""
        return self.table.loss_interval(self.pick, self.base, aim)

    def winner_changes(self) -> tuple[float, float, float] | None:
        """``(share, lo, hi)``: how often the pick's winner differs from the base's on the
        same deals (:meth:`PairTable.winner_changes`)."""
        return self.table.winner_changes(self.pick, self.base)


def loss_difference(
    found: tuple[float, float, float], aim: Aim, mine: float, theirs: float
) -> tuple[float, float, float] | None:
    """``(D, lo, hi)`` of ``loss(mine) − loss(theirs)`` from ``found``, the difference of
    the measure itself (mine − theirs) with its interval, ``mine`` and ``theirs`` being the
    two estimates; None where the loss is not that difference up to its sign (estimates
    on either side of a target)."""
    sign = 1.0
    if aim.goal == "max":
        sign = -1.0
    elif aim.goal == "target":
        above = (mine - aim.target, theirs - aim.target)
        if above[0] * above[1] <= 0:
            return None
        sign = 1.0 if above[0] > 0 else -1.0
    d, lo, hi = found
    low, high = sorted((sign * lo, sign * hi))
    return sign * d, low, high
