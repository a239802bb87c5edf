"""The kernels' side of game logs: the buffer a logged game writes its events into.

A kernel that logs takes a :class:`Log` where the normal one takes ``None``; every
``if log is not None:`` is pruned from the ``None`` specialization at compile time, so the
normal kernel is the same machine code as without logs, and the logging one is compiled
only when a run logs games. Rows past the buffer's end are counted but not written: the
caller sees ``log.at[0] > len(log.rows)`` and plays the game again with a larger buffer.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .events import (
    E_CARD,
    E_CAUSE,
    E_COUNT,
    E_END,
    E_EVENT,
    E_HAND,
    E_SEAT,
    E_STOCK,
    E_SUIT,
    E_TURN,
    NONE,
)

AT_ROWS, AT_TURN = 0, 1


class Log(NamedTuple):
    """One game's event buffer."""

    rows: np.ndarray
    """int32[R, W]: the events, in order (see :mod:`simulate.core.logs.events`)."""
    at: np.ndarray
    """int64[2]: rows written so far (may pass R: the buffer was too small), and the turn
    the next events belong to."""


@njit(cache=True, _nrt=False)
def put(log, seat, event, card, cause, count, suit, hand, stock, end):
    """Append one event (``NONE`` for an empty column) in the current turn."""
    at = log.at[AT_ROWS]
    if at < log.rows.shape[0]:
        row = log.rows[at]
        row[E_TURN] = log.at[AT_TURN]
        row[E_SEAT] = seat
        row[E_EVENT] = event
        row[E_CARD] = card
        row[E_CAUSE] = cause
        row[E_COUNT] = count
        row[E_SUIT] = suit
        row[E_HAND] = hand
        row[E_STOCK] = stock
        row[E_END] = end
    log.at[AT_ROWS] = at + 1


@njit(cache=True, _nrt=False)
def overflowed(log):
    """Whether the game wrote more rows than its buffer holds."""
    return log.at[AT_ROWS] > log.rows.shape[0]


@njit(cache=True, _nrt=False)
def cut_after_turn(log, turn):
    """Drop the rows of turns after ``turn`` (a cycle's log stops at its recorded end)."""
    at = log.at[AT_ROWS]
    for i in range(at):
        if log.rows[i, E_TURN] > turn:
            log.at[AT_ROWS] = i
            return


@njit(cache=True, _nrt=False)
def last_turn(log):
    """The turn of the last row written (0 when none)."""
    at = min(log.at[AT_ROWS], log.rows.shape[0])
    return log.rows[at - 1, E_TURN] if at > 0 else 0


def buffer(rows: int) -> np.ndarray:
    """An event buffer of ``rows`` rows, filled with ``NONE``."""
    from .events import W

    return np.full((rows, W), NONE, np.int32)
