"""Each seat's chance of winning through a Beggar-My-Neighbour deal (``--trace``): the
kernel.

A traced deal is played again trick by trick. Before each of its T tricks (T: its
record's ``tricks``), R rollouts start from states a spectator cannot tell from the game's:
every seat keeps the cards of its packet, in an order drawn at random (its cards, top
first, shuffled as every shuffle is), the lead stays, and the game is played on to its end
as a deal of its own (:func:`.kernel.play_game`: out, a cycle, or the time limit less the
cards played so far). Rollout r before trick t + 1 of game g draws from the stream
``(seed, search_game(g, 0, t), TRACE_STREAM + r)``. The point's row counts the rollouts
each seat won; the last point, after trick T, is the deal's outcome (R for its winner, 0
for every seat when it has none). :mod:`.reference_chances` is the readable twin.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ...core.compiled.rng_jit import STATE_SIZE as RNG_STATE_SIZE
from ...core.compiled.rng_jit import search_game, shuffle, stream_init
from ...core.compiled.work_sharing import fetch_add
from ...core.search_streams import TRACE_STREAM
from .deal import DECK_SIZE
from .kernel import (
    NO_LIMIT,
    ROW_DEAL,
    ROW_GAME,
    SCRATCH_ROWS,
    ST_LEADER,
    ST_LEN,
    ST_MASK,
    ST_RANKS,
    STATE_SIZE,
    copy_state,
    deal_random,
    play_game,
    play_trick,
    set_hands,
)
from .rules import MAX_PLAYERS, R_TIME_LIMIT


@njit(cache=True, _nrt=False)
def _packets(state, n, kinds, lengths):
    """Each seat's packet in ``state`` as kinds, top first: ``kinds[seat, :lengths[seat]]``."""
    for seat in range(n):
        mask = state[ST_MASK + seat]
        ranks = state[ST_RANKS + seat]
        length = state[ST_LEN + seat]
        lengths[seat] = length
        for pos in range(length):
            if (mask >> pos) & 1:
                kinds[seat, pos] = (ranks & 3) + 1
                ranks >>= 2
            else:
                kinds[seat, pos] = 0


@njit(cache=True, _nrt=False)
def _chances(state, n, rules, cards, number, key0, key1, rollouts, work, wins, row):
    """Row ``row`` of ``wins`` (int32[P, n]): the rollouts each seat won from ``state``
    (a game state after ``cards`` cards). ``work``: a :func:`trace_scratch`."""
    scratch, kinds, shuffled, lengths, held, stream, own_rules = work
    _packets(state, n, kinds, lengths)
    for i in range(own_rules.shape[0]):
        own_rules[i] = rules[i]
    if rules[R_TIME_LIMIT] > 0:
        own_rules[R_TIME_LIMIT] = rules[R_TIME_LIMIT] - cards
    for seat in range(n):
        wins[row, seat] = 0
    for r in range(rollouts):
        stream_init(stream, key0, key1, number, TRACE_STREAM + r)
        for seat in range(n):
            for pos in range(lengths[seat]):
                shuffled[seat, pos] = kinds[seat, pos]
            shuffle(stream, shuffled[seat], lengths[seat])
        deal = scratch[ROW_DEAL]
        set_hands(deal, shuffled, lengths, n)
        deal[ST_LEADER] = state[ST_LEADER]
        winner = play_game(scratch, n, own_rules, held, None)[1]
        if winner >= 0:
            wins[row, winner] += 1


@njit(cache=True)
def trace_scratch(rules):
    """A worker's scratch for the rollouts: game rows, the packets' kinds (as found, and
    shuffled), their lengths, the seats' cards at a rollout's end, a stream, and the rules
    with the time that is left."""
    return (
        np.empty((SCRATCH_ROWS, STATE_SIZE), np.int64),
        np.zeros((MAX_PLAYERS, DECK_SIZE), np.int64),
        np.zeros((MAX_PLAYERS, DECK_SIZE), np.int64),
        np.zeros(MAX_PLAYERS, np.int64),
        np.zeros(MAX_PLAYERS, np.int8),
        np.empty(RNG_STATE_SIZE, np.int64),
        np.empty(rules.shape[0], np.int64),
    )


@njit(cache=True, _nrt=False)
def trace_deal(
    key0, key1, game, n, rules, tricks, winner, rollouts, stream, deck, scratch, work, wins, row
):  # fmt: skip
    """Deal game ``game`` and play its ``tricks`` tricks (its record's), the rollouts of
    :func:`_chances` before each; its T + 1 points go to rows ``row ..`` of ``wins``, the
    last the outcome (``winner``: its record's, -1 for none)."""
    stream_init(stream, key0, key1, game, 0)
    deal_random(stream, deck, scratch[ROW_DEAL], n)
    state = scratch[ROW_GAME]
    copy_state(state, scratch[ROW_DEAL])
    cards = 0
    for t in range(tricks):
        number = search_game(game, 0, t)
        _chances(state, n, rules, cards, number, key0, key1, rollouts, work, wins, row + t)
        cards += play_trick(state, n, rules, NO_LIMIT, None)[1]
    for seat in range(n):
        wins[row + tricks, seat] = rollouts if seat == winner else 0


@njit(cache=True, parallel=True, nogil=True)
def trace_random_deals(table, run, rollouts, tricks, winners, starts, wins, workers, taken):
    """Trace games ``run.first .. run.first + G - 1`` (G = ``len(tricks)``; ``tricks``,
    ``winners``: their records'): game ``run.first + i``'s points go to rows ``starts[i] ..
    starts[i + 1] - 1`` of ``wins`` (int32[P, n]). ``workers``, ``taken``: as
    :func:`.kernel.play_random_deals`, one game a work item."""
    key0, key1, first_game = run.key0, run.key1, run.first
    n, rules = table.players, table.rules
    count = tricks.shape[0]
    for _ in prange(workers):
        scratch = np.empty((SCRATCH_ROWS, STATE_SIZE), np.int64)
        deck = np.empty(DECK_SIZE, np.int8)
        stream = np.empty(RNG_STATE_SIZE, np.int64)
        work = trace_scratch(rules)
        i = fetch_add(taken, 0, 1)
        while i < count:
            trace_deal(
                key0, key1, first_game + i, n, rules, tricks[i], winners[i], rollouts,
                stream, deck, scratch, work, wins, starts[i],
            )  # fmt: skip
            i = fetch_add(taken, 0, 1)
