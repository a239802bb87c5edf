"""Events and trace tables of several seatings or chunks put together (no numba)."""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
import pyarrow.compute as pc


def interleave_events(parts: Sequence, games: pa.Table) -> pa.Table | None:
    """The events of the seatings' ``parts`` (chunks, each with ``events`` or None) in the
    order of ``games``, the chunk's records once interleaved: (game, rotation, seq); in
    match play the ``game`` column takes the number its deal's record now has."""
    tables = [part.events for part in parts if part.events is not None]
    if not tables:
        return None
    events = pa.concat_tables(tables)
    if "match" in events.column_names:
        keys = ["match", "rotation", "deal"]
        numbers = games.select([*keys, "game"]).rename_columns([*keys, "row"])
        for key in keys:  # the records' integer types need not be the events' (deal)
            index = numbers.schema.get_field_index(key)
            column = numbers[key].cast(events.schema.field(key).type)
            numbers = numbers.set_column(index, key, column)
        joined = events.join(numbers, keys, join_type="left outer")
        index = events.schema.get_field_index("game")
        events = joined.set_column(index, "game", joined["row"]).drop_columns(["row"])
        events = events.select(tables[0].column_names)
    return events.sort_by([("game", "ascending"), ("rotation", "ascending"), ("seq", "ascending")])


def interleave_trace(parts: Sequence) -> pa.Table | None:
    """The traces of the seatings' ``parts`` (chunks, each with ``trace`` or None) in
    (game, rotation, turn, seat) order (single deals only: match play is not traced)."""
    tables = [part.trace for part in parts if part.trace is not None]
    if not tables:
        return None
    keys = ("game", "rotation", "turn", "seat")
    return pa.concat_tables(tables).sort_by([(key, "ascending") for key in keys])


def concat_events(tables: Sequence[pa.Table]) -> pa.Table | None:
    """One events table from several (None when there are none)."""
    tables = [table for table in tables if table is not None]
    if not tables:
        return None
    return pa.concat_tables(tables) if len(tables) > 1 else tables[0]


def game_events(events: pa.Table, game: int) -> pa.Table:
    """The rows of one game."""
    return events.filter(pc.equal(events["game"], game))
