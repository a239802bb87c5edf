"""Beggar-My-Neighbour, the compiled kernel: many deals in parallel.

Only court cards matter, so a hand is stored as a few integers instead of a list of cards:

- ``len``   cards in the hand;
- ``mask``  bit ``i`` set when the ``i``-th card from the top is a court card (52 bits);
- ``ranks`` the court cards' kinds minus one, two bits each, topmost court in the low bits;
- ``ncourt`` the number of court cards (the bits set in ``mask``).

Playing a run of plain cards is a shift, the next court card is a count of trailing zeros,
and a pile goes under a hand with two shifted ORs. A run of plain cards played in turn by
the seats is skipped in one step. The whole game state (every hand and the leader) is a
handful of integers, compared exactly after each trick for cycle detection (Brent's
algorithm, constant memory); the start of a detected loop is found by replaying the deal.

The state of one game lives in an int64 array of ``STATE_SIZE`` (offsets ``ST_*`` below).
The readable reference is :mod:`.reference`; tests require identical records.

The entry points take their arguments in a few named tuples (:class:`Table`, :class:`Run`,
:class:`Outputs`): numba types a ``NamedTuple`` by its fields, so the kernels stay in the
on-disk cache (a jitclass or structref would not).

Every function but the two entry points allocates nothing and is compiled with
``_nrt=False``: without numba's reference counting, passing an array to a helper costs no
atomic increments, which otherwise dominated the hot loops.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ...core.compiled.bits import popcount, trailing_zeros
from ...core.compiled.lanes import most_mark
from ...core.compiled.rng_jit import STATE_SIZE as RNG_STATE_SIZE
from ...core.compiled.rng_jit import batch_end, batch_word, stream_init
from ...core.compiled.work_sharing import fetch_add
from ...core.logs import compiled as logs
from ...core.logs.events import EV_END, EV_OUT, EV_PLAY, EV_TAKE, NONE
from ...core.rng import MASK32
from .deal import DECK_SIZE, kind_of_card
from .rules import END_NAMES, MAX_PLAYERS, R_PENALTY, R_TIME_LIMIT

END_OUT, END_CYCLE, END_TIME_LIMIT = range(len(END_NAMES))  # codes: indices into END_NAMES

ST_LEADER = 0
ST_LEN = 1
ST_MASK = ST_LEN + MAX_PLAYERS
ST_RANKS = ST_MASK + MAX_PLAYERS
ST_NCOURT = ST_RANKS + MAX_PLAYERS
STATE_SIZE = ST_NCOURT + MAX_PLAYERS

# Scratch rows of one worker: the game, the deal, Brent's tortoise, a spare, the marks.
ROW_GAME, ROW_DEAL, ROW_TORTOISE, ROW_SPARE, ROW_MARKS = 0, 1, 2, 3, 4
SCRATCH_ROWS = 5

# The tension marks (row ``ROW_MARKS``): the leader (-1 before the first), how many leaders
# there have been (the first included: the lead changes are one fewer), and each seat's most
# cards behind the seat holding the most, over the marks so far.
MK_LEADER, MK_LEADERS, MK_BEHIND = 0, 1, 2

TRICK_DONE, GAME_OVER, TIME_UP = 0, 1, 2
NO_LIMIT = np.int64(2**62)
DEAL_KINDS = np.array([kind_of_card(code) for code in range(DECK_SIZE)], np.int8)
"""Kind of each card code of the unshuffled deck."""
BLOCK = 512
"""Deals per parallel work item."""


class Table(NamedTuple):
    """What is played: the kernels' game, the same for every deal of a call."""

    players: int
    """Seats dealt in, 2 .. ``MAX_PLAYERS``."""
    rules: np.ndarray
    """int64[RULE_VECTOR_SIZE]: the rule vector (:meth:`.rules.BeggarRules.to_vector`)."""


class Run(NamedTuple):
    """Which deals of a run :func:`play_random_deals` plays: games ``first ..``."""

    key0: int
    """The run seed's low 32-bit word (:func:`simulate.core.rng.seed_key`)."""
    key1: int
    """The run seed's high 32-bit word."""
    first: int
    """The number of the game in row 0 (row ``i`` is game ``first + i``)."""


class Outputs(NamedTuple):
    """The record columns the kernels write, one row per game (G rows)."""

    cards: np.ndarray
    """int32[G]: cards played (up to the first repeated state, for a cycle)."""
    tricks: np.ndarray
    """int32[G]: piles taken, the final pile to the survivor included (likewise)."""
    winner: np.ndarray
    """int8[G]: the winning seat, -1 for none (a cycle, or a tie at the time limit)."""
    end: np.ndarray
    """int8[G]: how the game ended, an index into ``END_NAMES``."""
    cycle_cards: np.ndarray
    """int32[G]: cards played in one turn of the loop (a cycle; else 0)."""
    cycle_tricks: np.ndarray
    """int32[G]: tricks in one turn of the loop (a cycle; else 0)."""
    held: np.ndarray
    """int8[G, n]: cards in each seat's hand at the end (the pile excluded)."""
    lead_changes: np.ndarray
    """int32[G]: times the lead passed to another seat (marks after every trick and at the
    end, up to the first repeated state for a cycle)."""
    winner_behind: np.ndarray
    """int32[G]: the most cards the winner trailed the seat holding the most by, at a mark;
    -1 when there is no winner."""


