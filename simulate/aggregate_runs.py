"""Aggregate-only runs (``--records none``) on the engine's side: what is allowed, and a
chunk reduced to its statistics (:mod:`analysis.aggregates`, imported only when asked)."""

from __future__ import annotations

from .errors import CardsimError

RECORDS = ("all", "none")
"""What ``--records`` (``records=``) accepts: every game's row, or the statistics only."""


def check_records(request, records: str) -> None:
    """Refuse, in one line, a ``records`` value not in :data:`RECORDS`, and what an
    aggregate-only run cannot do yet (matches, game logs)."""
    if records not in RECORDS:
        raise CardsimError(f"--records is all or none, got {records!r}")
    if records == "none":
        if request.match_play:
            raise CardsimError(
                "--records none does not support match play yet (match_deals or "
                "target_score); keep every record with --records all"
            )
        if getattr(request, "log", 0):
            raise CardsimError("--records none keeps no games: it cannot be given with --log")


def aggregated(chunk, meta: dict):
    """``chunk``'s :class:`analysis.aggregates.Aggregates` (itself when it already is one,
    as a cluster's task returns it)."""
    from analysis.aggregates import Aggregates, aggregate_games

    if isinstance(chunk, Aggregates):
        return chunk
    return aggregate_games(chunk.games, meta)
