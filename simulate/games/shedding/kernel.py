"""Shedding games (Crazy Eights, Pis Yedili and relatives), the compiled kernel.

Plays whole games exactly as :mod:`.reference` does, draw for draw from the same stream, and
returns the same records. One compiled kernel serves every variant: the rules arrive as the
int64 vector of :meth:`.rules.SheddingRules.to_vector`.

Representation (every rule depends on a card's identity ``code % 52`` only, and a shuffle
permutes positions whatever they hold, so the kernel keeps identities, not codes). A run's
games share one int64 scratch array ``g`` per worker (offsets ``S_*`` and ``G_*`` below):

- a hand is ``g[G_HANDS + seat * 52 + identity]`` (copies held) plus a 52-bit mask of the
  identities held (``g[S_HELD + seat]``) and its size (``g[S_LEN + seat]``); a seat's legal
  cards are a mask (held & what may be played), walked upward, which is the reference's
  order (sorted by identity, copies adjacent). A count is positive just where the mask has
  the bit, so :func:`_record` empties the hands by walking the masks (no 52-word zeroing);
- the stock is ``g[G_STOCK + g[S_SPOS] : G_STOCK + g[S_SEND]]``, top first; the pile
  ``g[G_PILE : G_PILE + g[S_PLEN]]``, bottom first;
- the rule vector is copied to ``g[G_RULES:]``, and what follows from it for the run
  (players, one deck or more, the wild and draw identities, each seat's strategy code and
  forget threshold) is set once by :func:`_prepare`;
- the game's own state (direction, suit in force, pending penalty, counters, ...) is
  ``g[:S_GAME_SIZE]``, zeroed by each deal.

The reference raises ``GameOver`` wherever the game ends; here the end is written to
``g[S_END]`` (-1 while the game runs) and every caller returns once it is set.

:func:`_play` plays a whole game in one function: a turn is a loop of decisions (an opening,
an answer to a penalty, a play phase with its draws, the extra plays of ``again``) around
one call of :func:`choose` and one place where a card is played, with the rules it tests
held in local variables. Rare cases (an empty stock, passes, penalty draws, named suits,
forgotten calls) are functions of their own. This keeps the hot path free of calls (each
passes every array as several words) and compiles once: numba compiles a function again
for every distinct constant argument (``Literal`` types), which the former split into
per-kind functions paid several times over.

Strategies are codes (``STRATEGY_CODES``), one per seat, and every decision goes through one
dispatch function per kind of decision (:func:`choose`, :func:`play_drawn`,
:func:`name_suit`). Last-card forget chances arrive as thresholds ``int(p * 2**32)``, and
-1 for ``p = 0`` (no random word is drawn then).

A searching seat (``pimc:K``) decides out of the kernel, through a C callable
(:func:`search_cfunc`, typed by its signature, as a user strategy is): it copies the
scratch, deals the cards the seat cannot see again and plays each option on with
:func:`_play` itself, a copy resuming its first turn at the decision (``S_RESUME``); see
:mod:`.search`. Every other run passes a placeholder, so one compiled kernel serves all.

Like the reference, the kernel bounds a chain of ``again``/``all_draw`` extra plays within
one turn by ``max_turns`` (the game ends ``turn_cap``). The other endless case, a flipped
wild starter when the stock could hold only wilds, is refused by
:meth:`.rules.SheddingRules.check_players`.

Only small helpers, and :func:`choose` (called from one place), are ``inline="always"``:
inlining the big ones (numba inlines at the IR level, at every call site) made the first
compilation take over ten minutes and 15 GB.

The two parallel entry points, :func:`play_random_games` and :func:`play_matches`, take
their arguments in a few named tuples (:class:`Table`, :class:`Strategies`, :class:`Run`,
:class:`Outputs`, and for matches :class:`MatchPlan` and :class:`MatchTotals`): numba
types a ``NamedTuple`` by its fields, so the kernels stay in the on-disk cache (a jitclass
or structref would not).

Only the parallel entry points allocate (per worker); every other function is compiled
with ``_nrt=False`` and allocates nothing.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import carray, cfunc, njit, prange

from ...core.compiled.bits import popcount, trailing_zeros
from ...core.compiled.lanes import PAD, fewest_mark
from ...core.compiled.rng_jit import STATE_SIZE as RNG_STATE_SIZE
from ...core.compiled.rng_jit import bounded, next_u32, shuffle, stream_init
from ...core.compiled.work_sharing import fetch_add
from ...core.logs import compiled as logs
from ...core.logs.events import (
    CAUSE_ALL_DRAW,
    CAUSE_CLUB,
    CAUSE_LAST_CARD,
    CAUSE_NO_PLAY,
    CAUSE_PENALTY,
    CAUSE_VOLUNTARY,
    EV_AGAIN,
    EV_CALL,
    EV_DEAL,
    EV_DRAW,
    EV_END,
    EV_FORGET,
    EV_NAME_SUIT,
    EV_PASS,
    EV_PENALTY,
    EV_PLAY,
    EV_PUT_BACK,
    EV_RESHUFFLE,
    EV_REVERSE,
    EV_SKIP,
    EV_START,
    NONE,
)
from ...core.search_streams import SEARCH_STREAM
from . import search as searching
from . import tree as trees
from .kernel_layout import (
    ANSWER,
    BLOCK,
    BLOCKED_LOWEST,
    BYTE_FIELDS,
    CARD_BITS,
    COUNT_FIELDS,
    DECK,
    DRAW,
    EMPTY_END,
    EMPTY_PASS,
    EMPTY_RESHUFFLE,
    END_BLOCKED,
    END_INVALID,
    END_OUT,
    END_PLAY_CAP,
    END_STOCK_OUT,
    END_TURN_CAP,
    FIRST_RANDOM,
    G_ALL_DRAW,
    G_DRAW,
    G_FLAGS,
    G_HANDS,
    G_PILE,
    G_POINTS,
    G_RULES,
    G_SIZE,
    G_STOCK,
    G_VIEW,
    G_WEIGHTS,
    GROWTH_DOUBLE,
    INVALID,
    KEEP,
    LANES,
    LAST_PENALTY,
    MATCH_BLOCK,
    MATCHES,
    NO_PLAY_MAY_PLAY,
    NO_PLAY_PASS,
    NO_PLAY_UNTIL,
    NO_PLAY_UP_TO,
    NORMAL,
    O_DECISIONS,
    O_DRAWS,
    O_END,
    O_FINISH,
    O_FIRST,
    O_FORCED,
    O_LEAD_CHANGES,
    O_OPTIONS,
    O_PASSES,
    O_PLAYS,
    O_RESHUFFLES,
    O_TURNS,
    O_WILDS,
    O_WINNER,
    O_WINNER_BEHIND,
    OPENING,
    PASS,
    R_BLOCKED_WINNER,
    R_DRAW_UP_TO,
    R_FIRST_SEAT,
    R_GROWTH,
    R_LAST_CALL,
    R_LAST_PENALTY,
    R_LAST_RULE,
    R_MAX_PLAYS,
    R_MAX_TURNS,
    R_ON_NO_PLAY,
    R_PENALTY_ENDS,
    R_REVERSE2,
    R_SCORING,
    R_STACKING,
    R_START,
    R_STOCK_EMPTY,
    R_VOLUNTARY,
    R_WILD_ANSWERS,
    R_WILD_MODE,
    R_WILD_ON_WILD,
    RANK_BITS,
    RANKS_OF,
    REVERSE2_SKIP,
    S_BARRED,
    S_BEHIND,
    S_BUDGET,
    S_CHOICES,
    S_DECISIONS,
    S_DIR,
    S_DRAW_MASK,
    S_DRAWS,
    S_END,
    S_EXPLORE,
    S_FINISH,
    S_FIRST,
    S_FORCED,
    S_FORGET,
    S_GAME_NO,
    S_GAME_SIZE,
    S_HELD,
    S_IDLE,
    S_KEY0,
    S_KEY1,
    S_LEAD_FLIPS,
    S_LEADER,
    S_LEN,
    S_N,
    S_NAMED,
    S_NEXT,
    S_ONE_DECK,
    S_ONE_OPTION,
    S_OPENINGS,
    S_OPTIONS,
    S_PASSES,
    S_PAUSE,
    S_PENDING,
    S_PLAYS,
    S_PLEN,
    S_PSKIP,
    S_R_COMPULSORY,
    S_R_DRAWN,
    S_R_EXTRA,
    S_R_MODE,
    S_RESHUFFLES,
    S_RESUME,
    S_ROLLOUT,
    S_SCRATCH,
    S_SEND,
    S_SKIP_NEXT,
    S_SPOS,
    S_STRATEGY,
    S_STREAM_NO,
    S_SUIT,
    S_TURNS,
    S_WILD_MASK,
    S_WILDS,
    S_WINNER,
    SCORE_COLLECTS,
    SCORE_MINUS,
    SEARCH_BLOCK,
    SEAT_BITS,
    STACK_ANY_DRAW,
    STACK_NONE,
    STACK_SAME_RANK,
    START_ALL_LEAD_CLUB,
    START_FLIP,
    START_LEAD_CLUB,
    STATS,
    STRAT_FIRST,
    STRAT_ISMCTS,
    STRAT_PIMC,
    STRAT_TREE,
    STRAT_UNIFORM,
    STRAT_USER,
    STRAT_WEIGHTED,
    SUIT_BITS,
    WILD_DIFFERENT,
    WILD_MATCH_SUIT,
    WILD_OWN_SUIT,
)
from .kernel_strategies import (
    FEATURES,
    VIEW_DIRECTION,
    VIEW_MAY_DRAW,
    VIEW_MAY_PASS,
    VIEW_PENDING,
    VIEW_PLAYERS,
    VIEW_SEAT,
    VIEW_SIZE,
    VIEW_SIZES,
    VIEW_STOCK,
    VIEW_SUIT,
    VIEW_TOP,
    most_held_suit,
    weighted_card,
)
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
)


class Table(NamedTuple):
    """What is played: the kernels' game, the same for every deal of a call."""

    players: int
    """Seats dealt in (n), 2 .. ``MAX_PLAYERS``."""
    decks: int
    """Decks shuffled together, 1 .. ``MAX_DECKS``."""
    hand_size: int
    """Cards dealt to each seat."""
    rules: np.ndarray
    """int64[RULE_VECTOR_SIZE]: the rule vector (:meth:`.rules.SheddingRules.to_vector`)."""


