"""An exploration played: candidates proposed (every rule set, or optuna's proposals), raced
on common random numbers, the best confirmed on held-out deals beside the base rules.

Rounds: round 1 plays games (matches) ``0 .. f − 1`` (``f`` = :attr:`Plan.first_round`)
of every candidate; round ``k`` plays the next ``f · 2^(k−1)`` of every candidate still in
the race, so that after round ``k`` each has played ``f · (2^k − 1)``, the same indices
for all: candidates that deal alike are measured on the same deals. After each round (in
round 1, after every :data:`BATCH_EXHAUSTIVE` rule sets or every batch of proposals) the
clearly beaten are dropped (:mod:`simulate.app.exploration.racing`) and forget their records. The race ends when one
candidate is left (and meets or fails every requirement), or when the next round, even cut down to ``f`` games each, would not
fit the search's deals. Then the best rule sets and the base rules play the held-out
games (matches) ``2^40 ..`` (:data:`~simulate.app.exploration.plan.HOLDOUT_FIRST`), as many each
as what is left of the budget pays for.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from .measure import Budget, Candidate, measure, play
from .pairing import RACE_BLOCK, PairTable, WithBase, deal_key
from .plan import BATCH, BEST_ONE_AIM, BEST_SEVERAL_AIMS, HOLDOUT_FIRST, PROPOSAL_SHARE, Plan
from .racing import best, eliminate
from .search import PATIENCE, Proposer

HELD_OUT_BLOCK = 1 << 16
"""Held-out games (matches) the confirmed rule sets play in step, one after another, so
that each is paired with the base rules without keeping more than a block of records."""
BATCH_EXHAUSTIVE = 50
"""``exhaustive``: rule sets played between two eliminations in round 1."""

Echo = Callable[[str], None]


@dataclass
class Round:
    """One racing round: the games (matches) ``first .. stop − 1`` played by
    ``rule_sets`` candidates, the deals that cost, the candidates dropped after it and
    those left."""

    number: int
    first: int
    stop: int
    rule_sets: int
    deals: int
    dropped: int
    left: int
    reasons: dict[str, int] = field(default_factory=dict)
    """Rule sets dropped by why (``fails R``, ``beaten on MEASURE``), most first."""


@dataclass
class Result:
    """What an exploration found."""

    plan: Plan
    candidates: list[Candidate]
    """Every candidate measured, in product order (base rules outside the space last)."""
    picks: list[Candidate]
    """The best rule sets, best first."""
    front: list[Candidate]
    """Several aims: the Pareto front the picks come from; one aim: those left in the race."""
    base: Candidate
    rounds: list[Round]
    spent: int
    held_out: int
    """Games (matches) each confirmed rule set played on held-out deals."""
    proposals: Counter = field(default_factory=Counter)
    """``search``: optuna's proposals by outcome (``new``, ``again``, ``unplayable``)."""
    elapsed_s: float = 0.0

    @property
    def confirmed(self) -> list[Candidate]:
        """The rule sets measured on held-out deals: the picks, then the base rules."""
        return [*self.picks, *([] if self.base in self.picks else [self.base])]


def run_explore(plan: Plan, *, echo: Echo = lambda line: None, cluster=None) -> Result:
    """Search ``plan``'s space, race, confirm; every deal charged to the budget. ``cluster``
    (:class:`simulate.runs.cluster.session.Cluster`): where every block of games is played, if
    not here (the same records, so the same choices)."""
    started = time.perf_counter()
    budget = Budget(plan.budget)
    state = _State(plan, budget, echo, cluster)
    if plan.method == "exhaustive":
        valid = plan.space.valid
        for start in range(0, len(valid), BATCH_EXHAUSTIVE):
            done = min(start + BATCH_EXHAUSTIVE, len(valid))
            note = f" ({done:,} of {len(valid):,} rule sets)" if len(valid) > done or start else ""
            state.first_round([state.candidate(rs) for rs in valid[start:done]], note=note)
    else:
        state.propose()
    state.fold_first_rounds()
    state.race()
    picks, front = best(state.measured(), plan.aims, plan.requires, plan.confirm_count)
    base = state.base_candidate()
    confirmed = [*picks, *([] if base in picks else [base])]
    held_out = state.confirm(confirmed)
    if plan.requires:  # the held-out standing decides; the spares step in for a failed pick
        picks = sorted(picks, key=lambda c: c.standing(plan.requires, confirmed=True))
        picks = picks[: BEST_ONE_AIM if len(plan.aims) == 1 else BEST_SEVERAL_AIMS]
    candidates = state.measured()
    if base not in candidates:
        candidates.append(base)
    return Result(
        plan=plan,
        candidates=candidates,
        picks=picks,
        front=front,
        base=base,
        rounds=state.rounds,
        spent=budget.spent,
        held_out=held_out,
        proposals=state.proposals,
        elapsed_s=round(time.perf_counter() - started, 3),
    )


