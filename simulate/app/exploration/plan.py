"""An exploration planned and checked before any game is played: the base rules, the
space, the aims, the method and whether the budget covers the first racing round and the
confirmation. Every mistake is one :class:`~simulate.core.errors.CardsimError` line.

The budget (deals) is shared out so:

- :data:`CONFIRM_SHARE` of it is kept for the confirmation, on held-out deals, of the best
  rule sets and the base rules (the confirmation also gets whatever the search leaves);
- the rest is the search's. ``exhaustive`` plays the first round (:attr:`Plan.first_round`
  games each) for every rule set of the space, then races; ``search`` lets optuna propose
  rule sets in batches of :data:`BATCH` while the first rounds take at most
  :data:`PROPOSAL_SHARE` of the search's deals, then races;
- ``auto`` is ``exhaustive`` when the first round of every rule set takes at most half of
  the search's deals (the other half is left for racing), else ``search``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ...core.errors import CardsimError
from ...core.measures import TRACE_MEASURES
from ...core.rng import MAX_SEED
from ...core.skill import DEFAULT_SKILL, skill_seats
from ...games.registry import GameInfo, check_players, resolve_game
from ...runs.request import Request, make_request
from .space import (
    Aim,
    Knob,
    Requirement,
    Space,
    build_space,
    check_knobs,
    number_text,
    parse_aims,
    parse_requirements,
    parse_vary,
)

METHODS = ("auto", "exhaustive", "search")
BEST_ONE_AIM = 3
"""Rule sets reported (and confirmed) for one aim."""
BEST_SEVERAL_AIMS = 5
"""At most this many members of the Pareto front are reported for several aims."""
DEFAULT_BUDGET = 1_000_000
"""Deals an exploration plays when no budget is given."""
FIRST_ROUND = 1_000
"""Games (matches) each candidate plays in the first racing round, by default."""
MIN_FIRST_ROUND = 50
CONFIRM_SHARE = 0.2
"""Share of the budget kept for confirming the best rule sets on held-out deals."""
PROPOSAL_SHARE = 0.5
"""``search``: the most of the search's deals that first rounds of proposals may take."""
BATCH = 8
"""``search``: rule sets optuna proposes between two eliminations."""
HOLDOUT_FIRST = 2**40
"""The first game (match) index of the held-out deals: the search plays indices from 0 up
and never reaches it, so the confirmation's deals are fresh."""
MAX_BUDGET = HOLDOUT_FIRST
"""The most deals an exploration may be given: the search's indices stay below the
held-out deals'."""
EXPLORE_TRACE = 200
"""Games of each candidate's sample (its search games, its held-out games) traced when a
chance measure (:data:`simulate.core.measures.TRACE_MEASURES`) is aimed at or required:
the first games of the sample, at the default rollouts."""
MATCH_KNOBS = ("match_deals", "target_score")
"""The knobs that make matches: explore measures single deals unless the base rules set
one of them."""


@dataclass
class Plan:
    """Everything an exploration needs, checked."""

    game: GameInfo
    players: int
    knobs: tuple[Knob, ...]
    aims: tuple[Aim, ...]
    budget: int
    seed: int
    method: str
    """The method used (``auto`` resolved)."""
    method_asked: str
    first_round: int
    rules: dict
    """The base rules as overrides of the preset: ``--config``, ``--rule``, and match play
    turned off where they do not ask for it."""
    single_deals: dict
    """The overrides that turned match play off (empty when none were needed)."""
    strategies: tuple[str, ...] | None
    skill: str | None
    """The skilled strategy when skill is aimed at and the game has choices, else None."""
    threads: int | None
    space: Space
    base: Request
    match_deals: dict[int, int]
    """Deals per game (match) of each playable rule set, by its index in the product, as
    far as known before playing (a match played to a score counts 1)."""
    title: str = ""
    requires: tuple[Requirement, ...] = ()
    """What every rule set must keep (``--require``)."""

    @property
    def traces(self) -> int:
        """Games traced in each sample of a candidate (:data:`EXPLORE_TRACE` when a chance
        measure is aimed at or required, else 0)."""
        measured = [*(a.measure for a in self.aims), *(r.measure for r in self.requires)]
        return EXPLORE_TRACE if any(name in TRACE_MEASURES for name in measured) else 0

    @property
    def confirm_count(self) -> int:
        """Rule sets confirmed on held-out deals besides the base: the picks, and with
        requirements as many spares, so that a pick that fails there has a replacement."""
        best = BEST_ONE_AIM if len(self.aims) == 1 else BEST_SEVERAL_AIMS
        return min(best * (2 if self.requires else 1), len(self.space.valid))

    @property
    def search_budget(self) -> int:
        """The deals the search may play (the rest is kept for the confirmation)."""
        return self.budget - self.confirm_reserve

    @property
    def confirm_reserve(self) -> int:
        return math.ceil(self.budget * CONFIRM_SHARE)

    def request_of(self, rule_set) -> Request:
        """The request of a rule set of the space (its games, on the base's seats)."""
        return make_request(
            self.game.name,
            players=self.players,
            games=1,
            seed=self.seed,
            threads=self.threads,
            rules={**self.rules, **rule_set.overrides(self.knobs)},
            strategies=self.strategies,
        )

    def unit_deals(self, index: int) -> int:
        """Deals one game (match) of rule set ``index`` costs with its skill games, as far
        as known before playing."""
        seatings = self.players if self.skill is not None else 0
        return self.match_deals[index] * (1 + seatings)

    def skill_request(self, request: Request) -> Request | None:
        """The skill games of a rule set (None when skill is not aimed or the game has no
        choices): the skilled strategy in seat 0, ``random`` elsewhere, every seating."""
        if self.skill is None:
            return None
        return make_request(
            self.game.name,
            players=self.players,
            games=1,
            seed=self.seed,
            threads=self.threads,
            rules=request.rules,
            strategies=skill_seats(self.skill, self.players),
            rotate_seats=True,
        )


