"""Events and trace tables of several seatings or chunks put together (no numba)."""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
import pyarrow.compute as pc


def interleave_events(parts: Sequence, games: pa.Table) -> pa.Table | None:
    """The events of the seatings' ``parts`` (chunks, each with ``events`` or None) in the
    order of ``games``, the chunk's records once interleaved: (game, rotation, seq); in
    match play the ``game`` column takes the number its deal's record now has."""
    events = _renumbered([part.events for part in parts], games)
    if events is None:
        return None
    return events.sort_by([("game", "ascending"), ("rotation", "ascending"), ("seq", "ascending")])


def interleave_trace(parts: Sequence, games: pa.Table) -> pa.Table | None:
    """The traces of the seatings' ``parts`` (chunks, each with ``trace`` or None) in
    (game, rotation, turn, seat) order, ``game`` renumbered as :func:`interleave_events`
    does."""
    trace = _renumbered([part.trace for part in parts], games)
    if trace is None:
        return None
    keys = ("game", "rotation", "turn", "seat")
    return trace.sort_by([(key, "ascending") for key in keys])


def _renumbered(tables: Sequence, games: pa.Table) -> pa.Table | None:
    """``tables`` (None: none) as one; in match play (a ``match`` column) its ``game``
    column the number the deal's record has in ``games`` (by match, rotation and deal)."""
    tables = [table for table in tables if table is not None]
    if not tables:
        return None
    found = pa.concat_tables(tables)
    if "match" not in found.column_names:
        return found
    keys = ["match", "rotation", "deal"]
    numbers = games.select([*keys, "game"]).rename_columns([*keys, "row"])
    for key in keys:  # the records' integer types need not be these (deal)
        index = numbers.schema.get_field_index(key)
        column = numbers[key].cast(found.schema.field(key).type)
        numbers = numbers.set_column(index, key, column)
    joined = found.join(numbers, keys, join_type="left outer")
    index = found.schema.get_field_index("game")
    found = joined.set_column(index, "game", joined["row"]).drop_columns(["row"])
    return found.select(tables[0].column_names)


def concat_events(tables: Sequence[pa.Table]) -> pa.Table | None:
    """One events table from several (None when there are none)."""
    tables = [table for table in tables if table is not None]
    if not tables:
        return None
    return pa.concat_tables(tables) if len(tables) > 1 else tables[0]


def game_events(events: pa.Table, game: int) -> pa.Table:
    """The rows of one game."""
    return events.filter(pc.equal(events["game"], game))
