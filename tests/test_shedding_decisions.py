"""Decision points (``decisions``, ``forced``, ``options``): the rules' options at every
point a seat is asked, whatever its strategy takes.

The kernel's counters equal the reference's on every game of the stored shedding grid
(``test_shedding_differential.py`` compares every column); here the reference's count is
checked against what a searching seat actually weighs: where every seat searches, the
decision points with two options or more are exactly the searched decisions, in order,
each with as many options as the search compared.
"""

import numpy as np
import pytest
from differential import shedding_grid as grid

from simulate.games.shedding import batch, reference, reference_search

CONFIGS = (
    "crazy-eights-plain",
    "wild-different",
    "draw-up-to-3",
    "pis-yedili",
    "wild-answers-draw",
    "openspiel-2",
    "all-lead-club",
)
"""Grid configurations with every kind of decision point: openings, penalties, drawn cards
played or kept, draws up to N, wilds naming 3 or 4 suits."""


@pytest.fixture
def watched(monkeypatch):
    """Record, for the game being played (not its rollouts), every tallied decision point
    and the number of options of every searched decision."""
    seen = {"game": None, "tallies": [], "searched": []}
    run, tally, decide = (
        reference.Game.run,
        reference.Game.tally,
        reference_search.SearchStrategy.decide,
    )

    def watch_run(self):
        seen["game"] = self
        return run(self)

    def watch_tally(self, options):
        if self is seen["game"]:
            seen["tallies"].append(options)
        return tally(self, options)

    def watch_decide(self, options, kind):
        if self.game is seen["game"] and len(options) > 1:
            seen["searched"].append(len(options))
        return decide(self, options, kind)

    monkeypatch.setattr(reference.Game, "run", watch_run)
    monkeypatch.setattr(reference.Game, "tally", watch_tally)
    monkeypatch.setattr(reference_search.SearchStrategy, "decide", watch_decide)
    monkeypatch.setattr(reference.Game, "check_cards", lambda self: None)
    return seen


@pytest.mark.parametrize("name", CONFIGS)
def test_decision_points_are_what_a_search_weighs(name, watched):
    config = next(c for c in grid.CONFIGS if c[0] == name)
    _, _, _, players, _, _ = config
    rules = grid.rules_of(config)
    for game in range(6):
        watched["tallies"].clear()
        watched["searched"].clear()
        record = reference.play(rules, players, ["pimc:1"] * players, 11, game)
        choices = [options for options in watched["tallies"] if options > 1]
        assert choices == watched["searched"]
        assert record.decisions == len(choices) and record.options == sum(choices)
        assert record.forced == watched["tallies"].count(1)


def test_counters_need_no_search_and_are_the_kernel_s():
    """Seats that do not search: the kernel counts as the reference does; every turn has a
    decision point, and a decision has two options or more."""
    config = next(c for c in grid.CONFIGS if c[0] == "draw-up-to-3")
    rules, players = grid.rules_of(config), config[3]
    seats = ["random", "greedy", "uniform", "first"]
    columns = batch.play_random(rules, players, seats, 3, 0, 40)
    records = [reference.play(rules, players, seats, 3, game) for game in range(40)]
    for key in ("decisions", "forced", "options"):
        np.testing.assert_array_equal(columns[key], [getattr(r, key) for r in records], key)
    assert (columns["options"] >= 2 * columns["decisions"]).all()
    assert (columns["decisions"] + columns["forced"] >= columns["turns"]).all()
