"""Each seat's chance of winning through a shedding game (``--trace``): the kernel.

A traced game (a match's deal) is played again from its deal, pausing after the deal and
after every turn (``g[S_PAUSE]``, see :func:`.kernel._play`). At each pause t it plays R
rollouts from states a spectator cannot tell from the game's: rollout r deals the hidden
cards (every hand and the stock) at random back into them, every size kept (the
determinization of :func:`.search.determinize`, for no seat), then plays on to the end with
the run's own strategies (a searching seat plays its rollout policy: a search at every
decision of every rollout would cost hundreds of times more), drawing from the stream
``(seed, search_game(game, deal, t), TRACE_STREAM + r)`` (``deal``: 0, or a match's deal
k). What a spectator sees is kept: the pile, the hand sizes, the suit in force, pending
penalties, direction, skips and barred seats. The
point's row counts the rollouts each seat won (one without a winner counts for none). The
last point, after the game's last turn, is its outcome: R for the winner, 0 for the others.

So a game of T turns has T + 1 points, 0 .. T; the game itself is played exactly as
untraced (the rollouts draw from streams of their own): its record does not change.
:mod:`.reference_chances` is the readable twin.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ...core.compiled.rng_jit import STATE_SIZE as RNG_STATE_SIZE
from ...core.compiled.rng_jit import search_game, stream_init
from ...core.compiled.work_sharing import fetch_add
from ...core.search_streams import TRACE_STREAM
from . import search as searching
from .kernel import _play, start_game, worker_scratch
from .kernel_layout import (
    DECK,
    G_HANDS,
    G_SIZE,
    MAX_CARDS,
    S_BUDGET,
    S_END,
    S_N,
    S_NEXT,
    S_PAUSE,
    S_ROLLOUT,
    S_STRATEGY,
    S_TURNS,
    S_WINNER,
)

SPECTATOR = -1
"""The seat whose cards a spectator's determinization keeps: none."""


@njit(cache=True, _nrt=False)
def _chances(g, copy, stream, pool, seat, number, key0, key1, rollouts, user, wins, row):
    """Row ``row`` of ``wins`` (int32[P, n]): the rollouts each seat won from the paused
    game ``g`` (``seat`` to take the next turn); ``copy``: scratch of ``G_SIZE`` words
    holding the run's rules and tables; ``number``: the point's stream game number."""
    n = g[S_N]
    for other in range(n):
        wins[row, other] = 0
    for r in range(rollouts):
        searching.copy_state(copy, g)
        copy[S_PAUSE] = 0
        for other in range(n):
            if copy[S_BUDGET + other] > 0:
                copy[S_STRATEGY + other] = copy[S_ROLLOUT + other]
        stream_init(stream, key0, key1, number, TRACE_STREAM + r)
        searching.determinize(copy, SPECTATOR, stream, pool)
        _play(copy, stream, seat, user, None, None)
        winner = copy[S_WINNER]
        if winner >= 0:
            wins[row, winner] += 1


@njit(cache=True, _nrt=False)
def trace_game(
    g, copy, stream, rstream, pool, key0, key1, game, stream_id, first, decks, hand_size,
    user, searcher, rollouts, wins, row, stop,
):  # fmt: skip
    """Deal game ``game`` from its stream ``stream_id`` (a match's deal k: ``(m, k)``, seat
    ``first`` first; -1: as the rules say) and play it, pausing at every point for
    :func:`_chances`; its points go to rows ``row ..`` of ``wins`` (int32[P, n]), never at
    or past ``stop``. Returns the points the game has (T + 1), which may exceed ``stop -
    row`` only if the game lasted longer than it was given."""
    n = g[S_N]
    seat = start_game(g, stream, key0, key1, game, stream_id, first, decks, hand_size, None)
    point = row
    while True:
        number = search_game(game, stream_id, g[S_TURNS])
        if point < stop:
            _chances(g, copy, rstream, pool, seat, number, key0, key1, rollouts, user, wins, point)
        point += 1
        g[S_PAUSE] = g[S_TURNS] + 1
        _play(g, stream, seat, user, None, searcher)
        if g[S_END] >= 0:
            break
        seat = g[S_NEXT]
    if point < stop:
        for other in range(n):
            wins[point, other] = rollouts if other == g[S_WINNER] else 0
    for i in range(G_HANDS, G_HANDS + n * DECK):  # the next deal starts from empty hands
        g[i] = 0
    return point + 1 - row


@njit(cache=True, parallel=True, nogil=True)
def trace_games(table, strategies, run, rollouts, deals, starts, wins, points, workers, taken):
    """Trace G games (deals): game i is ``deals[i] = (game, stream, first seat)`` (a random
    game's: ``(run.first + i, 0, -1)``; a match's deal k: ``(m, k, k % n)``); its points go
    to rows ``starts[i] .. starts[i + 1] - 1`` of ``wins`` (int32[P, n]), and ``points[i]``
    gets how many it had (equal to the rows given, unless the game was not the one
    counted). ``deals``: int64[G, 3]; ``starts``: int64[G + 1]. ``workers``, ``taken``: as
    :func:`.kernel.play_random_games`, one game a work item."""
    key0, key1 = run.key0, run.key1
    decks, hand_size, user = table.decks, table.hand_size, strategies.user
    searcher = strategies.searcher
    count = points.shape[0]
    for _ in prange(workers):
        g, stream, _stats, _seats = worker_scratch(table, strategies)
        copy = np.empty(G_SIZE, np.int64)
        for i in range(G_SIZE):
            copy[i] = g[i]
        rstream = np.empty(RNG_STATE_SIZE, np.int64)
        pool = np.empty(MAX_CARDS, np.int64)
        i = fetch_add(taken, 0, 1)
        while i < count:
            points[i] = trace_game(
                g, copy, stream, rstream, pool, key0, key1, deals[i, 0], deals[i, 1],
                deals[i, 2], decks, hand_size, user, searcher, rollouts, wins, starts[i],
                starts[i + 1],
            )  # fmt: skip
            i = fetch_add(taken, 0, 1)
