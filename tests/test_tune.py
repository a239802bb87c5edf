"""Tuning weighted strategies (cross-entropy method): a small search runs, is reproducible,
and reports its held-out share; bad requests are refused."""

import json

import pytest
from typer.testing import CliRunner

from simulate.app.cli import app
from simulate.app.commands.shedding_tune import POPULATION, ROUNDS, tune
from simulate.core.errors import CardsimError
from simulate.games.shedding.strategies import FEATURE_NAMES, parse

SMALL = ROUNDS * POPULATION * 2 * 12  # 12 deals per candidate, 2 seatings


@pytest.mark.end_to_end
def test_a_small_search_is_reproducible_and_held_out():
    first = tune("crazy-eights", players=2, opponents=["random"], budget=SMALL, seed=4, holdout=400)
    again = tune("crazy-eights", players=2, opponents=["random"], budget=SMALL, seed=4, holdout=400)
    assert first == again
    spec = parse(first.spec)
    assert spec.name == "weighted" and set(first.weights) == set(FEATURE_NAMES)
    assert first.lo <= first.share <= first.hi and first.holdout_games == 800
    assert first.greedy_lo <= first.greedy_share <= first.greedy_hi
    assert [h["round"] for h in first.history] == list(range(ROUNDS))
    other = tune("crazy-eights", players=2, opponents=["random"], budget=SMALL, seed=5, holdout=400)
    assert other.history != first.history


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("crazy-eights", 2, ["random"], 100), "--budget 100 is too small"),
        (("crazy-eights", 2, ["nobody"], SMALL), "unknown strategy 'nobody'"),
        (("bmn", 2, ["random"], SMALL), "takes no strategies"),
    ],
)
def test_bad_tuning_requests(args, message):
    game, players, opponents, budget = args
    with pytest.raises(CardsimError, match=message):
        tune(game, players=players, opponents=opponents, budget=budget, seed=1)


def test_cli_tune_prints_and_writes_the_result(tmp_path):
    out = tmp_path / "tune.json"
    result = CliRunner().invoke(
        app,
        [
            "tune",
            "crazy-eights",
            "--players",
            "2",
            "--opponents",
            "random",
            "--budget",
            str(SMALL),
            "--holdout",
            "200",
            "--seed",
            "2",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "best: weighted:" in result.output and "held-out win share" in result.output
    saved = json.loads(out.read_text())
    assert saved["spec"].startswith("weighted:") and saved["holdout_games"] == 400


def test_the_candidate_is_counted_by_its_seat_not_its_name():
    # Against greedy, greedy itself wins about half of two-player games (counting every
    # greedy seat would give about all of them).
    result = tune(
        "crazy-eights", players=2, opponents=["greedy"], budget=SMALL, seed=3, holdout=2000
    )
    assert 0.4 < result.greedy_share < 0.6