class _State:
    def __init__(self, plan: Plan, budget: Budget, echo: Echo, cluster=None):
        self.plan, self.budget, self.echo = plan, budget, echo
        self.cluster = cluster
        self.by_index: dict[int, Candidate] = {}
        self.rounds: list[Round] = []
        self.proposals: Counter = Counter()
        self._dearest: int | None = None
        self.pairs = PairTable([aim.measure for aim in plan.aims], plan.players)
        """Paired differences of the race's candidates that deal alike (rounds 2 on)."""

    @property
    def _units(self) -> str:
        return "matches" if self.plan.base.match_play else "games"

    def candidate(self, rule_set) -> Candidate:
        request = self.plan.request_of(rule_set)
        found = Candidate(
            rule_set, request, self.plan.skill_request(request), traces=self.plan.traces
        )
        self.by_index[rule_set.index] = found
        return found

    def measured(self) -> list[Candidate]:
        return [self.by_index[i] for i in sorted(self.by_index)]

    def _measure(self, candidate: Candidate) -> None:
        candidate.estimates = measure(
            candidate, candidate.search, self.plan.aims, self.plan.requires
        )

    def first_round(self, batch: list[Candidate], *, note: str = "") -> None:
        """Play round 1 of ``batch``, then drop the clearly beaten among all measured and
        still in the race (so that only the race's candidates keep their records)."""
        f = self.plan.first_round
        spent = self.budget.spent
        for candidate in batch:
            play(candidate, candidate.search, 0, f, self.budget, cluster=self.cluster)
            candidate.rounds = 1
            self._measure(candidate)
            candidate.first_estimates = candidate.estimates
        alive = [c for c in self.measured() if c.alive and c.estimates is not None]
        dropped = self._drop(alive, 1)
        left = len(alive) - len(dropped)
        self.rounds.append(
            Round(
                1,
                0,
                f,
                len(batch),
                self.budget.spent - spent,
                len(dropped),
                left,
                _reasons(dropped),
            )
        )
        self.echo(
            f"round 1{note}: {len(batch):,} rule sets x {f:,} {self._units} (0 to "
            f"{f - 1:,}), {len(dropped):,} dropped, {left:,} in the race; "
            f"{self.budget.spent:,} of {self.plan.budget:,} deals spent"
        )

    def _drop(self, alive: list[Candidate], number: int) -> list[Candidate]:
        """Drop the candidates the race rules out (a lone candidate only when it fails a
        requirement), noting why."""
        plan = self.plan
        found = eliminate(alive, plan.aims, plan.requires, self.pairs)
        if len(alive) == 1:
            found = [(c, why) for c, why in found if why.startswith("fails")]
        for candidate, why in found:
            candidate.dropped = number
            candidate.left_because = why
            candidate.search.clear()
        return [c for c, _ in found]

    def propose(self) -> None:
        """``search``: optuna proposes batches of new rule sets; each plays round 1 and is
        told its losses, while first rounds take at most PROPOSAL_SHARE of the search's
        deals, new rule sets keep coming and the space is not exhausted."""
        plan = self.plan
        proposer = Proposer(plan.space, len(plan.aims), plan.seed)
        limit = plan.search_budget * PROPOSAL_SHARE
        stale, batches = 0, 0
        while stale < PATIENCE and len(self.by_index) < len(plan.space.valid):
            pending: list = []
            batch: list[Candidate] = []
            cost = self._dearest_batch_cost()
            if batches and self.budget.spent + cost > limit:
                break
            while len(batch) < BATCH and stale < PATIENCE:
                if len(self.by_index) >= len(plan.space.valid):
                    break
                trial, rule_set, _ = proposer.ask()
                if rule_set is None:
                    proposer.tell(trial, None)
                    self.proposals["unplayable"] += 1
                    stale += 1
                elif rule_set.index in self.by_index:
                    known = self.by_index[rule_set.index]
                    if known.estimates is None:  # proposed twice in this batch
                        pending.append((trial, known))
                    else:
                        proposer.tell(trial, [loss for loss, _, _ in known.losses(plan.aims)])
                    self.proposals["again"] += 1
                    stale += 1
                else:
                    candidate = self.candidate(rule_set)
                    batch.append(candidate)
                    pending.append((trial, candidate))
                    self.proposals["new"] += 1
                    stale = 0
            if not batch:
                for trial, known in pending:
                    proposer.tell(trial, [loss for loss, _, _ in known.losses(plan.aims)])
                break
            batches += 1
            self.first_round(batch, note=f" (proposals {batches})")
            for trial, candidate in pending:
                proposer.tell(trial, [loss for loss, _, _ in candidate.losses(plan.aims)])

    def fold_first_rounds(self) -> None:
        """Round 1 is played batch by batch; record it as one round."""
        if len(self.rounds) > 1:
            first = self.rounds[0]
            self.rounds = [
                Round(
                    1,
                    first.first,
                    first.stop,
                    sum(r.rule_sets for r in self.rounds),
                    sum(r.deals for r in self.rounds),
                    sum(r.dropped for r in self.rounds),
                    self.rounds[-1].left,
                    _merged(r.reasons for r in self.rounds),
                )
            ]

    def _dearest_batch_cost(self) -> int:
        if self._dearest is None:
            costs = sorted(self.plan.unit_deals(rs.index) for rs in self.plan.space.valid)
            self._dearest = sum(costs[-BATCH:]) * self.plan.first_round
        return self._dearest

    def race(self) -> None:
        """Rounds 2, 3, … for the candidates left, each on the next block of indices."""
        f = self.plan.first_round
        number = 2
        while True:
            alive = [c for c in self.measured() if c.alive]
            # a lone candidate races on while a requirement is unclear on it
            if not alive or (len(alive) == 1 and alive[0].standing(self.plan.requires) != 1):
                return
            first = f * (2 ** (number - 1) - 1)
            size = f * 2 ** (number - 1)
            per_unit = sum(self.budget.per_unit(c, planning=True) for c in alive)
            room = self.plan.search_budget - self.budget.spent
            size = min(size, room // per_unit)
            if size < f:
                return
            spent = self.budget.spent
            self._play_in_step(alive, first, first + size)
            for candidate in alive:
                candidate.rounds = number
                self._measure(candidate)
            dropped = self._drop(alive, number)
            left = len(alive) - len(dropped)
            self.rounds.append(
                Round(
                    number,
                    first,
                    first + size,
                    len(alive),
                    self.budget.spent - spent,
                    len(dropped),
                    left,
                    _reasons(dropped),
                )
            )
            self.echo(
                f"round {number}: {len(alive):,} rule sets x {size:,} {self._units} "
                f"({first:,} to {first + size - 1:,}), {len(dropped):,} dropped, {left:,} in "
                f"the race; {self.budget.spent:,} of {self.plan.budget:,} deals spent"
            )
            number += 1

    def _play_in_step(self, alive: list[Candidate], first: int, stop: int) -> None:
        """Play games ``first .. stop − 1`` of every candidate in ``alive``, block by block
        of :data:`~simulate.app.exploration.pairing.RACE_BLOCK`, pairing the games of those
        that deal alike (:attr:`pairs`) as each block is played."""
        keys = {id(c): deal_key(c) for c in alive}
        shared = Counter(k for k in keys.values() if k is not None)
        pairing = any(n > 1 for n in shared.values())
        short: set[int] = set()  # cut short by the budget: they play no later block
        for start in range(first, stop, RACE_BLOCK):
            end = min(start + RACE_BLOCK, stop)
            seen: dict[int, list] = {}
            for candidate in alive:
                if id(candidate) in short:
                    continue
                tables: list = []
                played = play(
                    candidate,
                    candidate.search,
                    start,
                    end,
                    self.budget,
                    cluster=self.cluster,
                    observe=tables.append if pairing else None,
                )
                if played == end - start:
                    seen[id(candidate)] = tables
                else:
                    short.add(id(candidate))
            if not pairing:
                continue
            members = [c for c in alive if keys[id(c)] is not None and seen.get(id(c))]
            tables = [pa.concat_tables(seen[id(c)]) for c in members]
            values, positions = _block_values(tables, [c.search.counts for c in members])
            keyed = [keys[id(c)] for c in members]
            self.pairs.add_block(members, values, keyed, positions=positions, start=start)

    def base_candidate(self) -> Candidate:
        """The base rules' candidate: the rule set of the space with the base's rules (made
        if the search never measured it), else one of its own."""
        plan = self.plan
        wanted = plan.base.rules.to_dict()
        measured = set(self.by_index)
        ordered = [rs for rs in plan.space.valid if rs.index in measured]
        ordered += [rs for rs in plan.space.valid if rs.index not in measured]
        for rule_set in ordered:
            rules = plan.base.rules.with_overrides(rule_set.overrides(plan.knobs))
            if rules.to_dict() == wanted:
                found = self.by_index.get(rule_set.index) or self.candidate(rule_set)
                found.is_base = True
                return found
        request = plan.base
        return Candidate(
            None, request, plan.skill_request(request), is_base=True, traces=plan.traces
        )

    def confirm(self, confirmed: list[Candidate]) -> int:
        """Play the held-out games (matches) of ``confirmed``: as many each as the budget
        left pays for (matches played to a score: as planned at the typical match, the
        last ones cut short if the matches run longer). The candidates play in step, block
        by block of :data:`HELD_OUT_BLOCK` games, so that each one that deals like the base
        rules (single deals) is paired with them game by game as it plays
        (:attr:`Candidate.paired`). Returns the fewest games any played."""
        from analysis.statistics.bootstrap import REPLICATES

        per_unit = sum(self.budget.per_unit(c, planning=True) for c in confirmed)
        planned = self.budget.left // per_unit
        base = next((c for c in confirmed if c.is_base), None)
        table = PairTable(None, self.plan.players, replicates=REPLICATES, changes=True)
        paired = [c for c in confirmed if base is not None and self._pairs(base, c)]
        observed = {id(c) for c in paired}  # played with their records seen, and the base
        for candidate in confirmed:
            candidate.paired = (
                WithBase(table, candidate, base) if id(candidate) in observed else None
            )
        if paired:
            paired.append(base)
            observed.add(id(base))
        stop = HOLDOUT_FIRST + planned
        for first in range(HOLDOUT_FIRST, stop, HELD_OUT_BLOCK):
            end = min(first + HELD_OUT_BLOCK, stop)
            values: dict[int, list] = {}
            for candidate in confirmed:
                if candidate.held_out.units < first - HOLDOUT_FIRST:
                    continue  # cut short already: the budget ran out
                seen: list = []
                play(
                    candidate,
                    candidate.held_out,
                    first,
                    end,
                    self.budget,
                    cluster=self.cluster,
                    observe=seen.append if id(candidate) in observed else None,
                )
                values[id(candidate)] = seen
            members = [c for c in paired if values.get(id(c))]
            if len(members) > 1 and members[-1] is base:
                _pair_block(table, members, [values[id(c)] for c in members], first)
        for candidate in confirmed:
            candidate.confirmed = measure(
                candidate, candidate.held_out, self.plan.aims, self.plan.requires
            )
            candidate.held_out.clear()
        units = min(c.held_out.units for c in confirmed)
        self.echo(
            f"confirmed {len(confirmed)} rule sets (the best and the base) on {units:,} held-out "
            f"{self._units} each (from {HOLDOUT_FIRST:,}); {self.budget.spent:,} of "
            f"{self.plan.budget:,} deals spent"
        )
        for candidate in self.measured():
            candidate.search.clear()
        return units

    def _pairs(self, base: Candidate, candidate: Candidate) -> bool:
        """Whether ``candidate`` deals the base's cards game for game (single deals only)."""
        from ...runs.folder.paired import deal_obstacle

        if candidate is base or self.plan.base.match_play:
            return False
        return deal_obstacle(base.request.meta(), candidate.request.meta()) is None


def _pair_block(table: PairTable, members: list[Candidate], tables: list[list], start: int) -> None:
    """Add one held-out block of ``members`` (the base among them) to ``table``: their
    chunk tables hold the same games in the same order (checked), a block cut short by the
    budget counting its games in common."""
    joined = [pa.concat_tables(t) for t in tables]
    rows = min(t.num_rows for t in joined)
    joined = [t.slice(0, rows) for t in joined]
    games = joined[0].column("game").to_numpy()
    if any((t.column("game").to_numpy() != games).any() for t in joined[1:]):
        raise AssertionError("held-out games out of step")  # a bug, not a user error
    values, positions = _block_values(joined, [c.held_out.counts for c in members])
    winners = [t.column("winner").to_numpy().astype(np.int64) for t in joined]
    keys = ["base"] * len(members)
    table.add_block(members, values, keys, positions=positions, winners=winners, start=start)


def _block_values(tables: list, counts: list) -> tuple[list[dict], list]:
    """Per candidate of a block, :func:`analysis.balance.deal_values` and
    :func:`~analysis.balance.deal_positions` of its games (``tables[i]``, read as
    ``counts[i]`` reads them): what :meth:`PairTable.add_block` pairs."""
    from analysis.balance import deal_positions, deal_values
    from analysis.load import batch_of

    values, positions = [], []
    for table, found in zip(tables, counts, strict=True):
        batch = batch_of(table.select(list(found.columns)))
        values.append(deal_values(batch, found))
        positions.append(deal_positions(batch, found))
    return values, positions


def _reasons(dropped: list[Candidate]) -> dict[str, int]:
    """How many of ``dropped`` left the race for each reason, most first."""
    return dict(Counter(c.left_because for c in dropped).most_common())


def _merged(parts) -> dict[str, int]:
    total: Counter = Counter()
    for part in parts:
        total.update(part)
    return dict(total.most_common())
