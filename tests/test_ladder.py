"""The skill ladder (cardsim ladder): each rung against the one below, its win share over
the deals, Holm's correction across the steps, and the skill depth."""

from __future__ import annotations

import json
import math
from statistics import NormalDist

import pandas as pd
import pytest
from cli_helpers import cardsim_here

import simulate
from analysis.comparisons.ladder import Step, detectable_share, ladder_steps, skill_depth
from analysis.load import load_run
from simulate.core.errors import CardsimError


def test_steps_are_tested_one_sided_and_holm_corrected():
    """Three steps at 4 players (fair share 25%): z tests of a larger share, Holm over the
    three, the depth counting the clear ones; an edge below 1/n is never clear."""
    steps = [
        Step("b", "a", 8000, 2400, 0.300, 0.010),  # z = 5: clear
        Step("c", "b", 8000, 2080, 0.260, 0.005),  # z = 2: p 0.023, Holm 0.046: clear
        Step("d", "c", 8000, 1920, 0.240, 0.005),  # below the fair share
    ]
    table = ladder_steps(steps, 4)
    p = [NormalDist().cdf(-z) for z in (5, 2, -2)]
    assert table["p"].tolist() == pytest.approx(p)
    assert table["p_holm"].tolist() == pytest.approx([3 * p[0], 2 * p[1], p[2]])
    assert table["clear"].tolist() == [True, True, False] and skill_depth(table) == 2
    z = NormalDist().inv_cdf(0.975)
    assert table["lo"].tolist() == pytest.approx(
        [0.3 - z * 0.01, 0.26 - z * 0.005, 0.24 - z * 0.005]
    )
    # detectable: 1/n + (z of 5%/3 one-sided + z of 80% power) x the standard error
    k = NormalDist().inv_cdf(1 - 0.05 / 3) + NormalDist().inv_cdf(0.8)
    assert table["detectable"].tolist() == pytest.approx(
        [0.25 + k * e for e in (0.01, 0.005, 0.005)]
    )
    assert detectable_share(0.01, 2) == pytest.approx(0.5 + 2.4865 * 0.01, abs=1e-4)
    # a rung that wins every game of every deal: no spread, clearly above the fair share
    sure = ladder_steps([Step("b", "a", 400, 400, 1.0, 0.0), Step("c", "b", 400, 0, 0.0, 0.0)], 4)
    assert sure["p"].tolist() == [0.0, 1.0] and sure["clear"].tolist() == [True, False]
    # a single deal: no standard error, no test
    alone = ladder_steps([Step("b", "a", 4, 2, 0.5, math.nan)], 4)
    assert math.isnan(alone["p"][0]) and not alone["clear"][0]


@pytest.fixture(scope="module")
def ladder(tmp_path_factory):
    out = tmp_path_factory.mktemp("ladder") / "out"
    table = simulate.ladder(
        "crazy-eights",
        strategies="random,greedy,hold-wilds",
        players=4,
        games=1500,
        seed=5,
        out=out,
        threads=1,
        formats="png",
    )
    return out, table


def test_each_step_counts_its_pairings_games(ladder):
    out, table = ladder
    info = json.loads((out / "tournament.json").read_text())
    assert info["ladder"] is True and info["pairings"] == [[1, 0], [2, 1]]
    assert table[["strategy", "below"]].values.tolist() == [
        ["greedy", "random"],
        ["hold-wilds", "greedy"],
    ]
    for k, step in enumerate(table.itertuples(), start=1):
        games = load_run(out / f"pair-{k}-{k - 1}").games
        # the stronger rung sits in base seat 0, so in seat `rotation` of each seating
        won = games["winner"] == games["rotation"]
        assert len(games) == 6000  # 1,500 deals, each in 4 seatings
        assert (step.games, step.wins) == (len(games), int(won.sum()))
        assert step.share == step.wins / step.games and step.lo < step.share < step.hi
        # over the deals: each deal's four seatings together
        per_deal = won.groupby(games["game"]).mean()
        se = per_deal.std(ddof=1) / math.sqrt(len(per_deal))
        assert (step.hi - step.lo) / 2 == pytest.approx(1.959964 * se, rel=1e-3)
    assert table["clear"].tolist() == [False, True]  # hold-wilds clearly beats greedy
    written = pd.read_csv(out / "ladder.csv")
    pd.testing.assert_frame_equal(written, table, check_dtype=False)
    report = (out / "report.md").read_text()
    assert "# Skill ladder: four-player Crazy Eights" in report
    assert "Skill depth: 1 of 2 steps." in report and (out / "charts" / "ladder.png").exists()
    assert simulate.ladder_frame(out).equals(table)


def test_a_tournament_folder_is_not_a_ladder(tmp_path):
    out = tmp_path / "t"
    simulate.write_tournament(
        "crazy-eights", strategies="random,greedy", players=3, games=50, seed=1, out=out,
        report=False,
    )  # fmt: skip
    with pytest.raises(CardsimError, match="holds a tournament, not a ladder"):
        simulate.ladder_frame(out)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--strategies", "random"], "a ladder needs at least 2 rungs, got 1"),
        (["--strategies", "random,bogus"], "unknown strategy 'bogus'"),
        (["--strategies", "random,pimc:0"], "k (rollouts per option) must be a whole number"),
        (["--games", "0"], "games"),
    ],
)
def test_bad_ladders_are_one_line_exit_2_and_write_nothing(tmp_path, args, message):
    done = cardsim_here("ladder", "crazy-eights", *args, "--out", tmp_path / "l", cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "l").exists()
    other = cardsim_here("ladder", "bmn", "--out", tmp_path / "l", cwd=tmp_path)
    assert other.returncode == 2 and "ladder does not take beggar-my-neighbour" in other.stderr
    assert not (tmp_path / "l").exists()


def test_a_ladder_of_strong_players_says_its_cost_first(tmp_path):
    # pimc rungs of doubling budgets, as the default ladder has (smaller, to stay quick):
    # the cost is estimated from a pilot before anything is played.
    out = tmp_path / "strong"
    done = cardsim_here(
        "ladder", "crazy-eights", "--players", "3", "--strategies", "random,pimc:2,pimc:4",
        "--games", "24", "--seed", "3", "--threads", "1", "--out", out, "--formats", "png",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "\u2501" not in line]  # no bars
    assert said[0].startswith("strong players (pimc:2, pimc:4): ")
    assert said[1] == f"pimc:2 against 2 x random -> {out / 'pair-1-0'}"
    table = simulate.ladder_frame(out)
    assert table["strategy"].tolist() == ["pimc:2", "pimc:4"]
    assert table["games"].tolist() == [24 * 3, 24 * 3]