@njit(cache=True, inline="always", _nrt=False)
def _next_in(alive, seat, n):
    """The next seat still in (its bit set in ``alive``), clockwise from ``seat``."""
    seat += 1
    if seat == n:
        seat = 0
    while not (alive >> seat) & 1:
        seat += 1
        if seat == n:
            seat = 0
    return seat


@njit(cache=True, inline="always", _nrt=False)
def copy_state(target, source):
    """``target[:] = source`` for two game states, without a temporary."""
    for i in range(STATE_SIZE):
        target[i] = source[i]


@njit(cache=True, _nrt=False)
def deal_random(stream, deck, state, n):
    """Shuffle the deck with the game's stream and deal it into ``state``.

    The same permutation as :meth:`simulate.core.rng.Stream.shuffle` (Fisher-Yates from the
    end) followed by dealing card ``i`` to seat ``i % n``, fused: position ``i`` is final
    once drawn, so cards are dealt from the bottom of the deck up. ``deck`` is int8[52]
    scratch.
    """
    for c in range(DECK_SIZE):
        deck[c] = DEAL_KINDS[c]
    # Each seat's mask and ranks in local values (the seat cycles, a pattern the branch
    # predictor learns); whether a card is a court card is handled without branches.
    m0 = m1 = m2 = m3 = 0
    r0 = r1 = r2 = r3 = 0
    seat = (DECK_SIZE - 1) % n
    position = (DECK_SIZE - 1) // n
    i = DECK_SIZE - 1
    while i >= 0:
        last, product = batch_end(i) if i > 0 else (-1, 1)
        left = batch_word(stream, i, last, product) if i > 0 else 0
        for p in range(i, last, -1):
            kind = deck[0]
            if p > 0:
                drawn = left * (p + 1)
                j = drawn >> 32
                left = drawn & MASK32
                kind = deck[j]
                deck[j] = deck[p]
            court = np.int64(kind > 0)
            bit = court << position
            shift = 2 * court
            low = (kind - 1) & -court
            if seat == 0:
                m0 |= bit
                r0 = (r0 << shift) | low
            elif seat == 1:
                m1 |= bit
                r1 = (r1 << shift) | low
            elif seat == 2:
                m2 |= bit
                r2 = (r2 << shift) | low
            else:
                m3 |= bit
                r3 = (r3 << shift) | low
            seat -= 1
            if seat < 0:
                seat = n - 1
                position -= 1
        i = last
    for i in range(STATE_SIZE):
        state[i] = 0
    masks = (m0, m1, m2, m3)
    ranks = (r0, r1, r2, r3)
    for seat in range(n):
        state[ST_LEN + seat] = DECK_SIZE // n + (1 if seat < DECK_SIZE % n else 0)
        state[ST_MASK + seat] = masks[seat]
        state[ST_RANKS + seat] = ranks[seat]
        state[ST_NCOURT + seat] = popcount(masks[seat])


@njit(cache=True, _nrt=False)
def set_hands(state, hands, lengths, n):
    """Load given hands: ``hands[seat, :lengths[seat]]`` are kinds, top card first."""
    for i in range(STATE_SIZE):
        state[i] = 0
    for seat in range(n):
        for pos in range(lengths[seat]):
            kind = hands[seat, pos]
            if kind:
                state[ST_MASK + seat] |= 1 << pos
                state[ST_RANKS + seat] |= (kind - 1) << (2 * state[ST_NCOURT + seat])
                state[ST_NCOURT + seat] += 1
        state[ST_LEN + seat] = lengths[seat]


@njit(cache=True, inline="always", _nrt=False)
def _play_plain(state, seat, count):
    state[ST_MASK + seat] >>= count
    state[ST_LEN + seat] -= count


@njit(cache=True, inline="always", _nrt=False)
def _pop_court(state, seat):
    """Remove the top card of ``seat``, known to be a court card; return its kind."""
    kind = (state[ST_RANKS + seat] & 3) + 1
    state[ST_RANKS + seat] >>= 2
    state[ST_NCOURT + seat] -= 1
    state[ST_MASK + seat] >>= 1
    state[ST_LEN + seat] -= 1
    return kind


@njit(cache=True, inline="always", _nrt=False)
def _take_pile(state, seat, pile_len, pile_mask, pile_ranks, pile_ncourt):
    length = state[ST_LEN + seat]
    state[ST_MASK + seat] |= pile_mask << length
    state[ST_RANKS + seat] |= pile_ranks << (2 * state[ST_NCOURT + seat])
    state[ST_NCOURT + seat] += pile_ncourt
    state[ST_LEN + seat] = length + pile_len