def plan_explore(
    game: str,
    *,
    players: int | None = None,
    vary: Any,
    aim: Any,
    require: Any = None,
    budget: int = DEFAULT_BUDGET,
    seed: int | None = None,
    method: str = "auto",
    first_round: int = FIRST_ROUND,
    rules: dict | None = None,
    strategies=None,
    skill: str | None = None,
    threads: int | None = None,
    title: str | None = None,
) -> Plan:
    """Check an exploration's settings and build its space (raising CardsimError, before
    any game is played). ``vary``: ``--vary`` items or ``{knob: values}``; ``aim``:
    ``--aim`` items or ``{measure: target | "max" | "min" | None}``; ``rules``: the base's
    knob overrides (as ``--rule`` / ``--config`` give them); ``require``: ``--require``
    items (``["first_seat_advantage<=1pt"]``), none by default; ``title``: the report's and
    explore.json's (an explore file's ``title``; default: the game and the table)."""
    info = resolve_game(game)
    players = info.default_players if players is None else players
    check_players(info, players)
    if method not in METHODS:
        raise CardsimError(f"--method must be one of {', '.join(METHODS)}, got {method!r}")
    if isinstance(budget, bool) or not isinstance(budget, int) or not 1 <= budget <= MAX_BUDGET:
        raise CardsimError(
            f"--budget must be a whole number of deals from 1 to {MAX_BUDGET:,} (2**40, "
            f"where the held-out deals begin), got {budget!r}"
        )
    if (
        isinstance(first_round, bool)
        or not isinstance(first_round, int)
        or first_round < MIN_FIRST_ROUND
    ):
        raise CardsimError(
            f"--first-round must be a whole number of at least {MIN_FIRST_ROUND}, got "
            f"{first_round!r}"
        )
    if seed is None:
        import secrets

        seed = secrets.randbits(63)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise CardsimError(f"seed must be a whole number from 0 to {MAX_SEED}, got {seed!r}")
    knobs = parse_vary(vary)
    aims = parse_aims(aim)
    _check_values(aims, (), players)
    requires = parse_requirements(require)
    _check_values((), requires, players)
    overrides = dict(rules or {})
    preset = info.base_rules()
    base_rules = _base_rules(preset, overrides)
    single: dict = {}
    if base_rules.match_play and not any(knob in overrides for knob in MATCH_KNOBS):
        single = {knob: None for knob in MATCH_KNOBS}
        overrides.update(single)
        base_rules = _base_rules(preset, overrides)
    base = make_request(
        info.name,
        players=players,
        games=1,
        seed=seed,
        threads=threads,
        rules=overrides,
        strategies=strategies,
    )
    check_knobs(knobs, base_rules)
    measured = [*(a.measure for a in aims), *(r.measure for r in requires)]
    _check_traceable(info, measured, base_rules, knobs)
    wants_skill = "skill" in measured and info.spec.takes_strategies
    skilled = None
    if info.spec.takes_strategies and (wants_skill or skill is not None):
        # checked whether aimed at or not: a bad value is bad wherever it is given
        skilled = DEFAULT_SKILL if skill is None else skill
        try:
            make_request(
                info.name,
                players=players,
                games=1,
                seed=seed,
                threads=threads,
                rules=overrides,
                strategies=skill_seats(skilled, players),
                rotate_seats=True,
            )
        except CardsimError as exc:
            raise CardsimError(f"--skill {skilled}: {exc}") from None
        if not wants_skill:
            skilled = None
    match_deals: dict[int, int] = {}
    counter = {"index": 0}

    def check_in_order(knob_values: dict) -> None:
        # build_space checks the rule sets in product order, the unplayable ones included
        index = counter["index"]
        counter["index"] += 1
        request = make_request(
            info.name,
            players=players,
            games=1,
            seed=seed,
            threads=threads,
            rules={**overrides, **knob_values},
            strategies=strategies,
        )
        match_deals[index] = known_deals(request) or 1

    space = build_space(knobs, check_in_order)
    plan = Plan(
        game=info,
        players=players,
        knobs=knobs,
        aims=aims,
        budget=budget,
        seed=seed,
        method=method,
        method_asked=method,
        first_round=first_round,
        rules=overrides,
        single_deals=single,
        strategies=tuple(strategies) if strategies else None,
        skill=skilled,
        threads=threads,
        space=space,
        base=base,
        match_deals=match_deals,
        title=title or f"{info.title}, {players} players",
        requires=requires,
    )
    plan.method = _method(plan)
    _check_budget(plan)
    return plan


