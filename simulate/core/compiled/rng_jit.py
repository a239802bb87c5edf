"""Counter-based random numbers: Philox4x32-10 compiled with numba.

The compiled twin of :mod:`simulate.core.rng` (read that module for the definition of a game's
stream). Kernels keep a game's stream in a small int64 array, so that it can live in scratch
space and be passed down to any function that needs randomness:

    state[0:2]  key words (seed low, seed high)
    state[2:5]  counter words 1..3 (stream id, game low, game high)
    state[5]    next block number (counter word 0)
    state[6]    index of the next unused word in the buffer, BUFFER_WORDS when empty
    state[7:23] the words of the current four blocks

Four consecutive blocks are computed together, as the lanes of vectors (one 32x32->64-bit
vector multiply does a multiply of each block); the words come out in the same order as
one block at a time.

All arithmetic that can exceed 2**63 is done in uint64. The functions allocate nothing and
are compiled with ``_nrt=False`` (no reference counting), so kernels can call them per
draw; call them from a function compiled the same way, or the reference counting of the
``state`` argument comes back on every call.
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from ..rng import MASK32, PHILOX_M0, PHILOX_M1, PHILOX_ROUNDS, PHILOX_W0, PHILOX_W1, batch_bounds
from ..search_streams import FMIX, MIX

BLOCKS_AT_ONCE = 4
"""Blocks computed together, as the lanes of vectors (see :func:`_philox_buffer`)."""
BUFFER_WORDS = 4 * BLOCKS_AT_ONCE
STATE_SIZE = 7 + BUFFER_WORDS

_U32 = np.uint64(MASK32)
_MIX0, _MIX1, _MIX2 = (np.uint64(m) for m in MIX)
_FMIX0, _FMIX1 = (np.uint64(m) for m in FMIX)
_S1, _S33 = np.uint64(1), np.uint64(33)
_S32 = np.uint64(32)
_M0 = np.uint64(PHILOX_M0)
_M1 = np.uint64(PHILOX_M1)
_W0 = np.uint64(PHILOX_W0)
_W1 = np.uint64(PHILOX_W1)


@njit(cache=True, inline="always", _nrt=False)
def philox4x32(c0, c1, c2, c3, k0, k1):
    """One Philox4x32-10 block; arguments and results are 32-bit values in int64."""
    x0 = np.uint64(c0)
    x1 = np.uint64(c1)
    x2 = np.uint64(c2)
    x3 = np.uint64(c3)
    y0 = np.uint64(k0)
    y1 = np.uint64(k1)
    for round_ in range(PHILOX_ROUNDS):
        if round_ > 0:
            y0 = (y0 + _W0) & _U32
            y1 = (y1 + _W1) & _U32
        x0, x1, x2, x3 = _philox_round(x0, x1, x2, x3, y0, y1)
    return np.int64(x0), np.int64(x1), np.int64(x2), np.int64(x3)


@njit(cache=True, inline="always", _nrt=False)
def _philox_round(x0, x1, x2, x3, y0, y1):
    p0 = _M0 * x0
    p1 = _M1 * x2
    return (p1 >> _S32) ^ x1 ^ y0, p1 & _U32, (p0 >> _S32) ^ x3 ^ y1, p0 & _U32


@intrinsic
def _philox_buffer(typingctx, state):
    """Compute the four blocks from block ``state[5]`` into ``state[7:23]``, block by block.

    The blocks are the four lanes of vectors: each round is two 32x32->64-bit vector
    multiplies (every operand is known to fit in 32 bits) and a few vector logic
    operations, so four blocks take about the time of one computed alone.
    """
    if not (isinstance(state, types.Array) and state.dtype == types.int64 and state.ndim == 1):
        return None

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        i32, i64 = ir.IntType(32), ir.IntType(64)
        vec = ir.VectorType(i64, BLOCKS_AT_ONCE)

        def word(k):
            return builder.and_(builder.load(builder.gep(data, [ir.Constant(i64, k)])), mask)

        def splat(value):
            lanes = builder.insert_element(ir.Constant(vec, ir.Undefined), value, i32(0))
            zeros = ir.Constant(ir.VectorType(i32, BLOCKS_AT_ONCE), [0] * BLOCKS_AT_ONCE)
            return builder.shuffle_vector(lanes, ir.Constant(vec, ir.Undefined), zeros)

        def constant(value):
            return ir.Constant(vec, [value] * BLOCKS_AT_ONCE)

        def shuffle(a, b, lanes):
            return builder.shuffle_vector(a, b, ir.Constant(ir.VectorType(i32, 4), lanes))

        # Every value is below 2**32 (the state holds 32-bit words and block numbers below
        # 2**32): masking says so to LLVM, which then multiplies 32-bit halves.
        mask = ir.Constant(i64, MASK32)
        lanes = ir.Constant(vec, list(range(BLOCKS_AT_ONCE)))
        x0 = builder.and_(builder.add(splat(word(5)), lanes), constant(MASK32))
        x1, x2, x3 = splat(word(2)), splat(word(3)), splat(word(4))
        k0, k1 = word(0), word(1)
        for round_ in range(PHILOX_ROUNDS):
            if round_ > 0:
                k0 = builder.and_(builder.add(k0, i64(PHILOX_W0)), mask)
                k1 = builder.and_(builder.add(k1, i64(PHILOX_W1)), mask)
            p0 = builder.mul(builder.and_(x0, constant(MASK32)), constant(PHILOX_M0))
            p1 = builder.mul(builder.and_(x2, constant(MASK32)), constant(PHILOX_M1))
            high0 = builder.lshr(p0, constant(32))
            high1 = builder.lshr(p1, constant(32))
            x0, x1, x2, x3 = (
                builder.xor(builder.xor(high1, x1), splat(k0)),
                builder.and_(p1, constant(MASK32)),
                builder.xor(builder.xor(high0, x3), splat(k1)),
                builder.and_(p0, constant(MASK32)),
            )
        # Transpose: lane b of x0..x3 is block b, stored as four consecutive words.
        low01, low23 = shuffle(x0, x1, [0, 4, 1, 5]), shuffle(x2, x3, [0, 4, 1, 5])
        high01, high23 = shuffle(x0, x1, [2, 6, 3, 7]), shuffle(x2, x3, [2, 6, 3, 7])
        rows = (
            shuffle(low01, low23, [0, 1, 4, 5]),
            shuffle(low01, low23, [2, 3, 6, 7]),
            shuffle(high01, high23, [0, 1, 4, 5]),
            shuffle(high01, high23, [2, 3, 6, 7]),
        )
        for block, row in enumerate(rows):
            address = builder.gep(data, [ir.Constant(i64, 7 + 4 * block)])
            builder.store(row, builder.bitcast(address, vec.as_pointer()), align=8)
        return context.get_dummy_value()

    return types.void(state), codegen


@njit(cache=True, _nrt=False)
def _refill(state):
    """Compute the next four blocks into the buffer."""
    _philox_buffer(state)
    state[5] += BLOCKS_AT_ONCE
    state[6] = 0


@njit(cache=True, _nrt=False)
def stream_init(state, key0, key1, game, stream):
    """Point ``state`` (int64[STATE_SIZE]) at the stream of ``game`` (0 <= game < 2**63).

    ``key0, key1`` are the run seed's two 32-bit words, from :func:`simulate.core.rng.seed_key`.
    """
    state[0] = key0
    state[1] = key1
    state[2] = stream
    state[3] = game & MASK32
    state[4] = game >> 32
    state[5] = 0
    state[6] = BUFFER_WORDS


@njit(cache=True, _nrt=False)
def search_game(game, stream, decision):
    """:func:`simulate.core.rng.search_game`: the game number of a search decision's
    rollout streams (uint64 arithmetic, which wraps as the reference's ``& MASK64``)."""
    x = np.uint64(game) * _MIX0 + np.uint64(stream + 1) * _MIX1 + np.uint64(decision + 1) * _MIX2
    x ^= x >> _S33
    x *= _FMIX0
    x ^= x >> _S33
    x *= _FMIX1
    x ^= x >> _S33
    return np.int64(x >> _S1)


@njit(cache=True, inline="always", _nrt=False)
def next_u32(state):
    """The next 32-bit word of the stream in ``state``."""
    if state[6] == BUFFER_WORDS:
        _refill(state)
    word = state[7 + state[6]]
    state[6] += 1
    return word


@njit(cache=True, inline="always", _nrt=False)
def bounded(state, n):
    """A uniform integer in ``[0, n)`` for ``1 <= n <= 2**31`` (Lemire's method, exact)."""
    product = next_u32(state) * n
    low = product & MASK32
    if low < n:
        threshold = ((1 << 32) - n) % n
        while low < threshold:
            product = next_u32(state) * n
            low = product & MASK32
    return product >> 32


def _batch_tables(size):
    """``last``, ``product`` and rejection threshold ``2**32 % product`` of the batch that
    starts at position ``i`` (see :func:`batch_end`), for ``0 < i < size``."""
    last = np.zeros(size, np.int64)
    product = np.ones(size, np.int64)
    threshold = np.zeros(size, np.int64)
    for i in range(1, size):
        bounds = batch_bounds(i)
        last[i] = i - len(bounds)
        product[i] = math.prod(bounds)
        threshold[i] = (1 << 32) % product[i]
    return last, product, threshold


BATCH_TABLE = 8 * 52 + 1
"""Positions below this have their batch precomputed (decks of up to eight 52-card packs)."""
BATCH_LAST, BATCH_PRODUCT, BATCH_THRESHOLD = _batch_tables(BATCH_TABLE)


@njit(cache=True, inline="always", _nrt=False)
def batch_end(i):
    """The batch of draws from position ``i`` down, as :func:`simulate.core.rng.batch_bounds`.

    Returns ``(last, product)``: the batch covers positions ``i, i-1, ..., last+1`` (bounds
    ``i+1 ... last+2``) and ``product`` is the product of its bounds (at most 2**32).
    """
    if i < BATCH_TABLE:
        return BATCH_LAST[i], BATCH_PRODUCT[i]
    product = i + 1
    last = i - 1
    while last > 0 and product * (last + 1) <= 1 << 32:
        product *= last + 1
        last -= 1
    return last, product


@njit(cache=True, inline="always", _nrt=False)
def batch_word(state, i, last, product):
    """A word that yields uniform draws for positions ``i`` down to ``last+1``."""
    # Rejection (rare): only leftovers below 2**32 mod product would bias the draws. The
    # leftover after every draw is ``word * product mod 2**32`` (wrapping is harmless).
    threshold = BATCH_THRESHOLD[i] if i < BATCH_TABLE else (1 << 32) % product
    while True:
        word = next_u32(state)
        if (word * product) & MASK32 >= threshold:
            return word


@njit(cache=True, _nrt=False)
def shuffle(state, items, count):
    """Shuffle ``items[:count]`` in place, exactly as :meth:`simulate.core.rng.Stream.shuffle`.

    The leftover before a batch's k-th draw is ``word * (its first k-1 bounds) mod 2**32``,
    so each draw is computed from the word on its own, not from the draw before."""
    i = count - 1
    while i > 0:
        last, product = batch_end(i)
        word = batch_word(state, i, last, product)
        prefix = 1
        for position in range(i, last, -1):
            j = (((word * prefix) & MASK32) * (position + 1)) >> 32
            prefix *= position + 1
            tmp = items[position]
            items[position] = items[j]
            items[j] = tmp
        i = last
