"""Game logs: the event rows the kernels write, and the Arrow table they become.

A logged game is a list of events, one int32 row each (``W`` columns, offsets ``E_*``
below), written by the game's kernel into a per-game buffer and turned here into the
table of ``events.parquet``. Null is ``NONE`` (-1) in every column but ``seat`` (where -1
means no seat, as the records write it) and ``turn``.

Pure numpy/pyarrow, no numba: the reference's traces use the same rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from .. import arrow

E_TURN, E_SEAT, E_EVENT, E_CARD, E_CAUSE, E_COUNT, E_SUIT, E_HAND, E_STOCK, E_END = range(10)
W = 10
"""Columns of one event row."""
NONE = -1

EVENT_NAMES = (
    "deal",
    "start",
    "put_back",
    "play",
    "draw",
    "reshuffle",
    "penalty",
    "pass",
    "name_suit",
    "skip",
    "reverse",
    "again",
    "call",
    "forget",
    "take",
    "out",
    "end",
)
"""Every event's name; a row's ``event`` is an index into this tuple."""
(
    EV_DEAL,
    EV_START,
    EV_PUT_BACK,
    EV_PLAY,
    EV_DRAW,
    EV_RESHUFFLE,
    EV_PENALTY,
    EV_PASS,
    EV_NAME_SUIT,
    EV_SKIP,
    EV_REVERSE,
    EV_AGAIN,
    EV_CALL,
    EV_FORGET,
    EV_TAKE,
    EV_OUT,
    EV_END,
) = range(len(EVENT_NAMES))

CAUSE_NAMES = ("no_play", "voluntary", "penalty", "last_card", "all_draw", "club_search")
"""Why a card was drawn (``draw`` rows); ``cause`` is an index into this tuple."""
CAUSE_NO_PLAY, CAUSE_VOLUNTARY, CAUSE_PENALTY, CAUSE_LAST_CARD, CAUSE_ALL_DRAW, CAUSE_CLUB = range(
    len(CAUSE_NAMES)
)

SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")

INITIAL_ROWS = 256
"""A logged game's first buffer (rows); a game that writes more is played again with a
buffer large enough."""


def to_table(
    games: np.ndarray,
    rows: np.ndarray,
    *,
    card_names: Sequence[str],
    end_names: Sequence[str],
    keys: dict[str, np.ndarray] | None = None,
    has_stock: bool = True,
) -> pa.Table:
    """The events table of logged games.

    ``games``: int64[E], each row's ``game``; ``rows``: int32[E, W], the events in order,
    each game's rows together and numbered by ``seq`` from 0; ``card_names[c]``: how card
    code ``c`` is written (as the replay writes it); ``end_names``: the game's end reasons;
    ``keys``: more int columns placed after ``game`` (``match``, ``deal``); ``has_stock``:
    False for a game without a stock (its ``stock`` column is all null).
    """
    count = len(games)
    games = np.asarray(games, np.int64)
    rows = np.asarray(rows, np.int32).reshape(count, W)
    seq = np.zeros(count, np.int32)
    if count:
        starts = np.flatnonzero(np.r_[True, games[1:] != games[:-1]])
        lengths = np.diff(np.r_[starts, count])
        seq = (np.arange(count) - np.repeat(starts, lengths)).astype(np.int32)

    def nullable(column: int, dtype) -> pa.Array:
        values = rows[:, column]
        return arrow.numeric(values.astype(dtype), values != NONE)

    def named(column: int, names: Sequence[str]) -> pa.DictionaryArray:
        values = rows[:, column]
        valid = values != NONE
        return arrow.dictionary(np.where(valid, values, 0), arrow.strings(list(names)), valid)

    data = {"game": arrow.numeric(games)}
    for name, values in (keys or {}).items():
        data[name] = arrow.numeric(np.asarray(values))
    data["seq"] = arrow.numeric(seq)
    data["turn"] = arrow.numeric(rows[:, E_TURN].copy())
    data["seat"] = arrow.numeric(rows[:, E_SEAT].astype(np.int8))
    data["event"] = named(E_EVENT, EVENT_NAMES)
    data["card"] = _cards(rows[:, E_CARD], card_names)
    data["cause"] = named(E_CAUSE, CAUSE_NAMES)
    data["count"] = nullable(E_COUNT, np.int32)
    data["suit"] = named(E_SUIT, SUIT_NAMES)
    data["hand"] = nullable(E_HAND, np.int16)
    if has_stock:
        data["stock"] = nullable(E_STOCK, np.int16)
    else:
        data["stock"] = arrow.numeric(np.zeros(count, np.int16), np.zeros(count, bool))
    data["end"] = named(E_END, end_names)
    return pa.table(data)


def _cards(codes: np.ndarray, card_names: Sequence[str]) -> pa.DictionaryArray:
    """Card codes as a dictionary of their names (distinct names, in code order)."""
    valid = codes != NONE
    distinct = list(dict.fromkeys(card_names))
    index = np.array([distinct.index(name) for name in card_names], np.int16)
    safe = np.where(valid, codes, 0)
    if len(distinct) > 127:
        raise ValueError("too many card names for an int8 dictionary")
    return arrow.dictionary(index[safe].astype(np.int8), arrow.strings(distinct), valid)


def empty_rows() -> np.ndarray:
    """No events: int32[0, W]."""
    return np.zeros((0, W), np.int32)


COLUMNS = {
    "game": (
        "int64",
        "the game's number in the run (its row in games.parquet; in match play the deal's row)",
    ),
    "match": ("int64", "match play: the match"),
    "deal": ("int32", "match play: the deal within its match, from 0"),
    "rotation": ("int8", "--rotate-seats: the seating the game was played in"),
    "seq": ("int32", "the event's number within its game, from 0"),
    "turn": (
        "int32",
        "the turn as the record's turns counts it, from 1 (0: the deal and the "
        "starter); Beggar-My-Neighbour: the trick, from 1",
    ),
    "seat": ("int8", "the seat the event happens to; -1 for none"),
    "event": ("dictionary<string>", "what happens (see the event names)"),
    "card": ("dictionary<string>", "the card that moves, as the replay writes it; null when none"),
    "cause": ("dictionary<string>", "draw rows: why the card is drawn"),
    "count": ("int32", "a number the event carries (cards owed, pile size, stock size...)"),
    "suit": ("dictionary<string>", "name_suit rows: the suit named"),
    "hand": ("int16", "the seat's cards in hand after the event; null without a seat"),
    "stock": ("int16", "cards left in the stock after the event (null: no stock)"),
    "end": ("dictionary<string>", "end rows: how the game ended (the record's end)"),
}
"""The columns of ``events.parquet``: Arrow type and meaning."""
