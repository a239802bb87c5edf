"""Shedding strategies: specs (parsing, errors), and the deterministic strategies' choices on
scripted hands in the reference (greedy, hold-wilds, attack, weighted)."""

import pytest

from simulate.core.errors import CardsimError
from simulate.core.rng import Stream
from simulate.games.shedding import strategies
from simulate.games.shedding.reference import DRAW, Game, cards, name
from simulate.games.shedding.rules import preset

C, D, H, S = range(4)


def table(game, hands, stock="", pile="", strategy="greedy", **overrides):
    rules = preset(game).with_overrides(overrides)
    return Game(
        rules,
        [cards(hand) for hand in hands],
        cards(stock),
        cards(pile),
        strategies=[strategy] * len(hands),
        stream=Stream(0, 0),
    )


def choice(t, seat=0):
    """The card the seat's strategy picks among its legal cards (a name), or DRAW/PASS."""
    picked = t.strategies[seat].choose(t.legal_cards(seat), False, False)
    return name(picked) if isinstance(picked, int) else picked


# --- specs -----------------------------------------------------------------------------------


def test_parse_builtins_and_parameters():
    greedy = strategies.parse("greedy")
    assert greedy.name == "greedy" and greedy.forget == 0 and greedy.weighted
    assert dict(zip(strategies.FEATURE_NAMES, greedy.weights, strict=True))["points"] == 1
    spec = strategies.parse("random:forget=0.25")
    assert (spec.name, spec.forget, spec.weighted) == ("random", 0.25, False)
    spec = strategies.parse("weighted:points=2, wild=-0.5,forget=0.1")
    assert str(spec) == "weighted:points=2,wild=-0.5,forget=0.1"
    assert strategies.parse(str(spec)) == spec
    assert spec.int_weights()[:2] == (2048, -512)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("greedyy", "unknown strategy 'greedyy'; strategies: random, uniform, first, greedy"),
        ("greedy:points=1", "unknown parameter 'points'; known: forget"),
        ("weighted:colour=1", "unknown parameter 'colour'; known: forget, points, wild"),
        ("random:forget=2", "forget must be from 0 to 1, got 2"),
        ("random:forget=often", "forget must be a number, got 'often'"),
        ("weighted", "gives no weights"),
        ("weighted:points=1e9", "weights must be from -1e+06 to 1e+06"),
        ("weighted:points", "expected PARAM=VALUE, got 'points'"),
    ],
)
def test_bad_specs_name_the_problem(text, message):
    with pytest.raises(CardsimError, match=message.replace("+", r"\+")):
        strategies.parse(text)


# --- deterministic choices ---------------------------------------------------------------------


def test_greedy_sheds_the_most_points_and_keeps_wilds_among_equals():
    # Pis Yedili points: J 25 (wild), 7 20, A 15, K/Q 10. On the 5 of clubs: 7C, QC, 5D legal.
    t = table("pis-yedili", ["5D QC 7C 2H", "3S"], pile="5C")
    assert choice(t) == "7C"
    # Crazy Eights: 8 is wild and worth 50; KC worth 10 -> the 8 (more points).
    t = table("crazy-eights", ["KC 8H 4D", "3S"], pile="5C")
    assert choice(t) == "8H"
    # Equal points, one wild: the non-wild. Make the wild 8 worth what a K is worth.
    t = table("crazy-eights", ["8H KC", "3S"], pile="5C", **{"card_points.8": 10})
    assert choice(t) == "KC"
    # Equal points, no wild: the first in card order (clubs before spades, ranks A..K).
    t = table("crazy-eights", ["KS KC 10C", "3S"], pile="5C")
    assert choice(t) == "10C"


def test_hold_wilds_plays_a_wild_only_when_nothing_else_is_legal():
    t = table("crazy-eights", ["2C 8H", "3S"], pile="5C", strategy="hold-wilds")
    assert choice(t) == "2C"  # greedy would play the 8 (50 points)
    t = table("crazy-eights", ["8H 4D", "3S"], pile="5C", strategy="hold-wilds")
    assert choice(t) == "8H"