class Strategies(NamedTuple):
    """How each seat decides (made by :func:`.batch.seat_arrays`)."""

    codes: np.ndarray
    """int64[n]: each seat's strategy code (``STRATEGY_CODES``)."""
    forget: np.ndarray
    """int64[n]: each seat's chance to forget its last-card call, as ``int(p * 2**32)``;
    -1 for ``p = 0`` (no random word is drawn then)."""
    weights: np.ndarray
    """int64[n, FEATURES]: each seat's ``weighted`` weights (x ``WEIGHT_SCALE``; zeros for
    the other strategies)."""
    user: object
    """The user strategy's C callable (:func:`.kernel_strategies.user_cfunc`), or
    :func:`.kernel_strategies.no_user_strategy` when no seat has one."""
    budgets: np.ndarray
    """int64[n]: each searching seat's rollouts per option (``pimc:K``); 0 for the others."""
    rollouts: np.ndarray
    """int64[n]: each searching seat's rollout policy's code (its weights in ``weights``)."""
    explore: np.ndarray
    """int64[n]: each ``ismcts`` seat's exploration constant (x ``EXPLORE_SCALE``)."""
    searcher: object
    """The searching seats' C callable (:func:`search_cfunc`), or
    :func:`.search.no_search` when no seat searches."""


class Run(NamedTuple):
    """Which games (or matches) of a run a kernel plays: numbers ``first ..``."""

    key0: int
    """The run seed's low 32-bit word (:func:`simulate.core.rng.seed_key`)."""
    key1: int
    """The run seed's high 32-bit word."""
    first: int
    """The number of the game (or match) of row 0: row ``i`` is number ``first + i``."""


class Outputs(NamedTuple):
    """The typed record columns the kernels write (see :mod:`.columns`), G rows (one per
    game or deal). The per-seat arrays are in Fortran order (a seat's column is
    contiguous)."""

    small: np.ndarray
    """int8[4, G]: the ``BYTE_FIELDS`` (winner, end, finish rank, first seat), a row each."""
    counts: np.ndarray
    """int32[11, G]: the ``COUNT_FIELDS`` (turns, plays, draws, passes, wilds, reshuffles,
    lead_changes, winner_behind, decisions, forced, options)."""
    left: np.ndarray
    """int16[G, n]: cards left in each seat's hand."""
    points: np.ndarray
    """int32[G, n]: points of the cards left in each hand."""
    score: np.ndarray
    """int32[G, n]: each seat's score of the game."""


class MatchPlan(NamedTuple):
    """How the matches of :func:`play_matches` end, and where their deals are recorded."""

    match_deals: int
    """Deals per match (0: no limit)."""
    target: int
    """A match ends once a seat's total, in absolute value, reaches it (0: no target)."""
    max_deals: int
    """Deals after which a match ends in any case."""
    offsets: np.ndarray
    """int64[M + 1]: deal k of match i is recorded in row ``offsets[i] + k`` (read only
    with ``write``)."""
    write: bool
    """Whether the deals are recorded; without it a first pass only counts them."""


class MatchTotals(NamedTuple):
    """What :func:`play_matches` writes per match (M rows)."""

    totals: np.ndarray
    """int64[M, n]: each seat's sum of its deal scores."""
    deals: np.ndarray
    """int64[M]: the deals the match took."""


# --- small helpers ---------------------------------------------------------------------------


@njit(cache=True, inline="always", _nrt=False)
def _wrap(value, n):
    """``value % n`` for ``-n <= value < 2n``, without a division."""
    if value >= n:
        return value - n
    if value < 0:
        return value + n
    return value


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


@njit(cache=True, inline="always", _nrt=False)
def choose(
    code, stream, g, seat, mask, may_draw, may_pass, user, searcher, mode, compulsory, extra, drawn
):  # fmt: skip
    """The seat's decision: a legal identity from ``mask``, ``DRAW`` or ``PASS`` (or
    ``INVALID``: a user strategy's answer that is none of its options).

    The dispatch point of every strategy (``code``, see ``STRATEGY_CODES``); the options
    and their order are the reference strategies'. ``user``: the run's user strategy (a
    compiled function, see :mod:`.kernel_strategies`); ``searcher``: the searching seats'
    (:func:`search_cfunc`), which also takes the turn's state (``mode``, ``compulsory``,
    ``extra``, ``drawn``). Inlined: :func:`_play` calls it from one place, for every
    decision of a game.
    """
    if code >= STRAT_USER:  # a call out of the kernel's own strategies (one test for all)
        if code == STRAT_USER:
            return _ask_user(g, seat, mask, may_draw, may_pass, user)
        if code != STRAT_TREE:
            return _ask_search(
                g, seat, searching.CHOOSE, 0, mask, may_draw, may_pass,
                mode, compulsory, extra, drawn, searcher,
            )  # fmt: skip
        if g[S_STRATEGY + seat] == STRAT_TREE:
            return trees.decide(
                g, seat, searching.CHOOSE, 0, mask, may_draw, may_pass, mode, stream
            )
        code = g[S_STRATEGY + seat]  # an ismcts iteration past its tree: the rollout policy
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
    if code == STRAT_WEIGHTED:
        return _weighted(g, seat, mask)
    # random: a uniform physical card, copies counted
    if g[S_ONE_DECK]:
        return _nth_bit(mask, _pick(stream, popcount(mask)))
    return _random_copy(stream, g, seat, mask)


@njit(cache=True, _nrt=False)
def _weighted(g, seat, mask):
    """``weighted`` (and ``greedy``, ``hold-wilds``, ``attack``): the best-scoring card."""
    hand = G_HANDS + seat * DECK
    weights = G_WEIGHTS + seat * FEATURES
    following = _wrap(seat + g[S_DIR], g[S_N])
    return weighted_card(
        mask,
        g[weights : weights + FEATURES],
        g[hand : hand + DECK],
        g[S_HELD + seat],
        g[S_ONE_DECK],
        g[G_RULES : G_RULES + RULE_VECTOR_SIZE],
        g[S_WILD_MASK],
        g[S_LEN + following],
    )


