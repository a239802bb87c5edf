"""The application's one door to the engine: every module of :mod:`simulate.app` that plays
games calls these, never :mod:`simulate.runs.engine` itself (``make lint`` checks it), and
a user's own search calls them as the built-in ones do.

- :func:`run`: ``simulate.run``, a run's records as a DataFrame (and its folder, with
  ``out``);
- :func:`stream`: a request played into a run folder, chunk by chunk, each finished chunk
  safe on disk (runs, studies, tournaments, searches that keep their runs);
- :func:`play_run`: a request played in memory, its records as one table per kind;
- :func:`play_chunks`: a request's games played in memory, chunk by chunk, over any spans
  of game indices: the chunk-level call of the searches (``explore`` measures its
  candidates with it, a held-out span apart from the search's);
- :func:`play_span`, :func:`play_one`: the records of a range of games, or of one, in
  every seating (``cardsim verify`` replays a run's chunks with them);
- :func:`make_request`: the request they take, checked once;
  :class:`RunInterrupted`: what a signal raises once the finished chunks are safe;
  :data:`DEFAULT_CHUNK`: the records per chunk when none is asked for.

Each game's randomness is a function of (seed, game index) alone, so a span played here
holds the records that the same games hold in a whole run.
"""

from __future__ import annotations

from ...runs.engine import (
    DEFAULT_CHUNK,
    RunInterrupted,
    play_chunks,
    play_one,
    play_run,
    play_span,
    run,
    stream,
)
from ...runs.request import make_request

__all__ = [
    "DEFAULT_CHUNK",
    "RunInterrupted",
    "make_request",
    "play_chunks",
    "play_one",
    "play_run",
    "play_span",
    "run",
    "stream",
]