@njit(cache=True, _nrt=False)
def _play_in_rotation(state, seat, alive, m, n, rounds, extra):
    """The ``m`` seats in turn from ``seat`` play plain cards: ``rounds`` each, one more
    for the first ``extra`` of them."""
    for k in range(m):
        _play_plain(state, seat, rounds + (1 if k < extra else 0))
        seat = _next_in(alive, seat, n)


@njit(cache=True, inline="always", _nrt=False)
def _two_seat_trick(lx, mx, rx, ly, my, ry, owed_by_kind):
    """One trick between two seats, on hands held in local values (no time limit).

    ``x`` leads, ``y`` is the other seat; each hand is ``(len, mask, ranks)``;
    ``owed_by_kind`` packs the cards owed per court kind (see :func:`_pack_penalties`).
    Returns ``(played, swapped, collector's hand, other hand)`` where ``swapped`` tells
    whether the collector is ``y``. The other hand is empty when the game is over.
    """
    # Free play: x plays its t-th card at time 2t, y at 2t + 1, until one of them turns a
    # court card or is called on with no cards. Which comes first is a coin toss, so x and y
    # are swapped without a branch (xor masks) when it is y.
    # (A mask has no bit at or above its hand's length, so a sentinel bit there turns
    # "plain cards before the first court card, or all of them" into one instruction.)
    tx = trailing_zeros(mx | (1 << lx))
    ty = trailing_zeros(my | (1 << ly))
    y_first = np.int64(ty < tx)
    t = min(tx, ty)
    played = 2 * t + y_first
    mx >>= t + y_first
    lx -= t + y_first
    my >>= t
    ly -= t
    flip = -y_first
    d = (lx ^ ly) & flip
    lx ^= d
    ly ^= d
    d = (mx ^ my) & flip
    mx ^= d
    my ^= d
    d = (rx ^ ry) & flip
    rx ^= d
    ry ^= d
    swapped = y_first != 0
    # Every card played goes to the pile: ``played`` is also its length.
    pile_mask = 0
    pile_ranks = 0
    pile_shift = 0  # where the next court card's rank goes in pile_ranks
    # x now acts: it turns a court card, or is called on with no cards (and is out).
    if lx > 0:
        while True:
            rank_bits = rx & 3  # the court card's kind minus one
            rx >>= 2
            mx >>= 1
            lx -= 1
            pile_mask |= 1 << played
            pile_ranks |= rank_bits << pile_shift
            pile_shift += 2
            played += 1
            owed = (owed_by_kind >> (8 * rank_bits + 8)) & 0xFF
            # The other seat pays: plain cards, maybe up to a court card of its own.
            lx, mx, rx, ly, my, ry = ly, my, ry, lx, mx, rx
            swapped = not swapped
            plain = trailing_zeros(mx)
            paid = min(owed, lx)
            if plain < paid:
                mx >>= plain
                lx -= plain
                played += plain
                continue
            mx >>= paid
            lx -= paid
            played += paid
            break
    # y, the last to play a court card (or the only seat left), takes the pile.
    ry |= pile_ranks << (2 * popcount(my))
    my |= pile_mask << ly
    ly += played
    return played, not swapped, ly, my, ry, lx, mx, rx


@njit(cache=True, inline="always", _nrt=False)
def _pack_penalties(rules):
    """The cards owed per court kind, 8 bits each (kind k in bits 8k..8k+7): a shift away
    in a register instead of a memory load on the hot path."""
    packed = 0
    for kind in range(1, 5):
        packed |= rules[R_PENALTY + kind] << (8 * kind)
    return packed


@njit(cache=True, inline="always", _nrt=False)
def _load(state, seat):
    return (
        state[ST_LEN + seat],
        state[ST_MASK + seat],
        state[ST_RANKS + seat],
        state[ST_NCOURT + seat],
    )


@njit(cache=True, inline="always", _nrt=False)
def _store(state, seat, length, mask, ranks, ncourt):
    state[ST_LEN + seat] = length
    state[ST_MASK + seat] = mask
    state[ST_RANKS + seat] = ranks
    state[ST_NCOURT + seat] = ncourt


@njit(cache=True, inline="always", _nrt=False)
def _trick_of_two(state, lead, other, rules):
    """:func:`play_trick` when two seats hold cards and time cannot run out in the trick."""
    lx, mx, rx, _ = _load(state, lead)
    ly, my, ry, _ = _load(state, other)
    played, swapped, lc, mc, rc, lo, mo, ro = _two_seat_trick(
        lx, mx, rx, ly, my, ry, _pack_penalties(rules)
    )
    collector, loser = (other, lead) if swapped else (lead, other)
    _store(state, collector, lc, mc, rc, popcount(mc))
    _store(state, loser, lo, mo, ro, popcount(mo))
    state[ST_LEADER] = collector
    return (GAME_OVER if lo == 0 else TRICK_DONE), played, collector


@njit(cache=True, inline="always", _nrt=False)
def _holders(state, n):
    """How many seats hold cards."""
    count = 0
    for seat in range(n):
        count += state[ST_LEN + seat] > 0
    return count


