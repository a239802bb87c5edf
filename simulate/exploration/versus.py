"""Each confirmed rule set beside the base rules, on the held-out deals they both played.

On every measure the pick is ``better``, ``worse`` or ``no clear difference`` than the base:
better or worse when the two 95% intervals lie apart and the difference is at least the
negligible threshold (:func:`simulate.measures.negligible`, read against the base's value).
On an aimed measure better means a smaller loss (closer to the target, higher for max,
lower for min); on a required one, better standing (met, unclear, failed) comes first, then
the value as for no aim; on any other measure the words are ``higher`` and ``lower``.

Where the pick deals like the base (single deals, the same deal shape: the same held-out
deals card for card), the measures that are means over games (the first seat's advantage,
decisiveness, turns, lead changes, comebacks: :data:`analysis.balance.PAIRED_MEASURES`) are
compared on the mean of the games' paired differences and its 95% interval
(:attr:`Candidate.paired`), and the seat spread on a paired bootstrap of the two
winners' seats (:meth:`analysis.balance.PairedSums.spread_interval`), which tells them
apart in fewer games; a target aim so only when both estimates lie on the same side of the
target. Elsewhere (the 90th percentile, skill, other deals) the two intervals are read as
independent samples: a conservative reading.
"""

from __future__ import annotations

from .measure import Candidate
from .space import Aim

BETTER, WORSE, SAME, HIGHER, LOWER = "better", "worse", "no clear difference", "higher", "lower"


def _apart(mine: tuple[float, float, float], theirs: tuple[float, float, float], limit: float):
    """+1 when ``mine`` is clearly above ``theirs`` (intervals apart, by ``limit`` or more),
    −1 when clearly below, else 0; each is ``(value, lo, hi)``."""
    if mine[1] > theirs[2] and mine[0] - theirs[0] >= limit:
        return 1
    if mine[2] < theirs[1] and theirs[0] - mine[0] >= limit:
        return -1
    return 0


def against_base(
    pick: Candidate, base: Candidate, aims: tuple[Aim, ...], requires=()
) -> dict[str, str]:
    """Every measure of ``pick``'s held-out estimates against ``base``'s, in the table's
    order: ``better``, ``worse`` or ``no clear difference`` on aimed and required measures,
    ``higher``, ``lower`` or ``no clear difference`` on the others."""
    from ..measures import negligible

    aimed = {aim.measure: aim for aim in aims}
    out = {}
    for name in pick.confirmed.index:
        if name not in base.confirmed.index:
            continue
        mine, theirs = pick.estimate(name, True), base.estimate(name, True)
        limit = negligible(name, theirs[0])
        bounds = [r for r in requires if r.measure == name]
        if bounds:
            rank = {"met": 0, "unclear": 1, "failed": 2}
            ours = max(rank[pick.requirement_status(r, True)] for r in bounds)
            basis = max(rank[base.requirement_status(r, True)] for r in bounds)
            if ours != basis:
                out[name] = BETTER if ours < basis else WORSE
                continue
        way = _paired_way(pick, name, aimed.get(name), mine, theirs, limit)
        if way is not None:
            if name in aimed:
                out[name] = {1: WORSE, -1: BETTER, 0: SAME}[way]
            elif len({r.op for r in bounds}) == 1:
                way *= 1 if bounds[0].op == ">=" else -1
                out[name] = {1: BETTER, -1: WORSE, 0: SAME}[way]
            else:
                out[name] = {1: HIGHER, -1: LOWER, 0: SAME}[way]
            continue
        if name in aimed:
            aim = aimed[name]
            loss = (aim.loss(mine[0]), *aim.loss_range(mine[1], mine[2]))
            base_loss = (aim.loss(theirs[0]), *aim.loss_range(theirs[1], theirs[2]))
            way = _apart(loss, base_loss, limit)
            out[name] = {1: WORSE, -1: BETTER, 0: SAME}[way]
        elif len({r.op for r in bounds}) == 1:
            # a required measure with the same standing: further inside the bound is better
            way = _apart(mine, theirs, limit) * (1 if bounds[0].op == ">=" else -1)
            out[name] = {1: BETTER, -1: WORSE, 0: SAME}[way]
        else:
            out[name] = {1: HIGHER, -1: LOWER, 0: SAME}[_apart(mine, theirs, limit)]
    return out


def _paired_way(pick: Candidate, name: str, aim: Aim | None, mine, theirs, limit: float):
    """From the paired differences: +1 when ``pick`` is clearly above the base (on an aim:
    its loss clearly larger), −1 when clearly below, 0 when not clearly apart; None when
    the measure was not paired (then the intervals are read as independent)."""
    found = pick.paired.interval(name) if pick.paired is not None else None
    if found is None:
        return None
    d, lo, hi = found
    sign = 1
    if aim is not None:
        if aim.goal == "max":
            sign = -1
        elif aim.goal == "target":
            above = [v - aim.target for v in (mine[0], theirs[0])]
            if above[0] * above[1] <= 0:
                return None  # on either side of the target: the loss is not the difference
            sign = 1 if above[0] > 0 else -1
    d, lo, hi = (sign * d, *sorted((sign * lo, sign * hi)))
    if lo > 0 and d >= limit:
        return 1
    if hi < 0 and -d >= limit:
        return -1
    return 0
