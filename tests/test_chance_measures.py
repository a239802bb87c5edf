"""The trace's measures (analysis.chances): each on a game worked by hand, the noise
correction of stability, and balance's table and report with them."""

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from analysis.balance import read_balance
from analysis.chances import TRACE_MEASURES, chance_measures, course_by_finish, game_chances
from analysis.load import load_run
from simulate.app.cli import app


def _trace(games: list[list[list[int]]]) -> pd.DataFrame:
    """A trace table of games given as their points' wins ([point][seat])."""
    rows = [
        (game, turn, seat, wins)
        for game, points in enumerate(games)
        for turn, point in enumerate(points)
        for seat, wins in enumerate(point)
    ]
    frame = pd.DataFrame(rows, columns=["game", "turn", "seat", "wins"])
    return frame.astype({"turn": np.int32, "seat": np.int8, "wins": np.int16})


WORKED = [[2, 2], [4, 0], [0, 4], [0, 4]]
"""Two seats, 4 rollouts, 3 turns: seat 0 leads after turn 1, seat 1 from turn 2 and wins."""


def test_each_measure_of_a_game_worked_by_hand():
    no_winner = [[2, 1], [1, 1], [0, 0]]
    games = game_chances(_trace([WORKED, no_winner]), rollouts=4)
    assert len(games) == 1  # the game without a winner is left out
    game = games.iloc[0]
    assert (game.winner, game.turns) == (1, 3)
    # Before the outcome the highest chances are 0.5, 1, 1, the winner's 0.5, 0, 1.
    assert game.drama == pytest.approx(1 / 3)
    assert game.dramatic_games == 1.0
    assert game.security == pytest.approx(2 / 3)
    assert game.decisive_moment == pytest.approx(2 / 3)  # at 0.8 or more from turn 2 on
    # Squared steps less the noise p(1-p)/(R-1) at each noisy end (the first point only).
    noise = 0.25 / 3
    assert game.stability_sq == pytest.approx((2 * (0.25 - noise) + 2 * 1.0 + 0) / 6)
    assert game.chance_lead_changes == 1.0  # seat 0 to seat 1, by 1 > 1/sqrt(4)
    measures = chance_measures(_trace([WORKED]), rollouts=4)
    assert list(measures) == list(TRACE_MEASURES)
    assert measures["stability"][0] == pytest.approx(np.sqrt(game.stability_sq))
    assert all(lo == value == hi for value, lo, hi in measures.values())  # one game


def test_the_course_by_finish_follows_the_winner_and_the_others():
    course = course_by_finish(_trace([WORKED]), rollouts=4, bins=3)
    got = {(row.rank, round(row.share, 3)): row.chance for row in course.itertuples()}
    # Seat 1 won (rank 1): chances 0.5, 0, 1, 1 at shares 0, 1/3, 2/3, 1 (bins 0, 1, 2, 2).
    assert got == {
        (1, 0.167): 0.5, (1, 0.5): 0.0, (1, 0.833): 1.0,
        (2, 0.167): 0.5, (2, 0.5): 1.0, (2, 0.833): 0.0,
    }  # fmt: skip


def test_a_change_within_the_noise_is_no_lead_change():
    flicker = [[33, 31], [31, 33], [33, 31], [30, 34], [0, 64]]
    game = game_chances(_trace([flicker]), rollouts=64).iloc[0]
    assert game.chance_lead_changes == 0.0
    assert game.security == pytest.approx(2 / 4)


def test_stability_removes_the_rollouts_noise():
    """Chances that never move, estimated from 64 rollouts a point: the raw steps are
    the noise's (about 0.088), the corrected ones nearly 0."""
    rng = np.random.default_rng(7)
    games = []
    for _ in range(40):
        wins = rng.binomial(64, 0.5, 400)
        games.append([[int(w), 64 - int(w)] for w in wins] + [[64, 0]])
    measures = chance_measures(_trace(games), rollouts=64)
    raw = np.sqrt(np.mean(np.diff(np.array(games[0])[:-1, 0] / 64) ** 2))
    assert raw > 0.08
    assert measures["stability"][0] < 0.03
    assert measures["stability"][1] <= measures["stability"][0] <= measures["stability"][2]


def test_balance_measures_a_traced_run_and_reports_it(tmp_path):
    out = tmp_path / "run"
    args = ["balance", "crazy-eights", "--games", "600", "--skill-games", "60", "--seed", "3"]
    args += ["--trace", "40", "--rollouts", "8", "--out", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    table = read_balance(out, definitions=True)
    assert set(TRACE_MEASURES) <= set(table.index)
    assert (table.loc[list(TRACE_MEASURES), "lo"] <= table.loc[list(TRACE_MEASURES), "value"]).all()
    report = (out / "report.md").read_text()
    assert "40 games traced" in report and "8 rollouts" in report
    assert "drama" in result.output
    # The check: the same 40 games traced again at 16 rollouts, their records the run's.
    check = load_run(out / "trace-check")
    assert (check.meta["trace"], check.meta["rollouts"]) == (40, 16)
    assert check.games.equals(load_run(out).games.iloc[:40])
    assert "| measure | at 8 | 95% CI | at 16 | converged |" in report
    assert "## Win chances through the game" in report
    assert (out / "charts" / "trace_course.png").is_file()
    assert (out / "charts" / "trace_games.png").is_file()
    # Resumed, a complete check is kept as it is.
    before = (out / "trace-check" / "run.json").read_text()
    again = CliRunner().invoke(app, ["balance", "crazy-eights", "--out", str(out), "--resume"])
    assert again.exit_code == 0, again.output
    assert (out / "trace-check" / "run.json").read_text() == before


def test_a_traced_simulate_run_checks_its_chance_measures_too(tmp_path):
    out = tmp_path / "run"
    args = ["simulate", "crazy-eights", "--games", "300", "--seed", "3", "--rotate-seats"]
    result = CliRunner().invoke(app, [*args, "--trace", "30", "--rollouts", "4", "--out", str(out)])
    assert result.exit_code == 0, result.output
    # What the trace will take is said first, from a pilot of its first games.
    assert "trace (30 games at 4 rollouts a point): " in result.stderr
    assert "trace check: the first 30 traced games again at 8 rollouts a point" in result.stderr
    check = load_run(out / "trace-check")
    assert (check.meta["trace"], check.meta["rollouts"], check.meta["rotate_seats"]) == (
        30,
        8,
        True,
    )
    report = (out / "report.md").read_text()
    assert "| measure | at 4 | 95% CI | at 8 | converged |" in report
