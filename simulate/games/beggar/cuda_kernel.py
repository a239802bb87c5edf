"""Beggar-My-Neighbour on an NVIDIA GPU: CUDA kernels that call the CPU kernel's own game.

numba-cuda compiles a ``@numba.njit`` function called from a CUDA kernel as a device
function, from the same Python source and with numba's same typing. So these kernels do not
re-implement the game: a thread deals a game with :func:`.kernel.deal_random` (from the
game's Philox stream, :mod:`simulate.core.compiled.rng_jit`) or loads a given deal with
:func:`.kernel.set_hands`, and plays it with :func:`.kernel.play_game`, exactly the functions
the CPU's kernels call (hands as bitmasks, the two-seat fast path, Brent's cycle detection,
the time limit, the tension marks, whose vector code compiles as its scalar twin on the
device: :mod:`simulate.core.compiled.lanes`). Only the launching differs: persistent threads,
each taking the next deal from a global atomic counter when its own ends (a warp is not
held up by its longest deal for the whole launch), and where a record goes. Game ``g`` of a
run thus has the same record on the GPU as on the CPU, and the two cannot drift apart: a
change to the CPU kernel is a change to the GPU's. :mod:`simulate.games.shedding.cuda_kernel`
is built the same way.

What the CPU game asks of its caller, a thread keeps in ``cuda.local.array``s: the scratch
rows (``SCRATCH_ROWS`` game states), the deck, the random stream, the rule vector and the
hands held at the end (copied into the record's row), all typed as the CPU kernels type
theirs. Under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, for tests) the kernels
run as Python threads whose local arrays are numpy arrays, so each thread calls the CPU's
compiled functions (from numba's cache) rather than running the game as Python.

Importing this module imports ``numba.cuda`` (and compiles nothing until the first launch).
"""

from __future__ import annotations

import numpy as np
from numba import types

from ...core.compiled.rng_jit import STATE_SIZE as RNG_STATE_SIZE
from ...core.gpu import load_cuda
from .deal import DECK_SIZE
from .kernel import ROW_DEAL, SCRATCH_ROWS, STATE_SIZE, deal_and_play, play_game, set_hands
from .rules import MAX_PLAYERS, RULE_VECTOR_SIZE

cuda = load_cuda()


@cuda.jit(device=True)
def _load_rules(rules, local):
    """Copy the run's rule vector (int64[RULE_VECTOR_SIZE], device memory) into ``local``."""
    for k in range(RULE_VECTOR_SIZE):
        local[k] = rules[k]


@cuda.jit(device=True)
def _store(result, held, n, row, out):
    """Row ``row`` of the record columns ``out`` from :func:`.kernel.play_game`'s
    ``result`` tuple and the hands in ``held`` (int8[n])."""
    cards, tricks, winner, end, cycle_cards, cycle_tricks, out_held, changes, behind = out
    end[row] = result[0]
    winner[row] = result[1]
    cards[row] = result[2]
    tricks[row] = result[3]
    cycle_cards[row] = result[4]
    cycle_tricks[row] = result[5]
    changes[row] = result[6]
    behind[row] = result[7]
    for seat in range(n):
        out_held[row, seat] = held[seat]


@cuda.jit
def play_random_deals(
    key0,
    key1,
    first,
    n,
    rules,
    cards,
    tricks,
    winner,
    end,
    cycle_cards,
    cycle_tricks,
    held,
    lead_changes,
    winner_behind,
    taken,
):
    """Deal and play games ``first .. first + G - 1`` of the run with seed words ``key0``,
    ``key1`` (int64, each below 2**32) at ``n`` seats (int64) under ``rules``
    (int64[RULE_VECTOR_SIZE]) into the record columns (G rows: ``cards``, ``tricks``,
    ``cycle_cards``, ``cycle_tricks``, ``lead_changes``, ``winner_behind`` int32;
    ``winner``, ``end`` int8; ``held`` int8[G, n]), as :func:`.kernel.play_random_deals`
    does on the CPU. Each thread takes the next game from ``taken`` (a zeroed int64[1])
    until none is left."""
    scratch = cuda.local.array((SCRATCH_ROWS, STATE_SIZE), types.int64)
    deck = cuda.local.array(DECK_SIZE, types.int8)
    stream = cuda.local.array(RNG_STATE_SIZE, types.int64)
    vector = cuda.local.array(RULE_VECTOR_SIZE, types.int64)
    hands = cuda.local.array((1, MAX_PLAYERS), types.int8)
    _load_rules(rules, vector)
    out = (cards, tricks, winner, end, cycle_cards, cycle_tricks, held, lead_changes, winner_behind)
    count = np.int64(cards.shape[0])
    i = np.int64(cuda.atomic.add(taken, 0, 1))
    while i < count:
        result = deal_and_play(
            key0, key1, first + i, n, vector, stream, deck, scratch, hands, np.int64(0)
        )
        _store(result, hands[0], n, i, out)
        i = np.int64(cuda.atomic.add(taken, 0, 1))


@cuda.jit
def play_given_deals(
    n,
    rules,
    hands,
    lengths,
    cards,
    tricks,
    winner,
    end,
    cycle_cards,
    cycle_tricks,
    held,
    lead_changes,
    winner_behind,
    taken,
):
    """:func:`.kernel.play_given_deals` on the GPU: deal ``g`` is ``hands[g, seat,
    :lengths[g, seat]]`` (kinds, top card first; ``hands`` int8[G, MAX_PLAYERS, 52],
    ``lengths`` int64[G, MAX_PLAYERS]); the columns as :func:`play_random_deals`'s."""
    scratch = cuda.local.array((SCRATCH_ROWS, STATE_SIZE), types.int64)
    vector = cuda.local.array(RULE_VECTOR_SIZE, types.int64)
    deal = cuda.local.array((MAX_PLAYERS, DECK_SIZE), types.int8)
    length = cuda.local.array(MAX_PLAYERS, types.int64)
    at_end = cuda.local.array(MAX_PLAYERS, types.int8)
    _load_rules(rules, vector)
    out = (cards, tricks, winner, end, cycle_cards, cycle_tricks, held, lead_changes, winner_behind)
    count = np.int64(cards.shape[0])
    i = np.int64(cuda.atomic.add(taken, 0, 1))
    while i < count:
        for seat in range(MAX_PLAYERS):
            length[seat] = lengths[i, seat]
            for pos in range(length[seat]):
                deal[seat, pos] = hands[i, seat, pos]
        set_hands(scratch[ROW_DEAL], deal, length, n)
        _store(play_game(scratch, n, vector, at_end, None), at_end, n, i, out)
        i = np.int64(cuda.atomic.add(taken, 0, 1))
