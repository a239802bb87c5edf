"""The per-game record of the shedding games: columns, types, meanings, Arrow table."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ...core import arrow
from ...core.cards import RANKS
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
    "first_seat": (
        "int8",
        "seat that took the first turn (drawn when first_seat=random; deal k of a match: k mod n)",
    ),
    "lead_changes": (
        "int32",
        "times the lead (the one seat holding strictly the fewest cards) passed to another seat",
    ),
    "winner_behind": ("int32", "the most cards the winner trailed the leader by; -1: no winner"),
    "decisions": (
        "int32",
        "decision points (every seat's) with two options or more: legal cards, a wild once "
        "per suit it names, drawing, passing, playing or keeping a drawn card",
    ),
    "forced": ("int32", "decision points with one option (a seat that can only draw, ...)"),
    "options": ("int32", "the options of the decisions, summed (options / decisions: branching)"),
    "cards_left_<i>": ("int16", "cards in seat i's hand at the end"),
    "points_<i>": ("int32", "penalty points in seat i's hand at the end (card_points)"),
    "score_<i>": ("int32", "seat i's score for the game (scoring, finishing multiplier)"),
    "strategy_<i>": ("dictionary<string>", "seat i's strategy"),
    "match": ("int64", "match play only: the match (its deal k's stream is (seed, match, k))"),
    "deal": ("int64", "match play only: the deal's number within its match, from 0"),
}

MATCH_COLUMNS = {
    "match": ("int64", "index of the match in the run"),
    "deals": ("int64", "deals played in the match"),
    "total_<i>": ("int64", "seat i's match total: the sum of its deal scores"),
    "share_<i>": (
        "float64",
        "seat i's share of the match win: 1 for the best total, 1/m each for m tied seats",
    ),
    "strategy_<i>": ("dictionary<string>", "seat i's strategy"),
}

_END_DICTIONARY = arrow.strings(END_REASONS)
_RANK_DICTIONARY = arrow.strings(RANKS)


def to_table(
    first_game: int,
    columns: dict[str, np.ndarray],
    strategies: list[str],
    every_strategy=None,
) -> pa.Table:
    """Arrow table of one chunk of records from raw columns.

    ``columns``: ``winner``, ``end`` (codes into END_REASONS), ``finish_rank`` (rank index,
    -1 for none), ``first_seat`` int[count]; ``turns``, ``plays``, ``draws``, ``passes``,
    ``wilds``, ``reshuffles``, ``lead_changes``, ``winner_behind``, ``decisions``,
    ``forced``, ``options`` int[count]; ``cards_left``, ``points``, ``score``
    int[count, players]; in match play also ``match`` and ``deal`` int[count] (they come
    last). ``game`` numbers the rows from ``first_game``. ``every_strategy``: the names the
    strategy columns' dictionaries hold (default: ``strategies``); chunks with other seatings
    of the same strategies then share one schema.
    """
    count = len(columns["winner"])
    finish = np.asarray(columns["finish_rank"], np.int8)
    data = {
        "game": arrow.numeric(np.arange(first_game, first_game + count, dtype=np.int64)),
        "winner": arrow.numeric(np.asarray(columns["winner"], np.int8)),
        "end": arrow.dictionary(columns["end"], _END_DICTIONARY),
    }
    for name in ("turns", "plays", "draws", "passes", "wilds", "reshuffles"):
        data[name] = arrow.numeric(np.asarray(columns[name], np.int32))
    data["finish_rank"] = arrow.dictionary(finish, _RANK_DICTIONARY, valid=finish >= 0)
    data["first_seat"] = arrow.numeric(np.asarray(columns["first_seat"], np.int8))
    for name in ("lead_changes", "winner_behind", "decisions", "forced", "options"):
        data[name] = arrow.numeric(np.asarray(columns[name], np.int32))
    for name, dtype in (("cards_left", np.int16), ("points", np.int32), ("score", np.int32)):
        for seat in range(len(strategies)):
            # Contiguous when the columns come from the kernel (Fortran order): no copy.
            data[f"{name}_{seat}"] = arrow.numeric(np.asarray(columns[name][:, seat], dtype))
    data.update(_strategy_columns(strategies, count, every_strategy))
    for name in ("match", "deal"):
        if name in columns:
            data[name] = arrow.numeric(np.asarray(columns[name], np.int64))
    return pa.table(data)


def matches_table(
    matches: dict[str, np.ndarray], strategies: list[str], every_strategy=None
) -> pa.Table:
    """Arrow table of one chunk of matches (``MATCH_COLUMNS``) from
    :func:`.batch.play_match_batch`'s ``match``, ``deals`` int[M], ``totals`` int[M, n] and
    ``share`` float[M, n]."""
    count = len(matches["match"])
    data = {
        "match": arrow.numeric(np.asarray(matches["match"], np.int64)),
        "deals": arrow.numeric(np.asarray(matches["deals"], np.int64)),
    }
    for seat in range(len(strategies)):
        data[f"total_{seat}"] = arrow.numeric(np.asarray(matches["totals"][:, seat], np.int64))
    for seat in range(len(strategies)):
        data[f"share_{seat}"] = arrow.numeric(np.asarray(matches["share"][:, seat], np.float64))
    data.update(_strategy_columns(strategies, count, every_strategy))
    return pa.table(data)


def _strategy_columns(strategies: list[str], count: int, every_strategy) -> dict[str, pa.Array]:
    names = sorted(set(every_strategy or strategies))
    return {
        f"strategy_{seat}": arrow.dictionary(
            np.full(count, names.index(strategy), np.int8), arrow.strings(names)
        )
        for seat, strategy in enumerate(strategies)
    }


def reference_columns(records) -> dict[str, np.ndarray]:
    """Raw columns from a list of reference records (for tests and small runs)."""
    return {
        "winner": np.array([r.winner for r in records], np.int8),
        "end": np.array([END_REASONS.index(r.end) for r in records], np.int8),
        "finish_rank": np.array([r.finish_rank for r in records], np.int8),
        "first_seat": np.array([r.first_seat for r in records], np.int8),
        **{
            name: np.array([getattr(r, name) for r in records], np.int32)
            for name in (
                "turns",
                "plays",
                "draws",
                "passes",
                "wilds",
                "reshuffles",
                "lead_changes",
                "winner_behind",
                "decisions",
                "forced",
                "options",
            )
        },
        **{
            name: np.array([getattr(r, name) for r in records], np.int32)
            for name in ("cards_left", "points", "score")
        },
    }


def events_table(games: np.ndarray, rows: np.ndarray, keys: dict | None = None) -> pa.Table:
    """The events of logged games (``games`` int64[E], ``rows`` int32[E, W]; see
    :mod:`simulate.core.logs.events`): cards are written by name (``10H``, ``AS``); ``keys``:
    ``match`` int64[E] and ``deal`` int32[E] in match play."""
    from ...core.logs.events import to_table
    from .reference_cards import name

    return to_table(
        games,
        rows,
        card_names=[name(card) for card in range(52)],
        end_names=END_REASONS,
        keys=keys,
    )
