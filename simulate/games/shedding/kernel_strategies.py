"""Compiled decisions of the ``weighted`` strategies (and ``greedy``, ``hold-wilds``,
``attack``), and the interface of user strategies, for the shedding kernel.

Pure functions of arrays and scalars (no game layout): the kernel passes the seat's hand,
its held mask, the rule vector and the weights. They mirror :class:`.reference.
WeightedStrategy` exactly: the same integer features (``strategies.FEATURES``), the same
integer scores, ties to the lowest identity (the first in card order).

User strategies (see ``docs/user_strategies.md``) are numba functions of the signature
:data:`USER_SIGNATURE`: ``choose(hand, legal, view) -> int64``, where ``hand`` is int64[52]
(copies held of each identity: suit * 13 + rank, suits C D H S, ranks A..K), ``legal`` the
52-bit mask of the identities it may play, and ``view`` int64[VIEW_SIZE + players] the
visible state at the ``VIEW_*`` offsets below. It returns an identity from ``legal``, or
``DRAW`` / ``PASS`` when ``view[VIEW_MAY_DRAW]`` / ``view[VIEW_MAY_PASS]`` allow it.
"""

from __future__ import annotations

import numpy as np
from numba import carray, cfunc, njit, types

from ...core.compiled.bits import popcount, trailing_zeros
from .features import ATTACK_THRESHOLD, FEATURE_NAMES
from .rules import FLAG_AGAIN, FLAG_REVERSE, FLAG_SKIP, R_ALL_DRAW, R_DRAW, R_EFFECT_FLAGS, R_POINTS

FEATURES = len(FEATURE_NAMES)
DRAW, PASS = -2, -3
"""A user strategy's answers besides a card (the kernel's codes)."""

# Offsets of the visible state in a user strategy's ``view``.
VIEW_SEAT = 0
"""The deciding seat."""
VIEW_PLAYERS = 1
VIEW_TOP = 2
"""Identity of the top card of the pile (-1 before the first card, in a club opening)."""
VIEW_SUIT = 3
"""Suit in force (0..3: C D H S)."""
VIEW_PENDING = 4
"""Draw penalty waiting for this seat (0: none; then ``legal`` holds the answers)."""
VIEW_DIRECTION = 5
"""+1 clockwise (seat + 1 is next), -1 counter-clockwise."""
VIEW_STOCK = 6
"""Cards in the stock."""
VIEW_MAY_DRAW = 7
VIEW_MAY_PASS = 8
VIEW_SIZES = 9
"""``view[VIEW_SIZES + s]``: cards in seat s's hand."""
VIEW_SIZE = VIEW_SIZES
"""The view's length without the hand sizes (the kernel keeps room for 15 seats)."""

USER_SIGNATURE = types.int64(types.int64[::1], types.int64, types.int64[::1])
"""``choose(hand, legal, view) -> int64``: the numba signature of a user strategy."""
USER_CSIG = types.int64(
    types.CPointer(types.int64), types.int64, types.CPointer(types.int64), types.int64
)
"""What the kernel calls: ``(hand pointer, legal, view pointer, view length)``. A C-callable
(``cfunc``) is typed by its signature alone, so one compiled kernel serves every user
strategy, called through a pointer (and the kernel stays in numba's on-disk cache)."""


@cfunc(USER_CSIG, cache=True)
def no_user_strategy(hand, legal, view, size):
    """The placeholder passed when no seat has a user strategy (never called)."""
    return PASS


_compiled: dict[int, object] = {}


def user_cfunc(function):
    """The C-callable wrapper of a user strategy (compiled once per function, ~0.1 s)."""
    key = id(function)
    if key not in _compiled:

        def call(hand, legal, view, size):
            return function(carray(hand, 52), legal, carray(view, size))

        _compiled[key] = (function, cfunc(USER_CSIG)(call))
    return _compiled[key][1]


SUIT_MASKS = np.array([((1 << 13) - 1) << (13 * s) for s in range(4)], np.int64)
RANK_MASKS = np.array([sum(1 << (13 * s + r) for s in range(4)) for r in range(13)], np.int64)


@njit(cache=True, inline="always", _nrt=False)
def _count(hand, held, one_deck, mask):
    """Cards held among the identities of ``mask`` (copies counted)."""
    if one_deck:
        return popcount(held & mask)
    total = 0
    m = held & mask
    while m:
        total += hand[trailing_zeros(m)]
        m &= m - 1
    return total


@njit(cache=True, _nrt=False)
def card_score(card, weights, hand, held, one_deck, rules, wild_mask, next_len):
    """Sum of weight x feature of identity ``card`` (``strategies.FEATURES`` order)."""
    rank = card % 13
    flags = rules[R_EFFECT_FLAGS + rank]
    draw = rules[R_DRAW + rank]
    all_draw = rules[R_ALL_DRAW + rank]
    hurts = draw > 0 or all_draw > 0 or (flags & (FLAG_SKIP | FLAG_REVERSE)) != 0
    again = (flags & FLAG_AGAIN) != 0 or all_draw > 0
    score = weights[0] * rules[R_POINTS + rank]
    score += weights[1] * ((wild_mask >> card) & 1)
    score += weights[2] * np.int64(hurts or again)
    score += weights[3] * (draw + all_draw)
    score += weights[4] * np.int64(hurts and next_len <= ATTACK_THRESHOLD)
    score += weights[5] * np.int64(again)
    score += weights[6] * (_count(hand, held, one_deck, SUIT_MASKS[card // 13]) - 1)
    score += weights[7] * (_count(hand, held, one_deck, RANK_MASKS[rank]) - 1)
    return score


@njit(cache=True, _nrt=False)
def weighted_card(mask, weights, hand, held, one_deck, rules, wild_mask, next_len):
    """The identity of ``mask`` (non-empty) with the best score; ties to the lowest."""
    best = trailing_zeros(mask)
    best_score = card_score(best, weights, hand, held, one_deck, rules, wild_mask, next_len)
    m = mask & (mask - 1)
    while m:
        card = trailing_zeros(m)
        score = card_score(card, weights, hand, held, one_deck, rules, wild_mask, next_len)
        if score > best_score:
            best, best_score = card, score
        m &= m - 1
    return best


@njit(cache=True, _nrt=False)
def most_held_suit(hand, held, one_deck, excluded):
    """The suit other than ``excluded`` (-1: none) with the most cards held; ties to the
    lowest suit."""
    best, best_count = -1, -1
    for suit in range(4):
        if suit == excluded:
            continue
        count = _count(hand, held, one_deck, SUIT_MASKS[suit])
        if count > best_count:
            best, best_count = suit, count
    return best
