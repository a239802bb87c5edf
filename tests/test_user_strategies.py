"""User strategies: the example of docs/user_strategies.md runs in the compiled kernel (no
Python call per decision) and gives the reference's records; bad ones are refused."""

import re
import sys
from pathlib import Path

import numpy as np
import pytest
from shedding_helpers import kernel_records

import simulate
from simulate.core.errors import CardsimError
from simulate.games.shedding import reference
from simulate.games.shedding.batch import play_random
from simulate.games.shedding.rules import preset

DOC = Path(__file__).resolve().parents[1] / "docs" / "user_strategies.md"


def doc_example() -> dict:
    """The namespace of the doc's Python example (the strategy ``longest_suit``)."""
    code = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)[0]
    namespace: dict = {}
    exec(code, namespace)
    return namespace


@pytest.mark.parametrize(
    ("name", "overrides", "players"),
    [
        ("pis-yedili", {"match_deals": None}, 4),
        ("crazy-eights", {"voluntary_draw": True, "wild_mode": "different"}, 3),
        ("openspiel", {}, 5),
    ],
)
def test_the_doc_example_plays_as_in_the_reference(name, overrides, players):
    longest_suit = doc_example()["longest_suit"]
    rules = preset(name).with_overrides(overrides)
    strategies = [longest_suit, *["random", "greedy", "uniform", "random"][: players - 1]]
    got = kernel_records(play_random(rules, players, strategies, 7, 0, 400))
    for game in range(400):
        assert got[game] == reference.play(rules, players, strategies, 7, game), game


def test_a_user_strategy_makes_no_python_call_per_decision():
    """The function is compiled (nopython) and called through a pointer by the kernel: its
    Python code never runs during a run."""

    def lowest_card(hand, legal, view):
        if legal == 0:
            return -2 if view[7] else -3
        card = 0
        while not (legal >> card) & 1:
            card += 1
        return card

    calls = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code is lowest_card.__code__:
            calls.append(1)

    # No wild (a user strategy names suits as weighted ones do, not as "first").
    rules = preset("pis-yedili").with_overrides({"match_deals": None, "effects.J": "none"})
    play_random(rules, 4, [lowest_card, "random", "random", "random"], 1, 0, 10)  # compile
    sys.setprofile(profile)
    try:
        columns = play_random(rules, 4, [lowest_card] * 4, 1, 0, 20_000)
    finally:
        sys.setprofile(None)
    assert calls == []
    assert columns["plays"].sum() > 20_000 * 10  # it did decide, many times
    # and it is the rule book's "first" strategy, written by hand
    first = play_random(rules, 4, ["first"] * 4, 1, 0, 20_000)
    for key in ("winner", "turns", "plays", "draws"):
        np.testing.assert_array_equal(columns[key], first[key])


def test_simulate_run_takes_a_user_function():
    longest_suit = doc_example()["longest_suit"]
    frame = simulate.run(
        "pis-yedili", players=4, games=50, seed=3, strategies=[longest_suit, "greedy"]
    )
    assert frame["strategy_0"].unique().tolist() == ["user:longest_suit"]
    assert frame.attrs["strategies"] == ["user:longest_suit", "greedy", "random", "random"]


def test_bad_user_strategies_are_refused():
    rules = preset("crazy-eights")

    def cheat(hand, legal, view):
        return 51 if not (legal >> 51) & 1 else 0  # the king of spades, legal or not

    with pytest.raises(CardsimError, match="user:cheat chose a card it may not play"):
        play_random(rules, 3, [cheat, "random", "random"], 1, 0, 200)

    def text(hand, legal, view):
        return "7C"

    with pytest.raises(CardsimError, match="user strategy 'text' does not compile"):
        play_random(rules, 3, [text, "random", "random"], 1, 0, 10)

    def one(hand, legal, view):
        return -3

    def two(hand, legal, view):
        return -3

    with pytest.raises(CardsimError, match="one user strategy"):
        play_random(rules, 3, [one, two, "random"], 1, 0, 10)
