"""Shedding games through the engine: simulate.run and cardsim simulate for the presets."""

import json

import pytest
from typer.testing import CliRunner

import simulate
from simulate.cli import app
from simulate.errors import CardsimError
from simulate.games.shedding import reference
from simulate.games.shedding.rules import preset


@pytest.mark.parametrize("name", ["pis-yedili", "crazy-eights", "openspiel"])
def test_run_records_equal_the_reference_across_chunks(name):
    strategies = ["first", "uniform", "random"]
    frame = simulate.run(
        name, players=3, games=90, seed=12, strategies=strategies[:2], chunk_size=40
    )
    assert frame["game"].tolist() == list(range(90))
    assert frame["strategy_2"].unique().tolist() == ["random"]
    rules = preset(name)
    for row in frame.itertuples():
        expected = reference.play(rules, 3, strategies, 12, row.game)
        assert (row.winner, row.end, row.turns, row.plays, row.draws, row.passes) == (
            expected.winner,
            expected.end,
            expected.turns,
            expected.plays,
            expected.draws,
            expected.passes,
        )
        assert (row.score_0, row.score_1, row.score_2) == expected.score
    assert frame.attrs["strategies"] == strategies


def test_rule_overrides_reach_the_kernel():
    base = simulate.run("pis-yedili", players=4, games=300, seed=3)
    doubled = simulate.run(
        "pis-yedili", players=4, games=300, seed=3, rules={"stack_growth": "double"}
    )
    assert doubled.attrs["rules"]["stack_growth"] == "double"
    assert not base["draws"].equals(doubled["draws"])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"strategies": ["random", "bogus"]}, "unknown strategy 'bogus'"),
        ({"strategies": ["random"] * 5}, "5 strategies given for 4 seats"),
        ({"players": 8}, "try --rule decks=2"),
        ({"rules": {"stacking": "all"}}, "stacking must be one of"),
    ],
)
def test_bad_shedding_requests(kwargs, message):
    args = {"players": 4, "games": 10, "seed": 1, **kwargs}
    with pytest.raises(CardsimError, match=message):
        simulate.run("pis-yedili", **args)


def test_beggar_takes_no_strategies():
    with pytest.raises(CardsimError, match="takes no strategies"):
        simulate.run("bmn", games=10, seed=1, strategies=["random"])


def test_cli_simulate_a_preset(tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        [
            "simulate",
            "crazy-eights",
            "--players",
            "3",
            "--games",
            "500",
            "--seed",
            "8",
            "--strategy",
            "first",
            "--rule",
            "stacking=same_rank",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    meta = json.loads((out / "run.json").read_text())
    assert meta["strategies"] == ["first", "random", "random"]
    assert meta["rules"]["stacking"] == "same_rank" and meta["rules"]["preset"] == "crazy-eights"
    assert meta["completed_games"] == 500 and meta["status"] == "complete"