@njit(cache=True, _nrt=False)
def _logged_trick(state, n, rules, budget, log):
    """:func:`play_trick` card by card, each card, take and seat out logged in ``log``."""
    alive = 0
    m = 0
    for i in range(n):
        if state[ST_LEN + i] > 0:
            alive |= 1 << i
            m += 1
    seat = state[ST_LEADER]
    owed = 0
    claimant = -1
    played = 0
    pile_mask = 0
    pile_ranks = 0
    pile_courts = 0
    while True:
        if state[ST_LEN + seat] == 0:
            alive &= ~(1 << seat)
            m -= 1
            logs.put(log, seat, EV_OUT, NONE, NONE, NONE, NONE, 0, NONE, NONE)
            seat = _next_in(alive, seat, n)
            if m == 1:
                _take_pile(state, seat, played, pile_mask, pile_ranks, pile_courts)
                hand = state[ST_LEN + seat]
                logs.put(log, seat, EV_TAKE, NONE, NONE, played, NONE, hand, NONE, NONE)
                return GAME_OVER, played, seat
            continue
        if state[ST_MASK + seat] & 1:
            kind = _pop_court(state, seat)
            pile_mask |= 1 << played
            pile_ranks |= (kind - 1) << (2 * pile_courts)
            pile_courts += 1
            played += 1
            claimant = seat
            owed = rules[R_PENALTY + kind]
            hand = state[ST_LEN + seat]
            logs.put(log, seat, EV_PLAY, kind, NONE, owed, NONE, hand, NONE, NONE)
            seat = _next_in(alive, seat, n)
        else:
            _play_plain(state, seat, 1)
            played += 1
            hand = state[ST_LEN + seat]
            if owed == 0:
                logs.put(log, seat, EV_PLAY, 0, NONE, 0, NONE, hand, NONE, NONE)
                seat = _next_in(alive, seat, n)
            else:
                owed -= 1
                logs.put(log, seat, EV_PLAY, 0, NONE, owed, NONE, hand, NONE, NONE)
                if owed == 0:
                    _take_pile(state, claimant, played, pile_mask, pile_ranks, pile_courts)
                    state[ST_LEADER] = claimant
                    hand = state[ST_LEN + claimant]
                    logs.put(log, claimant, EV_TAKE, NONE, NONE, played, NONE, hand, NONE, NONE)
                    for other in range(n):
                        if (alive >> other) & 1 and state[ST_LEN + other] == 0:
                            logs.put(log, other, EV_OUT, NONE, NONE, NONE, NONE, 0, NONE, NONE)
                    if _holders(state, n) == 1:
                        return GAME_OVER, played, claimant
                    return TRICK_DONE, played, claimant
        if played == budget:
            return TIME_UP, played, -1


