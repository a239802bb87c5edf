"""Beggar-My-Neighbour deals: dealing from a seed, and the deal-string notation.

Only court cards matter in this game, so a hand is a list of *kinds*, top card first:
0 for a plain card (2-10), 1 jack, 2 queen, 3 king, 4 ace. A deal string (RULES.md) gives
one hand per seat, separated by ``/``: ``-`` (or a rank ``2``-``9``, ``T``) for a plain card
and ``J``, ``Q``, ``K``, ``A`` for court cards, e.g. ``J24/3JA``.

Pure Python, no numba: the report uses it to print the deals of a finished run.
"""

from __future__ import annotations

from ...core.cards import ACE, DECK_SIZE, JACK, KING, QUEEN, rank_of
from ...core.errors import CardsimError
from ...core.rng import Stream
from .rules import COURTS, MAX_PLAYERS, MIN_PLAYERS

PLAIN = 0
KIND_LETTERS = "-" + COURTS
"""Deal-string letter of each kind: ``KIND_LETTERS[kind]``."""
_COURT_KIND = {JACK: 1, QUEEN: 2, KING: 3, ACE: 4}
PLAIN_RANK_LETTERS = "23456789T"
COURTS_PER_RANK = 4
PLAIN_CARDS = DECK_SIZE - len(COURTS) * COURTS_PER_RANK


def kind_of_card(code: int) -> int:
    """Kind (0 plain, 1 J, 2 Q, 3 K, 4 A) of a card code."""
    return _COURT_KIND.get(rank_of(code), PLAIN)


def deal_hands(seed: int, game: int, players: int) -> list[list[int]]:
    """The hands of game ``game`` under ``seed``: ``players`` lists of kinds, top first.

    The 52-card deck (codes 0..51) is shuffled with the game's stream, then card ``i`` goes to
    seat ``i % players``, the first card dealt ending on top of its hand.
    """
    deck = [kind_of_card(code) for code in range(DECK_SIZE)]
    Stream(seed, game).shuffle(deck)
    return [deck[seat::players] for seat in range(players)]


def format_deal(hands: list[list[int]]) -> str:
    """The deal string of ``hands`` (lists of kinds, top first)."""
    return "/".join("".join(KIND_LETTERS[kind] for kind in hand) for hand in hands)


def deal_string(seed: int, game: int, players: int) -> str:
    """The deal string of game ``game`` of a run with this seed and player count."""
    return format_deal(deal_hands(seed, game, players))


def parse_deal(text: str) -> list[list[int]]:
    """Parse a deal string into hands of kinds; raise CardsimError saying what is wrong."""
    seats = [part.strip() for part in text.strip().split("/")]
    if not MIN_PLAYERS <= len(seats) <= MAX_PLAYERS:
        raise CardsimError(
            f"a deal needs {MIN_PLAYERS} to {MAX_PLAYERS} hands separated by '/', got {len(seats)} "
            f"in {text!r}"
        )
    hands: list[list[int]] = []
    plain_by_rank: dict[str, int] = {}
    for seat, hand_text in enumerate(seats):
        if not hand_text:
            raise CardsimError(
                f"seat {seat} has no cards in {text!r}; every seat needs at least one"
            )
        hand = []
        for position, letter in enumerate(hand_text.upper()):
            if letter in COURTS:
                hand.append(KIND_LETTERS.index(letter))
            elif letter == "-" or letter in PLAIN_RANK_LETTERS:
                hand.append(PLAIN)
                if letter != "-":
                    plain_by_rank[letter] = plain_by_rank.get(letter, 0) + 1
            else:
                raise CardsimError(
                    f"unknown card {hand_text[position]!r} at position {position + 1} of seat "
                    f"{seat}; allowed: A K Q J for court cards, - or 2-9, T for the others"
                )
        hands.append(hand)
    _check_counts(hands, plain_by_rank)
    return hands


def _check_counts(hands: list[list[int]], plain_by_rank: dict[str, int]) -> None:
    cards = [kind for hand in hands for kind in hand]
    for kind, letter in enumerate(KIND_LETTERS):
        count = cards.count(kind)
        if kind and count > COURTS_PER_RANK:
            raise CardsimError(
                f"the deal has {count} cards '{letter}'; a 52-card deck holds {COURTS_PER_RANK}"
            )
    plain = cards.count(PLAIN)
    if plain > PLAIN_CARDS:
        raise CardsimError(
            f"the deal has {plain} non-court cards; a 52-card deck holds {PLAIN_CARDS}"
        )
    for letter, count in plain_by_rank.items():
        if count > COURTS_PER_RANK:
            raise CardsimError(
                f"the deal has {count} cards '{letter}'; a 52-card deck holds {COURTS_PER_RANK}"
            )
