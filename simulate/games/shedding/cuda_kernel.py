"""The shedding games on an NVIDIA GPU: CUDA kernels that call the CPU kernel's own game.

numba-cuda compiles a ``@numba.njit`` function called from a CUDA kernel as a device
function, from the same Python source and with numba's same typing. So these kernels do not
re-implement a game: a thread calls :func:`.kernel.play_game` (dealing from the game's
Philox stream, :mod:`simulate.core.compiled.rng_jit`, playing every turn, writing the record),
exactly the function the CPU's parallel kernels call, and only the launching differs: which
thread plays which game (persistent threads that take the next game, or match, from a
global atomic counter when theirs ends) and where its record goes. Game ``g`` of a run thus
has the same record on the GPU as on the CPU, and the two cannot drift apart: a change to
the CPU kernel is a change to the GPU's.

What the CPU kernel's game asks of its caller, a thread keeps in ``cuda.local.array``s: the
game scratch ``g`` (``G_SIZE`` int64: the state, the hands, the stock and the pile, copied
once per thread from the run's prepared scratch, as each CPU worker prepares its own), the
random stream and one record row (``stats``, ``seats``), which the thread narrows into the
typed columns as :func:`.kernel._narrow` does.

User strategies are compiled C callables on the CPU: the GPU kernels pass ``user=None``
(a seat with a user strategy is refused before a game is played, see :mod:`.cuda_batch`),
and numba compiles :func:`.kernel._ask_user` away for it. Under numba's CUDA simulator
(``NUMBA_ENABLE_CUDASIM=1``, for tests) the kernels run as Python threads that call the CPU
compiled :func:`.kernel.play_game`; there ``user`` is the CPU's placeholder, so that the
simulator reuses the CPU kernel's compiled code instead of compiling another.

Importing this module imports ``numba.cuda`` (and compiles nothing until the first launch).
"""

from __future__ import annotations

import numpy as np
from numba import types

from ...core.compiled.rng_jit import STATE_SIZE as RNG_STATE_SIZE
from ...core.gpu import load_cuda, simulated
from .kernel import play_game
from .kernel_layout import BYTE_FIELDS, COUNT_FIELDS, G_SIZE, STATS
from .kernel_strategies import no_user_strategy
from .rules import MAX_PLAYERS

cuda = load_cuda()

USER = no_user_strategy if simulated() else None
"""The ``user`` argument of :func:`.kernel.play_game` on the GPU (see the module)."""
BYTE_COUNT = BYTE_FIELDS.shape[0]
COUNT_COUNT = COUNT_FIELDS.shape[0]


@cuda.jit(device=True)
def _narrow(stats, seats, n, small, counts, left, points, score, row):
    """:func:`.kernel._narrow` for ``n`` seats: the record in ``stats[0]``, ``seats[0]`` into
    row ``row`` of the typed columns (``small`` int8[4, G], ``counts`` int32[11, G],
    ``left`` int16[G, n], ``points``, ``score`` int32[G, n])."""
    for k in range(BYTE_COUNT):
        small[k, row] = stats[0, BYTE_FIELDS[k]]
    for k in range(COUNT_COUNT):
        counts[k, row] = stats[0, COUNT_FIELDS[k]]
    for seat in range(n):
        left[row, seat] = seats[0, 0, seat]
        points[row, seat] = seats[0, 1, seat]
        score[row, seat] = seats[0, 2, seat]


@cuda.jit(device=True)
def _load(g, prepared):
    """Copy the run's prepared scratch (int64[G_SIZE], :func:`.kernel._prepare`) into the
    thread's ``g``."""
    for i in range(G_SIZE):
        g[i] = prepared[i]


@cuda.jit
def play_random_games(
    prepared, key0, key1, first, decks, hand_size, small, counts, left, points, score, taken
):
    """Deal and play games ``first .. first + G - 1`` of a run into the typed columns (G rows,
    row ``i`` game ``first + i``; see :func:`_narrow`), as :func:`.kernel.play_random_games`
    does on the CPU. ``prepared``: int64[G_SIZE], the run's scratch made by
    :func:`.kernel._prepare` (rules, players, strategies); ``key0``, ``key1``: the seed's
    32-bit words, ``first``, ``decks``, ``hand_size``: int64. Each thread takes the next
    game from ``taken`` (a zeroed int64[1]) until none is left."""
    g = cuda.local.array(G_SIZE, types.int64)
    stream = cuda.local.array(RNG_STATE_SIZE, types.int64)
    stats = cuda.local.array((1, STATS), types.int64)
    seats = cuda.local.array((1, 3, MAX_PLAYERS), types.int64)
    _load(g, prepared)
    n = np.int64(left.shape[1])
    count = np.int64(left.shape[0])
    i = np.int64(cuda.atomic.add(taken, 0, 1))
    while i < count:
        play_game(
            g,
            stream,
            key0,
            key1,
            first + i,
            np.int64(0),
            np.int64(-1),
            decks,
            hand_size,
            USER,
            stats,
            seats,
            np.int64(0),
            None,
            None,
        )
        _narrow(stats, seats, n, small, counts, left, points, score, i)
        i = np.int64(cuda.atomic.add(taken, 0, 1))


@cuda.jit
def play_matches(
    prepared,
    key0,
    key1,
    first,
    decks,
    hand_size,
    match_deals,
    target,
    max_deals,
    offsets,
    write,
    small,
    counts,
    left,
    points,
    score,
    totals,
    deals,
    taken,
):
    """Play matches ``first .. first + M - 1`` (M = ``deals.shape[0]``), as
    :func:`.kernel.play_matches` does on the CPU: deal k of match m from the stream
    ``(seed, m, k)`` with seat ``k % n`` first, until ``match_deals`` deals (0: no limit),
    a seat's total reaching ``target`` in absolute value (0: no target), or ``max_deals``.
    ``totals`` int64[M, n] and ``deals`` int64[M] receive each match's totals and deals;
    with ``write`` (1) deal k of match i is recorded in row ``offsets[i] + k`` of the typed
    columns, without (0) nothing is (a first pass that counts the deals). The other
    arguments as :func:`play_random_games`'s; each thread takes the next match from
    ``taken``."""
    g = cuda.local.array(G_SIZE, types.int64)
    stream = cuda.local.array(RNG_STATE_SIZE, types.int64)
    stats = cuda.local.array((1, STATS), types.int64)
    seats = cuda.local.array((1, 3, MAX_PLAYERS), types.int64)
    _load(g, prepared)
    n = np.int64(totals.shape[1])
    count = np.int64(deals.shape[0])
    i = np.int64(cuda.atomic.add(taken, 0, 1))
    while i < count:
        for seat in range(n):
            totals[i, seat] = np.int64(0)
        k = np.int64(0)
        while k < max_deals:
            play_game(
                g,
                stream,
                key0,
                key1,
                first + i,
                k,
                k % n,
                decks,
                hand_size,
                USER,
                stats,
                seats,
                np.int64(0),
                None,
                None,
            )
            if write != 0:
                _narrow(stats, seats, n, small, counts, left, points, score, offsets[i] + k)
            k += np.int64(1)
            reached = False
            for seat in range(n):
                totals[i, seat] += seats[0, 2, seat]
                if abs(totals[i, seat]) >= target > 0:
                    reached = True
            if k == match_deals or reached:
                break
        deals[i] = k
        i = np.int64(cuda.atomic.add(taken, 0, 1))