@njit(cache=True, _nrt=False)
def _ask_user(g, seat, mask, may_draw, may_pass, user):
    """A user strategy's decision (see :mod:`.kernel_strategies` for its arguments).
    ``user`` None (the GPU kernel's: it takes no user strategy) answers ``INVALID``; numba
    prunes that test away at compile time for either type of ``user``."""
    if user is None:
        return INVALID
    n = g[S_N]
    g[G_VIEW + VIEW_SEAT] = seat
    g[G_VIEW + VIEW_PLAYERS] = n
    g[G_VIEW + VIEW_TOP] = g[G_PILE + g[S_PLEN] - 1] if g[S_PLEN] > 0 else -1
    g[G_VIEW + VIEW_SUIT] = g[S_SUIT]
    g[G_VIEW + VIEW_PENDING] = g[S_PENDING]
    g[G_VIEW + VIEW_DIRECTION] = g[S_DIR]
    g[G_VIEW + VIEW_STOCK] = g[S_SEND] - g[S_SPOS]
    g[G_VIEW + VIEW_MAY_DRAW] = may_draw
    g[G_VIEW + VIEW_MAY_PASS] = may_pass
    for other in range(n):
        g[G_VIEW + VIEW_SIZES + other] = g[S_LEN + other]
    hand = G_HANDS + seat * DECK
    size = VIEW_SIZE + n
    choice = user(g[hand : hand + DECK].ctypes, mask, g[G_VIEW : G_VIEW + size].ctypes, size)
    if choice == DRAW and may_draw:
        return DRAW
    if choice == PASS and may_pass:
        return PASS
    if 0 <= choice < DECK and (mask >> choice) & 1:
        return choice
    return INVALID


@njit(cache=True, _nrt=False)
def _ask_search(
    g, seat, kind, card, mask, may_draw, may_pass, mode, compulsory, extra, drawn, searcher
):
    """A searching seat's decision (:func:`_search`, through ``searcher``); ``searcher``
    None (the GPU's and the rollouts') answers ``INVALID``, pruned at compile time."""
    if searcher is None:
        return INVALID
    return searcher(
        g.ctypes, seat, kind, card, mask, np.int64(may_draw), np.int64(may_pass),
        mode, np.int64(compulsory), extra, drawn,
    )  # fmt: skip


@njit(cache=True, _nrt=False)
def _ask_drawn(g, stream, seat, kind, card, mode, compulsory, extra, drawn, searcher):
    """A searching seat's decision on a drawn ``card`` (``kind``: ``search.DRAWN``, play or
    keep it; ``search.SUIT``, the suit it names): the card, or ``KEEP``. A seat of an
    ``ismcts`` iteration decides in the tree, or past it as the rollout policy does."""
    now = g[S_STRATEGY + seat]
    if now == STRAT_TREE:
        return trees.decide(g, seat, kind, card, 0, False, False, mode, stream)
    if now < STRAT_PIMC:  # an ismcts iteration past its tree
        if kind == searching.DRAWN and not play_drawn(now, stream):
            return KEEP
        return card
    return _ask_search(
        g, seat, kind, card, 0, False, False, mode, compulsory, extra, drawn, searcher
    )


@njit(cache=True, _nrt=False)
def _random_copy(stream, g, seat, mask):
    """``random`` with several decks: a uniform physical card of ``mask``, copies counted."""
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


# --- drawing, passing, ending ----------------------------------------------------------------


@njit(cache=True, _nrt=False)
def _hand_points(g, seat):
    total = 0
    m = g[S_HELD + seat]
    while m:
        card = trailing_zeros(m)
        total += g[G_HANDS + seat * DECK + card] * g[G_POINTS + card]
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
def _put(log, g, seat, event, card, cause, count, suit):
    """Log an event of ``seat`` (-1: none) with its hand and the stock as they are now."""
    hand = g[S_LEN + seat] if seat >= 0 else NONE
    stock = g[S_SEND] - g[S_SPOS]
    logs.put(log, seat, event, card, cause, count, suit, hand, stock, NONE)


@njit(cache=True, inline="always", _nrt=False)
def _take(g, seat, log, cause):
    """The seat takes the top card of the (non-empty) stock; ``log``: None, or the
    :class:`simulate.core.logs.compiled.Log` that gets the draw (with ``cause``)."""
    card = g[G_STOCK + g[S_SPOS]]
    g[S_SPOS] += 1
    g[G_HANDS + seat * DECK + card] += 1
    g[S_HELD + seat] |= np.int64(1) << card
    g[S_LEN + seat] += 1
    g[S_DRAWS] += 1
    g[S_IDLE] = 0
    if log is not None:
        _put(log, g, seat, EV_DRAW, card, cause, NONE, NONE)
    return card


@njit(cache=True, _nrt=False)
def _reshuffle(g, stream, log):
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
    if log is not None:
        _put(log, g, -1, EV_RESHUFFLE, NONE, NONE, count, NONE)


@njit(cache=True, _nrt=False)
def _draw_empty(g, stream, seat, log, cause):
    """Draw from an empty stock as ``stock_empty`` says: reshuffle and take the top card;
    -1 when nothing can be drawn, or when the game ended (``stock_empty = end``)."""
    rule = g[G_RULES + R_STOCK_EMPTY]
    if rule == EMPTY_END:
        _stock_out(g, seat)
        return -1
    if rule == EMPTY_RESHUFFLE and g[S_PLEN] > 1:
        _reshuffle(g, stream, log)
        return _take(g, seat, log, cause)
    return -1


@njit(cache=True, inline="always", _nrt=False)
def _draw_one(g, stream, seat, log, cause):
    """Draw the top card (reshuffling if the rules say so); -1 when nothing can be drawn,
    or when the game ended (``stock_empty = end``). ``log``, ``cause``: see :func:`_take`."""
    if g[S_SPOS] < g[S_SEND]:
        return _take(g, seat, log, cause)
    return _draw_empty(g, stream, seat, log, cause)


@njit(cache=True, _nrt=False)
def _draw_penalty(g, stream, seat, count, log, cause):
    for _ in range(count):
        if _draw_one(g, stream, seat, log, cause) < 0:
            break


@njit(cache=True, _nrt=False)
def _pass_turn(g, seat, log):
    g[S_PASSES] += 1
    if log is not None:
        _put(log, g, seat, EV_PASS, NONE, NONE, NONE, NONE)
    if _drawable(g):
        g[S_IDLE] = 0
        return
    g[S_IDLE] += 1
    if g[S_IDLE] >= g[S_N] + 1:
        winner = -1
        if g[G_RULES + R_BLOCKED_WINNER] == BLOCKED_LOWEST:
            winner = _lowest_hand_from(g, _wrap(seat + g[S_DIR], g[S_N]))
        g[S_END] = END_BLOCKED
        g[S_WINNER] = winner


# --- playing a card --------------------------------------------------------------------------


@njit(cache=True, _nrt=False)
def _name_suit(g, stream, seat, card, log):
    mode = g[G_RULES + R_WILD_MODE]
    if mode == WILD_OWN_SUIT:
        g[S_SUIT] = card // 13
        return
    code = g[S_STRATEGY + seat]
    if g[S_NAMED]:  # chosen with the card by a search (see _search)
        g[S_SUIT] = g[S_NAMED] - 1
        g[S_NAMED] = 0
    elif code >= STRAT_WEIGHTED:  # weighted and user strategies: the suit held most
        hand = G_HANDS + seat * DECK
        excluded = g[S_SUIT] if mode == WILD_DIFFERENT else -1
        g[S_SUIT] = most_held_suit(g[hand : hand + DECK], g[S_HELD + seat], g[S_ONE_DECK], excluded)
    elif mode == WILD_DIFFERENT:
        current = g[S_SUIT]
        index = name_suit(code, stream, 3)
        g[S_SUIT] = index if index < current else index + 1
    else:
        g[S_SUIT] = name_suit(code, stream, 4)
    g[S_WILDS] += 1
    if log is not None:
        _put(log, g, seat, EV_NAME_SUIT, NONE, NONE, NONE, g[S_SUIT])


