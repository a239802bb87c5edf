"""Beggar-My-Neighbour on an NVIDIA GPU: the device twin of :mod:`.kernel`.

One thread plays one deal at a time and, when it ends, takes the next deal from a global
atomic counter (persistent threads: a warp is not held up by its longest deal for the whole
launch). A thread deals its game from the game's Philox stream
(:mod:`simulate.compiled.cuda_rng`) and plays it with the CPU kernel's algorithm, line for
line: hands as bitmasks (``len``, ``mask``, ``ranks``, ``ncourt``: see :mod:`.kernel`) in
small local arrays laid out as the CPU kernel's game state, the two-seat fast path with both
hands and Brent's tortoise in registers, Brent's cycle detection, the replay that finds a
loop's start, the time limit and the tension marks. So game ``g`` of a run has the same
record on the GPU as on the CPU; the tests check it under numba's CUDA simulator, and
``scripts/gpu_check.sh`` on a real GPU.

Integers are typed explicitly throughout (game state int64, random words uint64): numba
types ``uint64 op int64`` as a float, and the simulator, which runs this code as Python on
numpy scalars, would otherwise compute something else than the device.
"""

from __future__ import annotations

import numpy as np
from numba import types

from ...compiled.cuda_rng import STREAM_SIZE, batch_word, cuda, stream_init
from ...compiled.rng_jit import BATCH_LAST
from .deal import DECK_SIZE
from .kernel import (
    DEAL_KINDS,
    END_CYCLE,
    END_OUT,
    END_TIME_LIMIT,
    GAME_OVER,
    MK_BEHIND,
    MK_LEADER,
    MK_LEADERS,
    ST_LEADER,
    ST_LEN,
    ST_MASK,
    ST_NCOURT,
    ST_RANKS,
    STATE_SIZE,
    TIME_UP,
    TRICK_DONE,
)
from .rules import MAX_PLAYERS, R_PENALTY, R_TIME_LIMIT

NO_LIMIT = np.int64(2**62)
MARKS_SIZE = MK_BEHIND + MAX_PLAYERS
_U32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_DECK = np.int64(DECK_SIZE)
_LAST = BATCH_LAST.astype(np.int64)
_KINDS = DEAL_KINDS.astype(np.int64)


@cuda.jit(device=True, inline=True)
def _tz(x):
    """Trailing zero bits of ``x`` (int64, not negative); 64 for 0. (``cuda.ffs`` would
    do on the device, but the simulator's only counts 32 bits.)"""
    if x == 0:
        return np.int64(64)
    return np.int64(cuda.popc((x & -x) - np.int64(1)))


@cuda.jit(device=True, inline=True)
def _popc(x):
    return np.int64(cuda.popc(x))


@cuda.jit(device=True, inline=True)
def _next_in(alive, seat, n):
    seat += 1
    if seat == n:
        seat = np.int64(0)
    while not (alive >> seat) & 1:
        seat += 1
        if seat == n:
            seat = np.int64(0)
    return seat


@cuda.jit(device=True, inline=True)
def _copy(target, source):
    for i in range(STATE_SIZE):
        target[i] = source[i]


