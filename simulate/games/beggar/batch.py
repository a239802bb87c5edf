"""Beggar-My-Neighbour in bulk: the compiled kernel behind numpy-in, columns-out calls."""

from __future__ import annotations

import numpy as np

from ...core.compiled.work_sharing import sharing
from ...core.logs import compiled as log_buffers
from ...core.logs.events import INITIAL_ROWS
from ...core.rng import seed_key
from .deal import DECK_SIZE
from .kernel import (
    BLOCK,
    Outputs,
    Run,
    Table,
    log_given_deal,
    log_random_deals,
    play_given_deals,
    play_random_deals,
)
from .rules import MAX_PLAYERS, BeggarRules


def _empty_outputs(count: int, players: int) -> Outputs:
    return Outputs(
        cards=np.zeros(count, np.int32),
        tricks=np.zeros(count, np.int32),
        winner=np.zeros(count, np.int8),
        end=np.zeros(count, np.int8),
        cycle_cards=np.zeros(count, np.int32),
        cycle_tricks=np.zeros(count, np.int32),
        held=np.zeros((count, players), np.int8),
        lead_changes=np.zeros(count, np.int32),
        winner_behind=np.zeros(count, np.int32),
    )


def play_random(
    seed: int, first_game: int, count: int, players: int, rules: BeggarRules, *, log: int = 0
):
    """Deal and play games ``first_game .. first_game+count-1`` of the run with this seed.

    Returns raw columns: ``cards``, ``tricks``, ``cycle_cards``, ``cycle_tricks`` int32[count],
    ``lead_changes``, ``winner_behind`` int32[count], ``winner``, ``end`` (codes into
    ``END_NAMES``) int8[count], ``held`` int8[count, players]. With ``log`` > 0 the first
    ``log`` of them are played by the logging kernel, and ``events`` (int32[E, W], their
    events in game order) and ``event_games`` (int64[E], each row's game) are added.
    """
    key0, key1 = seed_key(seed)
    out = _empty_outputs(count, players)
    table = Table(players, rules.to_vector())
    logged = min(max(log, 0), count)
    if logged:
        head = Outputs(*(column[:logged] for column in out))
        rows, starts = _log_games(table, Run(key0, key1, first_game), head)
    if logged < count:
        rest = Outputs(*(column[logged:] for column in out))
        run = Run(key0, key1, first_game + logged)
        play_random_deals(table, run, rest, *sharing(block=BLOCK, games=count - logged))
    columns = out._asdict()
    if logged:
        columns["events"] = rows[: starts[-1]]
        columns["event_games"] = np.repeat(
            np.arange(first_game, first_game + logged, dtype=np.int64), np.diff(starts)
        )
    return columns


def _log_games(table: Table, run: Run, out: Outputs) -> tuple[np.ndarray, np.ndarray]:
    """Play ``out``'s games with their logs: ``(rows, starts)``, game ``i``'s events being
    ``rows[starts[i]:starts[i + 1]]``. A game that outgrows the buffer is played again
    with a larger one."""
    count = out.cards.shape[0]
    rows = log_buffers.buffer(INITIAL_ROWS * count)
    starts = np.zeros(count + 1, np.int64)
    begin = 0
    while True:
        begin = log_random_deals(table, run, out, rows, starts, begin)
        if begin == count:
            return rows, starts
        grown = log_buffers.buffer(2 * len(rows) + INITIAL_ROWS)
        grown[: starts[begin]] = rows[: starts[begin]]
        rows = grown


def packed_hands(deals: list[list[list[int]]]) -> tuple[int, np.ndarray, np.ndarray]:
    """``(players, hands, lengths)`` of given deals (each a list of hands of kinds, top card
    first, all with the same number of seats) as the kernels take them: ``hands``
    int8[D, MAX_PLAYERS, DECK_SIZE], ``lengths`` int64[D, MAX_PLAYERS]."""
    hands = np.zeros((len(deals), MAX_PLAYERS, DECK_SIZE), np.int8)
    lengths = np.zeros((len(deals), MAX_PLAYERS), np.int64)
    for g, deal in enumerate(deals):
        for seat, hand in enumerate(deal):
            hands[g, seat, : len(hand)] = hand
            lengths[g, seat] = len(hand)
    return len(deals[0]), hands, lengths


def play_hands(deals: list[list[list[int]]], rules: BeggarRules):
    """Play given deals (each a list of hands of kinds, all with the same number of seats)."""
    players, hands, lengths = packed_hands(deals)
    out = _empty_outputs(len(deals), players)
    play_given_deals(Table(players, rules.to_vector()), hands, lengths, out)
    return out._asdict()


def log_hands(hands: list[list[int]], rules: BeggarRules):
    """:func:`play_hands` of one deal with its log: ``(columns, rows)``, ``rows``
    int32[E, W] its events."""
    players = len(hands)
    padded = np.zeros((1, MAX_PLAYERS, DECK_SIZE), np.int8)
    lengths = np.zeros((1, MAX_PLAYERS), np.int64)
    for seat, hand in enumerate(hands):
        padded[0, seat, : len(hand)] = hand
        lengths[0, seat] = len(hand)
    size = INITIAL_ROWS
    while True:
        out = _empty_outputs(1, players)
        rows = log_buffers.buffer(size)
        written = log_given_deal(Table(players, rules.to_vector()), padded, lengths, out, rows)
        if written <= size:
            return out._asdict(), rows[:written]
        size = int(written) + 1


def trace_random(
    seed: int,
    first_game: int,
    players: int,
    rules: BeggarRules,
    tricks: np.ndarray,
    winners: np.ndarray,
    *,
    rollouts: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Each seat's chance of winning through games ``first_game ..`` of the run with this
    seed (:mod:`.chance_kernel`): ``tricks`` and ``winners`` int[G], their records', give
    each game's T + 1 points. Returns ``(starts, wins)``: game ``first_game + i``'s points
    are rows ``starts[i] .. starts[i + 1] - 1`` (int64[G + 1]) of ``wins`` (int32[P,
    players]: rollouts won of ``rollouts``, point t after trick t)."""
    from .chance_kernel import trace_random_deals

    count = len(tricks)
    starts = np.zeros(count + 1, np.int64)
    np.cumsum(np.asarray(tricks, np.int64) + 1, out=starts[1:])
    # At least two rows of each (a one-row array is typed apart): the spare never written.
    size = max(count, 2)
    padded_tricks = np.zeros(size, np.int64)
    padded_tricks[:count] = tricks
    padded_winners = np.full(size, -1, np.int64)
    padded_winners[:count] = winners
    padded_starts = np.full(size + 1, starts[-1], np.int64)
    padded_starts[: count + 1] = starts
    wins = np.zeros((max(int(starts[-1]) + 1, 2), players), np.int32)
    trace_random_deals(
        Table(players, rules.to_vector()),
        Run(*seed_key(seed), first_game),
        rollouts,
        padded_tricks,
        padded_winners,
        padded_starts,
        wins,
        *sharing(games=size),
    )
    return starts, wins[: starts[-1]]