@njit(cache=True, _nrt=False)
def _forgot_call(g, stream, seat, log):
    """The seat left with one card forgot its last-card call: it draws the penalty, or may
    not go out until the end of its next turn."""
    if g[G_RULES + R_LAST_RULE] == LAST_PENALTY:
        _draw_penalty(g, stream, seat, g[G_RULES + R_LAST_PENALTY], log, CAUSE_LAST_CARD)
    else:
        g[S_BARRED + seat] = 2


@njit(cache=True, _nrt=False)
def _rare_effects(g, stream, seat, flags, draw, all_draw, log):
    """What a card with ``flags`` and a draw or every-other-seat draw does (the skip and
    draw penalties of :meth:`.reference.Game.apply_effects`, its skip included); the
    reverse is done."""
    n = g[S_N]
    skip = (flags & FLAG_SKIP) != 0
    if draw:
        if g[S_PENDING]:
            if g[G_RULES + R_GROWTH] == GROWTH_DOUBLE:
                g[S_PENDING] *= 2
            else:
                g[S_PENDING] += draw
            g[S_PSKIP] = skip
        elif skip and g[G_RULES + R_STACKING] == STACK_NONE:
            victim = _wrap(seat + g[S_DIR], n)
            if log is not None:
                _put(log, g, victim, EV_PENALTY, NONE, NONE, draw, NONE)
            _draw_penalty(g, stream, victim, draw, log, CAUSE_PENALTY)
            if g[S_END] >= 0:
                return
            g[S_SKIP_NEXT] = 1
        else:
            g[S_PENDING] = draw
            g[S_PSKIP] = skip
    elif skip:
        g[S_SKIP_NEXT] = 1
    if all_draw:
        for k in range(1, n):
            _draw_penalty(g, stream, _wrap(seat + k * g[S_DIR], n), all_draw, log, CAUSE_ALL_DRAW)
            if g[S_END] >= 0:
                return


# --- the turns -------------------------------------------------------------------------------


# The tension marks, taken at the end of every turn and at the game's end, are the
# reference's ``mark``: every seat's hand is read, as one vector (a seat a lane: see
# :mod:`simulate.core.compiled.lanes`), in the narrowest that holds the seats. The lanes past the
# last seat hold lanes.PAD cards (set by _prepare), so they never hold the fewest.
_fewest_2 = fewest_mark[2]
_fewest_4 = fewest_mark[4]
_fewest_8 = fewest_mark[8]
_fewest_16 = fewest_mark[16]


@njit(cache=True, inline="always", _nrt=False)
def _mark(g, n):
    """A tension mark: the one seat holding strictly the fewest cards leads (``S_LEADER``: its
    bit; none: the lead stays) and each seat's deficit is noted (``S_BEHIND``).
    ``S_LEAD_FLIPS`` counts the bits the leader's bit flips: 1 for the first leader, 2 for
    each change (a popcount is one instruction fewer than a comparison and its count)."""
    if n == 2:
        tied = _fewest_2(g, S_LEN, g, S_BEHIND)
    elif n <= 4:
        tied = _fewest_4(g, S_LEN, g, S_BEHIND)
    elif n <= 8:
        tied = _fewest_8(g, S_LEN, g, S_BEHIND)
    else:
        tied = _fewest_16(g, S_LEN, g, S_BEHIND)
    leader = g[S_LEADER]
    new_leader = tied if (tied & (tied - 1)) == 0 else leader
    g[S_LEAD_FLIPS] += popcount(new_leader ^ leader)
    g[S_LEADER] = new_leader


@njit(cache=True, inline="always", _nrt=False)
def _suits_named(wild_mode):
    """The suits a wild may name (``own_suit``: none to choose, one option)."""
    if wild_mode == WILD_OWN_SUIT:
        return np.int64(1)
    return np.int64(3) if wild_mode == WILD_DIFFERENT else np.int64(4)


@njit(cache=True, inline="always", _nrt=False)
def _card_options(g, mask, wilds, extra):
    """The options of the legal identities ``mask`` outside an opening: one each, a wild
    (of ``wilds``) once per suit it may name (``extra`` + 1), unless it stacks on a pending
    penalty (the count of :func:`.search.options`). Most points hold no wild among their
    legal cards: for them, one test."""
    count = popcount(mask)
    naming = mask & wilds
    if naming:
        if g[S_PENDING] > 0:
            naming &= ~g[S_DRAW_MASK]
        count += popcount(naming) * extra
    return count


@njit(cache=True, inline="always", _nrt=False)
def _tally(g, options):
    """Count a decision point with ``options`` options: a choice (two or more; its options
    summed) or a forced one (one, or 0 where the count leaves out the one thing left to
    do: drawing). Every seat's, whatever its strategy: what the rules offer."""
    if options > 1:
        g[S_CHOICES] += 1
        g[S_OPTIONS] += options
    else:
        g[S_ONE_OPTION] += 1


