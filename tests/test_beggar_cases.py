"""Beggar-My-Neighbour on the published cases of RULES.md, by the reference and the kernel."""

import pytest
from beggar_helpers import kernel_play

from simulate.core.errors import CardsimError
from simulate.games.beggar import reference
from simulate.games.beggar.deal import deal_hands, format_deal, parse_deal
from simulate.games.beggar.rules import BeggarRules

PUBLISHED = [
    # (deal, cards, tricks): Paulhus 1999, Kleber 1999, and the small cases of RULES.md.
    ("------------KAQ----J------/-JQQK---K----JK--QA-A-JA--", 4791, 670),
    ("---JQ---K-A----A-J-K---QK-/-J-----------AJQA----K---Q", 5790, 805),
    ("J/3J", 5, 2),
    ("J24/3JA", 12, 4),
]


def both(deal: str, rules: BeggarRules | None = None):
    rules = rules or BeggarRules()
    hands = parse_deal(deal)
    expected = reference.play(hands, rules)
    assert kernel_play(hands, rules) == expected
    return expected


@pytest.mark.parametrize(("deal", "cards", "tricks"), PUBLISHED)
def test_published_lengths(deal, cards, tricks):
    record = both(deal)
    assert (record.cards, record.tricks, record.end) == (cards, tricks, "out")
    assert sorted(record.cards_held)[-1] == sum(len(hand) for hand in parse_deal(deal))
    assert record.cards_held[record.winner] == max(record.cards_held)


def test_small_cycle():
    record = both("J23/4J5")
    assert record.end == "cycle" and record.winner == -1
    assert (record.cards, record.tricks) == (8, 3)
    assert (record.cycle_cards, record.cycle_tricks) == (6, 2)


def test_full_deck_non_terminating_deal():
    # The first non-terminating 52-card deal found (Casella et al., 2024).
    record = both("---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA")
    assert record.end == "cycle" and record.winner == -1
    assert sum(record.cards_held) == 52


def test_ranks_written_as_digits_equal_dashes():
    assert both("J23/4J5") == both("J--/-J-")
    assert both("A9T8/7K") == both("A---/-K")


def test_three_and_four_seats():
    # Seat 0 turns J, seat 1 pays 2, seat 0 collects J2 ... and so on; reference == kernel.
    for deal in ["J/2/3", "A--/K--/Q--", "J-/-Q/K-/--A", "-/-/-/J"]:
        record = both(deal)
        assert record.end in ("out", "cycle")
        assert sum(record.cards_held) == sum(len(h) for h in parse_deal(deal))


def test_last_court_card_player_collects_with_empty_hand():
    # Seat 1 plays its last card, a jack; seat 0 pays a plain card: seat 1 collects the
    # pile (one trick), and seat 0, now empty, is out.
    record = both("2-/J")
    assert (record.winner, record.end, record.cards, record.tricks) == (1, "out", 3, 1)


def test_debt_passes_on_when_payer_runs_out():
    # Seat 0 plays K (3 owed); seat 1 pays one plain card and runs out; seat 2 pays the
    # other two and seat 0 collects (trick 1). Seat 0 leads K, seat 2 pays -, then J; seat 0
    # pays - and seat 2 collects (trick 2). Seat 2 leads K; seat 0 pays its two cards and
    # runs out still owing: seat 2, the last seat in, takes the pile (trick 3) and wins.
    record = both("K/-/---J")
    assert (record.winner, record.end, record.cards, record.tricks) == (2, "out", 11, 3)
    assert record.cards_held == (0, 0, 6)


def test_penalties_change_the_game():
    default = both("J/3J")
    stiffer = both("J/3J", BeggarRules().with_overrides({"penalties.J": 2}))
    assert stiffer != default


@pytest.mark.parametrize("limit", [1, 2, 3, 4, 5])
def test_time_limit(limit):
    record = both("J/3J", BeggarRules(time_limit=limit))
    if limit < 5:
        assert (record.end, record.cards) == ("time_limit", limit)
        held = record.cards_held
        leaders = [seat for seat, count in enumerate(held) if count == max(held)]
        assert record.winner == (leaders[0] if len(leaders) == 1 else -1)
    else:
        assert (record.end, record.cards) == ("out", 5)


def test_deal_string_round_trip():
    for game in range(20):
        hands = deal_hands(9, game, 3)
        assert [len(h) for h in hands] == [18, 17, 17]
        assert parse_deal(format_deal(hands)) == hands


@pytest.mark.parametrize(
    ("deal", "message"),
    [
        ("J2X/3", "unknown card 'X'"),
        ("AAAAA/3", "5 cards 'A'"),
        ("JJJJ", "2 to 4 hands"),
        ("J/2/3/4/5", "2 to 4 hands"),
        ("J//3", "seat 1 has no cards"),
        ("-" * 30 + "/" + "-" * 7, "37 non-court cards"),
        ("22222/3", "5 cards '2'"),
    ],
)
def test_malformed_deals(deal, message):
    with pytest.raises(CardsimError, match=message):
        parse_deal(deal)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"penalties.A": 0}, "penalties.A must be a whole number from 1 to 52"),
        ({"penalties.K": "x"}, "penalties.K must be a whole number"),
        ({"time_limit": -5}, "time_limit must be a whole number from 1"),
        ({"colour": 1}, "unknown rule 'colour'"),
    ],
)
def test_bad_rules(overrides, message):
    with pytest.raises(CardsimError, match=message):
        BeggarRules().with_overrides(overrides)
