"""Dynamic work sharing for the parallel kernels.

numba's ``prange`` hands each thread an equal, fixed share of the iterations. That is fine
on an idle machine, but while a chunk's records are written to Parquet (in another thread)
one of the kernel's threads shares its core with the writer, finishes its share late, and
the other thread waits for it. So the kernels run ``prange(workers)`` with one worker per
thread, and each worker takes the next block of games from a shared counter until none is
left: a slowed thread simply plays fewer blocks. Which thread plays a game never changes its
record (game ``i`` depends only on ``(seed, i)``).

The caller passes both the worker count and the counter (:func:`sharing`):
``numba.get_num_threads()`` inside a kernel keeps it out of the on-disk cache, and a counter
made inside with ``np.zeros`` is not safe: numba does not see ``fetch_add``'s writes, turns
the zero fill into a parallel loop of its own, and in a test the counter read 0 after the
workers had taken 103 blocks. ``numba.set_parallel_chunksize`` did not balance the load in
our measurements.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def fetch_add(typingctx, counter, index, value):
    """``counter[index] += value`` as one atomic step; returns the value before it.

    ``counter``: an int64 array shared by the threads of a parallel region."""
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64):
        return None
    signature = types.int64(counter, types.intp, types.int64)

    def codegen(context, builder, sig, args):
        array, position, amount = args
        array_type = sig.args[0]
        view = context.make_array(array_type)(context, builder, array)
        pointer = cgutils.get_item_pointer(context, builder, array_type, view, [position])
        return builder.atomic_rmw("add", pointer, amount, "monotonic")

    return signature, codegen


_in_flight: list = [None]
"""``(counter, games per block, games)`` of the kernel call in flight: what a progress bar
reads while the kernel runs (the kernels release the GIL)."""


def sharing(*, block: int = 1, games: int = 0) -> tuple[int, np.ndarray]:
    """A kernel's last two arguments: its workers (numba's current thread count) and their
    shared counter, a zeroed int64[1]. ``block``, ``games``: the kernel's games per block
    and its games, for :func:`share_taken`."""
    taken = np.zeros(1, np.int64)
    _in_flight[0] = (taken, block, games)
    return numba.get_num_threads(), taken


def share_taken() -> float:
    """The share (0 to 1) of the games of the kernel call in flight that its workers have
    taken up (blocks begun count as played); 0 when unknown."""
    current = _in_flight[0]
    if current is None or current[2] <= 0:
        return 0.0
    taken, block, games = current
    return min(1.0, float(taken[0]) * block / games)
