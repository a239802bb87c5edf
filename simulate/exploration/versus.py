"""Each confirmed rule set beside the base rules, on the held-out deals they both played.

On every measure the pick is ``better``, ``worse`` or ``no clear difference`` than the base:
better or worse when the two 95% intervals lie apart and the difference is at least the
negligible threshold (:func:`simulate.measures.negligible`, read against the base's value).
On an aimed measure better means a smaller loss (closer to the target, higher for max,
lower for min); on a required one, better standing (met, unclear, failed) comes first, then
the value as for no aim; on any other measure the words are ``higher`` and ``lower``.

The two rule sets play the same held-out deals, but their intervals are read as if they
did not (a conservative reading: pairing would separate them sooner).
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
