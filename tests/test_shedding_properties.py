"""Property-based tests: hypothesis draws random valid shedding configurations (preset, any
knobs, 2 to 6 players, strategies, forget chances) and checks, for a few games each, the
reference's invariants at every step (cards conserved, every play legal, the winner's hand
empty, turns under the cap: the reference asserts them as it plays) and that the kernel's
records equal the reference's."""

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from shedding_helpers import EVERY_STRATEGY, kernel_records

from simulate.core.cards import RANKS
from simulate.core.errors import CardsimError
from simulate.games.shedding import reference
from simulate.games.shedding.batch import play_random
from simulate.games.shedding.rules import CHOICES, PRESETS, SWITCHES, preset

STRATEGIES = EVERY_STRATEGY
EFFECT_VALUES = (
    "none",
    "wild",
    "skip",
    "reverse",
    "draw:2",
    "draw:3",
    "again",
    "all_draw:1",
    "skip+draw:2",
    "again+draw:1",
    "reverse+draw:1",
)


@st.composite
def configurations(draw):
    """``(rules, players, strategies, forget)``: a valid configuration (invalid draws are
    discarded with ``assume``)."""
    overrides: dict = {}
    for knob, values in CHOICES.items():
        if draw(st.booleans()):
            value = draw(st.sampled_from(values))
            overrides[knob] = value.replace("N", str(draw(st.integers(1, 4))))
    for knob in SWITCHES:
        if draw(st.booleans()):
            overrides[knob] = draw(st.booleans())
    for rank in draw(st.lists(st.sampled_from(RANKS), max_size=4, unique=True)):
        overrides[f"effects.{rank}"] = draw(st.sampled_from(EFFECT_VALUES))
    if draw(st.booleans()):
        overrides["decks"] = draw(st.integers(1, 3))
    if draw(st.booleans()):
        overrides["hand_size"] = draw(st.integers(1, 8))
    if draw(st.booleans()):
        overrides["max_plays"] = draw(st.integers(1, 200))
    if draw(st.booleans()):
        overrides["last_card_penalty"] = draw(st.integers(0, 4))
    overrides["max_turns"] = draw(st.integers(1, 300))  # keeps each example short
    players = draw(st.integers(2, 6))
    try:
        rules = preset(draw(st.sampled_from(PRESETS))).with_overrides(overrides)
        rules.check_players(players)
    except CardsimError:
        assume(False)
    strategies = draw(st.lists(st.sampled_from(STRATEGIES), min_size=players, max_size=players))
    forget = draw(st.lists(st.sampled_from([0.0, 0.3, 1.0]), min_size=players, max_size=players))
    return rules, players, strategies, forget


@settings(
    max_examples=examples(250),
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
@given(config=configurations(), seed=st.integers(0, 2**64 - 1), first=st.integers(0, 10**12))
def test_random_configurations_keep_the_invariants_and_match_the_kernel(config, seed, first):
    rules, players, strategies, forget = config
    games = 4
    got = kernel_records(play_random(rules, players, strategies, seed, first, games, forget))
    for i in range(games):
        expected = reference.play(rules, players, strategies, seed, first + i, forget)
        assert got[i] == expected
        assert expected.turns <= rules.max_turns
        assert expected.end in reference.END_REASONS
        if expected.end == "out":
            assert expected.cards_left[expected.winner] == 0
        assert np.sum(expected.cards_left) <= 52 * rules.decks_for(players)