@njit(cache=True, _nrt=False)
def _play(g, stream, seat, user, log, searcher):
    """Play turns from ``seat`` until the game ends (``g[S_END]`` set).

    One function for every kind of turn and decision, so that the hot path makes no calls:
    a turn is a loop of decisions (the opening, the answer to a penalty, the play phase
    with its draws, and the extra plays of ``again``) around one call of :func:`choose` and
    one place where a card is played. The rare cases (an empty stock, passes, penalties,
    named suits, forgotten calls) are functions of their own. ``log``: None, or the
    :class:`simulate.core.logs.compiled.Log` that gets every event. ``searcher``: the
    searching seats' C callable (:func:`search_cfunc`; a placeholder when none searches),
    None in a search's rollouts and on the GPU.

    A rollout's copy (``g[S_RESUME]`` set, see :func:`.search.set_rollout`) resumes its first
    turn at the decision it was copied at, taking the forced option ``g[S_FORCED]``. A
    traced game (``g[S_PAUSE]`` = t > 0) returns before turn t + 1, unended, with the seat
    that takes it in ``g[S_NEXT]`` (:mod:`.chance_kernel`).
    """
    n = g[S_N]
    wild_mask = g[S_WILD_MASK]
    draw_mask = g[S_DRAW_MASK]
    max_turns = g[G_RULES + R_MAX_TURNS]
    max_plays = g[G_RULES + R_MAX_PLAYS]
    no_play = g[G_RULES + R_ON_NO_PLAY]
    draw_up_to = g[G_RULES + R_DRAW_UP_TO]
    voluntary = g[G_RULES + R_VOLUNTARY] != 0
    stacking = g[G_RULES + R_STACKING]
    wild_answers = g[G_RULES + R_WILD_ANSWERS] != 0
    wild_on_wild = g[G_RULES + R_WILD_ON_WILD] != 0
    match_suit = g[G_RULES + R_WILD_MODE] == WILD_MATCH_SUIT
    penalty_ends = g[G_RULES + R_PENALTY_ENDS] != 0
    last_call = g[G_RULES + R_LAST_CALL] != 0
    reverse_skips = np.int64(n == 2 and g[G_RULES + R_REVERSE2] == REVERSE2_SKIP)
    more_suits = _suits_named(g[G_RULES + R_WILD_MODE]) - 1  # suits a wild names, less one
    # The top card of the pile (none before a club opening), its rank's identities and
    # the identities of its rank or of the suit in force: only a play changes them.
    top = g[G_PILE + g[S_PLEN] - 1] if g[S_PLEN] > 0 else 0
    top_ranks = RANK_BITS << (top % 13)
    matching = (SUIT_BITS << (13 * g[S_SUIT])) | top_ranks
    forcing = g[S_RESUME] != 0
    # Before a turn: the turn cap ends the game, a traced game's pause returns (one test).
    stop = max_turns
    if 0 < g[S_PAUSE] < max_turns:
        stop = g[S_PAUSE]
    while True:
        if forcing:  # a rollout's copy: its first turn resumes at a decision
            g[S_RESUME] = 0
            seat &= SEAT_BITS
            code = g[S_STRATEGY + seat]
            mode = g[S_R_MODE]
            compulsory = g[S_R_COMPULSORY] != 0
            extra = g[S_R_EXTRA]
            drawn = g[S_R_DRAWN]
        else:
            seat &= SEAT_BITS
            if g[S_TURNS] >= stop:
                if g[S_TURNS] >= max_turns:
                    g[S_END] = END_TURN_CAP
                else:
                    g[S_NEXT] = seat
                return
            # --- one turn of ``seat``
            g[S_TURNS] += 1
            g[S_SKIP_NEXT] = 0
            if log is not None:
                log.at[logs.AT_TURN] = g[S_TURNS]
            code = g[S_STRATEGY + seat]
            mode = NORMAL
            if g[S_OPENINGS]:
                g[S_OPENINGS] -= 1
                mode = OPENING
            elif g[S_PENDING]:
                mode = ANSWER
            compulsory = False
            extra = 0  # extra plays made (again, all_draw)
            drawn = 0  # cards drawn in this play phase (draw_up_to)
        while True:  # the decisions of the turn, until it ends
            # The seat's legal identities (the reference's is_legal, as a mask).
            if mode == OPENING:
                allowed = SUIT_BITS
            else:
                # The wilds that may be played now (the reference's wild_allowed).
                wilds = wild_mask
                top_is_wild = (wild_mask >> top) & 1
                if top_is_wild and not wild_on_wild:
                    wilds = 0
                elif match_suit and not top_is_wild:
                    wilds &= matching
                if mode == ANSWER:
                    allowed = 0
                    if stacking == STACK_ANY_DRAW:
                        allowed = draw_mask
                    elif stacking == STACK_SAME_RANK:
                        allowed = draw_mask & top_ranks
                    if wild_answers:
                        allowed |= wilds
                else:
                    allowed = (matching & ~wild_mask) | wilds
            mask = g[S_HELD + seat] & allowed
            if g[S_BARRED + seat] != 0 and g[S_LEN + seat] == 1:
                mask = 0
            # The options, and the decision (a decision point: _tally counts its options;
            # with none open but drawing, it has one).
            may_draw = False
            may_pass = False
            ask = True
            if mode == OPENING:
                ask = mask != 0
                _tally(g, popcount(mask))  # none: no club, draw until one comes
            elif mode == ANSWER:
                may_draw = True
                _tally(g, _card_options(g, mask, wild_mask, more_suits) + 1)
            elif no_play == NO_PLAY_UP_TO:
                by_choice = mask == 0 or (voluntary and not compulsory)
                may_draw = by_choice and drawn < draw_up_to and _drawable(g)
                may_pass = by_choice and (drawn >= draw_up_to or _exhausted(g))
                may_pass = may_pass or _free_pass(g, compulsory)
                choices = _card_options(g, mask, wild_mask, more_suits)
                choices += np.int64(may_draw) + np.int64(may_pass)
                _tally(g, choices)
                if choices == 0:
                    _draw_one(g, stream, seat, log, CAUSE_NO_PLAY)  # stock_empty = end: it ends
                    break
            else:
                may_pass = _free_pass(g, compulsory)
                if mask == 0:  # no legal card: draw, or pass where that is free (one option)
                    may_draw = False
                    ask = may_pass
                    g[S_ONE_OPTION] += 1
                else:
                    may_draw = voluntary and not compulsory and _drawable(g)
                    ask = True
                    choices = _card_options(g, mask, wild_mask, more_suits)
                    _tally(g, choices + np.int64(may_draw) + np.int64(may_pass))
            card = DRAW
            if forcing:
                forcing = False
                card = g[S_FORCED]
                if card == KEEP:
                    break
            elif ask:
                card = choose(
                    code, stream, g, seat, mask, may_draw, may_pass,
                    user, searcher, mode, compulsory, extra, drawn,
                )  # fmt: skip
                if card == INVALID:
                    g[S_END] = END_INVALID
                    return
            if card == PASS:
                _pass_turn(g, seat, log)
                break
            if card == DRAW:
                if mode == OPENING:  # draw until a club comes (no reshuffle)
                    while True:
                        if g[S_SPOS] == g[S_SEND]:
                            _stock_out(g, seat)
                            return
                        card = _take(g, seat, log, CAUSE_CLUB)
                        if card < 13:
                            break
                elif mode == ANSWER:  # take the penalty
                    total = g[S_PENDING]
                    g[S_PENDING] = 0
                    ends_turn = g[S_PSKIP] != 0 or penalty_ends
                    if log is not None:
                        _put(log, g, seat, EV_PENALTY, NONE, NONE, total, NONE)
                    _draw_penalty(g, stream, seat, total, log, CAUSE_PENALTY)
                    if g[S_END] >= 0:
                        return
                    if ends_turn:
                        break
                    mode = NORMAL
                    continue
                elif no_play == NO_PLAY_UP_TO:
                    cause = CAUSE_VOLUNTARY if mask != 0 else CAUSE_NO_PLAY
                    _draw_one(g, stream, seat, log, cause)
                    if g[S_END] >= 0:
                        return
                    drawn += 1
                    continue
                else:  # on_no_play: the drawn card may be played
                    cause = CAUSE_VOLUNTARY if mask != 0 else CAUSE_NO_PLAY
                    card = _draw_one(g, stream, seat, log, cause)
                    if no_play == NO_PLAY_UNTIL:
                        while card >= 0 and not (allowed >> card) & 1:
                            card = _draw_one(g, stream, seat, log, cause)
                    if card < 0:
                        if g[S_END] >= 0:
                            return
                        _pass_turn(g, seat, log)
                        break
                    if no_play == NO_PLAY_PASS or not (allowed >> card) & 1:
                        break
                    choices = _card_options(g, np.int64(1) << card, wild_mask, more_suits)
                    if no_play == NO_PLAY_MAY_PLAY and not compulsory:
                        _tally(g, choices + 1)  # play it (naming a suit) or keep it
                        if code >= STRAT_PIMC:
                            kept = _ask_drawn(
                                g, stream, seat, searching.DRAWN, card,
                                mode, compulsory, extra, drawn, searcher,
                            )  # fmt: skip
                            if kept == KEEP:
                                break
                        elif not play_drawn(code, stream):
                            break
                    elif choices > 1:
                        _tally(g, choices)  # it must be played: the suit it names
                    if code >= STRAT_PIMC and g[S_NAMED] == 0:
                        # A drawn card played without a choice: the suit a wild names.
                        _ask_drawn(
                            g, stream, seat, searching.SUIT, card,
                            mode, compulsory, extra, drawn, searcher,
                        )  # fmt: skip
            # --- play ``card`` (the reference's play_card)
            card &= CARD_BITS
            hand = G_HANDS + seat * DECK + card
            g[hand] -= 1
            if g[hand] == 0:
                g[S_HELD + seat] &= ~(np.int64(1) << card)
            g[S_LEN + seat] -= 1
            g[G_PILE + g[S_PLEN]] = card
            g[S_PLEN] += 1
            top = card
            top_ranks = RANKS_OF[card]
            g[S_PLAYS] += 1
            g[S_IDLE] = 0
            if log is not None:
                _put(log, g, seat, EV_PLAY, card, NONE, NONE, NONE)
            if g[S_LEN + seat] == 0:
                g[S_END] = END_OUT
                g[S_WINNER] = seat
                g[S_FINISH] = card % 13
                return
            if max_plays > 0 and g[S_PLAYS] >= max_plays:
                g[S_END] = END_PLAY_CAP
                return
            flags = 0
            draw = 0
            all_draw = 0
            if mode != OPENING:
                flags = g[G_FLAGS + card]
                draw = g[G_DRAW + card]
                all_draw = g[G_ALL_DRAW + card]
            stacks = draw > 0 and g[S_PENDING] > 0
            if mode == ANSWER and not stacks:
                g[S_PENDING] = 0
            if (flags & FLAG_WILD) != 0 and not stacks:
                _name_suit(g, stream, seat, card, log)
                matching = (SUIT_BITS << (13 * g[S_SUIT])) | top_ranks
            else:
                matching = MATCHES[card]
                g[S_SUIT] = card // 13
            if last_call and g[S_LEN + seat] == 1:
                threshold = g[S_FORGET + seat]
                if threshold >= 0 and next_u32(stream) < threshold:
                    if log is not None:
                        _put(log, g, seat, EV_FORGET, NONE, NONE, NONE, NONE)
                    _forgot_call(g, stream, seat, log)
                    if g[S_END] >= 0:
                        return
                elif log is not None:
                    _put(log, g, seat, EV_CALL, NONE, NONE, NONE, NONE)
            # The card acts (the reference's apply_effects), without branches in the common
            # cases: a random card's effects are unpredictable.
            reverse = np.int64((flags & FLAG_REVERSE) != 0)
            g[S_DIR] *= 1 - 2 * reverse
            if log is not None and reverse:
                _put(log, g, seat, EV_REVERSE, NONE, NONE, NONE, NONE)
            skip = np.int64((flags & FLAG_SKIP) != 0)
            if draw or all_draw:
                _rare_effects(g, stream, seat, flags, draw, all_draw, log)
                if g[S_END] >= 0:
                    return
                skip = 0  # done there
            g[S_SKIP_NEXT] |= skip | (reverse & reverse_skips)
            if (flags & FLAG_AGAIN) == 0 and all_draw == 0:
                break
            # An extra, compulsory play in the same turn.
            if extra >= max_turns:  # a runaway chain of extra plays
                g[S_END] = END_TURN_CAP
                return
            extra += 1
            if log is not None:
                _put(log, g, seat, EV_AGAIN, NONE, NONE, NONE, NONE)
            mode = NORMAL
            compulsory = True
            drawn = 0
        if g[S_END] >= 0:
            return
        _mark(g, n)
        if g[S_BARRED + seat] > 0:
            g[S_BARRED + seat] -= 1
        step = 2 if g[S_SKIP_NEXT] and not g[S_PENDING] else 1
        if log is not None and step == 2:
            _put(log, g, _wrap(seat + g[S_DIR], n), EV_SKIP, NONE, NONE, NONE, NONE)
        seat = _wrap(seat + step * g[S_DIR], n)