def _check_values(aims, requires, players: int) -> None:
    """Refuse an aim's target or a requirement's bound that its measure cannot take
    (``decisive=2``, ``turns>=-1``)."""
    from ...core.measures import measure_range

    given = [("--aim", a.text, a.measure, a.target) for a in aims if a.goal == "target"]
    given += [("--require", r.text, r.measure, r.bound) for r in requires]
    for option, text, measure, value in given:
        low, high, words = measure_range(measure, players)
        if not low <= value <= high:
            raise CardsimError(
                f"{option} {text}: {measure} is {words}; "
                f"{number_text(value)} is not a value it can take"
            )


def _check_traceable(info, measured: list[str], base_rules, knobs) -> None:
    """Refuse a chance measure (aimed or required) where the games cannot be traced: a
    game without a trace, rules that play matches, or a space that varies them."""
    traced = [name for name in measured if name in TRACE_MEASURES]
    if not traced:
        return
    name = traced[0]
    if "trace" not in info.spec.commands:
        raise CardsimError(f"{name}: {info.name} cannot trace its games' win chances yet")
    varied = [knob.name for knob in knobs if knob.name in MATCH_KNOBS]
    if base_rules.match_play or varied:
        raise CardsimError(
            f"{name} needs traced games, and a trace follows single deals: these rules play "
            f"matches{' (--vary ' + varied[0] + ')' if varied else ''}; aim at it on single deals"
        )


def _base_rules(preset, overrides: dict):
    return preset.with_overrides(overrides) if overrides else preset


def known_deals(request: Request) -> int | None:
    """Deals per game or match when known in advance: 1 for single deals, the rules'
    ``match_deals`` for matches of a fixed length; None for matches played to a score."""
    if not request.match_play:
        return 1
    deals = request.rules.to_dict().get("match_deals")
    return int(deals) if isinstance(deals, int) and not isinstance(deals, bool) else None


def first_round_cost(plan: Plan, method: str) -> int:
    """Deals of the first racing round: every rule set (``exhaustive``), or the first batch
    of proposals (``search``: the :data:`BATCH` dearest rule sets)."""
    costs = sorted((plan.unit_deals(rs.index) for rs in plan.space.valid), reverse=True)
    if method == "search":
        costs = costs[:BATCH]
    return sum(costs) * plan.first_round


def _method(plan: Plan) -> str:
    if plan.method_asked != "auto":
        return plan.method_asked
    fits = first_round_cost(plan, "exhaustive") <= plan.search_budget / 2
    return "exhaustive" if fits or len(plan.space.valid) <= BATCH else "search"


def _check_budget(plan: Plan) -> None:
    """Refuse a budget that cannot pay the first racing round and, from the part kept for
    it, a first round's worth of held-out deals for each rule set confirmed."""
    first = first_round_cost(plan, plan.method)
    confirmed = plan.confirm_count + 1
    dearest = max(plan.unit_deals(rs.index) for rs in plan.space.valid)
    confirm = confirmed * dearest * plan.first_round
    needed = max(math.ceil(first / (1 - CONFIRM_SHARE)), math.ceil(confirm / CONFIRM_SHARE))
    if plan.budget < needed:
        what = (
            f"{len(plan.space.valid):,} rule sets"
            if plan.method == "exhaustive"
            else f"a batch of {min(BATCH, len(plan.space.valid))} proposals"
        )
        raise CardsimError(
            f"--budget {plan.budget:,} is too small for the first racing round ({what} x "
            f"{plan.first_round:,} {plan.base.unit}s = {first:,} deals) and the confirmation "
            f"({CONFIRM_SHARE:.0%} of the budget); give --budget {needed:,} or more, or a "
            "smaller --first-round"
        )
