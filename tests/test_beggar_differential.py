"""Differential tests: the compiled kernel's records equal the reference's, deal by deal."""

import random

import pytest
from beggar_helpers import kernel_play, kernel_random
from hypothesis import given, settings
from hypothesis import strategies as st

from simulate.games.beggar import reference
from simulate.games.beggar.deal import deal_hands
from simulate.games.beggar.rules import BeggarRules

DECK_KINDS = [0] * 36 + [1, 2, 3, 4] * 4


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_deals_match_reference(players):
    seed, count = 20241129, 10_000
    got = kernel_random(seed, 0, count, players, BeggarRules())
    expected = [reference.play(deal_hands(seed, game, players)) for game in range(count)]
    assert got == expected


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_deals_with_rule_changes_match_reference(players):
    seed, count = 77, 1_500
    rules = BeggarRules(penalties={"J": 2, "Q": 1, "K": 4, "A": 3}, time_limit=180)
    got = kernel_random(seed, 5_000, count, players, rules)
    expected = [reference.play(deal_hands(seed, 5_000 + g, players), rules) for g in range(count)]
    assert got == expected
    assert {record.end for record in got} >= {"out", "time_limit"}


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


def test_short_deals_match_reference():
    rng = random.Random(31)
    ends = set()
    for _ in range(4_000):
        hands, rules = short_deal(rng), random_rules(rng)
        expected = reference.play(hands, rules)
        assert kernel_play(hands, rules) == expected, (hands, rules)
        ends.add(expected.end)
    assert ends == {"out", "cycle", "time_limit"}


def cycling_deals(count: int) -> list[tuple[list[list[int]], reference.BeggarRecord]]:
    rng = random.Random(8)
    found = []
    while len(found) < count:
        hands = short_deal(rng)
        record = reference.play(hands)
        if record.end == "cycle":
            found.append((hands, record))
    return found


def test_time_limit_around_the_first_repeat():
    # Brent's method notices a loop some tricks after the first repeat; a time limit that
    # falls in between must still see the deal as a cycle, and one just before it must not.
    for hands, record in cycling_deals(40):
        first_repeat = record.cards
        for limit in {
            1,
            first_repeat - 1,
            first_repeat,
            first_repeat + 1,
            first_repeat + record.cycle_cards,
            3 * first_repeat + 7,
        }:
            if limit < 1:
                continue
            rules = BeggarRules(time_limit=limit)
            expected = reference.play(hands, rules)
            assert kernel_play(hands, rules) == expected, (hands, limit)
            assert expected.end == ("cycle" if limit >= first_repeat else "time_limit")


hands_strategy = st.integers(2, 4).flatmap(
    lambda players: st.permutations(DECK_KINDS).flatmap(
        lambda deck: st.integers(players, 52).map(
            lambda size: [deck[:size][seat::players] for seat in range(players)]
        )
    )
)


@settings(max_examples=300, deadline=None)
@given(
    hands=hands_strategy,
    penalties=st.fixed_dictionaries({rank: st.integers(1, 6) for rank in "JQKA"}),
    time_limit=st.none() | st.integers(1, 400),
)
def test_any_deal_matches_reference(hands, penalties, time_limit):
    rules = BeggarRules(penalties=penalties, time_limit=time_limit)
    expected = reference.play(hands, rules)
    assert kernel_play(hands, rules) == expected
    assert expected.cards <= (time_limit or expected.cards)
