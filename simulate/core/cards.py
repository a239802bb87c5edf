"""Card codes and names shared by every game.

A card is an integer ``code`` in ``0..52*decks-1``; within one 52-card deck
``suit = code % 52 // 13`` (0 clubs, 1 diamonds, 2 hearts, 3 spades) and
``rank = code % 13`` (0 ace, 1 two, ..., 9 ten, 10 jack, 11 queen, 12 king).
"""

from __future__ import annotations

SUITS = "CDHS"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
DECK_SIZE = 52
ACE, JACK, QUEEN, KING = 0, 10, 11, 12


def rank_of(code: int) -> int:
    """Rank index 0..12 (ace..king) of a card code."""
    return code % 13


def suit_of(code: int) -> int:
    """Suit index 0..3 (clubs, diamonds, hearts, spades) of a card code."""
    return code % DECK_SIZE // 13
