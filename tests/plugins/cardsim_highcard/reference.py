"""High card, the readable reference: one deal, trick by trick."""

from __future__ import annotations

from simulate.core.rng import Stream


def strength(code: int, aces_high: bool) -> int:
    rank = code % 13  # 0 ace ... 12 king
    return 13 if rank == 0 and aces_high else rank


def play(seed: int, game: int, players: int, aces_high: bool = True) -> dict:
    """The record of game ``game`` under ``seed``."""
    deck = list(range(52))
    Stream(seed, game).shuffle(deck)
    per_seat = 52 // players
    hands = [deck[seat : per_seat * players : players] for seat in range(players)]
    won, ties = [0] * players, 0
    for trick in range(per_seat):
        cards = [strength(hand[trick], aces_high) for hand in hands]
        best = max(cards)
        if cards.count(best) > 1:
            ties += 1
        else:
            won[cards.index(best)] += 1
    most = max(won)
    winner = won.index(most) if won.count(most) == 1 else -1
    return {
        "winner": winner,
        "end": "out" if winner >= 0 else "draw",
        "tricks": per_seat,
        "ties": ties,
        "won": won,
    }
