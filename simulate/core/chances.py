"""The trace of a game's win chances (``--trace``), as every game family writes it.

A traced game has a point after the deal (turn 0) and after every turn (every trick in
Beggar-My-Neighbour), T + 1 points for a game of T, the last its outcome. At each point a
row per seat counts the rollouts that seat won, of the run's ``rollouts`` (``run.json``),
from states a spectator cannot tell from the game's: ``wins / rollouts`` estimates its
chance of winning there. Numba-free: the kernels give ``starts`` and ``wins`` arrays.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

CHECK_FOLDER = "trace-check"
"""Where ``cardsim balance`` traces a sample of the run's traced games again at twice the
rollouts (a run folder of its own, inside the run's): how far the chance measures move
when the rollouts double."""
CHECK_GAMES = 200
"""Games of that sample (the run's first; fewer when fewer are traced)."""

COLUMNS = {
    "game": ("int64", "the traced game (its record's game; in match play the deal's row)"),
    "match": ("int64", "match play only: the deal's match"),
    "deal": ("int64", "match play only: the deal's number in its match, from 0"),
    "turn": ("int32", "the point: turns (tricks) played before it, 0 after the deal"),
    "seat": ("int8", "the seat"),
    "wins": ("int16", "rollouts the seat won from the point, of the run's rollouts"),
}
"""The trace's columns: name -> (Arrow type, meaning)."""


def trace_table(games, starts: np.ndarray, wins: np.ndarray, keys: dict | None = None) -> pa.Table:
    """Traced games' points as a table of :data:`COLUMNS`, one row per (game, turn, seat)
    in that order. ``games``: the first game's number (the games follow it), or each
    game's (int64[G]); ``starts``: int64[G + 1], game i's points are rows ``starts[i] ..
    starts[i + 1] - 1`` of ``wins`` (int[P, n]); ``keys``: in match play, ``match`` and
    ``deal`` int64[G], each traced deal's (columns after ``game``)."""
    points, players = wins.shape
    lengths = np.diff(starts)
    if np.ndim(games) == 0:
        games = np.arange(games, games + len(lengths), dtype=np.int64)

    def per_row(values) -> np.ndarray:
        return np.repeat(np.repeat(np.asarray(values, np.int64), lengths), players)

    turn = np.arange(points, dtype=np.int64) - np.repeat(starts[:-1], lengths)
    columns = {"game": per_row(games)}
    if keys is not None:
        columns["match"] = per_row(keys["match"])
        columns["deal"] = per_row(keys["deal"])
    columns["turn"] = np.repeat(turn.astype(np.int32), players)
    columns["seat"] = np.tile(np.arange(players, dtype=np.int8), points)
    columns["wins"] = wins.astype(np.int16).ravel()
    return pa.table(columns)
