"""The record's typed columns, as the kernels write them.

The kernels narrow each game's record straight into one narrow, contiguous column per
field, so that Arrow wraps the columns without copying them: the int8 fields are the rows
of one int8[4, G] block, the int32 counts the rows of one int32[11, G] block, and the
per-seat fields are [G, n] arrays in Fortran order (``column[:, seat]`` is contiguous).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernel import Outputs
from .kernel_layout import (
    BYTE_FIELDS,
    COUNT_FIELDS,
    O_DECISIONS,
    O_DRAWS,
    O_END,
    O_FINISH,
    O_FIRST,
    O_FORCED,
    O_LEAD_CHANGES,
    O_OPTIONS,
    O_PASSES,
    O_PLAYS,
    O_RESHUFFLES,
    O_TURNS,
    O_WILDS,
    O_WINNER,
    O_WINNER_BEHIND,
)

_FIELD_NAMES = {
    O_WINNER: "winner",
    O_END: "end",
    O_FINISH: "finish_rank",
    O_FIRST: "first_seat",
    O_TURNS: "turns",
    O_PLAYS: "plays",
    O_DRAWS: "draws",
    O_PASSES: "passes",
    O_WILDS: "wilds",
    O_RESHUFFLES: "reshuffles",
    O_LEAD_CHANGES: "lead_changes",
    O_WINNER_BEHIND: "winner_behind",
    O_DECISIONS: "decisions",
    O_FORCED: "forced",
    O_OPTIONS: "options",
}
BYTE_COLUMNS = tuple(_FIELD_NAMES[field] for field in BYTE_FIELDS)
"""The int8 columns, in the order of the kernels' ``small`` rows."""
COUNT_COLUMNS = tuple(_FIELD_NAMES[field] for field in COUNT_FIELDS)
"""The int32 columns, in the order of the kernels' ``counts`` rows."""
SEAT_COLUMNS = {"cards_left": np.int16, "points": np.int32, "score": np.int32}
"""The per-seat columns and their types."""


def empty_columns(count: int, players: int) -> dict[str, np.ndarray]:
    """Uninitialised record columns for ``count`` games (see the module's docstring)."""
    small = np.empty((len(BYTE_COLUMNS), count), np.int8)
    counts = np.empty((len(COUNT_COLUMNS), count), np.int32)
    columns = {name: small[k] for k, name in enumerate(BYTE_COLUMNS)}
    columns.update({name: counts[k] for k, name in enumerate(COUNT_COLUMNS)})
    for name, dtype in SEAT_COLUMNS.items():
        columns[name] = np.empty((count, players), dtype, order="F")
    return columns


def kernel_outputs(columns: dict[str, np.ndarray]) -> Outputs:
    """The kernels' :class:`.kernel.Outputs` over ``columns`` (made by :func:`empty_columns`):
    ``small``, ``counts``, ``left``, ``points``, ``score``."""
    return Outputs(
        small=columns[BYTE_COLUMNS[0]].base,
        counts=columns[COUNT_COLUMNS[0]].base,
        left=columns["cards_left"],
        points=columns["points"],
        score=columns["score"],
    )


def match_columns(first_match: int, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ``match`` and ``deal`` int64[R] columns of deal rows laid out by ``offsets``
    int64[M + 1] (match i's deals are rows ``offsets[i] .. offsets[i + 1] - 1``)."""
    rows = int(offsets[-1])
    match, deal = np.empty(rows, np.int64), np.empty(rows, np.int64)
    _number_deals(first_match, offsets, match, deal)
    return match, deal


@njit(cache=True, nogil=True)
def _number_deals(first_match, offsets, match, deal):
    for i in range(offsets.shape[0] - 1):
        for row in range(offsets[i], offsets[i + 1]):
            match[row] = first_match + i
            deal[row] = row - offsets[i]
