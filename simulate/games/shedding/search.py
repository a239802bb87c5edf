"""Strong players of the shedding kernel (``pimc:K``): the parts of a search that need no
game play (its options, determinizations and scratch). The driver, which plays the
rollouts, is :func:`.kernel._search`; :mod:`.reference_search` is the readable twin.

A searching seat decides at every decision point with two options or more. Its options, in
this order (ties go to the first): each legal identity, upward (a wild that names a suit
once for each suit it may name, upward), then drawing, then passing; after a card drawn
under ``draw_one_may_play``, playing it (with its suits) then keeping it; a drawn card
that must be played and names a suit, its suits. For each of K determinizations j it
deals what the seat cannot see (the other hands and the stock) at random into them,
keeping every size, from the stream ``(seed, search_game(game, deal, decision),
SEARCH_STREAM + j)``, and plays each option on from that same determinization and stream
state (common random numbers), every seat playing the rollout policy; it takes the option
whose rollouts it won most often.

Functions of the scratch ``g`` (:mod:`.kernel_layout`) and of a search's scratch ``sc``
(``SC_*`` offsets below); ``_nrt=False``: nothing allocates.
"""

from __future__ import annotations

import numpy as np
from numba import cfunc, njit, types

from ...core.compiled.bits import trailing_zeros
from ...core.compiled.rng_jit import STATE_SIZE as RNG_STATE_SIZE
from ...core.compiled.rng_jit import search_game, shuffle
from .kernel_layout import (
    CARD_BITS,
    DECK,
    DRAW,
    G_DRAW,
    G_FLAGS,
    G_HANDS,
    G_PILE,
    G_RULES,
    G_SIZE,
    G_STOCK,
    G_WEIGHTS,
    INVALID,
    KEEP,
    MAX_CARDS,
    OPENING,
    PASS,
    R_WILD_MODE,
    S_DECISIONS,
    S_FORGET,
    S_GAME_NO,
    S_HELD,
    S_LEN,
    S_N,
    S_PAUSE,
    S_PENDING,
    S_PLEN,
    S_R_COMPULSORY,
    S_R_DRAWN,
    S_R_EXTRA,
    S_R_MODE,
    S_RESUME,
    S_ROLLOUT,
    S_SEND,
    S_SPOS,
    S_STRATEGY,
    S_STREAM_NO,
    S_SUIT,
    WILD_DIFFERENT,
    WILD_OWN_SUIT,
)
from .kernel_strategies import FEATURES
from .rules import FLAG_WILD, MAX_PLAYERS

# Kinds of searched decision.
CHOOSE, DRAWN, SUIT = 0, 1, 2

SEARCH_CSIG = types.int64(types.CPointer(types.int64), *[types.int64] * 10)
"""What the kernel calls for a searching seat's decision: ``(g pointer, seat, kind, card,
mask, may_draw, may_pass, mode, compulsory, extra, drawn)`` -> the option's action. A
C-callable is typed by its signature alone, so the kernel compiled for every other run
serves the searches too (:func:`.kernel.search_cfunc`), and numba compiles the search, with
its rollouts, only when a seat searches."""


@cfunc(SEARCH_CSIG, cache=True)
def no_search(g, seat, kind, card, mask, may_draw, may_pass, mode, compulsory, extra, drawn):
    """The placeholder passed when no seat searches (never called)."""
    return INVALID


MAX_OPTIONS = DECK * 4 + 2
"""Every identity once per suit, drawing and passing."""

# A search's scratch (past ``G_SIZE`` in a worker's ``g``): the rollout stream and its state
# after the determinization, the pool of unseen cards, the options (action, suit) with
# their wins, the determinized state and a rollout's copy; ``ismcts``' tree follows the copy
# (:mod:`.tree`: a seat deciding in the tree finds it past its copy of the game).
SC_STREAM = 0
SC_SAVED = SC_STREAM + RNG_STATE_SIZE
SC_POOL = SC_SAVED + RNG_STATE_SIZE
SC_ACTIONS = SC_POOL + MAX_CARDS
SC_SUITS = SC_ACTIONS + MAX_OPTIONS
SC_WINS = SC_SUITS + MAX_OPTIONS
SC_BASE = SC_WINS + MAX_OPTIONS
SC_COPY = SC_BASE + G_SIZE
SC_SIZE = SC_COPY + G_SIZE
"""int64 words of a search's scratch before the tree (about 40 KB, whatever the budget)."""


@njit(cache=True, _nrt=False)
def _add(actions, suits, count, action, suit):
    actions[count] = action
    suits[count] = suit
    return count + 1


@njit(cache=True, _nrt=False)
def _add_card(g, actions, suits, count, card, mode):
    """Add ``card``'s options: once, or once per suit it may name."""
    wild_mode = g[G_RULES + R_WILD_MODE]
    names = (
        mode != OPENING
        and (g[G_FLAGS + card] & FLAG_WILD) != 0
        and not (g[G_DRAW + card] > 0 and g[S_PENDING] > 0)
        and wild_mode != WILD_OWN_SUIT
    )
    if not names:
        return _add(actions, suits, count, card, -1)
    for suit in range(4):
        if wild_mode != WILD_DIFFERENT or suit != g[S_SUIT]:
            count = _add(actions, suits, count, card, suit)
    return count


