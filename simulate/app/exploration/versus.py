"""Each confirmed rule set beside the base rules, on the held-out deals they both played.

On every measure the pick is ``better``, ``worse`` or ``no clear difference`` than the base:
better or worse when the two 95% intervals lie apart and the difference is at least the
negligible threshold (:func:`simulate.core.measures.negligible`, read against the base's value).
On an aimed measure better means a smaller loss (closer to the target, higher for max,
lower for min); on a required one, better standing (met, unclear, failed) comes first, then
the value as for no aim; on any other measure the words are ``higher`` and ``lower``.

Where the pick deals like the base (single deals, the same deal shape: the same held-out
deals card for card), every measure but skill is compared on the deals both played, as
pairs (:attr:`Candidate.paired`, :class:`~simulate.app.exploration.pairing.PairTable`): the
means over games (the first seat's advantage, decisiveness, turns, lead changes,
comebacks: :data:`analysis.balance.PAIRED_MEASURES`) on the mean of the games' paired
differences and its 95% normal interval, the seat spread, the 90th percentile and a
distance to a target the two lie on either side of on a paired bootstrap (2,000
replicates), which tells them apart in fewer games. Elsewhere (skill, other deals) the two
intervals are read as independent samples: a conservative reading.
"""

from __future__ import annotations

from .measure import Candidate
from .space import Aim

BETTER, WORSE, SAME, HIGHER, LOWER = "better", "worse", "no clear difference", "higher", "lower"


def against_base(
    pick: Candidate, base: Candidate, aims: tuple[Aim, ...], requires=()
) -> dict[str, str]:
    """Every measure of ``pick``'s held-out estimates against ``base``'s, in the table's
    order: ``better``, ``worse`` or ``no clear difference`` on aimed and required measures,
    ``higher``, ``lower`` or ``no clear difference`` on the others."""
    from ...core.measures import negligible

    aimed = {aim.measure: aim for aim in aims}
    out = {}
    for name in pick.confirmed.index:
        if name not in base.confirmed.index:
            continue
        mine, theirs = pick.estimate(name, True), base.estimate(name, True)
        bounds = [r for r in requires if r.measure == name]
        ours, basis = pick.standing(bounds, True), base.standing(bounds, True)
        if ours != basis:  # a requirement's standing (met, unclear, failed) comes first
            out[name] = BETTER if ours < basis else WORSE
            continue
        aim = aimed.get(name)
        way = _way(*_difference(pick, name, aim, mine, theirs), negligible(name, theirs[0]))
        if aim is not None:  # the difference of losses: larger is worse
            out[name] = {1: WORSE, -1: BETTER, 0: SAME}[way]
        elif len({r.op for r in bounds}) == 1:  # further inside the bound is better
            way *= 1 if bounds[0].op == ">=" else -1
            out[name] = {1: BETTER, -1: WORSE, 0: SAME}[way]
        else:
            out[name] = {1: HIGHER, -1: LOWER, 0: SAME}[way]
    return out


def _difference(pick: Candidate, name: str, aim: Aim | None, mine, theirs):
    """``(D, lo, hi)``: ``pick`` minus the base on the aim's loss (on the measure when not
    aimed), from their paired differences where they were paired on it, else from the two
    intervals read as independent (``mine`` and ``theirs`` are ``(value, lo, hi)``)."""
    if pick.paired is not None:
        found = pick.paired.interval(name) if aim is None else pick.paired.loss_interval(aim)
        if found is not None:
            return found
    if aim is not None:
        mine = (aim.loss(mine[0]), *aim.loss_range(mine[1], mine[2]))
        theirs = (aim.loss(theirs[0]), *aim.loss_range(theirs[1], theirs[2]))
    return mine[0] - theirs[0], mine[1] - theirs[2], mine[2] - theirs[1]


def _way(d: float, lo: float, hi: float, limit: float) -> int:
    """+1 when a difference ``d`` (interval ``lo .. hi``) is clearly above 0 (the interval
    clear of 0 and ``d`` at least ``limit``), −1 when clearly below, else 0."""
    if lo > 0 and d >= limit:
        return 1
    if hi < 0 and -d >= limit:
        return -1
    return 0