@njit(cache=True, _nrt=False)
def _search(g, seat, kind, card, mask, may_draw, may_pass, mode, compulsory, extra, drawn, sc):
    """A searching seat's decision (see :mod:`.search`): the option's action (an identity,
    ``DRAW``, ``PASS`` or ``KEEP``), the suit a wild names left in ``g[S_NAMED]``.

    ``kind``: ``search.CHOOSE`` (among ``mask``, drawing and passing), ``DRAWN`` (play or
    keep the drawn ``card``) or ``SUIT`` (the suit the drawn ``card``, played, names);
    ``mode``, ``compulsory``, ``extra``, ``drawn``: the turn's state, where the rollouts
    resume. ``sc``: the search's scratch (int64[search.SC_SIZE]). The rollouts are
    :func:`_play` without a user strategy, log or search: every seat plays the rollout
    policy."""
    actions = sc[searching.SC_ACTIONS : searching.SC_SUITS]
    suits = sc[searching.SC_SUITS : searching.SC_WINS]
    wins = sc[searching.SC_WINS : searching.SC_BASE]
    count = searching.options(g, kind, card, mask, may_draw, may_pass, mode, actions, suits)
    best = 0
    if count > 1:
        base = sc[searching.SC_BASE : searching.SC_COPY]
        copy = sc[searching.SC_COPY : searching.SC_SIZE]
        stream = sc[searching.SC_STREAM : searching.SC_SAVED]
        saved = sc[searching.SC_SAVED : searching.SC_POOL]
        pool = sc[searching.SC_POOL : searching.SC_ACTIONS]
        game = searching.begin(g, seat, base)
        for i in range(G_SIZE):
            copy[i] = base[i]
        for o in range(count):
            wins[o] = 0
        for j in range(g[S_BUDGET + seat]):
            searching.copy_state(base, g)
            stream_init(stream, g[S_KEY0], g[S_KEY1], game, SEARCH_STREAM + j)
            searching.determinize(base, seat, stream, pool)
            searching.set_rollout(base, seat, mode, compulsory, extra, drawn)
            for i in range(RNG_STATE_SIZE):
                saved[i] = stream[i]
            for o in range(count):
                searching.copy_state(copy, base)
                for i in range(RNG_STATE_SIZE):
                    stream[i] = saved[i]
                copy[S_FORCED] = actions[o]
                copy[S_NAMED] = suits[o] + 1
                _play(copy, stream, seat, None, None, None)
                wins[o] += copy[S_WINNER] == seat
        best = searching.best_option(wins, count)
    g[S_NAMED] = suits[best] + 1
    return actions[best]


@njit(cache=True, _nrt=False)
def _ismcts(g, seat, kind, card, mask, may_draw, may_pass, mode, compulsory, extra, drawn, sc):
    """An ``ismcts`` seat's decision (see :mod:`.tree`), with :func:`_search`'s arguments
    and answer; ``sc``: the search's scratch and the tree
    (int64[search.SC_SIZE + tree.tree_words(K)]). An iteration is :func:`_play` on a
    determinized copy, its seats deciding in the tree (code ``STRAT_TREE``, through
    :func:`choose`) until it adds a node, then playing the rollout policy."""
    actions = sc[searching.SC_ACTIONS : searching.SC_SUITS]
    suits = sc[searching.SC_SUITS : searching.SC_WINS]
    count = searching.options(g, kind, card, mask, may_draw, may_pass, mode, actions, suits)
    best = 0
    if count > 1:
        copy = sc[searching.SC_COPY :]
        tree = copy[G_SIZE:]
        stream = sc[searching.SC_STREAM : searching.SC_SAVED]
        pool = sc[searching.SC_POOL : searching.SC_ACTIONS]
        game = searching.begin(g, seat, copy)
        trees.reset(tree, g[S_EXPLORE + seat], g[S_ROLLOUT + seat])
        for j in range(g[S_BUDGET + seat]):
            searching.copy_state(copy, g)
            stream_init(stream, g[S_KEY0], g[S_KEY1], game, SEARCH_STREAM + j)
            searching.determinize(copy, seat, stream, pool)
            searching.set_rollout(copy, seat, mode, compulsory, extra, drawn)
            trees.start(tree)
            o = trees.step(tree, seat, kind, actions, suits, count, stream)
            if tree[trees.T_CURRENT] >= 0:
                trees.enter(copy)
            copy[S_FORCED] = actions[o]
            copy[S_NAMED] = suits[o] + 1
            _play(copy, stream, seat, None, None, None)
            trees.backpropagate(tree, copy[S_WINNER])
        best = trees.most_visited(tree, seat, kind, actions, suits, count)
    g[S_NAMED] = suits[best] + 1
    return actions[best]


def _search_entry(g, seat, kind, card, mask, may_draw, may_pass, mode, compulsory, extra, drawn):
    # The search's scratch follows the game's in the worker's array (``S_SCRATCH`` words).
    game = carray(g, G_SIZE)
    sc = carray(g, G_SIZE + game[S_SCRATCH])[G_SIZE:]
    if game[S_STRATEGY + seat] == STRAT_ISMCTS:
        return _ismcts(
            game, seat, kind, card, mask, may_draw != 0, may_pass != 0,
            mode, compulsory != 0, extra, drawn, sc,
        )  # fmt: skip
    return _search(
        game, seat, kind, card, mask, may_draw != 0, may_pass != 0,
        mode, compulsory != 0, extra, drawn, sc,
    )  # fmt: skip


_searcher: list = []


def search_cfunc():
    """The C callable of :func:`_search` (signature :data:`.search.SEARCH_CSIG`), compiled
    (or loaded from numba's cache) on first use: importing the kernel compiles nothing."""
    if not _searcher:
        _searcher.append(cfunc(searching.SEARCH_CSIG, cache=True)(_search_entry))
    return _searcher[0]


@njit(cache=True, _nrt=False)
def _turn_starter(g, stream, log):
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
        if log is not None:
            _put(log, g, -1, EV_PUT_BACK, card, NONE, position, NONE)
        card = g[G_STOCK + start]
        g[S_SPOS] += 1
    g[G_PILE + 0] = card
    g[S_PLEN] = 1
    g[S_SUIT] = card // 13
    if log is not None:
        _put(log, g, -1, EV_START, card, NONE, NONE, NONE)


# --- one game --------------------------------------------------------------------------------