@njit(cache=True, _nrt=False)
def play_trick(state, n, rules, budget, log):
    """Play from the lead until a pile is taken, the game ends, or ``budget`` cards are played.

    Returns ``(status, cards_played, seat)``: ``TRICK_DONE`` with the collector, who now
    leads; ``GAME_OVER`` with the winner (the last pile taken by it); or ``TIME_UP`` after
    exactly ``budget`` cards, the pile left out of every hand. ``log``: None, or a
    :class:`simulate.core.logs.compiled.Log` that receives the trick card by card.
    """
    if log is not None:
        return _logged_trick(state, n, rules, budget, log)
    alive = 0
    m = 0
    for i in range(n):
        if state[ST_LEN + i] > 0:
            alive |= 1 << i
            m += 1
    seat = state[ST_LEADER]
    if m == 2 and budget > DECK_SIZE:
        return _trick_of_two(state, seat, _next_in(alive, seat, n), rules)
    owed = 0  # cards the called seat must pay; 0 while no court card is down
    claimant = -1  # the seat that played the last court card
    played = 0  # every card played is on the pile: this is also the pile's length
    pile_mask = 0
    pile_ranks = 0
    pile_courts = 0
    while True:
        if state[ST_LEN + seat] == 0:
            # Called on with no cards: out. The call passes to the next seat still in, with
            # the same debt; if that leaves one seat, it takes the pile and wins.
            alive &= ~(1 << seat)
            m -= 1
            seat = _next_in(alive, seat, n)
            if m == 1:
                _take_pile(state, seat, played, pile_mask, pile_ranks, pile_courts)
                return GAME_OVER, played, seat
            continue
        left = budget - played
        if owed == 0:
            # Free play: seat k of the rotation plays its t-th card at time t*m + k. The
            # first event is a court card turned, or a seat called on with no cards.
            event = NO_LIMIT
            event_seat = -1
            event_round = 0
            event_k = 0
            r = seat
            for k in range(m):
                t = min(trailing_zeros(state[ST_MASK + r]), state[ST_LEN + r])
                if t * m + k < event:
                    event = t * m + k
                    event_seat = r
                    event_round = t
                    event_k = k
                r = _next_in(alive, r, n)
            if event >= left:
                _play_in_rotation(state, seat, alive, m, n, left // m, left % m)
                return TIME_UP, budget, -1
            _play_in_rotation(state, seat, alive, m, n, event_round, event_k)
            played += event
            seat = event_seat
            if state[ST_LEN + seat] == 0:
                continue
        else:
            plain = trailing_zeros(state[ST_MASK + seat])
            paid = min(owed, state[ST_LEN + seat])
            if plain >= paid:
                # Plain cards only: the debt is paid (the claimant takes the pile and
                # leads), or the seat runs out and the rest of the debt passes on.
                if left < paid or (left == paid and paid < owed):
                    _play_plain(state, seat, left)
                    return TIME_UP, budget, -1
                _play_plain(state, seat, paid)
                played += paid
                owed -= paid
                if owed > 0:
                    continue
                _take_pile(state, claimant, played, pile_mask, pile_ranks, pile_courts)
                state[ST_LEADER] = claimant
                if _holders(state, n) == 1:
                    return GAME_OVER, played, claimant
                return TRICK_DONE, played, claimant
            # Plain cards, then a court card: the next seat pays for that one.
            if left <= plain:
                _play_plain(state, seat, left)
                return TIME_UP, budget, -1
            _play_plain(state, seat, plain)
            played += plain
        # ``seat`` turns the court card on top of its hand.
        kind = _pop_court(state, seat)
        pile_mask |= 1 << played
        pile_ranks |= (kind - 1) << (2 * pile_courts)
        pile_courts += 1
        played += 1
        claimant = seat
        owed = rules[R_PENALTY + kind]
        seat = _next_in(alive, seat, n)
        if played == budget:
            return TIME_UP, played, -1


@njit(cache=True, inline="always", _nrt=False)
def _reset_marks(marks, n):
    marks[MK_LEADER] = -1
    marks[MK_LEADERS] = 0
    for seat in range(MAX_PLAYERS):  # every seat: see _mark
        marks[MK_BEHIND + seat] = 0


_most_4 = most_mark[MAX_PLAYERS]


@njit(cache=True, inline="always", _nrt=False)
def _mark(state, n, marks):
    """A tension mark on ``state`` (after a trick, or at the end): the one seat holding
    strictly the most cards leads (none: the lead stays); each seat's deficit is noted."""
    # Every seat's hand at once, as one vector (see simulate.core.compiled.lanes): a seat not
    # dealt in holds no cards (as one that is out), so it never holds the most, and its
    # deficit is not read.
    tied = _most_4(state, ST_LEN, marks, MK_BEHIND)
    leader = marks[MK_LEADER]
    new_leader = trailing_zeros(tied) if (tied & (tied - 1)) == 0 else leader
    marks[MK_LEADERS] += new_leader != leader
    marks[MK_LEADER] = new_leader


@njit(cache=True, inline="always", _nrt=False)
def _tension(marks, winner):
    """``(lead_changes, winner_behind)`` from the marks."""
    behind = marks[MK_BEHIND + winner] if winner >= 0 else -1
    return max(marks[MK_LEADERS] - 1, 0), behind


@njit(cache=True, inline="always", _nrt=False)
def same_state(a, b, n):
    """Whether two game states are equal: leader and every hand (plain cards alike)."""
    if a[ST_LEADER] != b[ST_LEADER]:
        return False
    for seat in range(n):
        if (
            a[ST_LEN + seat] != b[ST_LEN + seat]
            or a[ST_MASK + seat] != b[ST_MASK + seat]
            or a[ST_RANKS + seat] != b[ST_RANKS + seat]
        ):
            return False
    return True


@njit(cache=True, _nrt=False)
def _first_repeat(scratch, n, rules, cycle_tricks):
    """Replay the deal to find where a loop of ``cycle_tricks`` tricks starts.

    Returns ``(tricks, cards, cycle_cards)`` at the first trick whose state equals an earlier
    one; ``scratch[ROW_SPARE]`` is then that state, and ``scratch[ROW_MARKS]`` the tension
    marks of the tricks up to it.
    """
    early = scratch[ROW_TORTOISE]
    late = scratch[ROW_SPARE]
    marks = scratch[ROW_MARKS]
    _reset_marks(marks, n)
    copy_state(early, scratch[ROW_DEAL])
    copy_state(late, scratch[ROW_DEAL])
    late_cards = 0
    for _ in range(cycle_tricks):
        late_cards += play_trick(late, n, rules, NO_LIMIT, None)[1]
        _mark(late, n, marks)
    start = 0
    early_cards = 0
    while not same_state(early, late, n):
        early_cards += play_trick(early, n, rules, NO_LIMIT, None)[1]
        late_cards += play_trick(late, n, rules, NO_LIMIT, None)[1]
        _mark(late, n, marks)
        start += 1
    return start + cycle_tricks, late_cards, late_cards - early_cards


@njit(cache=True, inline="always", _nrt=False)
def _hold(state, n, held):
    for seat in range(n):
        held[seat] = state[ST_LEN + seat]


@njit(cache=True, _nrt=False)
def _time_up(state, n, held):
    """Record the hands when time is up; the winner is the one seat holding the most."""
    _hold(state, n, held)
    most = -1
    winner = -1
    for seat in range(n):
        if state[ST_LEN + seat] > most:
            most = state[ST_LEN + seat]
            winner = seat
        elif state[ST_LEN + seat] == most:
            winner = -1
    return winner


@njit(cache=True, _nrt=False)
def _continue_brent(scratch, n, rules, power, lam, tricks, horizon):
    """Play on from ``scratch[ROW_GAME]`` (after ``tricks`` tricks) looking for a loop.

    Brent's method with its tortoise in ``scratch[ROW_TORTOISE]``; stops at a loop, at the
    game's end, or after ``horizon`` tricks in all. Returns the loop's length in tricks, 0
    when none was found.
    """
    game = scratch[ROW_GAME]
    tortoise = scratch[ROW_TORTOISE]
    while tricks < horizon:
        status = play_trick(game, n, rules, NO_LIMIT, None)[0]
        tricks += 1
        if status == GAME_OVER:
            return 0
        lam += 1
        if same_state(game, tortoise, n):
            return lam
        if lam == power:
            copy_state(tortoise, game)
            power *= 2
            lam = 0
    return 0


@njit(cache=True, _nrt=False)
def _play_out_two(scratch, game, brent, n, rules, held, cards, tricks, power, lam):
    """Finish a game in which two seats hold cards and there is no time limit.

    The fast path of :func:`play_game`: both hands and Brent's tortoise stay in local
    values from trick to trick, ``x`` always being the seat that leads. The game's state is
    read from ``game`` (not written: it may be the deal itself) and Brent's tortoise from
    ``brent``; ``cards``, ``tricks``, ``power`` and ``lam`` carry on from the caller,
    and the tension marks from ``scratch[ROW_MARKS]`` (then kept in local values).
    Returns the record tuple.
    """
    sx = game[ST_LEADER]
    sy = sx
    for seat in range(n):
        if seat != sx and game[ST_LEN + seat] > 0:
            sy = seat
    lx, mx, rx, _ = _load(game, sx)
    ly, my, ry, _ = _load(game, sy)
    # Brent's tortoise, in leader-first form in the spare row: leader, then the leader's and
    # the other seat's (len, mask, ranks). One led by a seat now out, or with a third seat
    # holding cards, can never equal a state of this loop.
    tortoise = scratch[ROW_SPARE]
    lead = brent[ST_LEADER]
    if lead == sx or lead == sy:
        other = sy if lead == sx else sx
        for k in range(3):
            tortoise[1 + k] = brent[ST_LEN + k * MAX_PLAYERS + lead]
            tortoise[4 + k] = brent[ST_LEN + k * MAX_PLAYERS + other]
    else:
        lead = -1
    tortoise[0] = lead
    marks = scratch[ROW_MARKS]
    owed_by_kind = _pack_penalties(rules)
    while True:
        played, swapped, lx, mx, rx, ly, my, ry = _two_seat_trick(
            lx, mx, rx, ly, my, ry, owed_by_kind
        )
        if swapped:
            sx, sy = sy, sx
        cards += played
        tricks += 1
        # The mark. x, who took the pile, gained cards since the last mark and y lost some,
        # so only x can take the lead and only y can trail by more than before. A third of
        # the tricks change the marks, unpredictably: no branches, and the marks stay in
        # memory, off the registers and the dependency chain of the play.
        ahead = lx - ly
        leader = marks[MK_LEADER]
        new_leader = sx if ahead > 0 else leader
        marks[MK_LEADERS] += new_leader != leader
        marks[MK_LEADER] = new_leader
        at = np.uint64(MK_BEHIND + sy)  # unsigned: no check for a negative index
        marks[at] = max(marks[at], ahead)
        if ly == 0:
            for seat in range(n):
                held[seat] = 0
            held[sx] = lx
            changes, behind = _tension(marks, sx)
            return END_OUT, sx, cards, tricks, 0, 0, changes, behind
        lam += 1
        if (
            mx == tortoise[2]
            and sx == tortoise[0]
            and lx == tortoise[1]
            and rx == tortoise[3]
            and ly == tortoise[4]
            and my == tortoise[5]
            and ry == tortoise[6]
        ):
            repeat_tricks, repeat_cards, cycle_cards = _first_repeat(scratch, n, rules, lam)
            _hold(scratch[ROW_SPARE], n, held)
            changes, behind = _tension(marks, -1)
            return END_CYCLE, -1, repeat_cards, repeat_tricks, cycle_cards, lam, changes, behind
        if lam == power:
            tortoise[0], tortoise[1], tortoise[2], tortoise[3] = sx, lx, mx, rx
            tortoise[4], tortoise[5], tortoise[6] = ly, my, ry
            power *= 2
            lam = 0


@njit(cache=True, _nrt=False)
def play_game(scratch, n, rules, held, log):
    """Play the deal in ``scratch[ROW_DEAL]`` to its end.

    ``scratch`` is int64[SCRATCH_ROWS, STATE_SIZE]; ``held`` (int8[n]) receives each seat's
    cards at the end. Returns ``(end, winner, cards, tricks, cycle_cards, cycle_tricks,
    lead_changes, winner_behind)``. ``log``: None, or a :class:`simulate.core.logs.compiled.Log`
    receiving every trick up to the end (the two-seat fast path is then not taken; a cycle's
    log runs past its recorded end: see :func:`_log_end`).
    """
    game = scratch[ROW_GAME]
    tortoise = scratch[ROW_TORTOISE]
    boundary = scratch[ROW_SPARE]
    marks = scratch[ROW_MARKS]
    _reset_marks(marks, n)
    limit = rules[R_TIME_LIMIT]
    if log is None and limit == 0 and _holders(scratch[ROW_DEAL], n) == 2:
        # The common case, two players: straight to the fast path, with nothing copied.
        deal = scratch[ROW_DEAL]
        return _play_out_two(scratch, deal, deal, n, rules, held, 0, 0, 1, 0)
    copy_state(game, scratch[ROW_DEAL])
    copy_state(tortoise, game)
    power = 1
    lam = 0
    cards = 0
    tricks = 0
    while True:
        if log is None and limit == 0 and _holders(game, n) == 2:
            return _play_out_two(scratch, game, tortoise, n, rules, held, cards, tricks, power, lam)
        budget = NO_LIMIT
        if limit > 0:
            budget = limit - cards
            if budget <= DECK_SIZE:  # the limit may fall inside this trick
                copy_state(boundary, game)
        if log is not None:
            log.at[logs.AT_TURN] = tricks + 1
        status, played, seat = play_trick(game, n, rules, budget, log)
        cards += played
        time_up = status == TIME_UP
        _mark(game, n, marks)  # after the trick, or at the time limit within it
        if time_up:
            winner = _time_up(game, n, held)
            copy_state(game, boundary)
        else:
            tricks += 1
            if status == GAME_OVER:
                _hold(game, n, held)
                changes, behind = _tension(marks, seat)
                return END_OUT, seat, cards, tricks, 0, 0, changes, behind
            lam += 1
            if same_state(game, tortoise, n):
                repeat_tricks, repeat_cards, cycle_cards = _first_repeat(scratch, n, rules, lam)
                _hold(scratch[ROW_SPARE], n, held)
                changes, behind = _tension(marks, -1)
                return END_CYCLE, -1, repeat_cards, repeat_tricks, cycle_cards, lam, changes, behind
            if lam == power:
                copy_state(tortoise, game)
                power *= 2
                lam = 0
            if limit > 0 and cards >= limit:
                time_up = True
                winner = _time_up(game, n, held)
        if time_up:
            # The marks end here (a replay finding a loop redoes them up to its start).
            changes, behind = _tension(marks, winner)
            # The state may have repeated before the limit without Brent's method noticing
            # yet: it notices within 3x the tricks of the first repeat, so play on that far.
            lam = _continue_brent(scratch, n, rules, power, lam, tricks, 3 * tricks + 2)
            if lam > 0:
                repeat_tricks, repeat_cards, cycle_cards = _first_repeat(scratch, n, rules, lam)
                if repeat_tricks <= tricks:
                    _hold(scratch[ROW_SPARE], n, held)
                    cycle_changes, cycle_behind = _tension(marks, -1)
                    return (
                        END_CYCLE,
                        -1,
                        repeat_cards,
                        repeat_tricks,
                        cycle_cards,
                        lam,
                        cycle_changes,
                        cycle_behind,
                    )
            return END_TIME_LIMIT, winner, cards, tricks, 0, 0, changes, behind


@njit(cache=True, _nrt=False)
def deal_and_play(key0, key1, game, n, rules, stream, deck, scratch, held, row):
    """Deal game ``game`` of the run and play it; ``held[row]`` receives the hands. The
    CPU's parallel kernel and the GPU's (:mod:`.cuda_kernel`) each call it for every deal.

    (Taking array views here, in a function without reference counting, keeps atomic
    increments out of the per-deal loop of the parallel kernel.)
    """
    stream_init(stream, key0, key1, game, 0)
    deal_random(stream, deck, scratch[ROW_DEAL], n)
    return play_game(scratch, n, rules, held[row], None)


@njit(cache=True, parallel=True, nogil=True)
def play_random_deals(table, run, out, workers, taken):
    """Deal and play games ``run.first .. run.first + G - 1`` of a run into ``out``.

    ``table``: a :class:`Table`; ``run``: a :class:`Run`; ``out``: an :class:`Outputs` of
    G rows, row ``i`` receiving game ``run.first + i``. ``workers``, ``taken``: the thread
    count and a zeroed int64[1] counter; each worker takes the next block of ``BLOCK``
    deals from the counter (:mod:`simulate.core.compiled.work_sharing`).
    """
    # Every field in a local before the parallel loop: numba drops writes to an array
    # reached through a tuple's attribute inside ``prange`` (numba issue #7135).
    key0, key1, first_game = run.key0, run.key1, run.first
    n, rules = table.players, table.rules
    cards, tricks, winner, end = out.cards, out.tricks, out.winner, out.end
    cycle_cards, cycle_tricks, held = out.cycle_cards, out.cycle_tricks, out.held
    lead_changes, winner_behind = out.lead_changes, out.winner_behind
    count = cards.shape[0]
    blocks = (count + BLOCK - 1) // BLOCK
    for _ in prange(workers):
        scratch = np.empty((SCRATCH_ROWS, STATE_SIZE), np.int64)
        deck = np.empty(DECK_SIZE, np.int8)
        stream = np.empty(RNG_STATE_SIZE, np.int64)
        block = fetch_add(taken, 0, 1)
        while block < blocks:
            for i in range(block * BLOCK, min(count, (block + 1) * BLOCK)):
                result = deal_and_play(
                    key0, key1, first_game + i, n, rules, stream, deck, scratch, held, i
                )
                end[i], winner[i], cards[i], tricks[i], cycle_cards[i], cycle_tricks[i] = result[:6]
                lead_changes[i], winner_behind[i] = result[6], result[7]
            block = fetch_add(taken, 0, 1)


@njit(cache=True)
def play_given_deals(table, hands, lengths, out):
    """Play given deals into ``out`` (an :class:`Outputs` of G rows), with ``table``'s
    players and rules: ``hands[g, seat, :lengths[g, seat]]`` are the kinds of deal ``g``,
    top card first (``hands`` int8[G, MAX_PLAYERS, 52], ``lengths`` int64[G, MAX_PLAYERS]).
    """
    n, rules = table.players, table.rules
    scratch = np.empty((SCRATCH_ROWS, STATE_SIZE), np.int64)
    for i in range(out.cards.shape[0]):
        set_hands(scratch[ROW_DEAL], hands[i], lengths[i], n)
        _store_result(out, i, play_game(scratch, n, rules, out.held[i], None))


@njit(cache=True, _nrt=False)
def _log_end(log, result):
    """Close a logged game's log: a cycle's rows stop at its recorded tricks; then the end."""
    end, winner, tricks = result[0], result[1], result[3]
    if logs.overflowed(log):
        return
    if end == END_CYCLE:
        logs.cut_after_turn(log, tricks)
    log.at[logs.AT_TURN] = logs.last_turn(log)
    logs.put(log, winner, EV_END, NONE, NONE, NONE, NONE, NONE, NONE, end)


@njit(cache=True)
def log_random_deals(table, run, out, rows, starts, begin):
    """:func:`play_random_deals` for logged games, one after another, from row ``begin``.

    Game ``i``'s events go to ``rows[starts[i]:starts[i + 1]]`` (this sets
    ``starts[i + 1]``). Returns the row of the first game whose events did not fit in
    ``rows`` (its record is not final: grow ``rows`` and call again from it), or G when
    every game is done.
    """
    key0, key1, first_game = run.key0, run.key1, run.first
    n, rules = table.players, table.rules
    count = out.cards.shape[0]
    scratch = np.empty((SCRATCH_ROWS, STATE_SIZE), np.int64)
    deck = np.empty(DECK_SIZE, np.int8)
    stream = np.empty(RNG_STATE_SIZE, np.int64)
    at = np.zeros(2, np.int64)
    for i in range(begin, count):
        log = logs.Log(rows[starts[i] :], at)
        at[0] = 0
        at[1] = 0
        stream_init(stream, key0, key1, first_game + i, 0)
        deal_random(stream, deck, scratch[ROW_DEAL], n)
        result = play_game(scratch, n, rules, out.held[i], log)
        _log_end(log, result)
        if logs.overflowed(log):
            return i
        _store_result(out, i, result)
        starts[i + 1] = starts[i] + at[0]
    return count


@njit(cache=True)
def log_given_deal(table, hands, lengths, out, rows):
    """:func:`play_given_deals` of one deal (row 0) with its log in ``rows``; returns the
    rows written, which exceed ``len(rows)`` when it was too small (call again)."""
    n, rules = table.players, table.rules
    scratch = np.empty((SCRATCH_ROWS, STATE_SIZE), np.int64)
    at = np.zeros(2, np.int64)
    log = logs.Log(rows, at)
    set_hands(scratch[ROW_DEAL], hands[0], lengths[0], n)
    result = play_game(scratch, n, rules, out.held[0], log)
    _log_end(log, result)
    _store_result(out, 0, result)
    return at[0]


@njit(cache=True)
def _store_result(out, i, result):
    """Row ``i`` of ``out`` (an :class:`Outputs`) from :func:`play_game`'s record tuple."""
    (
        out.end[i],
        out.winner[i],
        out.cards[i],
        out.tricks[i],
        out.cycle_cards[i],
        out.cycle_tricks[i],
        out.lead_changes[i],
        out.winner_behind[i],
    ) = result
