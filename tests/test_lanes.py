"""The vector tension marks (simulate.core.compiled.lanes) against numpy and their scalar twins."""

import numpy as np
import pytest
from numba import njit

from simulate.core.compiled.lanes import LANE_COUNTS, PAD, fewest_mark, most_mark, scalar_mark

HELD_AT, BEHIND_AT = 3, 37  # odd offsets into one array, as the kernels' scratch has them


def _called(mark):
    @njit
    def call(g):
        return mark(g, HELD_AT, g, BEHIND_AT)

    return call


def _expected(held, behind, most):
    extreme = held.max() if most else held.min()
    gap = extreme - held if most else held - extreme
    tied = sum(1 << seat for seat in np.flatnonzero(held == extreme))
    return tied, np.maximum(behind, gap)


@pytest.mark.parametrize("most", [False, True], ids=["fewest", "most"])
@pytest.mark.parametrize("lanes", LANE_COUNTS)
def test_a_mark_equals_numpy(lanes, most):
    call = _called((most_mark if most else fewest_mark)[lanes])
    rng = np.random.default_rng(lanes + 100 * most)
    for _ in range(300):
        seats = int(rng.integers(1, lanes + 1))
        held = np.full(lanes, 0 if most else PAD, np.int64)
        held[:seats] = rng.integers(0, 6, seats)  # few values: many ties
        if most and not held.any():  # most_mark's lanes past the seats hold 0: some seat more
            held[int(rng.integers(seats))] = 1
        behind = rng.integers(0, 4, lanes)
        g = rng.integers(-(10**6), 10**6, BEHIND_AT + lanes + 5)
        g[HELD_AT : HELD_AT + lanes] = held
        g[BEHIND_AT : BEHIND_AT + lanes] = behind
        untouched = np.delete(g, np.r_[BEHIND_AT : BEHIND_AT + lanes]).copy()
        tied = call(g)
        expected_tied, expected_behind = _expected(held[:seats], behind[:seats], most)
        assert tied == expected_tied
        assert (g[BEHIND_AT : BEHIND_AT + seats] == expected_behind).all()
        # Nothing outside the deficits' lanes is written.
        assert (np.delete(g, np.r_[BEHIND_AT : BEHIND_AT + lanes]) == untouched).all()


@pytest.mark.parametrize("most", [False, True], ids=["fewest", "most"])
@pytest.mark.parametrize("lanes", LANE_COUNTS)
def test_the_scalar_twin_equals_the_vector_mark(lanes, most):
    # The twin is what the GPU compiles: the same tied seats and deficits, lanes included.
    call = _called((most_mark if most else fewest_mark)[lanes])
    rng = np.random.default_rng(7 * lanes + most)
    for _ in range(100):
        g = rng.integers(0, 9, BEHIND_AT + lanes).astype(np.int64)
        twin = g.copy()
        sign = -1 if most else 1
        assert call(g) == scalar_mark(twin, HELD_AT, twin, BEHIND_AT, lanes, sign)
        assert (g == twin).all()
