"""What a run will cost, measured before it starts: a strong player (``pimc:K``) plays
each decision out hundreds of times, so a run's games say little of its time.

:func:`estimate` plays a few of a request's own games (a pilot, after one game that
compiles the kernel) on the request's threads, times them, and scales the time to the
whole run. The pilot's games are the run's first ones: the run plays them again, exactly
(records are a pure function of the seed and the game), so the estimate costs a pilot's
time and changes nothing.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

from .engine import play_span
from .request import Request, searching_strategies

PILOT = 8
"""Games (matches) a pilot plays per thread."""
TRACE_PILOT = 2
"""Games (matches) a trace's pilot traces per thread."""


def searches(requests: Sequence[Request]) -> list[str]:
    """The searching strategies the requests seat (see :func:`~.request.searching_strategies`)."""
    found = (name for request in requests for name in searching_strategies(request.specs))
    return list(dict.fromkeys(found))


def estimate(requests: Sequence[Request]) -> float:
    """Seconds the requests' games should take here, one request after another: each one's
    first games timed (``PILOT`` per thread, at most its games) and scaled to its games."""
    total = 0.0
    for request in requests:
        request = replace(request, trace=0)  # what a trace costs is estimated apart
        play_span(request, 0, 1)  # compiles (or loads) the kernel; not timed
        count = min(request.games, PILOT * request.threads)
        started = time.perf_counter()
        play_span(request, 0, count)
        total += (time.perf_counter() - started) * request.games / count
    return total


def estimate_words(requests: Sequence[Request]) -> str | None:
    """One line on what the requests will take when a seat searches (else None): the
    searching strategies and the estimated time."""
    searching = searches(requests)
    if not searching:
        return None
    took = duration(estimate(requests))
    about = "" if took.startswith("under") else "about "
    return (
        f"strong players ({', '.join(searching)}): {about}{took} "
        f"on {requests[0].threads} thread(s), from a pilot of their first games"
    )


def trace_words(request: Request) -> str | None:
    """One line on what the request's trace (``--trace``) will take (None for none): its
    first games traced (``TRACE_PILOT`` per thread, after one that compiles the trace's
    kernel), timed, and scaled to the games traced."""
    if not request.trace:
        return None
    play_span(replace(request, trace=1), 0, 1)  # compiles (or loads); not timed
    count = min(request.trace, TRACE_PILOT * request.threads)
    started = time.perf_counter()
    play_span(replace(request, trace=count), 0, count)
    took = duration((time.perf_counter() - started) * request.trace / count)
    about = "" if took.startswith("under") else "about "
    return (
        f"trace ({request.trace:,} {plural(request.unit, request.trace)} at "
        f"{request.rollouts} rollouts a point): {about}{took} on {request.threads} thread(s), "
        "from a pilot of its first ones"
    )


def plural(unit: str, count: int) -> str:
    """``game`` or ``match`` for ``count`` of them: ``games``, ``matches``."""
    if count == 1:
        return unit
    return unit + ("es" if unit.endswith("ch") else "s")


def duration(seconds: float) -> str:
    """``"under 1 s"``, ``"40 s"``, ``"12 min"``, ``"3.5 h"``."""
    if seconds < 1:
        return "under 1 s"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
