"""Beggar-My-Neighbour's differential grid: random deals with the default rules and with
rule changes, short deals of part of a deck with random rules, and deals that cycle, played
with time limits around their first repeat; the reference's records over it.

``make_differential.py beggar-grid`` plays every deal with the reference (never the kernel)
and stores its records; ``tests/test_beggar_differential.py`` checks the kernel against all
of them and plays a covering subset and a fresh sample with the reference again.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from simulate.games.beggar import reference
from simulate.games.beggar.deal import deal_hands
from simulate.games.beggar.rules import COURTS, BeggarRules

from .store import HERE, source_hash

PATH = HERE / "beggar-grid.parquet"
REFERENCE = ("simulate.games.beggar.reference", "simulate.games.beggar.deal")
"""The reference's modules (the deal is the reference's too): their source and every project
module they import are hashed."""
DECK_KINDS = [0] * 36 + [1, 2, 3, 4] * 4
RANDOM = {"seed": 20241129, "first": 0, "count": 10_000}
"""Random deals of a seed, default rules, at 2, 3 and 4 players."""
CHANGED = {"seed": 77, "first": 5_000, "count": 1_500}
"""Random deals of another seed with :data:`CHANGED_RULES`, at 2, 3 and 4 players."""
CHANGED_RULES = BeggarRules(penalties={"J": 2, "Q": 1, "K": 4, "A": 3}, time_limit=180)
SHORT = {"rng": 31, "count": 4_000}
"""Short deals and random rules drawn from ``random.Random(31)``."""
CYCLES = {"rng": 8, "count": 40}
"""The first 40 cycling short deals drawn from ``random.Random(8)``, each with no limit and
with time limits around its first repeat."""
FIELDS = tuple(reference.BeggarRecord.__dataclass_fields__)


@dataclass(frozen=True)
class Deal:
    """One deal of the grid: where it comes from and how it is played."""

    part: str
    """``random-P``, ``changed-P``, ``short`` or ``cycles``."""
    hands: list[list[int]]
    rules: BeggarRules
    game: int = -1
    """The game index of a seeded random deal (-1 for a drawn deal)."""
    deal: int = -1
    """``cycles``: which cycling deal this is (its time limits share it)."""


def definition() -> dict:
    return {"random": RANDOM, "changed": CHANGED, "short": SHORT, "cycles": CYCLES, "v": 1}


def source() -> str:
    return source_hash(REFERENCE, (Path(__file__).resolve(),))


def short_deal(rng: random.Random) -> list[list[int]]:
    """A random deal of 2-4 seats from part of a deck, every seat holding a card."""
    players = rng.randint(2, 4)
    deck = DECK_KINDS[:]
    rng.shuffle(deck)
    cards = deck[: rng.randint(players, 24)]
    return [cards[seat::players] for seat in range(players)]


def random_rules(rng: random.Random) -> BeggarRules:
    penalties = {rank: rng.randint(1, 5) for rank in "JQKA"}
    return BeggarRules(penalties=penalties, time_limit=rng.choice([None, rng.randint(1, 80)]))


def cycle_limits(first_repeat: int, cycle_cards: int) -> list[int]:
    """Time limits around a cycling deal's first repeat (Brent's method notices a loop some
    tricks after it: a limit in between must still see a cycle, one just before it not)."""
    limits = {
        1,
        first_repeat - 1,
        first_repeat,
        first_repeat + 1,
        first_repeat + cycle_cards,
        3 * first_repeat + 7,
    }
    return sorted(limit for limit in limits if limit >= 1)


def deals() -> list[Deal]:
    """Every deal of the grid, in a fixed order. Finding the cycling deals plays the
    reference (the generator's job; the tests read them from the stored file)."""
    found = []
    for part, spec, rules in (
        ("random", RANDOM, BeggarRules()),
        ("changed", CHANGED, CHANGED_RULES),
    ):
        for players in (2, 3, 4):
            for game in range(spec["first"], spec["first"] + spec["count"]):
                hands = deal_hands(spec["seed"], game, players)
                found.append(Deal(f"{part}-{players}", hands, rules, game=game))
    rng = random.Random(SHORT["rng"])
    for _ in range(SHORT["count"]):
        hands = short_deal(rng)
        found.append(Deal("short", hands, random_rules(rng)))
    for number, (hands, record) in enumerate(cycling_deals(CYCLES["count"])):
        found.append(Deal("cycles", hands, BeggarRules(), deal=number))
        for limit in cycle_limits(record.cards, record.cycle_cards):
            found.append(Deal("cycles", hands, BeggarRules(time_limit=limit), deal=number))
    return found


def cycling_deals(count: int) -> list[tuple[list[list[int]], reference.BeggarRecord]]:
    """The first ``count`` short deals drawn from ``random.Random(8)`` that cycle under the
    default rules, each with its reference record."""
    rng = random.Random(CYCLES["rng"])
    found = []
    while len(found) < count:
        hands = short_deal(rng)
        record = reference.play(hands)
        if record.end == "cycle":
            found.append((hands, record))
    return found


def play_reference(deal: Deal) -> reference.BeggarRecord:
    return reference.play(deal.hands, deal.rules)


def records_table(items: list[Deal], records, covering: set[int]) -> pa.Table:
    """The stored rows: one per deal, in :func:`deals` order, with its hands, rules, record
    fields and ``covering`` (in the set chosen to reach every branch of the reference that
    the deal's part reaches)."""
    columns = {
        "part": pa.array([d.part for d in items]),
        "game": pa.array([d.game for d in items], pa.int64()),
        "deal": pa.array([d.deal for d in items], pa.int32()),
        "hands": pa.array([d.hands for d in items], pa.list_(pa.list_(pa.int8()))),
        **{
            f"penalty_{rank}": pa.array([d.rules.penalties[rank] for d in items], pa.int8())
            for rank in COURTS
        },
        "time_limit": pa.array([d.rules.time_limit for d in items], pa.int32()),
        "covering": pa.array([i in covering for i in range(len(items))]),
    }
    for key in FIELDS:
        values = [getattr(record, key) for record in records]
        columns[key] = pa.array([list(v) for v in values] if key == "cards_held" else values)
    return pa.table(columns)


def stored_deal(row: dict) -> Deal:
    rules = BeggarRules(
        penalties={rank: row[f"penalty_{rank}"] for rank in COURTS}, time_limit=row["time_limit"]
    )
    return Deal(row["part"], row["hands"], rules, game=row["game"], deal=row["deal"])


def stored_record(row: dict) -> reference.BeggarRecord:
    return reference.BeggarRecord(
        **{key: tuple(row[key]) if key == "cards_held" else row[key] for key in FIELDS}
    )