@njit(cache=True, _nrt=False)
def _prepare(g, table, strategies):
    """Make a new scratch ``g`` (int64[G_SIZE], then a search's ``g[S_SCRATCH]`` words)
    ready for the games of a run: the rule vector and its per-identity tables, the run's
    constants (players, decks, wild and draw ranks, each seat's strategy code, forget
    threshold and weights) and empty hands.
    ``table``: a :class:`Table`; ``strategies``: a :class:`Strategies`."""
    rules, n, decks = table.rules, table.players, table.decks
    for i in range(RULE_VECTOR_SIZE):
        g[G_RULES + i] = rules[i]
    for card in range(DECK):
        rank = card % 13
        g[G_FLAGS + card] = rules[R_EFFECT_FLAGS + rank]
        g[G_DRAW + card] = rules[R_DRAW + rank]
        g[G_ALL_DRAW + card] = rules[R_ALL_DRAW + rank]
        g[G_POINTS + card] = rules[R_POINTS + rank]
    g[S_N] = n
    g[S_SCRATCH] = g.shape[0] - G_SIZE
    for seat in range(n, LANES):  # a lane past the last seat never holds the fewest
        g[S_LEN + seat] = PAD
    g[S_ONE_DECK] = decks == 1
    wild = 0
    draws = 0
    for rank in range(13):
        if rules[R_EFFECT_FLAGS + rank] & FLAG_WILD:
            wild |= RANK_BITS << rank
        if rules[R_DRAW + rank] > 0:
            draws |= RANK_BITS << rank
    g[S_WILD_MASK] = wild
    g[S_DRAW_MASK] = draws
    for seat in range(n):
        g[S_STRATEGY + seat] = strategies.codes[seat]
        g[S_FORGET + seat] = strategies.forget[seat]
        g[S_BUDGET + seat] = strategies.budgets[seat]
        g[S_ROLLOUT + seat] = strategies.rollouts[seat]
        g[S_EXPLORE + seat] = strategies.explore[seat]
        for feature in range(FEATURES):
            g[G_WEIGHTS + seat * FEATURES + feature] = strategies.weights[seat, feature]
    for i in range(MAX_PLAYERS * DECK):
        g[G_HANDS + i] = 0


@njit(cache=True, _nrt=False)
def _deal(g, stream, decks, hand_size, first):
    """Start a game: zero its state, shuffle and deal from the stream; returns the first
    seat (``first``, or drawn as ``first_seat`` says when -1). The hands' counts must be
    zero (see :func:`_record`)."""
    n = g[S_N]
    for i in range(S_GAME_SIZE):
        g[i] = 0
    g[S_DIR] = 1
    g[S_END] = -1
    g[S_WINNER] = -1
    g[S_FINISH] = -1
    start = g[G_RULES + R_START]
    g[S_OPENINGS] = 1 if start == START_LEAD_CLUB else (n if start == START_ALL_LEAD_CLUB else 0)
    if first < 0:
        first = 0
        if g[G_RULES + R_FIRST_SEAT] == FIRST_RANDOM:
            first = _wrap(bounded(stream, n) + 1, n)
    g[S_FIRST] = first
    total = DECK * decks
    for copy in range(decks):
        for card in range(DECK):
            g[G_STOCK + copy * DECK + card] = card
    shuffle(stream, g[G_STOCK:], total)
    # Card i goes to seat first + i (mod n): seat by seat, its mask in a register.
    seat = first
    for j in range(n):
        held = 0
        for i in range(j, n * hand_size, n):
            card = g[G_STOCK + i] & CARD_BITS
            g[G_HANDS + seat * DECK + card] += 1
            held |= np.int64(1) << card
        g[S_HELD + seat] = held
        g[S_LEN + seat] = hand_size
        seat = _wrap(seat + 1, n)
    g[S_SPOS] = n * hand_size
    g[S_SEND] = total
    return first


@njit(cache=True, _nrt=False)
def _record(g, stats, seats, row):
    """Write the game's record: ``stats[row]`` and ``seats[row]`` (cards, points, score).

    Empties the hands' counts on the way (a count is positive just where the seat's mask
    has the bit), so that the next deal starts from empty hands."""
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
    stats[row, O_DECISIONS] = g[S_CHOICES]
    stats[row, O_FORCED] = g[S_ONE_OPTION]
    stats[row, O_OPTIONS] = g[S_OPTIONS]
    winner = g[S_WINNER]
    _mark(g, n)  # the game's end
    behind = g[S_BEHIND + winner] if winner >= 0 else -1
    stats[row, O_LEAD_CHANGES] = max(g[S_LEAD_FLIPS] - 1, 0) // 2
    stats[row, O_WINNER_BEHIND] = behind
    scoring = g[G_RULES + R_SCORING]
    sign = -1 if scoring == SCORE_MINUS else 1
    multiplier = 1
    if g[S_END] == END_OUT:
        multiplier = g[G_RULES + R_MULTIPLIER + g[S_FINISH]]
    collected = 0
    for seat in range(n):
        points = 0
        m = g[S_HELD + seat]
        while m:
            card = trailing_zeros(m)
            hand = G_HANDS + seat * DECK + card
            points += g[hand] * g[G_POINTS + card]
            g[hand] = 0
            m &= m - 1
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
def play_game(
    g, stream, key0, key1, game, stream_id, first, decks, hand_size, user, stats, seats, row, log,
    searcher,
):  # fmt: skip
    """Deal from the stream ``(seed, game, stream_id)`` and play to the end; write row ``row``.

    ``first``: the first seat, or -1 to draw it as ``first_seat`` says (a match's deal k
    passes ``k % n``). ``g`` is the run's scratch (``G_SIZE``), made by :func:`_prepare`.
    ``log``: None, or the :class:`simulate.core.logs.compiled.Log` that gets the game's events.

    Callers pass ``stream_id``, ``first`` and ``row`` as int64 values, never as literal
    constants: numba compiles a function again for each literal argument it is called with,
    and this one is most of the kernel's compile time (a literal ``0`` or ``-1`` in each
    caller made four compiled copies of it where two, with and without a log, serve every
    caller: the CPU's kernels and the GPU's, under the CUDA simulator too). ``searcher``:
    the searching seats' C callable, or a placeholder, or None (see :func:`_play`)."""
    seat = start_game(g, stream, key0, key1, game, stream_id, first, decks, hand_size, log)
    _play(g, stream, seat, user, log, searcher)
    if log is not None:
        log.at[logs.AT_TURN] = g[S_TURNS]
        stock = g[S_SEND] - g[S_SPOS]
        logs.put(log, g[S_WINNER], EV_END, NONE, NONE, NONE, NONE, NONE, stock, g[S_END])
    _record(g, stats, seats, row)


@njit(cache=True, _nrt=False)
def start_game(g, stream, key0, key1, game, stream_id, first, decks, hand_size, log):
    """Deal game ``game`` from the stream ``(seed, game, stream_id)`` (:func:`play_game`'s
    arguments) and turn the starter; returns the seat that takes the first turn."""
    stream_init(stream, key0, key1, game, stream_id)
    seat = _deal(g, stream, decks, hand_size, first)
    g[S_KEY0] = key0  # a search's rollout streams are numbered from the game's
    g[S_KEY1] = key1
    g[S_GAME_NO] = game
    g[S_STREAM_NO] = stream_id
    if log is not None:
        _log_deal(g, log, seat, hand_size)
    if g[G_RULES + R_START] == START_FLIP:
        _turn_starter(g, stream, log)
    return seat


