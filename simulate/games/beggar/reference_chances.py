"""Each seat's chance of winning through a Beggar-My-Neighbour deal (``--trace``), readably.

The twin of :mod:`.chance_kernel`, which says what a point is: before each trick every
seat's packet is shuffled (its cards kept), and the deal is played on from there, the lead
kept, the time limit less the cards played so far; the last point is the deal's outcome.
"""

from __future__ import annotations

from dataclasses import replace

from ...core.rng import Stream
from ...core.search_streams import TRACE_STREAM, search_game
from . import reference
from .deal import deal_hands
from .rules import BeggarRules


def trace(
    rules: BeggarRules, players: int, seed: int, game: int, *, rollouts: int
) -> list[list[int]]:
    """The points of game ``game`` of run ``seed``: for t = 0 .. T (its tricks), the
    rollouts each seat won of ``rollouts`` from the state after trick t."""
    hands = deal_hands(seed, game, players)
    record = reference.play(hands, rules)
    table = reference._Game(hands, replace(rules, time_limit=None))  # noqa: SLF001
    leader, points = 0, []
    for trick in range(record.tricks):
        number = search_game(game, 0, trick)
        points.append(chances(table, leader, rules, seed, number, rollouts))
        table.play_trick(leader)
        leader = getattr(table, "collector", leader)
    points.append([rollouts if seat == record.winner else 0 for seat in range(players)])
    return points


def chances(
    table, leader: int, rules: BeggarRules, seed: int, number: int, rollouts: int
) -> list[int]:
    """The rollouts each seat wins of ``rollouts`` from ``table`` (a game between tricks,
    ``leader`` to lead): rollout r shuffles the packets, seat by seat, from the stream
    ``(seed, number, TRACE_STREAM + r)`` and plays the deal on."""
    n = table.n
    left = rules
    if rules.time_limit is not None:
        left = replace(rules, time_limit=rules.time_limit - table.cards)
    wins = [0] * n
    for r in range(rollouts):
        stream = Stream(seed, number, TRACE_STREAM + r)
        packets = [list(hand) for hand in table.hands]
        for packet in packets:
            stream.shuffle(packet)
        # The reference's deal starts with seat 0 to lead: seats renumbered from the leader.
        winner = reference.play(packets[leader:] + packets[:leader], left).winner
        if winner >= 0:
            wins[(winner + leader) % n] += 1
    return wins
