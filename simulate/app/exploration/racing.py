"""The race: which candidates stay, which are clearly beaten, and which are the best.

Every aim turns a measure into a *loss* (:class:`~simulate.app.exploration.space.Aim`: distance to
a target, or the measure's value negated for ``max``). A candidate's 95% interval of the
measure gives an interval of its loss. After each round a candidate leaves the race when

- it fails a requirement (its interval of the measure wholly on the wrong side of the
  bound: :class:`~simulate.app.exploration.space.Requirement`), or
- another candidate still in the race, known to meet every requirement, is at least as good
  on every aim with confidence and clearly better on one (:func:`beats`). The differences
  are judged at the comparisons' negligible thresholds (:func:`simulate.core.measures.negligible`):
  on an aim where the two cannot be told apart within the threshold, neither is dropped
  for it, however much better one is on another aim. A noisy aim (an advantage known to
  ±3 points after 1,000 games) so keeps every rule set it cannot yet rank.

Rule sets that deal alike are compared on their paired differences over the games they
played in step from round 2 on (:class:`~simulate.app.exploration.pairing.PairTable`), which
leaves out the luck of the deal: the mean of the differences for the measures that are
means over games, a paired bootstrap for the others (the seat spread, the 90th percentile,
a distance to a target the two lie on either side of).

A drop needs the difference's 95% interval clear of 0, so one comparison errs with
probability well under 5% (both intervals would have to miss); over every pair and round
the chance that some rule set is dropped wrongly is not controlled, and the report says
so. The picks are confirmed on held-out deals.

The best rule sets: with one aim, the three best by (rounds raced, loss); with several,
the Pareto front of the candidates left in the race (on their losses) and of it the five
closest to the aims in the normalized distance of :func:`distances`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ...core.measures import negligible
from .measure import Candidate
from .plan import BEST_ONE_AIM, BEST_SEVERAL_AIMS
from .space import FAILED, MET, Aim


def beats(other: Candidate, mine: Candidate, aims: tuple[Aim, ...], pairs=None) -> Aim | None:
    """The aim on which ``other`` is clearly better than ``mine`` while at least as good on
    every aim with confidence; None when it is not so. On each aim, with ``t`` the
    negligible threshold (read against ``other``'s value of the measure) and ``D`` the
    difference of losses ``loss(mine) − loss(other)``:

    - at least as good with confidence: the lower bound of ``D`` is at least ``−t``;
    - clearly better: ``D`` is at least ``t`` and its lower bound is above 0.

    ``D``'s interval is the paired one where ``pairs``
    (:class:`~simulate.app.exploration.pairing.PairTable`) paired the two rule sets on the
    aim's measure (:meth:`~simulate.app.exploration.pairing.PairTable.loss_interval`); else it
    is read from the two loss intervals (``mine``'s smallest loss minus ``other``'s
    largest, and so on). The first aim (in the aims' order) on which it is
    clearly better is returned."""
    found = beaten(other, mine, aims, pairs)
    return None if found is None else found[0]


def beaten(
    other: Candidate, mine: Candidate, aims: tuple[Aim, ...], pairs=None
) -> tuple[Aim, bool] | None:
    """:func:`beats`, with whether the aim it names was read on paired deals."""
    theirs, ours = other.losses(aims), mine.losses(aims)
    values = other.values(aims)
    limits = [negligible(aim.measure, values[k][0]) for k, aim in enumerate(aims)]
    # The differences alone first (a paired bootstrap is dear): an interval holds its
    # difference, so one below −t rules the drop out, and none reaching t leaves no aim
    # on which ``other`` is clearly better.
    points = []
    for k, aim in enumerate(aims):
        point = pairs.loss_point(mine, other, aim) if pairs is not None else None
        points.append(ours[k][0] - theirs[k][0] if point is None else point)
    if min(p + t for p, t in zip(points, limits, strict=True)) < 0:
        return None
    if not any(p >= t for p, t in zip(points, limits, strict=True)):
        return None
    clearly = None
    for k, aim in enumerate(aims):
        found = pairs.loss_interval(mine, other, aim) if pairs is not None else None
        paired = found is not None
        if found is None:
            t, m = theirs[k], ours[k]
            found = (m[0] - t[0], m[1] - t[2], m[2] - t[1])
        difference, low, _ = found
        if low < -limits[k]:
            return None
        if clearly is None and difference >= limits[k] and low > 0:
            clearly = (aim, paired)
    return clearly


def eliminate(
    alive: Sequence[Candidate], aims: tuple[Aim, ...], requires: Sequence = (), pairs=None
) -> list[tuple[Candidate, str]]:
    """The candidates of ``alive`` (every one measured) that leave the race, in order, each
    with why: ``fails R`` (R a requirement as typed) or ``beaten on MEASURE`` (with
    `` (paired deals)`` when read on the pair's paired differences). Only a
    candidate known to meet every requirement of ``requires`` may beat another; ``pairs``:
    the paired differences of those that deal alike (:func:`beats`)."""
    out: list[tuple[Candidate, str]] = []
    failing = set()
    for c in alive:
        failed = [r for r in requires if c.requirement_status(r) == FAILED]
        if failed:
            out.append((c, f"fails {failed[0].text}"))
            failing.add(id(c))
    left = [c for c in alive if id(c) not in failing]
    knockers = [c for c in left if all(c.requirement_status(r) == MET for r in requires)]
    for c in left:
        for other in knockers:
            if other is c:
                continue
            found = beaten(other, c, aims, pairs)
            if found is not None:
                aim, paired = found
                out.append((c, f"beaten on {aim.measure}" + (" (paired deals)" if paired else "")))
                break
    return out


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
    candidates: Sequence[Candidate],
    aims: tuple[Aim, ...],
    requires: Sequence = (),
    count: int | None = None,
) -> tuple[list[Candidate], list[Candidate]]:
    """``(picks, front)``: the best rule sets in order, and (several aims) the Pareto front
    they come from (one aim: the candidates left in the race).

    One aim: the candidates ordered by rounds raced (most first: those left in the race,
    then those dropped last) then by loss; the first :data:`BEST_ONE_AIM`. Several: the
    front of the candidates left in the race, ordered by normalized distance, the first
    :data:`BEST_SEVERAL_AIMS`. With ``requires``, those known to meet every requirement
    come first, then those unclear on one, then those failing one
    (:meth:`Candidate.standing`), and ``count`` picks are made (the spares the confirmation
    needs: for several aims, beyond the front, the other candidates left in the race by
    distance). Ties go to the earlier rule set of the product. A candidate that plays
    exactly like a pick (:func:`plays_alike`) is not picked again: its ``twin_of`` names
    that pick."""
    alive = [c for c in candidates if c.alive]
    if len(aims) == 1:
        ordered = sorted(
            candidates,
            key=lambda c: (
                c.standing(requires),
                c.alive is False,
                -c.rounds,
                c.losses(aims)[0][0],
                c.index,
            ),
        )
        return _distinct(ordered, count or BEST_ONE_AIM), alive
    pool = alive or list(candidates)
    top = min(c.standing(requires) for c in pool)
    front = pareto_front([c for c in pool if c.standing(requires) == top], aims)
    gaps = distances(pool, aims, candidates)
    gap = {id(c): g for c, g in zip(pool, gaps, strict=True)}
    ordered = sorted(front, key=lambda c: (gap[id(c)], c.index))
    if requires:
        rest = [c for c in pool if c not in front]
        ordered += sorted(rest, key=lambda c: (c.standing(requires), gap[id(c)], c.index))
    return _distinct(ordered, count or BEST_SEVERAL_AIMS), front


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
