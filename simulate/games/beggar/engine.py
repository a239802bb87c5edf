"""Beggar-My-Neighbour's compiled side: chunks of deals, one given deal, a record hunt."""

from __future__ import annotations

from ..spec import Chunk
from . import batch, records
from .deal import parse_deal
from .rules import END_NAMES


class BeggarEngine:
    """Plays Beggar-My-Neighbour deals (no decisions: a ``seating`` is empty)."""

    def play(self, request, seating: tuple, first: int, count: int, row: int) -> Chunk:
        columns = batch.play_random(request.seed, first, count, request.players, request.rules)
        return Chunk(records.to_table(first, columns, request.players))

    def play_given(self, rules, deal: str) -> dict:
        """How the deal string ``deal`` ends under ``rules``: ``cards``, ``tricks``,
        ``winner``, ``end``, ``cycle_cards``, ``cycle_tricks`` and ``held`` (each seat's
        cards at the end)."""
        columns = batch.play_hands([parse_deal(deal)], rules)
        return {
            "cards": int(columns["cards"][0]),
            "tricks": int(columns["tricks"][0]),
            "winner": int(columns["winner"][0]),
            "end": END_NAMES[columns["end"][0]],
            "cycle_cards": int(columns["cycle_cards"][0]),
            "cycle_tricks": int(columns["cycle_tricks"][0]),
            "held": [int(held) for held in columns["held"][0]],
        }

    def outcome_text(self, result: dict) -> str:
        """:meth:`play_given`'s result in words."""
        return outcome_text(result)

    def search(self, request, *, top: int = 10, progress: bool = False) -> str:
        """The longest of ``request``'s deals and any that never end, in words."""
        from .search import find_records

        return find_records(request, top, progress=progress).text()


def outcome_text(result: dict) -> str:
    """One deal's outcome (:meth:`BeggarEngine.play_given`) in words."""
    played = f"{_count(result['cards'], 'card')} and {_count(result['tricks'], 'trick')}"
    holdings = ", ".join(f"seat {seat} {count}" for seat, count in enumerate(result["held"]))
    if result["end"] == "out":
        return f"Seat {result['winner']} wins after {played}."
    if result["end"] == "cycle":
        return (
            f"The deal never ends: after {played} the position repeats the one "
            f"{_count(result['cycle_tricks'], 'trick')} ({_count(result['cycle_cards'], 'card')}) "
            f"earlier, so play loops forever (cards held: {holdings})."
        )
    who = (
        "no single seat holds the most"
        if result["winner"] < 0
        else f"seat {result['winner']} holds the most and wins"
    )
    return f"Time limit: stopped after {played}; {who} (cards held: {holdings})."


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


ENGINE = BeggarEngine()
