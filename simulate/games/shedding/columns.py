"""The kernel's rows narrowed into the record's typed columns.

The kernels write one int64 row per game (``stats`` int64[G, STATS] and ``seats``
int64[G, 3, n]); the records keep each field in its own narrow, contiguous column, so that
Arrow wraps the columns without copying them. The narrowing runs on every thread: done in
numpy it was a serial tenth of a run's time.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .kernel import (
    O_DRAWS,
    O_END,
    O_FINISH,
    O_FIRST,
    O_PASSES,
    O_PLAYS,
    O_RESHUFFLES,
    O_TURNS,
    O_WILDS,
    O_WINNER,
)

BYTE_COLUMNS = {"winner": O_WINNER, "end": O_END, "finish_rank": O_FINISH, "first_seat": O_FIRST}
"""int8 columns: name -> its column of the kernel's ``stats``."""
COUNT_COLUMNS = {
    "turns": O_TURNS,
    "plays": O_PLAYS,
    "draws": O_DRAWS,
    "passes": O_PASSES,
    "wilds": O_WILDS,
    "reshuffles": O_RESHUFFLES,
}
"""int32 columns: name -> its column of the kernel's ``stats``."""
SEAT_COLUMNS = {"cards_left": np.int16, "points": np.int32, "score": np.int32}
"""The kernel's ``seats[:, k, :]`` for k = 0, 1, 2, as [G, n] arrays of these types, stored
seat by seat (Fortran order: ``column[:, seat]`` is contiguous)."""

_BYTE_SOURCES = np.array(list(BYTE_COLUMNS.values()), np.int64)
_COUNT_SOURCES = np.array(list(COUNT_COLUMNS.values()), np.int64)


def empty_columns(count: int, players: int) -> dict[str, np.ndarray]:
    """Uninitialised record columns for ``count`` games: the int8 and int32 ones are rows
    of one 2-D block each (contiguous views), the per-seat ones Fortran-ordered."""
    small = np.empty((len(BYTE_COLUMNS), count), np.int8)
    counts = np.empty((len(COUNT_COLUMNS), count), np.int32)
    columns = {name: small[k] for k, name in enumerate(BYTE_COLUMNS)}
    columns.update({name: counts[k] for k, name in enumerate(COUNT_COLUMNS)})
    for name, dtype in SEAT_COLUMNS.items():
        columns[name] = np.empty((count, players), dtype, order="F")
    return columns


def fill_columns(columns: dict[str, np.ndarray], start: int, stats, seats) -> None:
    """Narrow the kernel's ``stats`` int64[G, STATS] and ``seats`` int64[G, 3, n] into rows
    ``start .. start + G - 1`` of ``columns`` (made by :func:`empty_columns`)."""
    small = columns["winner"].base
    counts = columns["turns"].base
    _narrow(
        stats,
        seats,
        start,
        _BYTE_SOURCES,
        small,
        _COUNT_SOURCES,
        counts,
        columns["cards_left"],
        columns["points"],
        columns["score"],
    )


@njit(cache=True, parallel=True, nogil=True)
def _narrow(stats, seats, start, byte_sources, small, count_sources, counts, left, points, score):
    """``small[k, start + i] = stats[i, byte_sources[k]]``, likewise ``counts``; ``left``,
    ``points``, ``score`` [G', n] take ``seats[i, 0..2, :]``."""
    for i in prange(stats.shape[0]):
        row = start + i
        for k in range(byte_sources.shape[0]):
            small[k, row] = stats[i, byte_sources[k]]
        for k in range(count_sources.shape[0]):
            counts[k, row] = stats[i, count_sources[k]]
        for seat in range(seats.shape[2]):
            left[row, seat] = seats[i, 0, seat]
            points[row, seat] = seats[i, 1, seat]
            score[row, seat] = seats[i, 2, seat]


def match_columns(first_match: int, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ``match`` and ``deal`` int64[R] columns of deal rows laid out by ``offsets``
    int64[M + 1] (match i's deals are rows ``offsets[i] .. offsets[i + 1] - 1``)."""
    rows = int(offsets[-1])
    match, deal = np.empty(rows, np.int64), np.empty(rows, np.int64)
    _number_deals(first_match, offsets, match, deal)
    return match, deal


@njit(cache=True, parallel=True, nogil=True)
def _number_deals(first_match, offsets, match, deal):
    for i in prange(offsets.shape[0] - 1):
        for row in range(offsets[i], offsets[i + 1]):
            match[row] = first_match + i
            deal[row] = row - offsets[i]
