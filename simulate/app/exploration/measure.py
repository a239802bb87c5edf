"""Playing a candidate rule set on a range of deal indices and measuring it, every deal
charged to the search's budget.

A candidate's games (matches, in match play) ``first .. stop − 1`` are the same deals for
every candidate that deals the same cards (game ``i`` depends only on ``(seed, i)``):
common random numbers. With ``skill`` aimed, the same indices are also played as skill
games (the skilled strategy in seat 0, ``random`` elsewhere, every seating), which cost
``players`` deals per deal. The measures come from :func:`analysis.balance.balance_measures`
on everything a sample holds.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...core.errors import CardsimError
from ...runs.request import Request
from .plan import known_deals
from .space import FAILED, UNCLEAR, Aim, RuleSet

SMALL_CHUNK = 64
"""Matches per kernel call when a match's deals are not known in advance (``target_score``):
the budget is checked before each call."""


@dataclass
class Sample:
    """What a candidate played on some deal indices, counted as it is played: the counts
    the balance measures are made of (:class:`analysis.balance.BalanceCounts` of its games,
    each seat's summed match share in match play, :class:`analysis.balance.SkillCounts` of
    its skill games), with the units (games or matches) and deals (records, every seating
    of the skill games included) they hold. No record is kept, so a race's memory does not
    grow with its budget."""

    counts: Any = None
    match_wins: Any = None
    """``(summed shares per seat, matches)`` in match play."""
    skill: Any = None
    units: int = 0
    deals: int = 0
    traces: list = field(default_factory=list)
    """The traces of its first games (when a chance measure is measured): Arrow tables."""
    traced: int = 0

    def clear(self) -> None:
        """Forget the counts (the units and deals stay): a candidate out of the race keeps
        its estimates only."""
        self.counts = self.match_wins = self.skill = None
        self.traces = []

    def add_trace(self, request: Request, table: pa.Table, wanted: int) -> None:
        """Trace the first of a chunk's games (``table``, from its first game) while the
        sample holds fewer than ``wanted`` traced games."""
        count = min(wanted - self.traced, table.num_rows)
        if count <= 0 or request.match_play:
            return
        engine = request.game.spec.engine()
        first = table["game"][0].as_py()
        found = engine.trace(request, request.specs, first, table, count=count)
        if found is not None:
            self.traces.append(found)
        self.traced += count

    def chances(self, rollouts: int) -> dict | None:
        """The chance measures of its traced games (None when none is traced)."""
        if not self.traces:
            return None
        from analysis.chances import chance_measures

        trace = pa.concat_tables(self.traces).to_pandas()
        return chance_measures(trace, rollouts=rollouts)

    def add_games(self, table: pa.Table, request: Request) -> None:
        """Count a chunk's games (one row per game, per deal in match play)."""
        from analysis.balance import BalanceCounts, lead_of
        from analysis.load import batch_of

        if table.num_rows == 0:
            return
        if self.counts is None:
            columns = table.column_names
            lead = lead_of(columns, request.meta().get("rules", {}))
            self.counts = BalanceCounts(request.game.spec, request.players, columns, lead)
        self.counts.update(batch_of(table.select(list(self.counts.columns))))

    def add_matches(self, table: pa.Table, players: int) -> None:
        """Count a chunk's matches: each seat's share of their wins."""
        if table.num_rows == 0:
            return
        shares = [f"share_{seat}" for seat in range(players)]
        summed = np.array([pc.sum(table[name]).as_py() for name in shares], float)
        if self.match_wins is None:
            self.match_wins = (np.zeros(players), 0)
        wins, count = self.match_wins
        self.match_wins = (wins + summed, count + table.num_rows)

    def add_skill(self, table: pa.Table) -> None:
        """Count a chunk's skill games, each deal's seatings together (as a run folder's
        are read: in order of their game, or match)."""
        from analysis.balance import SkillCounts
        from analysis.load import batch_of

        if table.num_rows == 0:
            return
        if self.skill is None:
            self.skill = SkillCounts(table.column_names)
        key = self.skill.key
        order = pc.sort_indices(table, sort_keys=[(key, "ascending")])
        self.skill.update(batch_of(table.select(list(self.skill.columns)).take(order)))


