"""Paired differences between the rule sets of a race that deal alike.

Rule sets whose deals take the same cards (single deals of the same hand size and decks:
:func:`analysis.statistics.paired.deal_obstacle`) play the very same deals at each index,
so their difference on a measure that is a mean over games (the first seat's advantage,
decisiveness, turns, lead changes, comebacks: :data:`analysis.balance.PAIRED_MEASURES`) is
best read on the games' paired differences, whose spread leaves out the luck of the deal.

From round 2 on, the race's candidates play each block of games in step; for every group
that deals alike and every measure, the block's values give, with four matrix products,
each pair's games in common, the sum of their differences and of their squares
(:class:`PairTable`). Memory: three numbers per pair and measure, whatever the games.
"""

from __future__ import annotations

import numpy as np

from .measure import Candidate
from .space import Aim

RACE_BLOCK = 1 << 14
"""Games the candidates of a round play in step before their values are paired."""


def deal_key(candidate: Candidate) -> str | None:
    """What deals alike share (the deal shape); None for match play, which is not paired."""
    request = candidate.request
    if request.match_play:
        return None
    return request.game.spec.deal_shape(request.meta().get("rules", {}), request.players)


class PairTable:
    """Per pair of candidates (by product index) that deal alike and per measure, over the
    games they played in step: ``(games, Σ(x_a − x_b), Σ(x_a − x_b)²)`` with ``a`` the
    smaller index."""

    def __init__(self):
        self.sums: dict[tuple[int, int], dict[str, np.ndarray]] = {}

    def add_block(
        self,
        members: list[Candidate],
        values: list[dict[str, np.ndarray]],
        keys: list[str | None],
    ) -> None:
        """Add one block of games played in step by ``members``; ``values[i]`` is
        :func:`analysis.balance.deal_values` of member i's games, in the same game order,
        and ``keys[i]`` its :func:`deal_key` (only members of equal keys are paired)."""
        groups: dict[str, list[int]] = {}
        for i, key in enumerate(keys):
            if key is not None:
                groups.setdefault(key, []).append(i)
        for rows in groups.values():
            if len(rows) < 2:
                continue
            names = set.intersection(*(set(values[i]) for i in rows))
            for name in sorted(names):
                x = np.vstack([values[i][name] for i in rows])
                mask = (~np.isnan(x)).astype(float)
                x = np.nan_to_num(x)
                common = mask @ mask.T  # games both count
                sums = x @ mask.T  # Σ x_a over the games in common with b
                squares = (x * x) @ mask.T
                cross = x @ x.T
                for a in range(len(rows)):
                    for b in range(a + 1, len(rows)):
                        n = common[a, b]
                        if n == 0:
                            continue
                        diff = sums[a, b] - sums[b, a]
                        diff2 = squares[a, b] + squares[b, a] - 2 * cross[a, b]
                        ia, ib = members[rows[a]].index, members[rows[b]].index
                        pair = (ia, ib) if ia < ib else (ib, ia)
                        sign = 1 if ia < ib else -1
                        found = self.sums.setdefault(pair, {}).setdefault(name, np.zeros(3))
                        found += (n, sign * diff, diff2)

    def interval(
        self, mine: Candidate, other: Candidate, name: str
    ) -> tuple[float, float, float] | None:
        """``(difference, lo, hi)``: the mean of ``mine − other`` over their paired games
        with its 95% normal interval; None when they were not paired on ``name``."""
        from analysis.balance import paired_interval

        a, b = mine.index, other.index
        pair = (a, b) if a < b else (b, a)
        found = self.sums.get(pair, {}).get(name)
        if found is None:
            return None
        n, total, squares = found
        return paired_interval(n, total if a < b else -total, squares)


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
