"""Card codes as the readable reference reads them: identities, suits, ranks, names.

A card is a code ``0 .. 52*decks-1``; its identity ``code % 52`` is the same for every
deck's copy: suit ``identity // 13`` (clubs, diamonds, hearts, spades), rank
``identity % 13`` (ace .. king). ``DRAW`` and ``PASS`` are the choices that are not a card.
"""

from __future__ import annotations

from ...core.cards import DECK_SIZE, RANKS, SUITS
from ...core.errors import CardsimError

DRAW, PASS = "draw", "pass"
KEEP = "keep"
"""A search's option after a drawn card: keep it (see :mod:`.reference_search`)."""


def identity(code: int) -> int:
    """The card's identity 0..51, the same for every deck's copy."""
    return code % DECK_SIZE


def suit_of(code: int) -> int:
    return identity(code) // 13


def rank_of(code: int) -> int:
    return identity(code) % 13


def name(code: int) -> str:
    """``"10H"``, ``"AS"``: a card's short name (the deck copy is not shown)."""
    return RANKS[rank_of(code)] + SUITS[suit_of(code)]


def names(codes) -> str:
    return " ".join(name(code) for code in sorted(codes, key=lambda c: (identity(c), c))) or "-"


def cards(text: str) -> list[int]:
    """Codes of named cards, ``"7C 10H JS"``; a repeated name takes the next deck's copy."""
    codes: list[int] = []
    for word in text.split():
        word = word.upper().replace("T", "10")
        rank, suit = word[:-1], word[-1]
        if rank not in RANKS or suit not in SUITS:
            raise CardsimError(f"unknown card '{word}'; write rank then suit, as in 10H or AS")
        code = SUITS.index(suit) * 13 + RANKS.index(rank)
        while code in codes:
            code += DECK_SIZE
        codes.append(code)
    return codes
