"""Shedding games (Crazy Eights, Pis Yedili and relatives), the compiled kernel.

Plays whole games exactly as :mod:`.reference` does, draw for draw from the same stream, and
returns the same records. One compiled kernel serves every variant: the rules arrive as the
int64 vector of :meth:`.rules.SheddingRules.to_vector`.

Representation (every rule depends on a card's identity ``code % 52`` only, and a shuffle
permutes positions whatever they hold, so the kernel keeps identities, not codes). A game
lives in one int64 scratch array ``g`` (offsets ``S_*`` and ``G_*`` below):

- a hand is ``g[G_HANDS + seat * 52 + identity]`` (copies held) plus a 52-bit mask of the
  identities held (``g[S_HELD + seat]``) and its size (``g[S_LEN + seat]``); a seat's legal
  cards are a mask (held & what may be played), walked upward, which is the reference's
  order (sorted by identity, copies adjacent);
- the stock is ``g[G_STOCK + g[S_SPOS] : G_STOCK + g[S_SEND]]``, top first; the pile
  ``g[G_PILE : G_PILE + g[S_PLEN]]``, bottom first;
- the rule vector is copied to ``g[G_RULES:]``;
- the rest (direction, suit in force, pending penalty, counters, ...) is ``g[:STATE_SIZE]``.

The reference raises ``GameOver`` wherever the game ends; here the end is written to
``g[S_END]`` (-1 while the game runs) and every caller returns once it is set. The
reference's ``again`` extra play (a tail call of ``play_card``) is returned as a flag and
played by a loop in :func:`_take_turn`, so nothing recurses.

Strategies are codes (``STRATEGY_CODES``), one per seat, and every decision goes through one
dispatch function per kind of decision (:func:`choose`, :func:`play_drawn`,
:func:`name_suit`). Last-card forget chances arrive as thresholds ``int(p * 2**32)``, and
-1 for ``p = 0`` (no random word is drawn then).

Like the reference, the kernel bounds a chain of ``again``/``all_draw`` extra plays within
one turn by ``max_turns`` (the game ends ``turn_cap``). The other endless case, a flipped wild starter when the stock could hold only wilds, is refused by
:meth:`.rules.SheddingRules.check_players`.

Only tiny helpers are ``inline="always"``: inlining the big ones (numba inlines at the IR
level, at every call site) made the first compilation take over ten minutes and 15 GB.

Only the parallel entry point allocates (per block of games); every other function is
compiled with ``_nrt=False`` and allocates nothing.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ...bits import popcount, trailing_zeros
from ...rng_jit import STATE_SIZE as RNG_STATE_SIZE
from ...rng_jit import bounded, next_u32, shuffle, stream_init
from .rules import (
    FLAG_AGAIN,
    FLAG_REVERSE,
    FLAG_SKIP,
    FLAG_WILD,
    MAX_PLAYERS,
    R_ALL_DRAW,
    R_DRAW,
    R_EFFECT_FLAGS,
    R_MULTIPLIER,
    R_POINTS,
    RULE_VECTOR_SIZE,
    R,
)

DECK = 52
MAX_DECKS = 8
MAX_CARDS = DECK * MAX_DECKS

STRATEGY_CODES = {"random": 0, "uniform": 1, "first": 2}
STRAT_RANDOM, STRAT_UNIFORM, STRAT_FIRST = 0, 1, 2

# End codes: indices into reference.END_REASONS.
END_OUT, END_STOCK_OUT, END_BLOCKED, END_PLAY_CAP, END_TURN_CAP = range(5)

# Choice values (indices into rules.CHOICES).
FIRST_RANDOM = 1
START_FLIP, START_LEAD_CLUB, START_ALL_LEAD_CLUB = 0, 1, 2
WILD_ANY, WILD_DIFFERENT, WILD_OWN_SUIT, WILD_MATCH_SUIT = 0, 1, 2, 3
NO_PLAY_PASS, NO_PLAY_MAY_PLAY, NO_PLAY_UNTIL, NO_PLAY_UP_TO = 0, 1, 2, 3
STACK_NONE, STACK_SAME_RANK, STACK_ANY_DRAW = 0, 1, 2
GROWTH_ADD, GROWTH_DOUBLE = 0, 1
EMPTY_RESHUFFLE, EMPTY_END, EMPTY_PASS = 0, 1, 2
BLOCKED_LOWEST = 0
REVERSE2_SKIP = 1
LAST_PENALTY, LAST_CANNOT_GO_OUT = 0, 1
SCORE_COLLECTS, SCORE_PENALTY, SCORE_MINUS = 0, 1, 2

R_FIRST_SEAT = R["first_seat"]
R_START = R["start"]
R_WILD_MODE = R["wild_mode"]
R_WILD_ON_WILD = R["wild_on_wild"]
R_ON_NO_PLAY = R["on_no_play"]
R_DRAW_UP_TO = R["draw_up_to"]
R_VOLUNTARY = R["voluntary_draw"]
R_STACKING = R["stacking"]
R_GROWTH = R["stack_growth"]
R_WILD_ANSWERS = R["wild_answers_draw"]
R_PENALTY_ENDS = R["penalty_ends_turn"]
R_STOCK_EMPTY = R["stock_empty"]
R_BLOCKED_WINNER = R["blocked_winner"]
R_MAX_PLAYS = R["max_plays"]
R_MAX_TURNS = R["max_turns"]
R_REVERSE2 = R["reverse_two_players"]
R_LAST_CALL = R["last_card_call"]
R_LAST_RULE = R["last_card_rule"]
R_LAST_PENALTY = R["last_card_penalty"]
R_SCORING = R["scoring"]

# Kinds of legality check (the reference's NORMAL, ANSWER, OPENING).
NORMAL, ANSWER, OPENING = 0, 1, 2
# Decisions other than a card.
DRAW, PASS = -2, -3

# Offsets of the game state in ``g``.
S_N = 0
S_DIR = 1
S_SUIT = 2
S_PLEN = 3
S_SPOS = 4
S_SEND = 5
S_PENDING = 6
S_PSKIP = 7
S_SKIP_NEXT = 8
S_OPENINGS = 9
S_IDLE = 10
S_TURNS = 11
S_PLAYS = 12
S_DRAWS = 13
S_PASSES = 14
S_WILDS = 15
S_RESHUFFLES = 16
S_END = 17
S_WINNER = 18
S_FINISH = 19
S_WILD_MASK = 20
S_DRAW_MASK = 21
S_ONE_DECK = 22  # 1 when every identity has one copy (no counting needed)
S_FIRST = 23  # the seat that takes the first turn
S_HELD = 24
S_LEN = S_HELD + MAX_PLAYERS
S_BARRED = S_LEN + MAX_PLAYERS
S_STRATEGY = S_BARRED + MAX_PLAYERS
S_FORGET = S_STRATEGY + MAX_PLAYERS
STATE_SIZE = S_FORGET + MAX_PLAYERS
# The scratch of one game, ``g``: the state above, then the hands (copies held,
# ``g[G_HANDS + seat * DECK + identity]``), the stock, the pile and the rule vector. One array
# keeps calls between the kernel's functions cheap (each array argument is several words).
G_HANDS = STATE_SIZE
G_STOCK = G_HANDS + MAX_PLAYERS * DECK
G_PILE = G_STOCK + MAX_CARDS
G_RULES = G_PILE + MAX_CARDS
G_SIZE = G_RULES + RULE_VECTOR_SIZE

# Output columns of ``stats``.
(O_WINNER, O_END, O_TURNS, O_PLAYS, O_DRAWS, O_PASSES, O_WILDS, O_RESHUFFLES, O_FINISH, O_FIRST) = (
    range(10)
)
STATS = 10

SUIT_MASK = np.array([((1 << 13) - 1) << (13 * s) for s in range(4)], np.int64)
RANK_MASK = np.array([sum(1 << (13 * s + r) for s in range(4)) for r in range(13)], np.int64)
BLOCK = 256
"""Games per parallel work item."""


# --- small helpers ---------------------------------------------------------------------------


@njit(cache=True, inline="always", _nrt=False)
def _wrap(value, n):
    """``value % n`` for ``value >= -2n`` (Python's modulo, without a sign test)."""
    return (value + 2 * n) % n


@njit(cache=True, inline="always", _nrt=False)
def _next_seat(g, seat):
    return _wrap(seat + g[S_DIR], g[S_N])


@njit(cache=True, inline="always", _nrt=False)
def _pick(stream, k):
    """A uniform index among ``k`` options; one option costs no random draw."""
    return bounded(stream, k) if k >= 2 else 0


@njit(cache=True, inline="always", _nrt=False)
def _nth_bit(mask, k):
    """The position of the ``k``-th (from 0) set bit of ``mask``."""
    for _ in range(k):
        mask &= mask - 1
    return trailing_zeros(mask)


@njit(cache=True, inline="always", _nrt=False)
def _drawable(g):
    return g[S_SPOS] < g[S_SEND] or (
        g[G_RULES + R_STOCK_EMPTY] == EMPTY_RESHUFFLE and g[S_PLEN] > 1
    )


@njit(cache=True, inline="always", _nrt=False)
def _exhausted(g):
    return not _drawable(g) and g[G_RULES + R_STOCK_EMPTY] != EMPTY_END


@njit(cache=True, inline="always", _nrt=False)
def _free_pass(g, compulsory):
    return g[G_RULES + R_STOCK_EMPTY] == EMPTY_PASS and g[S_SPOS] == g[S_SEND] and not compulsory


# --- strategies ------------------------------------------------------------------------------


@njit(cache=True, _nrt=False)
def choose(code, stream, g, seat, mask, may_draw, may_pass):
    """The seat's decision: a legal identity from ``mask``, ``DRAW`` or ``PASS``.

    The dispatch point of every strategy (``code``, see ``STRATEGY_CODES``); the options
    and their order are the reference strategies'.
    """
    if code == STRAT_UNIFORM:
        distinct = popcount(mask)
        k = distinct + np.int64(may_draw) + np.int64(may_pass)
        index = _pick(stream, k)
        if index < distinct:
            return _nth_bit(mask, index)
        if index < distinct + np.int64(may_draw):
            return DRAW
        return PASS
    if mask == 0:
        return DRAW if may_draw else PASS
    if code == STRAT_FIRST:
        return trailing_zeros(mask)
    # random: a uniform physical card, copies counted
    if g[S_ONE_DECK]:
        return _nth_bit(mask, _pick(stream, popcount(mask)))
    total = 0
    m = mask
    while m:
        total += g[G_HANDS + seat * DECK + trailing_zeros(m)]
        m &= m - 1
    k = _pick(stream, total)
    m = mask
    while True:
        card = trailing_zeros(m)
        copies = g[G_HANDS + seat * DECK + card]
        if k < copies:
            return card
        k -= copies
        m &= m - 1


@njit(cache=True, inline="always", _nrt=False)
def play_drawn(code, stream):
    """Whether a legal card just drawn under ``draw_one_may_play`` is played."""
    if code == STRAT_UNIFORM:
        return bounded(stream, 2) == 0
    return True


@njit(cache=True, inline="always", _nrt=False)
def name_suit(code, stream, k):
    """The index of the suit a wild names among ``k`` open suits."""
    if code == STRAT_FIRST:
        return 0
    return _pick(stream, k)


# --- legality --------------------------------------------------------------------------------


@njit(cache=True, inline="always", _nrt=False)
def _wilds_allowed(g, top):
    """The wild identities that may be played now (the reference's ``wild_allowed``)."""
    wild = g[S_WILD_MASK]
    top_is_wild = (wild >> top) & 1
    if top_is_wild and g[G_RULES + R_WILD_ON_WILD] == 0:
        return 0
    if g[G_RULES + R_WILD_MODE] == WILD_MATCH_SUIT and not top_is_wild:
        return wild & (SUIT_MASK[g[S_SUIT]] | RANK_MASK[top % 13])
    return wild


@njit(cache=True, _nrt=False)
def _legal_mask(g, seat, mode):
    """The identities ``seat`` may play now (the reference's ``is_legal``, as a mask)."""
    if g[S_BARRED + seat] != 0 and g[S_LEN + seat] == 1:
        return 0
    held = g[S_HELD + seat]
    if mode == OPENING:
        return held & SUIT_MASK[0]
    top = g[G_PILE + g[S_PLEN] - 1]
    if mode == ANSWER:
        allowed = 0
        stacking = g[G_RULES + R_STACKING]
        if stacking == STACK_ANY_DRAW:
            allowed = g[S_DRAW_MASK]
        elif stacking == STACK_SAME_RANK:
            allowed = g[S_DRAW_MASK] & RANK_MASK[top % 13]
        if g[G_RULES + R_WILD_ANSWERS]:
            allowed |= _wilds_allowed(g, top)
        return held & allowed
    matching = (SUIT_MASK[g[S_SUIT]] | RANK_MASK[top % 13]) & ~g[S_WILD_MASK]
    return held & (matching | _wilds_allowed(g, top))


# --- drawing, passing, ending ----------------------------------------------------------------


@njit(cache=True, _nrt=False)
def _hand_points(g, seat):
    total = 0
    m = g[S_HELD + seat]
    while m:
        card = trailing_zeros(m)
        total += g[G_HANDS + seat * DECK + card] * g[G_RULES + R_POINTS + card % 13]
        m &= m - 1
    return total


@njit(cache=True, _nrt=False)
def _lowest_hand_from(g, start):
    """Fewest points, ties to the seat first in the current direction from ``start``."""
    n = g[S_N]
    best = -1
    best_points = 0
    for k in range(n):
        seat = _wrap(start + k * g[S_DIR], n)
        points = _hand_points(g, seat)
        if best < 0 or points < best_points:
            best = seat
            best_points = points
    return best


@njit(cache=True, _nrt=False)
def _stock_out(g, seat):
    g[S_END] = END_STOCK_OUT
    g[S_WINNER] = _lowest_hand_from(g, seat)


@njit(cache=True, inline="always", _nrt=False)
def _take(g, seat):
    """The seat takes the top card of the (non-empty) stock."""
    card = g[G_STOCK + g[S_SPOS]]
    g[S_SPOS] += 1
    g[G_HANDS + seat * DECK + card] += 1
    g[S_HELD + seat] |= np.int64(1) << card
    g[S_LEN + seat] += 1
    g[S_DRAWS] += 1
    g[S_IDLE] = 0
    return card


@njit(cache=True, _nrt=False)
def _reshuffle(g, stream):
    """The pile but its top card, bottom first, is shuffled into the new stock."""
    count = g[S_PLEN] - 1
    top = g[G_PILE + count]
    shuffle(stream, g[G_PILE:], count)
    for i in range(count):
        g[G_STOCK + i] = g[G_PILE + i]
    g[S_SPOS] = 0
    g[S_SEND] = count
    g[G_PILE + 0] = top
    g[S_PLEN] = 1
    g[S_RESHUFFLES] += 1


@njit(cache=True, _nrt=False)
def _draw_one(g, stream, seat):
    """Draw the top card (reshuffling if the rules say so); -1 when nothing can be drawn,
    or when the game ended (``stock_empty = end``)."""
    if g[S_SPOS] == g[S_SEND]:
        rule = g[G_RULES + R_STOCK_EMPTY]
        if rule == EMPTY_END:
            _stock_out(g, seat)
            return -1
        if rule == EMPTY_RESHUFFLE and g[S_PLEN] > 1:
            _reshuffle(g, stream)
        else:
            return -1
    return _take(g, seat)


@njit(cache=True, _nrt=False)
def _draw_penalty(g, stream, seat, count):
    for _ in range(count):
        if _draw_one(g, stream, seat) < 0:
            break


@njit(cache=True, _nrt=False)
def _pass_turn(g, seat):
    g[S_PASSES] += 1
    if _drawable(g):
        g[S_IDLE] = 0
        return
    g[S_IDLE] += 1
    if g[S_IDLE] >= g[S_N] + 1:
        winner = -1
        if g[G_RULES + R_BLOCKED_WINNER] == BLOCKED_LOWEST:
            winner = _lowest_hand_from(g, _next_seat(g, seat))
        g[S_END] = END_BLOCKED
        g[S_WINNER] = winner


# --- playing a card --------------------------------------------------------------------------


@njit(cache=True, _nrt=False)
def _name_suit(g, stream, seat, card):
    mode = g[G_RULES + R_WILD_MODE]
    if mode == WILD_OWN_SUIT:
        g[S_SUIT] = card // 13
        return
    code = g[S_STRATEGY + seat]
    if mode == WILD_DIFFERENT:
        current = g[S_SUIT]
        index = name_suit(code, stream, 3)
        g[S_SUIT] = index if index < current else index + 1
    else:
        g[S_SUIT] = name_suit(code, stream, 4)
    g[S_WILDS] += 1


@njit(cache=True, _nrt=False)
def _apply_effects(g, stream, seat, flags, draw, all_draw):
    """The played card acts; returns 1 when the seat must play again (compulsory)."""
    n = g[S_N]
    if flags & FLAG_REVERSE:
        g[S_DIR] = -g[S_DIR]
        if n == 2 and g[G_RULES + R_REVERSE2] == REVERSE2_SKIP:
            g[S_SKIP_NEXT] = 1
    skip = (flags & FLAG_SKIP) != 0
    if draw:
        if g[S_PENDING]:
            if g[G_RULES + R_GROWTH] == GROWTH_DOUBLE:
                g[S_PENDING] *= 2
            else:
                g[S_PENDING] += draw
            g[S_PSKIP] = skip
        elif skip and g[G_RULES + R_STACKING] == STACK_NONE:
            victim = _next_seat(g, seat)
            _draw_penalty(g, stream, victim, draw)
            if g[S_END] >= 0:
                return 0
            g[S_SKIP_NEXT] = 1
        else:
            g[S_PENDING] = draw
            g[S_PSKIP] = skip
    elif skip:
        g[S_SKIP_NEXT] = 1
    if all_draw:
        for k in range(1, n):
            other = _wrap(seat + k * g[S_DIR], n)
            _draw_penalty(g, stream, other, all_draw)
            if g[S_END] >= 0:
                return 0
    return 1 if (flags & FLAG_AGAIN) != 0 or all_draw > 0 else 0


@njit(cache=True, _nrt=False)
def _play_card(g, stream, seat, card, mode):
    """Play ``card``; returns 1 when an extra compulsory play follows in this turn."""
    g[G_HANDS + seat * DECK + card] -= 1
    if g[G_HANDS + seat * DECK + card] == 0:
        g[S_HELD + seat] &= ~(np.int64(1) << card)
    g[S_LEN + seat] -= 1
    g[G_PILE + g[S_PLEN]] = card
    g[S_PLEN] += 1
    g[S_PLAYS] += 1
    g[S_IDLE] = 0
    if g[S_LEN + seat] == 0:
        g[S_END] = END_OUT
        g[S_WINNER] = seat
        g[S_FINISH] = card % 13
        return 0
    if g[G_RULES + R_MAX_PLAYS] > 0 and g[S_PLAYS] >= g[G_RULES + R_MAX_PLAYS]:
        g[S_END] = END_PLAY_CAP
        return 0
    flags = 0
    draw = 0
    all_draw = 0
    if mode != OPENING:
        rank = card % 13
        flags = g[G_RULES + R_EFFECT_FLAGS + rank]
        draw = g[G_RULES + R_DRAW + rank]
        all_draw = g[G_RULES + R_ALL_DRAW + rank]
    stacks = draw > 0 and g[S_PENDING] > 0
    if mode == ANSWER and not stacks:
        g[S_PENDING] = 0
    if (flags & FLAG_WILD) != 0 and not stacks:
        _name_suit(g, stream, seat, card)
    else:
        g[S_SUIT] = card // 13
    # The last-card call.
    if g[G_RULES + R_LAST_CALL] and g[S_LEN + seat] == 1:
        threshold = g[S_FORGET + seat]
        if threshold >= 0 and next_u32(stream) < threshold:
            if g[G_RULES + R_LAST_RULE] == LAST_PENALTY:
                _draw_penalty(g, stream, seat, g[G_RULES + R_LAST_PENALTY])
                if g[S_END] >= 0:
                    return 0
            else:
                g[S_BARRED + seat] = 2
    return _apply_effects(g, stream, seat, flags, draw, all_draw)


# --- the kinds of turn -----------------------------------------------------------------------


@njit(cache=True, _nrt=False)
def _no_play(g, stream, seat, compulsory):
    """Draw as ``on_no_play`` says (not ``draw_up_to``); returns the extra-play flag."""
    rule = g[G_RULES + R_ON_NO_PLAY]
    if rule == NO_PLAY_UNTIL:
        while True:
            card = _draw_one(g, stream, seat)
            if card < 0:
                if g[S_END] < 0:
                    _pass_turn(g, seat)
                return 0
            if (_legal_mask(g, seat, NORMAL) >> card) & 1:
                return _play_card(g, stream, seat, card, NORMAL)
    card = _draw_one(g, stream, seat)
    if card < 0:
        if g[S_END] < 0:
            _pass_turn(g, seat)
        return 0
    if rule == NO_PLAY_MAY_PLAY and (_legal_mask(g, seat, NORMAL) >> card) & 1:
        if compulsory or play_drawn(g[S_STRATEGY + seat], stream):
            return _play_card(g, stream, seat, card, NORMAL)
    return 0


@njit(cache=True, _nrt=False)
def _draw_up_to_phase(g, stream, seat, compulsory):
    limit = g[G_RULES + R_DRAW_UP_TO]
    drawn = 0
    code = g[S_STRATEGY + seat]
    while True:
        mask = _legal_mask(g, seat, NORMAL)
        by_choice = mask == 0 or (g[G_RULES + R_VOLUNTARY] != 0 and not compulsory)
        may_draw = by_choice and drawn < limit and _drawable(g)
        may_pass = by_choice and (drawn >= limit or _exhausted(g))
        may_pass = may_pass or _free_pass(g, compulsory)
        if not (mask != 0 or may_draw or may_pass):
            _draw_one(g, stream, seat)  # stock_empty = end
            return 0
        choice = choose(code, stream, g, seat, mask, may_draw, may_pass)
        if choice == PASS:
            _pass_turn(g, seat)
            return 0
        if choice != DRAW:
            return _play_card(g, stream, seat, choice, NORMAL)
        _draw_one(g, stream, seat)
        if g[S_END] >= 0:
            return 0
        drawn += 1


@njit(cache=True, _nrt=False)
def _play_phase(g, stream, seat, compulsory):
    """Play one card or do what ``on_no_play`` says; returns the extra-play flag."""
    if g[G_RULES + R_ON_NO_PLAY] == NO_PLAY_UP_TO:
        return _draw_up_to_phase(g, stream, seat, compulsory)
    mask = _legal_mask(g, seat, NORMAL)
    may_draw = mask != 0 and g[G_RULES + R_VOLUNTARY] != 0 and not compulsory and _drawable(g)
    may_pass = _free_pass(g, compulsory)
    choice = DRAW
    if mask != 0 or may_pass:
        choice = choose(g[S_STRATEGY + seat], stream, g, seat, mask, may_draw, may_pass)
    if choice == PASS:
        _pass_turn(g, seat)
        return 0
    if choice == DRAW:
        return _no_play(g, stream, seat, compulsory)
    return _play_card(g, stream, seat, choice, NORMAL)


@njit(cache=True, _nrt=False)
def _penalty_turn(g, stream, seat):
    """Facing a pending penalty: answer it, or draw the total."""
    mask = _legal_mask(g, seat, ANSWER)
    choice = choose(g[S_STRATEGY + seat], stream, g, seat, mask, True, False)
    if choice >= 0:
        return _play_card(g, stream, seat, choice, ANSWER)
    total = g[S_PENDING]
    g[S_PENDING] = 0
    ends_turn = g[S_PSKIP] != 0 or g[G_RULES + R_PENALTY_ENDS] != 0
    _draw_penalty(g, stream, seat, total)
    if g[S_END] >= 0 or ends_turn:
        return 0
    return _play_phase(g, stream, seat, False)


@njit(cache=True, _nrt=False)
def _opening_turn(g, stream, seat):
    """A club opening: play a club, drawing until one comes (no reshuffle)."""
    g[S_OPENINGS] -= 1
    mask = _legal_mask(g, seat, OPENING)
    if mask:
        card = choose(g[S_STRATEGY + seat], stream, g, seat, mask, False, False)
    else:
        while True:
            if g[S_SPOS] == g[S_SEND]:
                _stock_out(g, seat)
                return 0
            card = _take(g, seat)
            if card < 13:
                break
    return _play_card(g, stream, seat, card, OPENING)


@njit(cache=True, _nrt=False)
def _take_turn(g, stream, seat):
    """One turn of ``seat``; returns the seat that acts next."""
    g[S_TURNS] += 1
    g[S_SKIP_NEXT] = 0
    if g[S_OPENINGS]:
        again = _opening_turn(g, stream, seat)
    elif g[S_PENDING]:
        again = _penalty_turn(g, stream, seat)
    else:
        again = _play_phase(g, stream, seat, False)
    extra = 0
    while again and g[S_END] < 0:
        if extra >= g[G_RULES + R_MAX_TURNS]:  # a runaway chain of extra plays
            g[S_END] = END_TURN_CAP
            return seat
        extra += 1
        again = _play_phase(g, stream, seat, True)
    if g[S_END] >= 0:
        return seat
    if g[S_BARRED + seat] > 0:
        g[S_BARRED + seat] -= 1
    step = 2 if g[S_SKIP_NEXT] and not g[S_PENDING] else 1
    return _wrap(seat + step * g[S_DIR], g[S_N])


@njit(cache=True, _nrt=False)
def _turn_starter(g, stream):
    """``start = flip``: a wild starter goes back into the stock at ``1 + bounded(S)``."""
    card = g[G_STOCK + g[S_SPOS]]
    g[S_SPOS] += 1
    while (g[S_WILD_MASK] >> card) & 1 and g[S_SPOS] < g[S_SEND]:
        position = 1 + bounded(stream, g[S_SEND] - g[S_SPOS])
        start = g[S_SPOS] - 1  # the free slot left by the card
        for i in range(start, start + position):
            g[G_STOCK + i] = g[G_STOCK + i + 1]
        g[G_STOCK + start + position] = card
        g[S_SPOS] = start
        card = g[G_STOCK + start]
        g[S_SPOS] += 1
    g[G_PILE + 0] = card
    g[S_PLEN] = 1
    g[S_SUIT] = card // 13


# --- one game --------------------------------------------------------------------------------


@njit(cache=True, _nrt=False)
def _deal(g, stream, n, decks, hand_size, first):
    """Deal from the stream; ``first`` is the first seat, or -1 to take it from the rules."""
    if first < 0:
        first = (bounded(stream, n) + 1) % n if g[G_RULES + R_FIRST_SEAT] == FIRST_RANDOM else 0
    total = DECK * decks
    g[S_ONE_DECK] = decks == 1
    for i in range(total):
        g[G_STOCK + i] = i % DECK
    shuffle(stream, g[G_STOCK:], total)
    for seat in range(n):
        for card in range(DECK):
            g[G_HANDS + seat * DECK + card] = 0
        g[S_HELD + seat] = 0
        g[S_LEN + seat] = hand_size
    for round_ in range(hand_size):
        for j in range(n):
            seat = (first + j) % n
            card = g[G_STOCK + round_ * n + j]
            g[G_HANDS + seat * DECK + card] += 1
            g[S_HELD + seat] |= np.int64(1) << card
    g[S_SPOS] = n * hand_size
    g[S_SEND] = total
    return first


@njit(cache=True, _nrt=False)
def _setup(g, n, strategies, forget):
    for i in range(STATE_SIZE):
        g[i] = 0
    g[S_N] = n
    g[S_DIR] = 1
    g[S_END] = -1
    g[S_WINNER] = -1
    g[S_FINISH] = -1
    wild = 0
    draws = 0
    for rank in range(13):
        if g[G_RULES + R_EFFECT_FLAGS + rank] & FLAG_WILD:
            wild |= RANK_MASK[rank]
        if g[G_RULES + R_DRAW + rank] > 0:
            draws |= RANK_MASK[rank]
    g[S_WILD_MASK] = wild
    g[S_DRAW_MASK] = draws
    start = g[G_RULES + R_START]
    g[S_OPENINGS] = 1 if start == START_LEAD_CLUB else (n if start == START_ALL_LEAD_CLUB else 0)
    for seat in range(n):
        g[S_STRATEGY + seat] = strategies[seat]
        g[S_FORGET + seat] = forget[seat]


@njit(cache=True, _nrt=False)
def _record(g, stats, seats, row):
    """Write the game's record: ``stats[row]`` and ``seats[row]`` (cards, points, score)."""
    n = g[S_N]
    stats[row, O_WINNER] = g[S_WINNER]
    stats[row, O_END] = g[S_END]
    stats[row, O_TURNS] = g[S_TURNS]
    stats[row, O_PLAYS] = g[S_PLAYS]
    stats[row, O_DRAWS] = g[S_DRAWS]
    stats[row, O_PASSES] = g[S_PASSES]
    stats[row, O_WILDS] = g[S_WILDS]
    stats[row, O_RESHUFFLES] = g[S_RESHUFFLES]
    stats[row, O_FINISH] = g[S_FINISH]
    stats[row, O_FIRST] = g[S_FIRST]
    winner = g[S_WINNER]
    scoring = g[G_RULES + R_SCORING]
    sign = -1 if scoring == SCORE_MINUS else 1
    multiplier = 1
    if g[S_END] == END_OUT:
        multiplier = g[G_RULES + R_MULTIPLIER + g[S_FINISH]]
    collected = 0
    for seat in range(n):
        points = _hand_points(g, seat)
        seats[row, 0, seat] = g[S_LEN + seat]
        seats[row, 1, seat] = points
        if winner < 0:
            seats[row, 2, seat] = sign * points
        elif seat == winner:
            seats[row, 2, seat] = 0
        else:
            collected += points * multiplier
            seats[row, 2, seat] = 0 if scoring == SCORE_COLLECTS else sign * points * multiplier
    if winner >= 0 and scoring == SCORE_COLLECTS:
        seats[row, 2, winner] = collected


@njit(cache=True, _nrt=False)
def _load_rules(g, rules):
    for i in range(RULE_VECTOR_SIZE):
        g[G_RULES + i] = rules[i]


@njit(cache=True, _nrt=False)
def play_game(
    g,
    stream,
    key0,
    key1,
    game,
    stream_id,
    first,
    n,
    decks,
    hand_size,
    strategies,
    forget,
    stats,
    seats,
    row,
):
    """Deal from the stream ``(seed, game, stream_id)`` and play to the end; write row ``row``.

    ``first``: the first seat, or -1 to draw it as ``first_seat`` says (a match's deal k
    passes ``k % n``). ``g`` is the game's scratch (``G_SIZE``), the rule vector already at
    ``G_RULES``."""
    stream_init(stream, key0, key1, game, stream_id)
    _setup(g, n, strategies, forget)
    seat = _deal(g, stream, n, decks, hand_size, first)
    g[S_FIRST] = seat
    if g[G_RULES + R_START] == START_FLIP:
        _turn_starter(g, stream)
    max_turns = g[G_RULES + R_MAX_TURNS]
    while True:
        if g[S_TURNS] >= max_turns:
            g[S_END] = END_TURN_CAP
            break
        seat = _take_turn(g, stream, seat)
        if g[S_END] >= 0:
            break
    _record(g, stats, seats, row)


@njit(cache=True, parallel=True, nogil=True)
def play_random_games(
    key0, key1, first_game, n, decks, hand_size, rules, strategies, forget, stats, seats
):
    """Deal and play games ``first_game .. first_game + len(stats) - 1`` of a run.

    ``key0, key1``: the run seed's words; ``rules``: the int64 rule vector; ``strategies``,
    ``forget``: int64[n] strategy codes and forget thresholds (-1: never forgets, no draw).
    Outputs: ``stats`` int64[G, STATS] (``O_*`` columns), ``seats`` int64[G, 3, n] (cards
    left, points, score).
    """
    count = stats.shape[0]
    blocks = (count + BLOCK - 1) // BLOCK
    for block in prange(blocks):
        g = np.empty(G_SIZE, np.int64)
        stream = np.empty(RNG_STATE_SIZE, np.int64)
        _load_rules(g, rules)
        for i in range(block * BLOCK, min(count, (block + 1) * BLOCK)):
            play_game(
                g,
                stream,
                key0,
                key1,
                first_game + i,
                0,
                -1,
                n,
                decks,
                hand_size,
                strategies,
                forget,
                stats,
                seats,
                i,
            )


@njit(cache=True, parallel=True, nogil=True)
def play_matches(
    key0,
    key1,
    first_match,
    n,
    decks,
    hand_size,
    rules,
    strategies,
    forget,
    match_deals,
    target,
    max_deals,
    offsets,
    write,
    stats,
    seats,
    totals,
    deals,
):
    """Play matches ``first_match .. first_match + len(deals) - 1`` of a run.

    Deal k of match m is dealt from the stream ``(seed, m, k)`` with seat ``k % n`` first.
    A match ends after ``match_deals`` deals (0: no limit) or once a seat's total (its
    size) reaches ``target`` (0: no target), and after ``max_deals`` deals at most.
    Outputs: ``totals`` int64[M, n] (each seat's sum of deal scores), ``deals`` int64[M].
    With ``write``, deal k of match i is recorded in row ``offsets[i] + k`` of ``stats``
    int64[R, STATS] and ``seats`` int64[R, 3, n] (as in :func:`play_random_games`);
    without it nothing is recorded (a first pass that counts the deals).
    """
    count = deals.shape[0]
    for i in prange(count):
        g = np.empty(G_SIZE, np.int64)
        stream = np.empty(RNG_STATE_SIZE, np.int64)
        scratch_stats = np.empty((1, STATS), np.int64)
        scratch_seats = np.empty((1, 3, n), np.int64)
        _load_rules(g, rules)
        for seat in range(n):
            totals[i, seat] = 0
        k = 0
        while k < max_deals:
            row_stats, row_seats, row = scratch_stats, scratch_seats, 0
            if write:
                row_stats, row_seats, row = stats, seats, offsets[i] + k
            play_game(
                g,
                stream,
                key0,
                key1,
                first_match + i,
                k,
                k % n,
                n,
                decks,
                hand_size,
                strategies,
                forget,
                row_stats,
                row_seats,
                row,
            )
            k += 1
            reached = False
            for seat in range(n):
                totals[i, seat] += row_seats[row, 2, seat]
                if abs(totals[i, seat]) >= target > 0:
                    reached = True
            if k == match_deals or reached:
                break
        deals[i] = k
