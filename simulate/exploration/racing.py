"""The race: which candidates stay, which are clearly beaten, and which are the best.

Every aim turns a measure into a *loss* (:class:`~simulate.exploration.space.Aim`: distance to
a target, or the measure's value negated for ``max``). A candidate's 95% interval of the
measure gives an interval of its loss. After each round:

- one aim: a candidate is dropped when its smallest loss exceeds the largest loss of the
  best candidate (the one whose largest loss is smallest): clearly worse;
- several aims: a candidate is dropped when another candidate still in the race is clearly
  better on one aim (its largest loss below this one's smallest) and not clearly worse on
  any (its smallest loss at most this one's largest): clearly dominated. Aims on which the
  two cannot be told apart count as ties.

The best rule sets: with one aim, the three best by (rounds raced, loss); with several,
the Pareto front of the candidates left in the race (on their losses) and of it the five
closest to the aims in the normalized distance of :func:`distances`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .measure import Candidate
from .space import Aim

BEST_ONE_AIM = 3
"""Rule sets reported (and confirmed) for one aim."""
BEST_SEVERAL_AIMS = 5
"""At most this many members of the Pareto front are reported for several aims."""


def eliminate(alive: Sequence[Candidate], aims: tuple[Aim, ...]) -> list[Candidate]:
    """The candidates of ``alive`` (every one measured) that are clearly beaten, in order."""
    losses = {id(c): c.losses(aims) for c in alive}
    if len(aims) == 1:
        bar = min(losses[id(c)][0][2] for c in alive)
        return [c for c in alive if losses[id(c)][0][1] > bar]
    beaten = []
    for c in alive:
        mine = losses[id(c)]
        for other in alive:
            if other is c:
                continue
            theirs = losses[id(other)]
            never_worse = all(t[1] <= m[2] for t, m in zip(theirs, mine, strict=True))
            better = any(t[2] < m[1] for t, m in zip(theirs, mine, strict=True))
            if never_worse and better:
                beaten.append(c)
                break
    return beaten


def pareto_front(candidates: Sequence[Candidate], aims: tuple[Aim, ...]) -> list[Candidate]:
    """The candidates no other one dominates on the losses' point estimates (at most as
    large on every aim and smaller on one), in the order given."""
    points = [[loss for loss, _, _ in c.losses(aims)] for c in candidates]
    front = []
    for i, c in enumerate(candidates):
        dominated = any(
            all(q <= p for q, p in zip(points[j], points[i], strict=True))
            and any(q < p for q, p in zip(points[j], points[i], strict=True))
            for j in range(len(candidates))
            if j != i
        )
        if not dominated:
            front.append(c)
    return front


def scales(candidates: Sequence[Candidate], aims: tuple[Aim, ...]) -> list[tuple[float, float]]:
    """Per aim, the ``(best, scale)`` that :func:`distances` normalizes with: the scale is
    the spread (largest minus smallest value) of the measure over ``candidates`` (1 when
    they all agree); the best is the target, or the largest (``max``) or smallest (``min``)
    value among them."""
    out = []
    for k, aim in enumerate(aims):
        values = [c.values(aims)[k][0] for c in candidates]
        spread = max(values) - min(values)
        scale = spread if spread > 0 else 1.0
        best = {"max": max(values), "min": min(values)}.get(aim.goal, aim.target)
        out.append((best, scale))
    return out


def distances(
    candidates: Sequence[Candidate],
    aims: tuple[Aim, ...],
    reference: Sequence[Candidate],
) -> list[float]:
    """Each candidate's normalized distance to the aims: the square root of the sum over
    aims of ``(|value − best| / scale)²`` with ``best`` and ``scale`` from :func:`scales`
    over ``reference`` (every candidate measured)."""
    norms = scales(reference, aims)
    out = []
    for c in candidates:
        values = c.values(aims)
        total = sum(((values[k][0] - best) / scale) ** 2 for k, (best, scale) in enumerate(norms))
        out.append(math.sqrt(total))
    return out


def plays_alike(one: Candidate, other: Candidate) -> bool:
    """Whether two candidates measured exactly alike on the same games: every measure, with
    its interval, equal to the last digit. Rule sets that differ only in knobs that never
    come into play (stacking without draw cards, say) play the very same games."""
    if one.estimates is None or other.estimates is None:
        return False
    if one.search.units != other.search.units:
        return False
    columns = ["value", "lo", "hi"]
    return one.estimates[columns].equals(other.estimates[columns])


def best(
    candidates: Sequence[Candidate], aims: tuple[Aim, ...]
) -> tuple[list[Candidate], list[Candidate]]:
    """``(picks, front)``: the best rule sets in order, and (several aims) the Pareto front
    they come from (one aim: the candidates left in the race).

    One aim: the candidates ordered by rounds raced (most first: those left in the race,
    then those dropped last) then by loss; the first :data:`BEST_ONE_AIM`. Several: the
    front of the candidates left in the race, ordered by normalized distance, the first
    :data:`BEST_SEVERAL_AIMS`. Ties go to the earlier rule set of the product. A candidate
    that plays exactly like a pick (:func:`plays_alike`) is not picked again: its
    ``twin_of`` names that pick."""
    alive = [c for c in candidates if c.alive]
    if len(aims) == 1:
        ordered = sorted(
            candidates,
            key=lambda c: (c.alive is False, -c.rounds, c.losses(aims)[0][0], c.index),
        )
        return _distinct(ordered, BEST_ONE_AIM), alive
    front = pareto_front(alive, aims)
    gaps = distances(front, aims, candidates)
    order = sorted(range(len(front)), key=lambda i: (gaps[i], front[i].index))
    return _distinct([front[i] for i in order], BEST_SEVERAL_AIMS), front


def _distinct(ordered: Sequence[Candidate], count: int) -> list[Candidate]:
    """The first ``count`` of ``ordered`` that do not play like an earlier pick; the twins
    of the picks (wherever they stand in ``ordered``) are marked."""
    picks: list[Candidate] = []
    for candidate in ordered:
        twin = next((pick for pick in picks if plays_alike(candidate, pick)), None)
        if twin is not None:
            candidate.twin_of = twin
        elif len(picks) < count:
            picks.append(candidate)
    return picks
