"""The compiled ``weighted`` decisions equal the reference's on random hands and rules."""

import random

import numpy as np
import pytest

from simulate.core.rng import Stream
from simulate.games.shedding import kernel_strategies as ks
from simulate.games.shedding import strategies
from simulate.games.shedding.reference import Game, identity, suit_of
from simulate.games.shedding.rules import preset

SPECS = ["greedy", "hold-wilds", "attack", "weighted:points=-1,suit_left=3,rank_left=-2,draw=4"]


def _arrays(hand_codes):
    hand = np.zeros(52, np.int64)
    held = 0
    for code in hand_codes:
        hand[identity(code)] += 1
        held |= 1 << identity(code)
    return hand, held


@pytest.mark.parametrize("name", ["pis-yedili", "crazy-eights", "openspiel"])
def test_weighted_choices_and_suits_equal_the_reference(name):
    rng = random.Random(name)
    rules = preset(name).with_overrides({"decks": 2})
    vector = rules.to_vector()
    wild_mask = sum(1 << c for c in range(52) if rules.rank_effects(c % 13).wild)
    for trial in range(300):
        spec = strategies.parse(SPECS[trial % len(SPECS)])
        deck = list(range(104))
        rng.shuffle(deck)
        size, other = rng.randint(1, 12), rng.randint(1, 4)
        hands = [sorted(deck[:size], key=lambda c: (c % 52, c)), deck[size : size + other]]
        game = Game(
            rules, hands, [], [deck[-1]], strategies=[str(spec), "random"], stream=Stream(1, trial)
        )
        legal = [c for c in hands[0] if rng.random() < 0.6] or hands[0][:1]
        expected = game.strategies[0].choose(legal, False, False)
        hand, held = _arrays(hands[0])
        mask = sum(1 << i for i in {identity(c) for c in legal})
        weights = np.array(spec.int_weights(), np.int64)
        got = ks.weighted_card(mask, weights, hand, held, False, vector, wild_mask, other)
        assert got == identity(expected), (spec, [identity(c) for c in legal])
        excluded = rng.choice([-1, 0, 1, 2, 3])
        suits = [s for s in range(4) if s != excluded]
        assert ks.most_held_suit(hand, held, False, excluded) == game.strategies[0].name_suit(suits)
        one = sorted({identity(c) for c in hands[0]})
        one_hand, one_held = _arrays(one)
        assert ks.most_held_suit(one_hand, one_held, True, -1) == max(
            range(4), key=lambda s: sum(suit_of(c) == s for c in one)
        )
