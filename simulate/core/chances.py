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
    "game": ("int64", "the traced game (its record's game)"),
    "turn": ("int32", "the point: turns (tricks) played before it, 0 after the deal"),
    "seat": ("int8", "the seat"),
    "wins": ("int16", "rollouts the seat won from the point, of the run's rollouts"),
}
"""The trace's columns: name -> (Arrow type, meaning)."""


def trace_table(first_game: int, starts: np.ndarray, wins: np.ndarray) -> pa.Table:
    """Games ``first_game ..``'s points as a table of :data:`COLUMNS`, one row per
    (game, turn, seat) in that order. ``starts``: int64[G + 1], game ``first_game + i``'s
    points are rows ``starts[i] .. starts[i + 1] - 1`` of ``wins`` (int[P, n])."""
    points, players = wins.shape
    lengths = np.diff(starts)
    game = np.repeat(np.arange(first_game, first_game + len(lengths), dtype=np.int64), lengths)
    turn = np.arange(points, dtype=np.int64) - np.repeat(starts[:-1], lengths)
    return pa.table(
        {
            "game": np.repeat(game, players),
            "turn": np.repeat(turn.astype(np.int32), players),
            "seat": np.tile(np.arange(players, dtype=np.int8), points),
            "wins": wins.astype(np.int16).ravel(),
        }
    )