@dataclass
class Candidate:
    """A rule set under measurement: its requests (its own games, and its skill games when
    skill is aimed), what it played in the search and on held-out deals, its estimates."""

    rule_set: RuleSet | None
    """None for the base rules when they are not a point of the space."""
    request: Request
    skill_request: Request | None
    search: Sample = field(default_factory=Sample)
    held_out: Sample = field(default_factory=Sample)
    rounds: int = 0
    """Racing rounds played."""
    traces: int = 0
    """Games of each sample to trace (the sample's first: a chance measure is measured)."""
    dropped: int | None = None
    """The round after which the race dropped it (None: still in the race)."""
    estimates: Any = None
    """The latest :func:`analysis.balance.balance_measures` table of the search deals."""
    first_estimates: Any = None
    """That table after round 1 (games 0 .. f − 1, the same for every candidate, before
    any selection): what the knobs' main effects compare."""
    confirmed: Any = None
    """That table on the held-out deals, once confirmed."""
    is_base: bool = False
    paired: Any = None
    """Held out: the paired differences from the base rules on the same deals
    (:class:`~simulate.app.exploration.pairing.WithBase`), where the two deal alike; else
    None."""
    left_because: str | None = None
    """Why the race dropped it: ``fails R`` or ``beaten on MEASURE``."""
    twin_of: Any = None
    """The best rule set this one plays exactly like (:func:`~.racing.plays_alike`), if any."""
    _rows: dict = field(default_factory=dict, repr=False, compare=False)
    """Per table (search, held-out): the table and its rows as ``{measure: (value, lo, hi)}``."""

    @property
    def alive(self) -> bool:
        return self.dropped is None

    @property
    def index(self) -> int:
        """Its position in the space's product (−1 for base rules outside the space)."""
        return self.rule_set.index if self.rule_set is not None else -1

    @property
    def deals(self) -> int:
        """Every deal it played: search, skill and held-out."""
        return self.search.deals + self.held_out.deals

    def estimate(self, name: str, confirmed: bool = False) -> tuple[float, float, float]:
        """``(value, lo, hi)`` of measure ``name`` (search or held-out estimates). The rows
        are read out of the table once per table: the race asks for them for every pair of
        candidates, and a DataFrame lookup costs a millisecond."""
        table = self.confirmed if confirmed else self.estimates
        found = self._rows.get(confirmed)
        if found is None or found[0] is not table:
            numbers = table[["value", "lo", "hi"]].to_numpy(float)
            rows = {
                measure: tuple(float(x) for x in row)
                for measure, row in zip(table.index, numbers, strict=True)
            }
            found = self._rows[confirmed] = (table, rows)
        return found[1][name]

    def values(self, aims: tuple[Aim, ...], confirmed: bool = False) -> list[tuple[float, ...]]:
        """``(value, lo, hi)`` of each aim's measure (search or held-out estimates)."""
        return [self.estimate(aim.measure, confirmed) for aim in aims]

    def requirement_status(self, requirement, confirmed: bool = False) -> str:
        """The status of a :class:`~simulate.app.exploration.space.Requirement` on the search
        (or held-out) estimates: met, failed or unclear."""
        _, lo, hi = self.estimate(requirement.measure, confirmed)
        return requirement.status(lo, hi)

    def standing(self, requires, confirmed: bool = False) -> int:
        """0 when every requirement is met, 1 when none fails but some are unclear, 2 when
        one fails (on the search or held-out estimates); 0 without requirements."""
        found = {self.requirement_status(r, confirmed) for r in requires}
        return 2 if FAILED in found else 1 if UNCLEAR in found else 0

    def losses(self, aims: tuple[Aim, ...]) -> list[tuple[float, float, float]]:
        """``(loss, smallest loss, largest loss)`` of each aim on the search estimates."""
        out = []
        for aim, (value, lo, hi) in zip(aims, self.values(aims), strict=True):
            out.append((aim.loss(value), *aim.loss_range(lo, hi)))
        return out


