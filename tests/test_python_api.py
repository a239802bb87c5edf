"""The Python API (simulate.app.api, docs/python.md): simulate, sweep, compare, tournament and
tune return pandas objects equal to what the run folders and the reports hold, and the
DataFrame-facing charts of analysis.charts draw the numbers of the records they are given."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from pandas.testing import assert_frame_equal

import simulate
from analysis import charts
from analysis.errors import ReportError
from analysis.load import Run, load_run
from analysis.statistics.stats import wilson_interval
from simulate.app.commands.shedding_tune import POPULATION, ROUNDS
from simulate.core.errors import CardsimError

MATCHES = {"match_deals": 3}
"""Pis Yedili plays four-deal matches by default; three keep the runs small."""


# --- simulate: a run with its matches ------------------------------------------------------


@pytest.fixture(scope="module")
def match_run(tmp_path_factory) -> tuple[Path, Run, Run]:
    """A small match-play run written to a folder, and the same run played in memory."""
    out = tmp_path_factory.mktemp("api") / "py"
    options = dict(
        players=4,
        games=3000,
        seed=11,
        rules=MATCHES,
        strategies=["greedy", "random", "random", "random"],
    )
    written = simulate.simulate("pis-yedili", out=out, **options)
    in_memory = simulate.simulate("pis-yedili", **options)
    return out, written, in_memory


def test_simulate_gives_the_matches_load_run_reads(match_run):
    out, written, in_memory = match_run
    loaded = load_run(out)
    assert written.path == out and in_memory.path is None
    assert written.meta == loaded.meta and written.meta["status"] == "complete"
    assert len(loaded.matches) == 3000 and len(loaded.games) == 9000
    for run in (written, in_memory):
        assert_frame_equal(run.matches, loaded.matches, check_exact=True)
        assert_frame_equal(run.games, loaded.games, check_exact=True)
    assert in_memory.meta.items() <= loaded.meta.items()
    # both tables carry the run's metadata, which the charts read
    assert in_memory.games.attrs["players"] == 4 and loaded.matches.attrs["seed"] == 11


def test_run_still_returns_the_records_with_plain_metadata(match_run):
    out, written, _ = match_run
    frame = simulate.run(
        "pis-yedili",
        players=4,
        games=3000,
        seed=11,
        rules=MATCHES,
        strategies=["greedy", "random", "random", "random"],
    )
    assert isinstance(frame, pd.DataFrame)
    assert_frame_equal(frame, written.games, check_exact=True)
    # the metadata stays JSON: slices of a run concatenate, and the frame saves as Parquet
    json.dumps(frame.attrs)
    both = pd.concat([frame[frame["winner"] == 0], frame[frame["winner"] != 0]])
    assert len(both) == len(frame) and both.attrs["seed"] == 11


def test_simulate_without_matches(tmp_path):
    out = tmp_path / "bmn"
    run = simulate.simulate("bmn", players=3, games=2000, seed=3, out=out)
    assert run.matches is None and len(run.games) == 2000
    assert not (out / "report.html").exists()  # report=True writes it (tests/test_summary.py)
    assert_frame_equal(
        run.games, simulate.simulate("bmn", players=3, games=2000, seed=3).games, check_exact=True
    )


def interrupted_run(out: Path, game: str, stop_at: int, **settings) -> None:
    """Leave in ``out`` the run of ``settings`` interrupted (as by Ctrl-C) once the chunk
    that starts at game ``stop_at`` is played: the chunks of 1,000 games before it kept."""
    from simulate.runs.engine import RunInterrupted, stream
    from simulate.runs.folder.writer import RunWriter
    from simulate.runs.request import make_request

    request = make_request(game, threads=1, **settings)

    def consume(chunk):
        if chunk.games["game"][0].as_py() == stop_at:
            raise KeyboardInterrupt

    with RunWriter(out, request.meta()) as writer, pytest.raises(RunInterrupted):
        stream(request, writer, consume, chunk_size=1000)
    assert json.loads((out / "run.json").read_text())["status"] == "interrupted"


def test_simulate_resumes_an_interrupted_run_as_the_command_does(tmp_path):
    """resume=True completes a run with its own settings (those given besides must be the
    run's) to the records of one played in one go; write_run writes the same folder
    without reading it back."""
    settings = dict(players=3, games=6000, seed=21)
    out = tmp_path / "run"
    interrupted_run(out, "bmn", 2000, **settings)
    with pytest.raises(CardsimError, match=r"these differ: --seed 5 \(the run's: 21\)"):
        simulate.simulate("bmn", out=out, resume=True, seed=5)
    with pytest.raises(CardsimError, match="give --resume .* or --force"):
        simulate.simulate("bmn", out=out, resume=True, force=True)
    with pytest.raises(CardsimError, match="resume=True needs out=DIR"):
        simulate.simulate("bmn", resume=True)
    run = simulate.simulate("bmn", out=out, resume=True, players=3)
    assert run.meta["status"] == "complete"
    assert_frame_equal(run.games, simulate.simulate("bmn", **settings).games, check_exact=True)
    with pytest.raises(CardsimError, match="holds a complete run; nothing to resume"):
        simulate.simulate("bmn", out=out, resume=True)
    written = simulate.write_run("bmn", out=tmp_path / "written", **settings)
    assert written == tmp_path / "written"
    assert_frame_equal(load_run(written).games, run.games, check_exact=True)


def test_report_verify_and_search_as_the_commands(tmp_path):
    """write_report, verify and search do what cardsim report, verify and search do: a
    report's files, a verdict that finds a damaged chunk and repairs it, the longest deals."""
    out = simulate.write_run("bmn", out=tmp_path / "run", games=3000, seed=5)
    html, md = simulate.write_report(out, formats="png", dpi=50, top=3)
    assert (html, md) == (out / "report.html", out / "report.md")
    assert md.read_text().count("\n") > 20
    verdict = simulate.verify(out, replay=20)
    assert verdict.healthy and verdict.replayed == 20
    chunk = next((out / "games").glob("*.parquet"))
    chunk.write_bytes(chunk.read_bytes()[:-9] + b"damaged!!")
    assert not simulate.verify(out, replay=20).healthy
    repaired = simulate.verify(out, replay=20, repair=True)
    assert repaired.repaired and simulate.verify(out, replay=20).healthy
    found = simulate.search("bmn", games=3000, seed=5, top=2)
    longest = load_run(out).games["cards"].max()
    assert f"{longest:,}" in found or str(longest) in found
    with pytest.raises(CardsimError, match="--top must be at least 1"):
        simulate.search("bmn", games=10, seed=5, top=0)


def test_replay_play_deal_and_describe_rules_as_the_commands(tmp_path):
    """A run folder's game replays as the same game named by its seed; a published deal
    (J23/4J5, Paulhus's cycle) ends in a cycle; rules in words name the game."""
    out = simulate.write_run("bmn", out=tmp_path / "run", games=10, seed=5)
    text = simulate.replay(out, game=3)
    assert text == simulate.replay("bmn", seed=5, game=3)
    assert text.startswith("beggar-my-neighbour, 2 players, seed 5, game 3")
    with pytest.raises(CardsimError, match="run folder, which gives the game's settings"):
        simulate.replay(out, seed=5)
    with pytest.raises(CardsimError, match="--seed is needed"):
        simulate.replay("bmn")
    played = simulate.play_deal("bmn", deal="J23/4J5", trace=True)
    assert played.outcome["end"] == "cycle" and played.outcome["cycle_tricks"] == 2
    assert "trick 1" in played.text
    assert simulate.describe_rules("pis-yedili", players=4).startswith("Pis Yedili: ")


def test_balance_resumes_the_run_and_plays_the_skill_games_it_lacks(tmp_path):
    """balance(resume=True) completes an interrupted run and plays its skill games: the
    measures of the balance played in one go, in memory."""
    settings = dict(players=2, games=3000, seed=8)
    out = tmp_path / "balance"
    interrupted_run(out, "crazy-eights", 1000, **settings)
    for flag in ("resume", "report"):
        with pytest.raises(CardsimError, match=f"{flag}=True needs out=DIR"):
            simulate.balance("crazy-eights", **{flag: True})
    table = simulate.balance("crazy-eights", out=out, resume=True)
    assert (out / "skill" / "run.json").is_file() and load_run(out).meta["status"] == "complete"
    # The run was not traced (a resume keeps its settings): nor is the balance in memory.
    assert_frame_equal(table, simulate.balance("crazy-eights", trace=0, **settings))
    again = simulate.balance("crazy-eights", out=out, resume=True, report=True)
    assert_frame_equal(again, table)
    assert (out / "balance.csv").is_file()


def test_api_arguments_are_keyword_only_and_mistakes_are_one_line(tmp_path):
    with pytest.raises(TypeError):
        simulate.simulate("bmn", 2)  # type: ignore[misc]
    with pytest.raises(TypeError):
        simulate.tournament("pis-yedili", ["random", "greedy"], tmp_path)  # type: ignore[misc]
    with pytest.raises(CardsimError, match="report=True needs out=DIR"):
        simulate.simulate("bmn", games=10, report=True)
    with pytest.raises(CardsimError, match="unknown game"):
        simulate.simulate("chess", games=10)
    with pytest.raises(CardsimError, match="two or more run folders"):
        simulate.compare(tmp_path)


def test_import_simulate_loads_neither_numba_nor_pandas():
    code = (
        "import sys, simulate\n"
        "assert callable(simulate.sweep) and callable(simulate.compare)\n"
        "print(sorted(m for m in ('numba', 'pandas') if m in sys.modules))\n"
    )
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip() == "[]"
    from simulate.runs.request import DEFAULT_GAMES

    assert simulate.app.api.DEFAULT_GAMES == DEFAULT_GAMES


# --- compare and sweep: the comparison table -------------------------------------------------


@pytest.fixture(scope="module")
def two_rules(tmp_path_factory) -> tuple[Path, Path]:
    """Pis Yedili single deals under stacked 7s adding and doubling, on the same deals."""
    root = tmp_path_factory.mktemp("rules")
    for name, rules in (("adding", {}), ("doubling", {"stack_growth": "double"})):
        simulate.run(
            "pis-yedili",
            players=4,
            games=4000,
            seed=7,
            rules={"match_deals": None, **rules},
            out=root / name,
        )
    return root / "adding", root / "doubling"


def test_compare_returns_the_table_of_comparison_csv(two_rules, tmp_path):
    adding, doubling = two_rules
    table = simulate.compare(adding, doubling)
    assert table["variant"].tolist() == ["adding", "doubling"]
    assert table["is_base"].tolist() == [True, False]
    assert table["first_analysis"].iloc[1] == "paired"
    # the figures are the records' own
    games = load_run(doubling).games
    share = (games["winner"] == 0).mean()
    assert table["first_share"].iloc[1] == pytest.approx(share, rel=1e-9)
    lo, hi = wilson_interval(int((games["winner"] == 0).sum()), len(games))
    assert (table["first_lo"].iloc[1], table["first_hi"].iloc[1]) == pytest.approx((lo, hi))
    assert table["mean_length"].iloc[1] == pytest.approx(games["turns"].mean(), rel=1e-9)
    assert table["first_significant"].dtype == "boolean"
    assert pd.isna(table["first_significant"].iloc[0])
    # written: the same table, read from the comparison.csv beside the report
    written = simulate.compare(adding, doubling, out=tmp_path / "cmp", base="adding")
    assert (tmp_path / "cmp" / "report.html").exists()
    assert_frame_equal(written, table)
    assert_frame_equal(written, simulate.read_comparison(tmp_path / "cmp" / "comparison.csv"))
    with pytest.raises(CardsimError, match="already holds a comparison"):
        simulate.compare(adding, doubling, out=tmp_path / "cmp")
    # write_compare, as the command: the report's files, its charts as asked, nothing read
    files = simulate.write_compare(adding, doubling, out=tmp_path / "svg", formats="svg", dpi=50)
    assert files == [tmp_path / "svg" / "report.html", tmp_path / "svg" / "report.md"]
    assert {path.suffix for path in (tmp_path / "svg" / "charts").iterdir()} == {".svg"}
    with pytest.raises(CardsimError, match="given twice"):
        simulate.compare(adding, adding)
    # the base by name or position: the other run's differences change sign
    other = simulate.compare([adding, doubling], base=1)
    assert other["is_base"].tolist() == [False, True]
    assert other["length_diff"].iloc[0] == pytest.approx(-table["length_diff"].iloc[1])
    with pytest.raises(CardsimError, match="none of the runs"):
        simulate.compare(adding, doubling, base="halving")


def test_compare_refuses_what_it_cannot_compare(two_rules, tmp_path):
    adding, _ = two_rules
    simulate.run("bmn", games=500, seed=1, out=tmp_path / "bmn")
    with pytest.raises(ReportError, match="cannot be compared"):
        simulate.compare(adding, tmp_path / "bmn")


STUDY = """\
title = "stacked 7s"
game = "pis-yedili"
players = [3, 4]
games = 1000000
seed = 7
rules = { match_deals = 2 }

[[variant]]
name = "adding"
rules = {}

[[variant]]
name = "doubling"
rules = { stack_growth = "double" }
"""


@pytest.mark.end_to_end
def test_sweep_returns_one_row_per_variant_and_player_count(tmp_path):
    study = tmp_path / "sevens.toml"
    study.write_text(STUDY)
    table = simulate.sweep(study, out=tmp_path / "study", games=1500, formats="svg")
    assert list(zip(table["players"], table["variant"], strict=True)) == [
        (3, "adding"),
        (3, "doubling"),
        (4, "adding"),
        (4, "doubling"),
    ]
    for players in (3, 4):
        folder = tmp_path / "study" / f"compare-{players}p"
        written = simulate.read_comparison(folder / "comparison.csv")
        rows = table[table["players"] == players].reset_index(drop=True)
        assert_frame_equal(rows[list(written.columns)], written)
        # a column of the other player count only (an end reason never seen here) is empty
        assert rows.drop(columns=written.columns).isna().all().all()
        charts = {path.suffix for path in (folder / "charts").iterdir()}
        assert charts == {".svg"}  # the formats asked for, as --formats
    matches = load_run(tmp_path / "study" / "doubling-4p").matches
    row = table[(table["players"] == 4) & (table["variant"] == "doubling")].iloc[0]
    assert row["matches"] == 1500
    assert row["match_share"] == pytest.approx(matches["share_0"].mean(), rel=1e-9)
    # without the report: the same numbers, computed in memory, nothing but the runs written
    from simulate.app.studies.file import load_study

    # (write_sweep, as the command: the folder written and nothing read back; then sweep
    # completes it, every cell kept as it is, and computes the table)
    written = simulate.write_sweep(
        load_study(study), out=tmp_path / "quiet", games=1500, report=False
    )
    assert written.reports == []
    cells = ["adding-3p", "doubling-3p", "adding-4p", "doubling-4p"]
    assert written.runs == [tmp_path / "quiet" / cell for cell in cells]
    assert not (tmp_path / "quiet" / "compare-4p").exists()
    quiet = simulate.sweep(study, out=tmp_path / "quiet", games=1500, report=False, resume=True)
    assert_frame_equal(quiet, table)
    with pytest.raises(CardsimError, match="already holds a study"):
        simulate.sweep(study, out=tmp_path / "quiet", games=1500)


# --- tournament and tune ----------------------------------------------------------------------


def test_tournament_returns_shares_and_ratings(tmp_path):
    out = tmp_path / "tour"
    table = simulate.tournament(
        "pis-yedili",
        strategies="random,greedy",
        players=3,
        games=600,
        seed=5,
        rules={"match_deals": None},
        out=out,
    )
    assert table[["strategy", "against"]].values.tolist() == [
        ["random", "greedy"],
        ["greedy", "random"],
    ]
    assert set(table.columns) == {
        "strategy",
        "against",
        "share",
        "lo",
        "hi",
        "games",
        "rating",
        "rating_lo",
        "rating_hi",
        "rated_games",
    }
    # the share of games that the single seat's strategy won, from the pairing's records
    games = load_run(out / "pair-1-0").games
    seat = games["rotation"].to_numpy()
    won = (games["winner"].to_numpy() == seat).mean()
    assert table.loc[table["strategy"] == "greedy", "share"].iloc[0] == pytest.approx(won)
    # the report's tables hold the same numbers
    matrix = pd.read_csv(out / "matrix.csv")
    ratings = pd.read_csv(out / "ratings.csv")
    assert_frame_equal(table[list(matrix.columns)], matrix)
    by_name = ratings.set_index("strategy")
    for row in table.itertuples():
        assert row.rating == pytest.approx(by_name.loc[row.strategy, "rating"])
        assert row.rated_games == by_name.loc[row.strategy, "games"]
    assert table["rating"].sum() == pytest.approx(0, abs=1e-9)
    wide = table.pivot(index="strategy", columns="against", values="share")
    assert wide.loc["greedy", "random"] == table["share"].iloc[1]
    fig = charts.tournament_chart(table)
    assert isinstance(fig, Figure)


def test_tune_returns_the_result_and_writes_it(tmp_path):
    budget = ROUNDS * POPULATION * 2 * 12
    out = tmp_path / "tune.json"
    result = simulate.tune(
        "crazy-eights", players=2, opponents="random", budget=budget, seed=4, holdout=400, out=out
    )
    assert result.spec.startswith("weighted:") and result.holdout_games == 800
    assert result.lo <= result.share <= result.hi
    assert json.loads(out.read_text())["spec"] == result.spec
    assert len(pd.DataFrame(result.history)) == ROUNDS


# --- analysis.charts: the report's charts from a DataFrame -----------------------------------


@pytest.fixture(scope="module")
def bmn_games() -> pd.DataFrame:
    return simulate.run("bmn", players=2, games=20_000, seed=9, rules={"time_limit": 400})


def test_charts_draw_the_records_they_are_given(bmn_games):
    games = bmn_games
    fig = charts.win_share_chart(games)
    assert isinstance(fig, Figure) and "20,000 deals" in fig.get_suptitle()
    line = fig.axes[0].lines[0]  # the win shares' markers
    winners = games["winner"].to_numpy()
    assert line.get_ydata() == pytest.approx([(winners == s).mean() for s in (0, 1)])

    ended = games[games["end"] != "cycle"]
    fig = charts.length_histogram(games)
    heights = sum(patch.get_height() for patch in fig.axes[0].patches)
    assert 0.998 * len(ended) <= heights <= len(ended)  # up to the 99.9th percentile

    fig = charts.length_histogram(games, ["cards", "tricks"])
    assert len(fig.axes) == 2

    fig = charts.survival_chart(games, "tricks")
    x, s = fig.axes[0].lines[0].get_data()
    assert s[0] == pytest.approx((ended["tricks"] > x[0]).mean())

    fig = charts.convergence_chart(games)
    share_line = fig.axes[0].lines[0]
    assert share_line.get_xdata()[-1] == len(games)
    assert share_line.get_ydata()[-1] == pytest.approx((winners == 0).mean())
    mean_line = fig.axes[1].lines[0]
    assert mean_line.get_ydata()[-1] == pytest.approx(ended["cards"].mean())

    fig = charts.box_chart(games, "cards", by="winner")
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert labels == ["no winner", "seat 0 wins", "seat 1 wins"][-len(labels) :]


def test_charts_of_a_table_without_metadata_and_of_matches(bmn_games, match_run):
    plain = pd.DataFrame(bmn_games)
    plain.attrs = {}
    fig = charts.win_share_chart(plain)
    assert fig.get_suptitle() == ""
    assert len(fig.axes[0].get_xticks()) == 2
    with pytest.raises(ValueError, match="whole numbers"):
        charts.length_histogram(plain.assign(cards=plain["cards"] / 2), "cards")

    _, written, _ = match_run
    fig = charts.win_share_chart(written.matches)
    expected = [written.matches[f"share_{s}"].mean() for s in range(4)]
    assert fig.axes[0].lines[0].get_ydata() == pytest.approx(expected)
    assert "matches" in fig.get_suptitle()
    fig = charts.seat_chart(written.games, "score")
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == [f"seat {s}" for s in range(4)]
    # a slice keeps the run's metadata: the title counts its own deals
    long = written.games[written.games["turns"] > 30]
    assert f"{len(long):,} deals" in charts.length_histogram(long).get_suptitle()
    assert np.isfinite(fig.axes[0].get_ylim()).all()


def test_the_api_default_is_the_engine_default():
    """simulate.app.api keeps a copy (importing the engine's would load numpy on `import
    simulate`): the two must agree."""
    from simulate.app import api
    from simulate.runs import request

    assert api.DEFAULT_GAMES == request.DEFAULT_GAMES


def test_an_empty_out_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    """out="" would name the current folder (issue 32: a run written into it)."""
    monkeypatch.chdir(tmp_path)
    calls = {
        "simulate": lambda: simulate.simulate("bmn", games=10, out=""),
        "write_run": lambda: simulate.write_run("bmn", games=10, out=""),
        "balance": lambda: simulate.balance("bmn", games=10, out=""),
        "sweep": lambda: simulate.sweep("study.toml", out=""),
        "write_sweep": lambda: simulate.write_sweep("study.toml", out=""),
        "compare": lambda: simulate.compare(["a", "b"], out=""),
        "write_compare": lambda: simulate.write_compare(["a", "b"], out=""),
        "tournament": lambda: simulate.tournament("pis-yedili", strategies="random,greedy", out=""),
        "write_tournament": lambda: simulate.write_tournament(
            "pis-yedili", strategies="random,greedy", out=""
        ),
        "tune": lambda: simulate.tune("pis-yedili", out=" "),
        "explore": lambda: simulate.explore(
            "pis-yedili", vary=["hand_size=5..6"], aim=["seat_spread"], out=""
        ),
        "write_explore": lambda: simulate.write_explore(
            "pis-yedili", vary=["hand_size=5..6"], aim=["seat_spread"], out=""
        ),
    }
    for name, call in calls.items():
        with pytest.raises(CardsimError, match=f"{name}: out is an empty path"):
            call()
    with pytest.raises(CardsimError, match="simulate: out 'gs://b/run' is a URL"):
        simulate.simulate("bmn", games=10, out="gs://b/run")
    assert list(tmp_path.iterdir()) == []


def test_importing_a_game_the_engine_or_analysis_never_imports_the_application_layer():
    """The package's face loads the API on first use: a game, the engine, the run folder
    and analysis run without the API, the CLI, the studies, the explorer or the cluster;
    ``simulate.simulate`` and ``from simulate import sweep`` still give the API's."""
    code = (
        "import sys, simulate, simulate.games.shedding.kernel, simulate.runs.engine\n"
        "import simulate.runs.folder.writer, analysis.load, analysis.reports\n"
        "layer = ('simulate.app.api', 'simulate.app.cli', 'simulate.app.studies', 'simulate.app.exploration',\n"
        "         'simulate.runs.cluster', 'simulate.app.commands')\n"
        "loaded = [m for m in sys.modules if m.startswith(layer)]\n"
        "assert not loaded, loaded\n"
        "from simulate import sweep\n"
        "assert simulate.simulate.__module__ == 'simulate.app.api.runs'\n"
        "assert sweep.__module__ == 'simulate.app.api.studies'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