@njit(cache=True, _nrt=False)
def options(g, kind, card, mask, may_draw, may_pass, mode, actions, suits):
    """Write the decision's options into ``actions`` (an identity, ``DRAW``, ``PASS`` or
    ``KEEP``) and ``suits`` (the suit a wild names, -1 none); returns how many."""
    count = 0
    if kind == CHOOSE:
        m = mask
        while m:
            count = _add_card(g, actions, suits, count, trailing_zeros(m), mode)
            m &= m - 1
        if may_draw:
            count = _add(actions, suits, count, DRAW, -1)
        if may_pass:
            count = _add(actions, suits, count, PASS, -1)
    else:
        count = _add_card(g, actions, suits, count, card, mode)
        if kind == DRAWN:
            count = _add(actions, suits, count, KEEP, -1)
    return count


@njit(cache=True, _nrt=False)
def copy_state(dst, src):
    """Copy what a game changes (the state, the hands, the stock and the pile) from ``src``
    to ``dst``, scratch arrays of one run (the rules and tables past them are equal)."""
    for i in range(G_HANDS + src[S_N] * DECK):
        dst[i] = src[i]
    for i in range(src[S_SEND]):
        dst[G_STOCK + i] = src[G_STOCK + i]
    for i in range(src[S_PLEN]):
        dst[G_PILE + i] = src[G_PILE + i]


@njit(cache=True, _nrt=False)
def determinize(g, seat, stream, pool):
    """Deal the cards ``seat`` cannot see (the other hands, then the stock) at random back
    into them, every size kept. The pool is the other seats' cards in seat order, each hand
    upward (copies adjacent), then the stock top first; it is shuffled as every shuffle is
    (:func:`simulate.core.compiled.rng_jit.shuffle`), then dealt in the same order."""
    n = g[S_N]
    count = 0
    for other in range(n):
        if other == seat:
            continue
        m = g[S_HELD + other]
        while m:
            card = trailing_zeros(m)
            hand = G_HANDS + other * DECK + card
            for _ in range(g[hand]):
                pool[count] = card
                count += 1
            g[hand] = 0
            m &= m - 1
        g[S_HELD + other] = 0
    for i in range(g[S_SPOS], g[S_SEND]):
        pool[count] = g[G_STOCK + i]
        count += 1
    shuffle(stream, pool, count)
    k = 0
    for other in range(n):
        if other == seat:
            continue
        held = 0
        for _ in range(g[S_LEN + other]):
            card = pool[k] & CARD_BITS
            k += 1
            g[G_HANDS + other * DECK + card] += 1
            held |= np.int64(1) << card
        g[S_HELD + other] = held
    for i in range(g[S_SPOS], g[S_SEND]):
        g[G_STOCK + i] = pool[k]
        k += 1


@njit(cache=True, _nrt=False)
def set_rollout(g, seat, mode, compulsory, extra, drawn):
    """Make ``g`` a rollout's start: every seat plays ``seat``'s rollout policy (its code;
    its weights, the seat's, copied to every seat; no forgotten calls), and the first turn
    resumes at the decision (mode, compulsory play, extra plays made, cards drawn)."""
    code = g[S_ROLLOUT + seat]
    for other in range(g[S_N]):
        g[S_STRATEGY + other] = code
        g[S_FORGET + other] = -1
    g[S_RESUME] = 1
    g[S_PAUSE] = 0  # a rollout plays to the end, even in a traced game
    g[S_R_MODE] = mode
    g[S_R_COMPULSORY] = compulsory
    g[S_R_EXTRA] = extra
    g[S_R_DRAWN] = drawn


@njit(cache=True, _nrt=False)
def begin(g, seat, dst):
    """A searched decision of ``seat`` begins: ``dst`` gets the game's rules and tables
    (:func:`copy_state` copies the rest for each rollout) with the seat's weights shared
    (:func:`share_weights`); returns the decision's number for its streams,
    ``search_game(game, deal, decision)`` (the game's searched decisions go up by one)."""
    game = search_game(g[S_GAME_NO], g[S_STREAM_NO], g[S_DECISIONS])
    g[S_DECISIONS] += 1
    for i in range(G_SIZE):
        dst[i] = g[i]
    share_weights(dst, seat)
    return game


@njit(cache=True, _nrt=False)
def share_weights(g, seat):
    """Copy ``seat``'s weights (its rollout policy's) to every seat."""
    for other in range(MAX_PLAYERS):
        for f in range(FEATURES):
            g[G_WEIGHTS + other * FEATURES + f] = g[G_WEIGHTS + seat * FEATURES + f]


@njit(cache=True, _nrt=False)
def best_option(wins, count):
    """The option with the most wins; ties to the first."""
    best = 0
    for o in range(1, count):
        if wins[o] > wins[best]:
            best = o
    return best
