"""Counter-based random numbers on the GPU: Philox4x32-10 as numba.cuda device functions.

The device twin of :mod:`simulate.compiled.rng_jit` (read :mod:`simulate.rng` for the
definition of a game's stream): the same words in the same order, so a GPU thread that plays
game ``g`` draws what the CPU draws for it. A stream lives in a thread's local
``uint64[STREAM_SIZE]`` array:

    stream[0:2]  key words (seed low, seed high)
    stream[2:5]  counter words 1..3 (stream id, game low, game high)
    stream[5]    next block number (counter word 0)
    stream[6]    index of the next unused word of the buffer, 4 when empty
    stream[7:11] the words of the current block

Every value is a uint64 and every constant too: numba types ``uint64 op int64`` as a float,
and the CUDA simulator runs numpy's scalar rules, so mixing signed and unsigned would give
different answers on the device and in the simulator (or none at all).
"""

from __future__ import annotations

import numpy as np

from ..gpu import load_cuda
from ..rng import MASK32, PHILOX_M0, PHILOX_M1, PHILOX_ROUNDS, PHILOX_W0, PHILOX_W1
from .rng_jit import BATCH_PRODUCT, BATCH_THRESHOLD

cuda = load_cuda()

STREAM_SIZE = 11
_U32 = np.uint64(MASK32)
_S32 = np.uint64(32)
_M0 = np.uint64(PHILOX_M0)
_M1 = np.uint64(PHILOX_M1)
_W0 = np.uint64(PHILOX_W0)
_W1 = np.uint64(PHILOX_W1)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_FOUR = np.uint64(4)
_PRODUCT = BATCH_PRODUCT.astype(np.uint64)
"""Product of the bounds of the batch that starts at each position (see rng_jit)."""
_THRESHOLD = BATCH_THRESHOLD.astype(np.uint64)
"""Rejection threshold ``2**32 % product`` of that batch."""


@cuda.jit(device=True, inline=True)
def stream_init(stream, key0, key1, game):
    """Point ``stream`` at game ``game``'s stream (stream id 0); ``key0, key1``: the run
    seed's 32-bit words, ``game`` below 2**63, all uint64."""
    stream[0] = key0
    stream[1] = key1
    stream[2] = _ZERO
    stream[3] = game & _U32
    stream[4] = game >> _S32
    stream[5] = _ZERO
    stream[6] = _FOUR


@cuda.jit(device=True)
def _refill(stream):
    """Compute block ``stream[5]`` into ``stream[7:11]`` (Philox4x32-10)."""
    x0 = stream[5]
    x1 = stream[2]
    x2 = stream[3]
    x3 = stream[4]
    k0 = stream[0]
    k1 = stream[1]
    for round_ in range(PHILOX_ROUNDS):
        if round_ > 0:
            k0 = (k0 + _W0) & _U32
            k1 = (k1 + _W1) & _U32
        p0 = _M0 * x0
        p1 = _M1 * x2
        y0 = (p1 >> _S32) ^ x1 ^ k0
        y2 = (p0 >> _S32) ^ x3 ^ k1
        x1 = p1 & _U32
        x3 = p0 & _U32
        x0 = y0
        x2 = y2
    stream[7] = x0
    stream[8] = x1
    stream[9] = x2
    stream[10] = x3
    stream[5] = stream[5] + _ONE
    stream[6] = _ZERO


@cuda.jit(device=True, inline=True)
def next_u32(stream):
    """The next 32-bit word of the stream, a uint64."""
    if stream[6] == _FOUR:
        _refill(stream)
    at = stream[6]
    stream[6] = at + _ONE
    return stream[np.int64(7) + np.int64(at)]


@cuda.jit(device=True)
def batch_word(stream, i):
    """A word (uint64) that yields uniform draws for the batch starting at position ``i``
    (``1 <= i`` and below :data:`rng_jit.BATCH_TABLE`), as :func:`rng_jit.batch_word`."""
    product = _PRODUCT[i]
    threshold = _THRESHOLD[i]
    while True:
        word = next_u32(stream)
        # The product wraps modulo 2**64: only its low 32 bits are used.
        if (word * product) & _U32 >= threshold:
            return word
