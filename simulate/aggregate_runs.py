"""Aggregate-only runs (``--records none``) on the engine's side: what is allowed, and a
chunk reduced to its statistics (:mod:`analysis.aggregates`, imported only when asked)."""

from __future__ import annotations

from .errors import CardsimError

RECORDS = ("all", "none")
"""What ``--records`` (``records=``) accepts: every game's row, or the statistics only."""


def check_records(request, records: str) -> None:
    """Refuse, in one line, a ``records`` value not in :data:`RECORDS` (an aggregate-only
    run takes any request: single games and match play alike)."""
    if records not in RECORDS:
        raise CardsimError(f"--records is all or none, got {records!r}")


def reduced(chunk, meta: dict):
    """``chunk`` (a :class:`~simulate.games.spec.Chunk`) reduced to its statistics: a
    Chunk whose ``aggregates`` (:class:`analysis.aggregates.Aggregates`) stand for its
    records, which it no longer holds; its logged games' ``events`` stay (itself when it
    is reduced already, as a cluster's task returns it)."""
    from analysis.aggregates import aggregate_games

    from .games.spec import Chunk

    if chunk.aggregates is not None:
        return chunk
    found = aggregate_games(chunk.games, meta, chunk.matches)
    return Chunk(None, events=chunk.events, aggregates=found)