class Budget:
    """The deals the search may play, and those it has played. A block is played only
    when its cost fits what is left: exactly known for single deals and matches of a fixed
    number of deals. Matches played to a score are played in chunks of
    :data:`SMALL_CHUNK`, each started only when it fits at the longest match seen so far;
    blocks of them are planned at the typical match (the mean seen, a quarter more)."""

    def __init__(self, total: int):
        self.total = total
        self.spent = 0
        self.longest_match = 1
        self.matches = 0
        self.match_deals = 0

    @property
    def left(self) -> int:
        return self.total - self.spent

    def per_unit(self, candidate: Candidate, *, planning: bool = False) -> int:
        """Deals one game (match) of ``candidate`` costs, skill games included: exact unless
        its matches run to a score; then the longest match seen so far, or with
        ``planning`` the typical one."""
        deals = known_deals(candidate.request)
        if deals is None:
            deals = self.longest_match
            if planning and self.matches:
                deals = min(deals, math.ceil(1.25 * self.match_deals / self.matches))
        seatings = len(candidate.skill_request.seatings()) if candidate.skill_request else 0
        return deals * (1 + seatings)

    def saw_matches(self, matches: pa.Table) -> None:
        """Learn the length of matches just played."""
        if "deals" not in matches.column_names or matches.num_rows == 0:
            return
        deals = matches.column("deals")
        self.longest_match = max(self.longest_match, int(pc.max(deals).as_py()))
        self.matches += matches.num_rows
        self.match_deals += int(pc.sum(deals).as_py())


def play(
    candidate: Candidate,
    sample: Sample,
    first: int,
    stop: int,
    budget: Budget,
    *,
    cluster=None,
    observe: Callable[[pa.Table], None] | None = None,
) -> int:
    """Play ``candidate``'s games (matches) ``first .. stop − 1`` into ``sample``, and
    the skill games on the same indices, charging ``budget``; returns the units played
    (fewer than asked only when matches played to a score would overrun the budget).
    ``cluster`` (:class:`simulate.runs.cluster.session.Cluster`): the games are played on its
    workers, the block cut into tasks of chunks; the records, in game order, are this
    machine's, so the measures and every choice made from them are too. ``observe`` is
    given each chunk's records of games (not the skill games'), in game order."""
    from ..api.playing import play_chunks

    if cluster is not None:
        play_chunks = cluster.play_chunks

    exact = known_deals(candidate.request) is not None
    step = stop - first if exact else SMALL_CHUNK
    done = first
    while done < stop:
        end = min(stop, done + step)
        if budget.per_unit(candidate) * (end - done) > budget.left:
            break
        for request, skill in ((candidate.request, False), (candidate.skill_request, True)):
            if request is None:
                continue
            for _, _, chunk in play_chunks(request, spans=[(done, end)]):
                if skill:
                    sample.add_skill(chunk.games)
                else:
                    sample.add_games(chunk.games, request)
                    if candidate.traces:
                        sample.add_trace(request, chunk.games, candidate.traces)
                    if observe is not None:
                        observe(chunk.games)
                sample.deals += chunk.games.num_rows
                budget.spent += chunk.games.num_rows
                if not skill and chunk.matches is not None:
                    sample.add_matches(chunk.matches, request.players)
                    budget.saw_matches(chunk.matches)
        sample.units += end - done
        done = end
    return done - first


def measure(candidate: Candidate, sample: Sample, aims: tuple[Aim, ...], requires=()):
    """The balance measures of everything ``sample`` counted (the table
    :func:`analysis.balance.balance_measures` gives of the same records); raises when an
    aimed or required measure cannot be computed for this game."""
    from analysis.balance import measures_from_counts

    request = candidate.request
    table = measures_from_counts(
        sample.counts,
        spec=request.game.spec,
        match_wins=sample.match_wins,
        skill=sample.skill,
        chances=sample.chances(request.rollouts),
    )
    wanted = [*(aim.measure for aim in aims), *(r.measure for r in requires)]
    missing = [name for name in wanted if name not in table.index]
    if missing:
        raise CardsimError(
            f"{missing[0]} cannot be measured for {request.game.name} (its records lack what "
            f"it needs); measures here: {', '.join(table.index)}"
        )
    return table


Echo = Callable[[str], None]
