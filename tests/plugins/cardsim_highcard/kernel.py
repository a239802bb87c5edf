"""High card, the compiled kernel: many deals in parallel, as the reference plays them."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from simulate.core.compiled.rng_jit import STATE_SIZE, shuffle, stream_init
from simulate.core.compiled.work_sharing import fetch_add

BLOCK = 64


@njit(cache=True, parallel=True)
def play_deals(key0, key1, first_game, players, aces_high, winner, end, ties, won, workers, taken):
    """Games ``first_game .. first_game + len(winner) - 1``: ``winner``, ``end`` (0 out,
    1 draw) int8[G], ``ties`` int32[G], ``won`` int16[G, players]."""
    count = winner.shape[0]
    per_seat = 52 // players
    blocks = (count + BLOCK - 1) // BLOCK
    for _ in prange(workers):
        state = np.empty(STATE_SIZE, np.int64)
        deck = np.empty(52, np.int64)
        block = fetch_add(taken, 0, 1)
        while block < blocks:
            for i in range(block * BLOCK, min(count, (block + 1) * BLOCK)):
                for code in range(52):
                    deck[code] = code
                stream_init(state, key0, key1, first_game + i, 0)
                shuffle(state, deck, 52)
                for seat in range(players):
                    won[i, seat] = 0
                tied = 0
                for trick in range(per_seat):
                    best, holder, count_best = -1, -1, 0
                    for seat in range(players):
                        rank = deck[trick * players + seat] % 13
                        if rank == 0 and aces_high:
                            rank = 13
                        if rank > best:
                            best, holder, count_best = rank, seat, 1
                        elif rank == best:
                            count_best += 1
                    if count_best > 1:
                        tied += 1
                    else:
                        won[i, holder] += 1
                most, leader, count_most = -1, -1, 0
                for seat in range(players):
                    if won[i, seat] > most:
                        most, leader, count_most = won[i, seat], seat, 1
                    elif won[i, seat] == most:
                        count_most += 1
                winner[i] = leader if count_most == 1 else -1
                end[i] = 0 if count_most == 1 else 1
                ties[i] = tied
            block = fetch_add(taken, 0, 1)