@cuda.jit(device=True)
def deal_random(stream, deck, state, n):
    """Shuffle with the game's stream and deal into ``state`` (int64[STATE_SIZE]), as
    :func:`.kernel.deal_random`; ``deck`` is int64[52] scratch."""
    for c in range(DECK_SIZE):
        deck[c] = _KINDS[c]
    for k in range(STATE_SIZE):
        state[k] = np.int64(0)
    seat = np.int64((DECK_SIZE - 1) % n)
    position = np.int64((DECK_SIZE - 1) // n)
    i = np.int64(DECK_SIZE - 1)
    while i >= 0:
        last = np.int64(-1)
        left = np.uint64(0)
        if i > 0:
            last = _LAST[i]
            left = batch_word(stream, i)
        p = i
        while p > last:
            kind = deck[0]
            if p > 0:
                drawn = left * np.uint64(p + 1)
                j = np.int64(drawn >> _S32)
                left = drawn & _U32
                kind = deck[j]
                deck[j] = deck[p]
            if kind > 0:
                state[ST_MASK + seat] |= np.int64(1) << position
                state[ST_RANKS + seat] = (state[ST_RANKS + seat] << np.int64(2)) | (kind - 1)
            seat -= 1
            if seat < 0:
                seat = n - 1
                position -= 1
            p -= 1
        i = last
    for s in range(n):
        state[ST_LEN + s] = np.int64(DECK_SIZE // n + (1 if s < DECK_SIZE % n else 0))
        state[ST_NCOURT + s] = _popc(state[ST_MASK + s])


@cuda.jit(device=True, inline=True)
def _play_plain(state, seat, count):
    state[ST_MASK + seat] >>= count
    state[ST_LEN + seat] -= count


@cuda.jit(device=True, inline=True)
def _pop_court(state, seat):
    kind = (state[ST_RANKS + seat] & np.int64(3)) + np.int64(1)
    state[ST_RANKS + seat] >>= np.int64(2)
    state[ST_NCOURT + seat] -= 1
    state[ST_MASK + seat] >>= np.int64(1)
    state[ST_LEN + seat] -= 1
    return kind


@cuda.jit(device=True, inline=True)
def _take_pile(state, seat, pile_len, pile_mask, pile_ranks, pile_ncourt):
    length = state[ST_LEN + seat]
    state[ST_MASK + seat] |= pile_mask << length
    state[ST_RANKS + seat] |= pile_ranks << (np.int64(2) * state[ST_NCOURT + seat])
    state[ST_NCOURT + seat] += pile_ncourt
    state[ST_LEN + seat] = length + pile_len


@cuda.jit(device=True)
def _play_in_rotation(state, seat, alive, m, n, rounds, extra):
    for k in range(m):
        _play_plain(state, seat, rounds + (np.int64(1) if k < extra else np.int64(0)))
        seat = _next_in(alive, seat, n)


@cuda.jit(device=True, inline=True)
def _holders(state, n):
    count = np.int64(0)
    for seat in range(n):
        if state[ST_LEN + seat] > 0:
            count += 1
    return count


@cuda.jit(device=True)
def play_trick(state, n, rules, budget):
    """:func:`.kernel.play_trick` without a log: ``(status, cards played, seat)``."""
    alive = np.int64(0)
    m = np.int64(0)
    for i in range(n):
        if state[ST_LEN + i] > 0:
            alive |= np.int64(1) << np.int64(i)
            m += 1
    seat = state[ST_LEADER]
    owed = np.int64(0)
    claimant = np.int64(-1)
    played = np.int64(0)
    pile_mask = np.int64(0)
    pile_ranks = np.int64(0)
    pile_courts = np.int64(0)
    while True:
        if state[ST_LEN + seat] == 0:
            alive &= ~(np.int64(1) << seat)
            m -= 1
            seat = _next_in(alive, seat, n)
            if m == 1:
                _take_pile(state, seat, played, pile_mask, pile_ranks, pile_courts)
                return GAME_OVER, played, seat
            continue
        left = budget - played
        if owed == 0:
            event = NO_LIMIT
            event_seat = np.int64(-1)
            event_round = np.int64(0)
            event_k = np.int64(0)
            r = seat
            for k in range(m):
                t = min(_tz(state[ST_MASK + r]), state[ST_LEN + r])
                if t * m + k < event:
                    event = t * m + k
                    event_seat = r
                    event_round = t
                    event_k = np.int64(k)
                r = _next_in(alive, r, n)
            if event >= left:
                _play_in_rotation(state, seat, alive, m, n, left // m, left % m)
                return TIME_UP, budget, np.int64(-1)
            _play_in_rotation(state, seat, alive, m, n, event_round, event_k)
            played += event
            seat = event_seat
            if state[ST_LEN + seat] == 0:
                continue
        else:
            plain = _tz(state[ST_MASK + seat])
            paid = min(owed, state[ST_LEN + seat])
            if plain >= paid:
                if left < paid or (left == paid and paid < owed):
                    _play_plain(state, seat, left)
                    return TIME_UP, budget, np.int64(-1)
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
            if left <= plain:
                _play_plain(state, seat, left)
                return TIME_UP, budget, np.int64(-1)
            _play_plain(state, seat, plain)
            played += plain
        kind = _pop_court(state, seat)
        pile_mask |= np.int64(1) << played
        pile_ranks |= (kind - np.int64(1)) << (np.int64(2) * pile_courts)
        pile_courts += 1
        played += 1
        claimant = seat
        owed = rules[R_PENALTY + kind]
        seat = _next_in(alive, seat, n)
        if played == budget:
            return TIME_UP, played, np.int64(-1)


@cuda.jit(device=True, inline=True)
def _reset_marks(marks, n):
    marks[MK_LEADER] = np.int64(-1)
    marks[MK_LEADERS] = np.int64(0)
    for seat in range(n):
        marks[MK_BEHIND + seat] = np.int64(0)


@cuda.jit(device=True)
def _mark(state, n, marks):
    """:func:`.kernel._mark`: a tension mark on ``state``."""
    most = np.int64(-1)
    first = np.int64(0)
    ties = np.int64(0)
    for seat in range(n):
        held = state[ST_LEN + seat]
        if held > most:
            ties = np.int64(1)
            first = np.int64(seat)
            most = held
        elif held == most:
            ties += 1
    leader = marks[MK_LEADER]
    new_leader = first if ties == 1 else leader
    if new_leader != leader:
        marks[MK_LEADERS] += 1
    marks[MK_LEADER] = new_leader
    for seat in range(n):
        marks[MK_BEHIND + seat] = max(marks[MK_BEHIND + seat], most - state[ST_LEN + seat])


@cuda.jit(device=True, inline=True)
def _tension(marks, winner):
    behind = np.int64(-1)
    if winner >= 0:
        behind = marks[MK_BEHIND + winner]
    return max(marks[MK_LEADERS] - np.int64(1), np.int64(0)), behind


@cuda.jit(device=True)
def _same_state(a, b, n):
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


@cuda.jit(device=True)
def _first_repeat(deal, early, late, marks, n, rules, cycle_tricks):
    """:func:`.kernel._first_repeat`: ``(tricks, cards, cycle_cards)`` at the first repeated
    state, which is left in ``late``, with the marks up to it in ``marks``."""
    _reset_marks(marks, n)
    _copy(early, deal)
    _copy(late, deal)
    late_cards = np.int64(0)
    for _ in range(cycle_tricks):
        late_cards += play_trick(late, n, rules, NO_LIMIT)[1]
        _mark(late, n, marks)
    start = np.int64(0)
    early_cards = np.int64(0)
    while not _same_state(early, late, n):
        early_cards += play_trick(early, n, rules, NO_LIMIT)[1]
        late_cards += play_trick(late, n, rules, NO_LIMIT)[1]
        _mark(late, n, marks)
        start += 1
    return start + cycle_tricks, late_cards, late_cards - early_cards


@cuda.jit(device=True, inline=True)
def _hold(state, n, held, row):
    for seat in range(n):
        held[row, seat] = state[ST_LEN + seat]


@cuda.jit(device=True)
def _time_up(state, n, held, row):
    _hold(state, n, held, row)
    most = np.int64(-1)
    winner = np.int64(-1)
    for seat in range(n):
        if state[ST_LEN + seat] > most:
            most = state[ST_LEN + seat]
            winner = np.int64(seat)
        elif state[ST_LEN + seat] == most:
            winner = np.int64(-1)
    return winner


@cuda.jit(device=True)
def _continue_brent(game, tortoise, n, rules, power, lam, tricks, horizon):
    """:func:`.kernel._continue_brent`: the loop's length in tricks, 0 when none found."""
    while tricks < horizon:
        status = play_trick(game, n, rules, NO_LIMIT)[0]
        tricks += 1
        if status == GAME_OVER:
            return np.int64(0)
        lam += 1
        if _same_state(game, tortoise, n):
            return lam
        if lam == power:
            _copy(tortoise, game)
            power *= 2
            lam = np.int64(0)
    return np.int64(0)


@cuda.jit(device=True, inline=True)
def _pack_penalties(rules):
    packed = np.int64(0)
    for kind in range(1, 5):
        packed |= rules[R_PENALTY + kind] << np.int64(8 * kind)
    return packed


@cuda.jit(device=True)
def _play_out_two(deal, game, brent, tortoise, spare, marks, n, rules, held, row, counts):
    """:func:`.kernel._play_out_two`: finish a game in which two seats hold cards, with no
    time limit, both hands and Brent's tortoise in registers. The state is read from
    ``game`` (it may be ``deal``), the tortoise from ``brent``; ``counts`` (int64[4]) holds
    ``cards, tricks, power, lam`` to carry on from. Returns the record tuple."""
    cards = counts[0]
    tricks = counts[1]
    power = counts[2]
    lam = counts[3]
    sx = game[ST_LEADER]
    sy = sx
    for seat in range(n):
        if seat != sx and game[ST_LEN + seat] > 0:
            sy = np.int64(seat)
    lx = game[ST_LEN + sx]
    mx = game[ST_MASK + sx]
    rx = game[ST_RANKS + sx]
    ly = game[ST_LEN + sy]
    my = game[ST_MASK + sy]
    ry = game[ST_RANKS + sy]
    # Brent's tortoise, leader first; one led by a seat now out can never come back.
    lead = brent[ST_LEADER]
    t1 = t2 = t3 = t4 = t5 = t6 = np.int64(0)
    if lead == sx or lead == sy:
        other = sy if lead == sx else sx
        t1 = brent[ST_LEN + lead]
        t2 = brent[ST_MASK + lead]
        t3 = brent[ST_RANKS + lead]
        t4 = brent[ST_LEN + other]
        t5 = brent[ST_MASK + other]
        t6 = brent[ST_RANKS + other]
    else:
        lead = np.int64(-1)
    t0 = lead
    owed_by_kind = _pack_penalties(rules)
    while True:
        # One trick (:func:`.kernel._two_seat_trick`), x leading.
        tx = _tz(mx | (np.int64(1) << lx))
        ty = _tz(my | (np.int64(1) << ly))
        y_first = np.int64(1) if ty < tx else np.int64(0)
        t = min(tx, ty)
        played = np.int64(2) * t + y_first
        mx >>= t + y_first
        lx -= t + y_first
        my >>= t
        ly -= t
        swapped = y_first != 0
        if swapped:
            lx, ly = ly, lx
            mx, my = my, mx
            rx, ry = ry, rx
        pile_mask = np.int64(0)
        pile_ranks = np.int64(0)
        pile_shift = np.int64(0)
        if lx > 0:
            while True:
                rank_bits = rx & np.int64(3)
                rx >>= np.int64(2)
                mx >>= np.int64(1)
                lx -= 1
                pile_mask |= np.int64(1) << played
                pile_ranks |= rank_bits << pile_shift
                pile_shift += 2
                played += 1
                owed = (owed_by_kind >> (np.int64(8) * rank_bits + np.int64(8))) & np.int64(0xFF)
                lx, mx, rx, ly, my, ry = ly, my, ry, lx, mx, rx
                swapped = not swapped
                plain = _tz(mx)
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
        ry |= pile_ranks << (np.int64(2) * _popc(my))
        my |= pile_mask << ly
        ly += played
        # The collector (y) becomes x.
        lx, mx, rx, ly, my, ry = ly, my, ry, lx, mx, rx
        if not swapped:
            sx, sy = sy, sx
        cards += played
        tricks += 1
        ahead = lx - ly
        leader = marks[MK_LEADER]
        new_leader = sx if ahead > 0 else leader
        if new_leader != leader:
            marks[MK_LEADERS] += 1
        marks[MK_LEADER] = new_leader
        marks[MK_BEHIND + sy] = max(marks[MK_BEHIND + sy], ahead)
        if ly == 0:
            for seat in range(n):
                held[row, seat] = 0
            held[row, sx] = lx
            changes, behind = _tension(marks, sx)
            return END_OUT, sx, cards, tricks, np.int64(0), np.int64(0), changes, behind
        lam += 1
        if mx == t2 and sx == t0 and lx == t1 and rx == t3 and ly == t4 and my == t5 and ry == t6:
            repeat_tricks, repeat_cards, cycle_cards = _first_repeat(
                deal, tortoise, spare, marks, n, rules, lam
            )
            _hold(spare, n, held, row)
            changes, behind = _tension(marks, np.int64(-1))
            return (
                END_CYCLE,
                np.int64(-1),
                repeat_cards,
                repeat_tricks,
                cycle_cards,
                lam,
                changes,
                behind,
            )
        if lam == power:
            t0, t1, t2, t3, t4, t5, t6 = sx, lx, mx, rx, ly, my, ry
            power *= 2
            lam = np.int64(0)


@cuda.jit(device=True)
def play_game(deal, game, tortoise, spare, marks, counts, n, rules, held, row):
    """:func:`.kernel.play_game` of the deal in ``deal``, without a log: the record tuple
    ``(end, winner, cards, tricks, cycle_cards, cycle_tricks, lead_changes,
    winner_behind)``; ``held[row]`` receives each seat's cards at the end. ``game``,
    ``tortoise``, ``spare`` (int64[STATE_SIZE]), ``marks`` (int64[MARKS_SIZE]) and
    ``counts`` (int64[4]) are scratch."""
    _reset_marks(marks, n)
    limit = rules[R_TIME_LIMIT]
    if limit == 0 and _holders(deal, n) == 2:
        counts[0] = np.int64(0)
        counts[1] = np.int64(0)
        counts[2] = np.int64(1)
        counts[3] = np.int64(0)
        return _play_out_two(deal, deal, deal, tortoise, spare, marks, n, rules, held, row, counts)
    _copy(game, deal)
    _copy(tortoise, game)
    power = np.int64(1)
    lam = np.int64(0)
    cards = np.int64(0)
    tricks = np.int64(0)
    winner = np.int64(-1)
    while True:
        if limit == 0 and _holders(game, n) == 2:
            counts[0] = cards
            counts[1] = tricks
            counts[2] = power
            counts[3] = lam
            return _play_out_two(
                deal, game, tortoise, tortoise, spare, marks, n, rules, held, row, counts
            )
        budget = NO_LIMIT
        if limit > 0:
            budget = limit - cards
            if budget <= _DECK:
                _copy(spare, game)
        status, played, seat = play_trick(game, n, rules, budget)
        cards += played
        time_up = status == TIME_UP
        _mark(game, n, marks)
        if time_up:
            winner = _time_up(game, n, held, row)
            _copy(game, spare)
        else:
            tricks += 1
            if status == GAME_OVER:
                _hold(game, n, held, row)
                changes, behind = _tension(marks, seat)
                return END_OUT, seat, cards, tricks, np.int64(0), np.int64(0), changes, behind
            lam += 1
            if _same_state(game, tortoise, n):
                repeat_tricks, repeat_cards, cycle_cards = _first_repeat(
                    deal, tortoise, spare, marks, n, rules, lam
                )
                _hold(spare, n, held, row)
                changes, behind = _tension(marks, np.int64(-1))
                return (
                    END_CYCLE,
                    np.int64(-1),
                    repeat_cards,
                    repeat_tricks,
                    cycle_cards,
                    lam,
                    changes,
                    behind,
                )
            if lam == power:
                _copy(tortoise, game)
                power *= 2
                lam = np.int64(0)
            if limit > 0 and cards >= limit:
                time_up = True
                winner = _time_up(game, n, held, row)
        if time_up:
            changes, behind = _tension(marks, winner)
            lam = _continue_brent(game, tortoise, n, rules, power, lam, tricks, 3 * tricks + 2)
            if lam > 0:
                repeat_tricks, repeat_cards, cycle_cards = _first_repeat(
                    deal, tortoise, spare, marks, n, rules, lam
                )
                if repeat_tricks <= tricks:
                    _hold(spare, n, held, row)
                    cycle_changes, cycle_behind = _tension(marks, np.int64(-1))
                    return (
                        END_CYCLE,
                        np.int64(-1),
                        repeat_cards,
                        repeat_tricks,
                        cycle_cards,
                        lam,
                        cycle_changes,
                        cycle_behind,
                    )
            return (
                END_TIME_LIMIT,
                winner,
                cards,
                tricks,
                np.int64(0),
                np.int64(0),
                changes,
                behind,
            )


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
    ``key1`` (uint64) at ``n`` seats (int64) under ``rules`` (int64[RULE_VECTOR_SIZE]) into
    the record columns (G rows: ``cards``, ``tricks``, ``cycle_cards``, ``cycle_tricks``,
    ``lead_changes``, ``winner_behind`` int32; ``winner``, ``end`` int8; ``held``
    int8[G, n]). Each thread takes the next game from ``taken`` (a zeroed int64[1])
    until none is left."""
    count = np.int64(cards.shape[0])
    stream = cuda.local.array(STREAM_SIZE, types.uint64)
    deck = cuda.local.array(DECK_SIZE, types.int64)
    deal = cuda.local.array(STATE_SIZE, types.int64)
    game = cuda.local.array(STATE_SIZE, types.int64)
    tortoise = cuda.local.array(STATE_SIZE, types.int64)
    spare = cuda.local.array(STATE_SIZE, types.int64)
    marks = cuda.local.array(MARKS_SIZE, types.int64)
    counts = cuda.local.array(4, types.int64)
    i = np.int64(cuda.atomic.add(taken, 0, 1))
    while i < count:
        stream_init(stream, key0, key1, np.uint64(first + i))
        deal_random(stream, deck, deal, n)
        result = play_game(deal, game, tortoise, spare, marks, counts, n, rules, held, i)
        end[i] = result[0]
        winner[i] = result[1]
        cards[i] = result[2]
        tricks[i] = result[3]
        cycle_cards[i] = result[4]
        cycle_tricks[i] = result[5]
        lead_changes[i] = result[6]
        winner_behind[i] = result[7]
        i = np.int64(cuda.atomic.add(taken, 0, 1))


@cuda.jit(device=True)
def _set_hands(state, hands, lengths, g, n):
    """:func:`.kernel.set_hands` of deal ``g``: ``hands[g, seat, :lengths[g, seat]]``."""
    for k in range(STATE_SIZE):
        state[k] = np.int64(0)
    for seat in range(n):
        for pos in range(lengths[g, seat]):
            kind = np.int64(hands[g, seat, pos])
            if kind > 0:
                state[ST_MASK + seat] |= np.int64(1) << np.int64(pos)
                state[ST_RANKS + seat] |= (kind - np.int64(1)) << (
                    np.int64(2) * state[ST_NCOURT + seat]
                )
                state[ST_NCOURT + seat] += 1
        state[ST_LEN + seat] = lengths[g, seat]


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
    count = np.int64(cards.shape[0])
    deal = cuda.local.array(STATE_SIZE, types.int64)
    game = cuda.local.array(STATE_SIZE, types.int64)
    tortoise = cuda.local.array(STATE_SIZE, types.int64)
    spare = cuda.local.array(STATE_SIZE, types.int64)
    marks = cuda.local.array(MARKS_SIZE, types.int64)
    counts = cuda.local.array(4, types.int64)
    i = np.int64(cuda.atomic.add(taken, 0, 1))
    while i < count:
        _set_hands(deal, hands, lengths, i, n)
        result = play_game(deal, game, tortoise, spare, marks, counts, n, rules, held, i)
        end[i] = result[0]
        winner[i] = result[1]
        cards[i] = result[2]
        tricks[i] = result[3]
        cycle_cards[i] = result[4]
        cycle_tricks[i] = result[5]
        lead_changes[i] = result[6]
        winner_behind[i] = result[7]
        i = np.int64(cuda.atomic.add(taken, 0, 1))