def test_attack_prefers_a_draw_skip_or_reverse_card_when_the_next_seat_is_short():
    # crazy-eights: 2 skips and draws 2, A skips, Q reverses.
    hands = ["KC 2C QD", "3S 4S"]
    t = table("crazy-eights", hands, pile="5C", strategy="attack")
    assert choice(t) == "2C"  # next seat holds 2 cards: the draw card, not the K's points
    t = table("crazy-eights", ["KC 2C QD", "3S 4S 6S"], pile="5C", strategy="attack")
    assert choice(t) == "KC"  # next seat holds 3: as greedy
    t = table("crazy-eights", ["KC 5D QC", "3S"], pile="5C", strategy="attack")
    assert choice(t) == "QC"  # a reverse card counts too


def test_weighted_features_of_a_card():
    t = table("pis-yedili", ["7C 9C 7D JH AC", "3S 4S"], pile="5C", strategy="greedy")
    seat = t.strategies[0]
    features = dict(zip(strategies.FEATURE_NAMES, seat.features(cards("7C")[0]), strict=True))
    assert features == {
        "points": 20,
        "wild": 0,
        "action": 1,
        "draw": 3,
        "attack": 1,  # the next seat holds 2 cards
        "again": 0,
        "suit_left": 2,  # 9C and AC
        "rank_left": 1,  # 7D
    }
    ace = dict(zip(strategies.FEATURE_NAMES, seat.features(cards("AC")[0]), strict=True))
    assert (ace["again"], ace["action"], ace["attack"], ace["draw"]) == (1, 1, 0, 0)
    jack = dict(zip(strategies.FEATURE_NAMES, seat.features(cards("JH")[0]), strict=True))
    assert (jack["wild"], jack["action"], jack["points"]) == (1, 0, 25)


def test_weighted_keeps_its_suit_when_told_to():
    # suit_left=5 outweighs points: keep playing the long suit (clubs) rather than the 9D.
    t = table("crazy-eights", ["9D 3C 4C 6C", "3S"], pile="9C", strategy="weighted:suit_left=5")
    assert choice(t) == "3C"
    t = table("crazy-eights", ["9D 3C 4C 6C", "3S"], pile="9C", strategy="weighted:points=1")
    assert choice(t) == "9D"


def test_weighted_strategies_name_the_suit_they_hold_most_of():
    t = table("crazy-eights", ["8C 3H 4H 5S", "3S"], pile="9C")
    assert t.strategies[0].name_suit([C, D, H, S]) == H
    t.hands[0] = cards("3H 5S")
    assert t.strategies[0].name_suit([C, D, H, S]) == H  # a tie: suit order
    assert t.strategies[0].name_suit([C, D, S]) == S  # wild_mode=different leaves out H


def test_weighted_strategies_draw_only_without_a_legal_card():
    t = table("crazy-eights", ["3H", "3S"], "4D", pile="9C", voluntary_draw=True)
    assert t.strategies[0].choose([], True, False) == DRAW
    legal = t.legal_cards(0)
    assert legal == [] and t.strategies[0].choose(cards("9H"), True, True) == cards("9H")[0]


def test_deterministic_strategies_draw_nothing_from_the_stream():
    rules = preset("pis-yedili").with_overrides({"match_deals": None})
    from simulate.games.shedding import reference

    for spec in ("greedy", "hold-wilds", "attack", "weighted:points=1,suit_left=0.5"):
        stream = Stream(3, 7)
        first, hands, stock = reference.deal(rules, 4, stream)
        before = stream.next_u32()
        stream = Stream(3, 7)
        reference.deal(rules, 4, stream)
        game = Game(rules, hands, stock, strategies=[spec] * 4, stream=stream, first_seat=first)
        game.run()
        assert stream.next_u32() == before, spec


@pytest.mark.parametrize(
    "spec", ["random", "uniform", "greedy", "hold-wilds", "attack", "weighted:suit_left=1"]
)
def test_same_seed_same_records_in_the_kernel(spec):
    """A strategy's randomness comes only from the game's stream: the same seed gives the
    same records, another seed other records."""
    from simulate.games.shedding.batch import play_random

    rules = preset("crazy-eights").with_overrides({"voluntary_draw": True})
    seats = [spec, "random", "uniform"]
    first = play_random(rules, 3, seats, 11, 0, 3000)
    again = play_random(rules, 3, seats, 11, 0, 3000)
    other = play_random(rules, 3, seats, 12, 0, 3000)
    for key, column in first.items():
        assert (column == again[key]).all(), key
    assert not (first["turns"] == other["turns"]).all()
