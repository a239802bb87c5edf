"""The per-deal record of Beggar-My-Neighbour: columns, types, meanings, Arrow table."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ...core import arrow
from ...core.logs import events
from .deal import KIND_LETTERS
from .rules import END_NAMES

COLUMNS = {
    "game": ("int64", "index of the deal in the run (its random stream is (seed, game))"),
    "cards": ("int32", "cards played (up to the first repeated state for a cycle)"),
    "tricks": ("int32", "piles taken, the final pile to the survivor included"),
    "winner": ("int8", "winning seat, -1 when none (cycle, or a tie at the time limit)"),
    "end": (
        "dictionary<string>",
        "out: one seat holds every card; cycle: the state repeated, the deal never ends; "
        "time_limit: stopped after time_limit cards, the seat holding the most wins",
    ),
    "cycle_cards": ("int32", "cards played in one turn of the loop (cycle deals; else 0)"),
    "cycle_tricks": ("int32", "tricks in one turn of the loop (cycle deals; else 0)"),
    "lead_changes": (
        "int32",
        "times the lead (the one seat holding strictly the most cards) passed to another seat",
    ),
    "winner_behind": ("int32", "the most cards the winner trailed the leader by; -1: no winner"),
    "cards_held_<i>": ("int8", "cards in seat i's hand at the end (the pile excluded)"),
}

_END_DICTIONARY = arrow.strings(END_NAMES)


def to_table(first_game: int, columns: dict[str, np.ndarray], players: int) -> pa.Table:
    """Arrow table of one chunk of records from the kernel's raw columns."""
    count = len(columns["cards"])
    data = {
        "game": arrow.numeric(np.arange(first_game, first_game + count, dtype=np.int64)),
        "cards": arrow.numeric(columns["cards"]),
        "tricks": arrow.numeric(columns["tricks"]),
        "winner": arrow.numeric(columns["winner"]),
        "end": arrow.dictionary(columns["end"], _END_DICTIONARY),
        "cycle_cards": arrow.numeric(columns["cycle_cards"]),
        "cycle_tricks": arrow.numeric(columns["cycle_tricks"]),
        "lead_changes": arrow.numeric(columns["lead_changes"]),
        "winner_behind": arrow.numeric(columns["winner_behind"]),
    }
    for seat in range(players):
        data[f"cards_held_{seat}"] = arrow.numeric(columns["held"][:, seat])
    return pa.table(data)


def events_table(games: np.ndarray, rows: np.ndarray) -> pa.Table:
    """The events of logged deals (``games`` int64[E], ``rows`` int32[E, W]): cards are
    written ``A``, ``K``, ``Q``, ``J`` or ``-`` (a plain card); there is no stock."""
    return events.to_table(
        games, rows, card_names=KIND_LETTERS, end_names=END_NAMES, has_stock=False
    )