@njit(cache=True, _nrt=False)
def _log_deal(g, log, first, hand_size):
    """The deal's events: one per card, in dealing order from seat ``first`` (turn 0)."""
    n = g[S_N]
    dealt = n * hand_size
    total = g[S_SEND]
    for i in range(dealt):
        seat = _wrap(first + i % n, n)
        card = g[G_STOCK + i]
        logs.put(log, seat, EV_DEAL, card, NONE, NONE, NONE, i // n + 1, total - i - 1, NONE)


@njit(cache=True, inline="always", _nrt=False)
def _narrow(stats, seats, small, counts, left, points, score, row):
    """Copy the record in ``stats[0]``, ``seats[0]`` into row ``row`` of the typed columns:
    ``small`` int8[4, G] (``BYTE_FIELDS``), ``counts`` int32[11, G] (``COUNT_FIELDS``),
    ``left`` int16[G, n], ``points``, ``score`` int32[G, n]."""
    for k in range(BYTE_FIELDS.shape[0]):
        small[k, row] = stats[0, BYTE_FIELDS[k]]
    for k in range(COUNT_FIELDS.shape[0]):
        counts[k, row] = stats[0, COUNT_FIELDS[k]]
    for seat in range(seats.shape[2]):
        left[row, seat] = seats[0, 0, seat]
        points[row, seat] = seats[0, 1, seat]
        score[row, seat] = seats[0, 2, seat]


@njit(cache=True, _nrt=False)
def scratch_words(codes, budgets):
    """The words a worker's scratch needs past ``G_SIZE`` for its searching seats (a budget
    above 0): a search's scratch, then a tree as large as the largest ``ismcts`` budget's;
    none when no seat searches. Allocated once per worker thread, with ``g``."""
    words = 0
    for seat in range(budgets.shape[0]):
        if budgets[seat] > 0:
            words = max(words, searching.SC_SIZE)
        if codes[seat] == STRAT_ISMCTS:
            words = max(words, searching.SC_SIZE + trees.tree_words(budgets[seat]))
    return np.int64(words)


@njit(cache=True)
def worker_scratch(table, strategies):
    """A worker's scratch: the game state ``g`` (``G_SIZE``, prepared for the run, then
    the searching seats' scratch, :func:`scratch_words`), its
    random stream, and one record row (``stats`` int64[1, STATS], ``seats`` int64[1, 3, n])
    for :func:`play_game` to write and :func:`_narrow` to copy."""
    g = np.empty(G_SIZE + scratch_words(strategies.codes, strategies.budgets), np.int64)
    _prepare(g, table, strategies)
    stream = np.empty(RNG_STATE_SIZE, np.int64)
    return g, stream, np.empty((1, STATS), np.int64), np.empty((1, 3, table.players), np.int64)


@njit(cache=True, _nrt=False)
def work_block(budgets, block):
    """Games (or matches) per work item: ``block``, or ``SEARCH_BLOCK`` when a seat
    searches (a budget above 0). The batch functions ask it too, for the progress share."""
    for budget in budgets:
        if budget > 0:
            return np.int64(SEARCH_BLOCK)
    return np.int64(block)


@njit(cache=True, parallel=True, nogil=True)
def play_random_games(table, strategies, run, out, workers, taken):
    """Deal and play games ``run.first .. run.first + G - 1`` of a run into ``out``.

    ``table``: a :class:`Table`; ``strategies``: a :class:`Strategies`; ``run``: a
    :class:`Run`; ``out``: an :class:`Outputs` of G rows, row ``i`` receiving game
    ``run.first + i``. ``workers``, ``taken``: the thread count and a zeroed int64[1]
    counter; each worker takes the next block of ``BLOCK`` games (``SEARCH_BLOCK`` when a
    seat searches) from the counter
    (:mod:`simulate.core.compiled.work_sharing`).
    """
    # Every field in a local before the parallel loop: numba drops writes to an array
    # reached through a tuple's attribute inside ``prange`` (numba issue #7135).
    key0, key1, first_game = run.key0, run.key1, run.first
    decks, hand_size, user = table.decks, table.hand_size, strategies.user
    searcher = strategies.searcher
    small, counts, left, points, score = out.small, out.counts, out.left, out.points, out.score
    count = left.shape[0]
    step = work_block(strategies.budgets, BLOCK)
    blocks = (count + step - 1) // step
    for _ in prange(workers):
        g, stream, stats, seats = worker_scratch(table, strategies)
        block = fetch_add(taken, 0, 1)
        while block < blocks:
            for i in range(block * step, min(count, (block + 1) * step)):
                play_game(
                    g,
                    stream,
                    key0,
                    key1,
                    first_game + i,
                    np.int64(0),
                    np.int64(-1),
                    decks,
                    hand_size,
                    user,
                    stats,
                    seats,
                    np.int64(0),
                    None,
                    searcher,
                )
                _narrow(stats, seats, small, counts, left, points, score, i)
            block = fetch_add(taken, 0, 1)


@njit(cache=True, parallel=True, nogil=True)
def play_matches(table, strategies, run, plan, out, tallies, workers, taken):
    """Play matches ``run.first .. run.first + M - 1`` of a run (M = ``len(tallies.deals)``).

    ``table``: a :class:`Table`; ``strategies``: a :class:`Strategies`; ``run``: a
    :class:`Run` (its ``first`` a match number); ``plan``: a :class:`MatchPlan`.
    Deal k of match m is dealt from the stream ``(seed, m, k)`` with seat ``k % n`` first.
    A match ends after ``plan.match_deals`` deals (0: no limit) or once a seat's total (its
    size) reaches ``plan.target`` (0: no target), and after ``plan.max_deals`` deals at
    most. ``tallies``: a :class:`MatchTotals` of M rows, each seat's total and the deals of
    each match. With ``plan.write``, deal k of match i is recorded in row
    ``plan.offsets[i] + k`` of ``out`` (an :class:`Outputs` of R rows); without it nothing
    is recorded (a first pass that counts the deals). ``workers``, ``taken``: the thread
    count and a zeroed int64[1] counter; each worker takes the next block of
    ``MATCH_BLOCK`` matches from the counter.
    """
    # Every field in a local before the parallel loop (see :func:`play_random_games`).
    key0, key1, first_match = run.key0, run.key1, run.first
    n, decks, hand_size, user = table.players, table.decks, table.hand_size, strategies.user
    searcher = strategies.searcher
    match_deals, target, max_deals = plan.match_deals, plan.target, plan.max_deals
    offsets, write = plan.offsets, plan.write
    small, counts, left, points, score = out.small, out.counts, out.left, out.points, out.score
    totals, deals = tallies.totals, tallies.deals
    count = deals.shape[0]
    step = work_block(strategies.budgets, MATCH_BLOCK)
    blocks = (count + step - 1) // step
    for _ in prange(workers):
        g, stream, stats, seats = worker_scratch(table, strategies)
        block = fetch_add(taken, 0, 1)
        while block < blocks:
            for i in range(block * step, min(count, (block + 1) * step)):
                for seat in range(n):
                    totals[i, seat] = 0
                k = np.int64(0)  # not the literal 0: see play_game
                while k < max_deals:
                    play_game(
                        g,
                        stream,
                        key0,
                        key1,
                        first_match + i,
                        k,
                        k % n,
                        decks,
                        hand_size,
                        user,
                        stats,
                        seats,
                        np.int64(0),
                        None,
                        searcher,
                    )
                    if write:
                        _narrow(stats, seats, small, counts, left, points, score, offsets[i] + k)
                    k += 1
                    reached = False
                    for seat in range(n):
                        totals[i, seat] += seats[0, 2, seat]
                        if abs(totals[i, seat]) >= target > 0:
                            reached = True
                    if k == match_deals or reached:
                        break
                deals[i] = k
            block = fetch_add(taken, 0, 1)


@njit(cache=True)
def log_game(table, strategies, key0, key1, game, stream_id, first, out, rows):
    """One game (or deal), played by the logging kernel: its record in row 0 of ``out``
    (an :class:`Outputs` of one row) and its events in ``rows`` (int32[R, W], see
    :mod:`simulate.core.logs.events`). ``game``, ``stream_id``, ``first``: as
    :func:`play_game` takes them. Returns the rows the game wrote; more than R: the buffer
    was too small (the rows past it are lost), play it again with a larger one."""
    g, stream, stats, seats = worker_scratch(table, strategies)
    log = logs.Log(rows, np.zeros(2, np.int64))
    play_game(
        g,
        stream,
        key0,
        key1,
        game,
        stream_id,
        first,
        table.decks,
        table.hand_size,
        strategies.user,
        stats,
        seats,
        np.int64(0),
        log,
        strategies.searcher,
    )
    _narrow(stats, seats, out.small, out.counts, out.left, out.points, out.score, 0)
    return log.at[logs.AT_ROWS]


@njit(cache=True)
def count_searches(table, strategies, key0, key1, first, count):
    """Play games ``first .. first + count - 1`` on one thread (as :func:`play_random_games`
    does) and return the decisions their searching seats searched (two options or more):
    the bench's count of decisions per second."""
    g, stream, stats, seats = worker_scratch(table, strategies)
    total = 0
    for game in range(first, first + count):
        play_game(
            g,
            stream,
            key0,
            key1,
            game,
            np.int64(0),
            np.int64(-1),
            table.decks,
            table.hand_size,
            strategies.user,
            stats,
            seats,
            np.int64(0),
            None,
            strategies.searcher,
        )
        total += g[S_DECISIONS]
    return total
