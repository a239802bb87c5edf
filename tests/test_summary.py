"""summary.csv (analysis.summary): the report's headline figures, one row per figure, equal
to the same figures computed directly from load_run's DataFrames, for every game."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal
from plugin_helpers import installed, make_site
from test_analysis_compare import make_run

import simulate
from analysis.load import load_run, open_run
from analysis.reports import build_report
from analysis.statistics.bootstrap import mean_interval
from analysis.summary import COLUMNS, SUMMARY_FILE, read_summary, summary_along, summary_table
from simulate.runs.folder.distribution import Distribution

Z = 1.959963984540054
"""The normal quantile of a 95% interval."""


def wilson(k: float, n: int) -> tuple[float, float]:
    """The Wilson score interval, written out here."""
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z / (1 + Z * Z / n) * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return (0.0 if k == 0 else centre - half), (1.0 if k == n else centre + half)


def figures(table: pd.DataFrame) -> pd.DataFrame:
    assert table["measure"].is_unique
    return table.set_index("measure")


def check_share(rows: pd.DataFrame, measure: str, wins: np.ndarray, n: int | None = None):
    """The row ``measure`` holds the share of ``wins`` (booleans, or fractions summed)."""
    n = len(wins) if n is None else n
    k = float(np.sum(wins))
    row = rows.loc[measure]
    assert row["value"] == pytest.approx(k / n, rel=1e-12, abs=1e-15)
    assert (row["lo"], row["hi"]) == pytest.approx(wilson(k, n), rel=1e-9, abs=1e-12)
    assert row["unit"] == "share" and row["n"] == n


def check_length(rows: pd.DataFrame, column: str, values: pd.Series, unit: str):
    """The length rows of ``column`` describe ``values`` as numpy does."""
    values = values.to_numpy()
    n = len(values)
    mean = rows.loc[f"mean_{column}"]
    assert mean["value"] == pytest.approx(values.mean(), rel=1e-12)
    assert (mean["lo"], mean["hi"]) == mean_interval(Distribution.of(values))
    assert mean["lo"] <= mean["value"] <= mean["hi"]
    for measure, expected in [
        ("median", np.median(values)),
        ("p10", np.percentile(values, 10)),
        ("p90", np.percentile(values, 90)),
        ("p99", np.percentile(values, 99)),
        ("max", values.max()),
    ]:
        row = rows.loc[f"{measure}_{column}"]
        assert row["value"] == expected, measure
        assert math.isnan(row["lo"]) and row["unit"] == unit and row["n"] == n


def check_seat_column(rows: pd.DataFrame, column: str, values: pd.Series):
    values = values.to_numpy()
    assert rows.loc[f"mean_{column}", "value"] == pytest.approx(values.mean(), rel=1e-12)
    assert rows.loc[f"median_{column}", "value"] == np.median(values)
    assert rows.loc[f"p10_{column}", "value"] == np.percentile(values, 10)
    assert rows.loc[f"p90_{column}", "value"] == np.percentile(values, 90)


# --- Beggar-My-Neighbour: the report writes summary.csv ------------------------------------


@pytest.fixture(scope="module")
def bmn(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("summary") / "bmn"
    run = simulate.simulate(
        "bmn", players=3, games=20_000, seed=21, rules={"time_limit": 400}, out=out, report=True
    )
    assert run.path == out
    return out


def test_the_report_writes_summary_csv_beside_it(bmn):
    assert (bmn / SUMMARY_FILE).is_file() and (bmn / "report.html").is_file()
    written = read_summary(bmn)
    assert tuple(written.columns) == COLUMNS
    # the file holds every digit: it reads back equal to the table computed again
    assert_frame_equal(written, summary_table(bmn))
    manifest = (bmn / "manifest.jsonl").read_text()
    assert SUMMARY_FILE not in manifest  # derived, like the report


def test_beggar_figures_equal_the_records(bmn):
    games = load_run(bmn).games
    rows = figures(read_summary(bmn))
    n = len(games)
    winner = games["winner"].to_numpy()
    assert rows.loc["deals", "value"] == n == rows.loc["deals", "n"]
    check_share(rows, "first_seat_win_share", winner == 0)
    for seat in range(3):
        check_share(rows, f"win_share_seat_{seat}", winner == seat)
    check_share(rows, "no_winner_share", winner < 0)
    end = games["end"].astype(str).to_numpy()
    assert (end == "time_limit").sum() > 100  # the time limit ends some deals
    for reason in ("out", "cycle", "time_limit"):
        check_share(rows, f"end_{reason}_share", end == reason)
    advantage = rows.loc["first_seat_advantage"]
    assert advantage["value"] == pytest.approx((winner == 0).mean() - 1 / 3)
    ended = games[end != "cycle"]
    check_length(rows, "cards", ended["cards"], "cards")
    check_length(rows, "tricks", ended["tricks"], "tricks")
    for seat in range(3):
        check_seat_column(rows, f"cards_held_{seat}", games[f"cards_held_{seat}"])
    assert "matches" not in rows.index and "win_share_position_0" not in rows.index


def test_lengths_leave_out_the_deals_that_never_end(tmp_path):
    folder = make_run(tmp_path / "cycles", 495, n=1000)  # 10 of its deals cycle
    games = load_run(folder).games
    rows = figures(summary_table(folder))
    ended = games[games["end"] != "cycle"]
    assert len(ended) == 990
    check_share(rows, "end_cycle_share", games["end"].astype(str).to_numpy() == "cycle")
    check_length(rows, "cards", ended["cards"], "cards")
    assert rows.loc["mean_cards", "n"] == 990 and rows.loc["deals", "n"] == 1000


# --- the shedding games: matches, strategies, rotated seats, a random first seat -----------


@pytest.fixture(scope="module")
def shedding_matches(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("summary") / "py"
    simulate.run(
        "pis-yedili",
        players=4,
        games=4000,
        seed=8,
        rules={"match_deals": 3},
        strategies=["greedy", "random", "random", "random"],
        out=out,
    )
    return out


def test_shedding_match_figures_equal_the_records(shedding_matches):
    run = load_run(shedding_matches)
    games, matches = run.games, run.matches
    rows = figures(summary_table(shedding_matches))
    winner = games["winner"].to_numpy()
    leader = games["first_seat"].to_numpy()
    # the first seat is the deal's leader (the lead moves from deal to deal in a match)
    assert set(np.unique(leader).tolist()) == {0, 1, 2}  # deal k of a match: seat k
    position = np.where(winner >= 0, (winner - leader) % 4, -1)
    check_share(rows, "first_seat_win_share", position == 0)
    for k in range(4):
        check_share(rows, f"win_share_position_{k}", position == k)
        check_share(rows, f"win_share_seat_{k}", winner == k)
    check_share(rows, "win_share_strategy_greedy", winner == 0)
    check_share(rows, "win_share_strategy_random", winner > 0)
    end = games["end"].astype(str).to_numpy()
    for reason in ("out", "stock_out", "blocked", "play_cap", "turn_cap"):
        check_share(rows, f"end_{reason}_share", end == reason)
    for column, unit in [("turns", "turns"), ("plays", "cards"), ("draws", "cards")]:
        check_length(rows, column, games[column], unit)
    for seat in range(4):
        for prefix in ("cards_left", "points", "score"):
            check_seat_column(rows, f"{prefix}_{seat}", games[f"{prefix}_{seat}"])
    # match play
    m = len(matches)
    assert rows.loc["matches", "value"] == m == 4000
    for seat in range(4):
        check_share(rows, f"match_win_share_seat_{seat}", matches[f"share_{seat}"], m)
        check_seat_column(rows, f"match_total_{seat}", matches[f"total_{seat}"])
        assert rows.loc[f"mean_match_total_{seat}", "unit"] == "points"
    assert (
        rows.loc["mean_deals_per_match", "value"] == 3 == rows.loc["median_deals_per_match"].value
    )


def test_rotated_seats_count_strategies_by_the_seat_they_hold(tmp_path):
    out = tmp_path / "rotated"
    simulate.run(
        "crazy-eights",
        players=3,
        games=3000,
        seed=4,
        rules={"first_seat": "random"},
        strategies=["greedy", "random", "random"],
        rotate_seats=True,
        out=out,
    )
    games = load_run(out).games
    rows = figures(summary_table(out))
    winner, rotation = games["winner"].to_numpy(), games["rotation"].to_numpy()
    # rotation r moves seat 0's strategy (greedy) to seat r
    check_share(rows, "win_share_strategy_greedy", winner == rotation)
    check_share(rows, "win_share_strategy_random", (winner >= 0) & (winner != rotation))
    position = np.where(winner >= 0, (winner - games["first_seat"].to_numpy()) % 3, -1)
    check_share(rows, "first_seat_win_share", position == 0)
    check_share(rows, "win_share_position_2", position == 2)


def test_the_summary_rides_along_the_report_pass(shedding_matches):
    run = open_run(shedding_matches)
    table = summary_along(run)
    assert len(run.riders) == 1
    build_report(run)
    assert run.riders == []  # fed by the report's own pass over the records
    assert_frame_equal(table(), summary_table(shedding_matches))
    # without a pass to ride, the summary reads the records itself
    alone = open_run(shedding_matches)
    assert_frame_equal(summary_along(alone)(), summary_table(shedding_matches))


def test_a_rider_is_fed_again_when_the_records_are_out_of_order(tmp_path):
    folder = make_run(tmp_path / "shuffled", 495, n=1000)
    games = pd.read_parquet(folder / "games.parquet")
    games.sample(frac=1, random_state=3).to_parquet(folder / "games.parquet")
    run = open_run(folder)
    table = summary_along(run)
    build_report(run)
    rows = figures(table())
    assert_frame_equal(table(), summary_table(folder))
    assert rows.loc["deals", "value"] == 1000  # counted once, in game order
    check_share(rows, "first_seat_win_share", games["winner"].to_numpy() == 0)


def test_a_new_run_over_the_folder_removes_the_old_summary(tmp_path):
    out = tmp_path / "again"
    simulate.run("bmn", games=300, seed=1, out=out)
    (out / SUMMARY_FILE).write_text("measure,value,lo,hi,unit,n\n")
    simulate.run("bmn", games=300, seed=2, out=out, force=True)
    assert not (out / SUMMARY_FILE).exists()


# --- a game from outside cardsim: the generic report's figures ------------------------------


@pytest.fixture
def plugin(tmp_path):
    """The toy game of tests/plugins installed in this process for one test."""
    with installed(make_site(tmp_path / "site")):
        yield


def test_any_game_gets_its_headline_figures(plugin, tmp_path):
    out = tmp_path / "highcard"
    simulate.run("highcard", players=3, games=5000, seed=2, out=out)
    games = load_run(out).games
    rows = figures(summary_table(out))
    winner = games["winner"].to_numpy()
    check_share(rows, "first_seat_win_share", winner == 0)
    check_share(rows, "no_winner_share", winner < 0)
    end = games["end"].astype(str).to_numpy()
    check_share(rows, "end_out_share", end == "out")
    check_share(rows, "end_draw_share", end == "draw")
    check_length(rows, "tricks", games["tricks"], "tricks")
    check_seat_column(rows, "won_1", games["won_1"])
