"""The per-game record of the shedding games: columns, types, meanings, Arrow table."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ...cards import RANKS
from .reference import END_REASONS

COLUMNS = {
    "game": ("int64", "index of the game in the run (its random stream is (seed, game))"),
    "winner": ("int8", "winning seat, -1 when none"),
    "end": (
        "dictionary<string>",
        "out: a seat emptied its hand; stock_out: a seat had to draw from an empty stock "
        "(stock_empty=end); blocked: every seat passed in turn; play_cap: max_plays reached; "
        "turn_cap: max_turns reached",
    ),
    "turns": ("int32", "turns taken (a skipped seat takes none; an extra play is no new turn)"),
    "plays": ("int32", "cards played (a lead_club opening included, a flipped starter not)"),
    "draws": ("int32", "cards drawn, penalties included (not the deal or the starter)"),
    "passes": ("int32", "turns ended by passing"),
    "wilds": ("int32", "suits named"),
    "reshuffles": ("int32", "times the pile was shuffled into a new stock"),
    "finish_rank": ("dictionary<string>", "rank of the winner's last card, null when none"),
    "cards_left_<i>": ("int16", "cards in seat i's hand at the end"),
    "points_<i>": ("int32", "penalty points in seat i's hand at the end (card_points)"),
    "score_<i>": ("int32", "seat i's score for the game (scoring, finishing multiplier)"),
    "strategy_<i>": ("dictionary<string>", "seat i's strategy"),
}

_END_DICTIONARY = pa.array(END_REASONS, pa.string())
_RANK_DICTIONARY = pa.array(RANKS, pa.string())


def to_table(first_game: int, columns: dict[str, np.ndarray], strategies: list[str]) -> pa.Table:
    """Arrow table of one chunk of records from raw columns.

    ``columns``: ``winner``, ``end`` (codes into END_REASONS), ``finish_rank`` (rank index,
    -1 for none) int[count]; ``turns``, ``plays``, ``draws``, ``passes``, ``wilds``,
    ``reshuffles`` int[count]; ``cards_left``, ``points``, ``score`` int[count, players].
    """
    count = len(columns["winner"])
    finish = np.asarray(columns["finish_rank"], np.int8)
    data = {
        "game": pa.array(np.arange(first_game, first_game + count, dtype=np.int64)),
        "winner": pa.array(np.asarray(columns["winner"], np.int8)),
        "end": pa.DictionaryArray.from_arrays(
            pa.array(np.asarray(columns["end"], np.int8)), _END_DICTIONARY
        ),
    }
    for name in ("turns", "plays", "draws", "passes", "wilds", "reshuffles"):
        data[name] = pa.array(np.asarray(columns[name], np.int32))
    data["finish_rank"] = pa.DictionaryArray.from_arrays(
        pa.array(finish, mask=finish < 0), _RANK_DICTIONARY
    )
    for name, dtype in (("cards_left", np.int16), ("points", np.int32), ("score", np.int32)):
        for seat in range(len(strategies)):
            data[f"{name}_{seat}"] = pa.array(np.asarray(columns[name][:, seat], dtype))
    names = sorted(set(strategies))
    for seat, strategy in enumerate(strategies):
        data[f"strategy_{seat}"] = pa.DictionaryArray.from_arrays(
            pa.array(np.full(count, names.index(strategy), np.int8)), pa.array(names)
        )
    return pa.table(data)


def reference_columns(records) -> dict[str, np.ndarray]:
    """Raw columns from a list of reference records (for tests and small runs)."""
    return {
        "winner": np.array([r.winner for r in records], np.int8),
        "end": np.array([END_REASONS.index(r.end) for r in records], np.int8),
        "finish_rank": np.array([r.finish_rank for r in records], np.int8),
        **{
            name: np.array([getattr(r, name) for r in records], np.int32)
            for name in ("turns", "plays", "draws", "passes", "wilds", "reshuffles")
        },
        **{
            name: np.array([getattr(r, name) for r in records], np.int32)
            for name in ("cards_left", "points", "score")
        },
    }
