"""The designer's balance measures (analysis.balance): each measure against hand-built
tables, the intervals' coverage in simulated samples, skill by restricted play on real runs
(``cardsim balance``, ``simulate.balance``, a study's ``skill`` key), and the report's
Balance section and ``balance.csv``."""

from __future__ import annotations

import json
import math
import shutil
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from run_helpers import RUN_FOLDER
from scipy.stats import binomtest
from typer.testing import CliRunner

import simulate
from analysis.balance import (
    DEFINITIONS,
    MEASURES,
    SKILL_FOLDER,
    SkillCounts,
    balance_csv,
    balance_measures,
    balance_table,
    games_needed,
    read_balance,
    skill_mismatch,
)
from analysis.errors import ReportError
from analysis.load import Batch, load_run, open_run
from analysis.rendering.document import to_markdown
from analysis.reports import build_report
from simulate.app.cli import app
from simulate.app.commands.verify import verify_run
from simulate.app.studies.file import load_study
from simulate.app.studies.sweep import plan_sweep
from simulate.core.errors import CardsimError
from simulate.core.measures import CHOICE_MEASURES, TRACE_MEASURES
from simulate.games.registry import resolve_game

BMN = resolve_game("bmn").spec
SHEDDING = resolve_game("pis-yedili").spec
SINGLE = {"match_deals": None}
runner = CliRunner()


def wilson(k: float, n: int) -> tuple[float, float]:
    ci = binomtest(int(k), n).proportion_ci(method="wilson")
    return ci.low, ci.high


def section(markdown: str, name: str) -> str:
    return markdown.split(f"\n## {name}\n", 1)[1].split("\n## ", 1)[0]


# --- each measure against a table whose answer is counted by hand --------------------------


def bmn_games() -> pd.DataFrame:
    """Ten two-player deals: a cycle (deal 4) and a time-limit tie (deal 9) have no winner."""
    end = ["out"] * 4 + ["cycle"] + ["out"] * 4 + ["time_limit"]
    tricks = np.array([10, 20, 30, 40, 999, 50, 60, 70, 80, 90], np.int32)
    return pd.DataFrame(
        {
            "game": np.arange(10),
            "cards": tricks * 7,
            "tricks": tricks,
            "winner": np.array([0, 0, 1, 0, -1, 1, 0, 0, 1, -1], np.int8),
            "end": pd.Categorical(end, categories=["out", "cycle", "time_limit"]),
            "lead_changes": np.array([1, 2, 3, 4, 100, 5, 6, 7, 8, 9], np.int32),
            "winner_behind": np.array([0, 3, 5, 2, -1, 3, 0, 1, 4, -1], np.int32),
        }
    )


def test_each_measure_of_a_hand_counted_table():
    games = bmn_games()
    table = balance_measures(games, spec=BMN, players=2)
    # Beggar-My-Neighbour has no decision points, and these records no trace: every
    # measure but theirs.
    untraced = [name for name in MEASURES if name not in (*CHOICE_MEASURES, *TRACE_MEASURES)]
    assert list(table.index) == untraced
    assert list(table.columns) == ["value", "lo", "hi", "definition"]
    assert table["definition"].to_dict() == {name: DEFINITIONS[name] for name in table.index}
    value = table["value"]
    # Seat 0 won deals 0, 1, 3, 6, 7; seat 1 deals 2, 5, 8; two deals had no winner.
    assert value["first_seat_advantage"] == pytest.approx(5 / 10 - 1 / 2)
    lo, hi = wilson(5, 10)
    assert table.loc["first_seat_advantage", ["lo", "hi"]].tolist() == pytest.approx(
        [lo - 0.5, hi - 0.5]
    )
    assert value["seat_spread"] == pytest.approx(0.5 - 0.3)
    assert value["decisive"] == pytest.approx(0.8)
    assert table.loc["decisive", ["lo", "hi"]].tolist() == pytest.approx(list(wilson(8, 10)))
    # Lengths in tricks (not cards), the cycle left out: 10, 20, ..., 90.
    ended = np.arange(10, 100, 10)
    assert value["turns"] == pytest.approx(50.0)
    half = 1.959964 * ended.std(ddof=1) / 3
    assert table.loc["turns", ["lo", "hi"]].tolist() == pytest.approx([50 - half, 50 + half])
    assert value["turns_p90"] == pytest.approx(np.percentile(ended, 90))
    assert value["lead_changes"] == pytest.approx(5.0)  # 1..9, the cycle's 100 left out
    assert value["comebacks"] == pytest.approx(4 / 10)  # behind by 3, 5, 3 and 4 cards
    # No choices: skill is 0 exactly.
    assert table.loc["skill", ["value", "lo", "hi"]].tolist() == [0.0, 0.0, 0.0]
    for name in table.index.drop("skill"):
        row = table.loc[name]
        assert row.lo <= row.value <= row.hi, name


def test_decision_measures_are_ratios_of_the_games_sums():
    """forced_share and branching from a hand-made table of three counters: the ratio of
    the sums, and the ratio estimator's interval computed here directly from the games."""
    rng = np.random.default_rng(3)
    n = 400
    decisions = rng.integers(5, 40, n)
    forced = rng.integers(0, 30, n) + decisions // 3  # correlated with decisions
    options = decisions * 2 + rng.integers(0, 50, n)
    games = pd.DataFrame(
        {
            "winner": rng.integers(-1, 3, n).astype(np.int8),
            "end": pd.Categorical(["out"] * n),
            "turns": (decisions + forced).astype(np.int32),
            "decisions": decisions.astype(np.int32),
            "forced": forced.astype(np.int32),
            "options": options.astype(np.int32),
        }
    )
    table = balance_measures(games, spec=resolve_game("crazy-eights").spec, players=3)
    for name, y, x in (
        ("forced_share", forced, decisions + forced),
        ("branching", options, decisions),
    ):
        r = y.sum() / x.sum()
        se = np.sqrt(((y - r * x) ** 2).sum() / (n * (n - 1))) / x.mean()
        assert table.loc[name, "value"] == pytest.approx(r, rel=1e-12)
        assert table.loc[name, ["lo", "hi"]].tolist() == pytest.approx(
            [r - 1.959963984540054 * se, r + 1.959963984540054 * se], rel=1e-9
        )


def test_balance_csv_reads_back_as_written(tmp_path):
    table = balance_measures(bmn_games(), spec=BMN, players=2)
    (tmp_path / "balance.csv").write_bytes(balance_csv(table))
    for where in (tmp_path, tmp_path / "balance.csv"):  # the run folder, or the file
        back = read_balance(where)
        pd.testing.assert_frame_equal(back, table[["value", "lo", "hi"]], check_names=False)


def test_the_first_seat_is_the_one_that_led_and_match_play_counts_match_winners():
    rng = np.random.default_rng(3)
    n, players = 600, 3
    leader = rng.integers(0, players, n)
    games = pd.DataFrame(
        {
            "game": np.arange(n),
            "winner": leader.astype(np.int8),  # the leader always wins
            "end": pd.Categorical(["out"] * n),
            "turns": rng.integers(5, 40, n).astype(np.int32),
            "first_seat": leader.astype(np.int8),
            "lead_changes": np.zeros(n, np.int32),
            "winner_behind": np.zeros(n, np.int32),
        }
    )
    table = balance_measures(games, spec=SHEDDING, players=players)
    assert table.loc["first_seat_advantage", "value"] == pytest.approx(1 - 1 / 3)
    assert table.loc["seat_spread", "value"] == pytest.approx(1.0)
    assert "skill" not in table.index  # strategies, but no skill games
    # Match play: the shares of the match wins (a tie split), the rest per deal.
    shares = np.zeros((200, players))
    winners = rng.integers(0, players, 200)
    shares[np.arange(200), winners] = 1.0
    shares[:10] = 1 / 3  # ten three-way ties
    matches = pd.DataFrame({f"share_{s}": shares[:, s] for s in range(players)})
    table = balance_measures(games, spec=SHEDDING, players=players, matches=matches)
    per_seat = shares.mean(axis=0)
    assert table.loc["first_seat_advantage", "value"] == pytest.approx(per_seat[0] - 1 / 3)
    assert table.loc["seat_spread", "value"] == pytest.approx(per_seat.max() - per_seat.min())
    assert table.loc["turns", "value"] == pytest.approx(games["turns"].mean())


def test_older_records_and_games_that_never_end_leave_their_measures_out():
    games = bmn_games()
    old = games.drop(columns=["lead_changes", "winner_behind"])
    table = balance_measures(old, spec=BMN, players=2)
    assert "lead_changes" not in table.index and "comebacks" not in table.index
    full = balance_measures(games, spec=BMN, players=2)
    pd.testing.assert_frame_equal(table, full.drop(index=["lead_changes", "comebacks"]))
    cycles = games.assign(end=pd.Categorical(["cycle"] * 10), winner=np.int8(-1))
    table = balance_measures(cycles, spec=BMN, players=2)
    assert not {"turns", "turns_p90", "lead_changes"} & set(table.index)
    assert table.loc["decisive", "value"] == 0.0
    assert table.loc["comebacks", "value"] == 0.0


# --- skill: the skilled seat's wins, clustered by the deal they share ------------------------


def skill_games(deals: int, players: int, p_skilled: float, seed: int) -> pd.DataFrame:
    """Rotated skill games: in rotation r the skilled seat is r and wins with ``p_skilled``."""
    rng = np.random.default_rng(seed)
    rows = deals * players
    rotation = np.tile(np.arange(players), deals)
    others = (rotation + rng.integers(1, players, rows)) % players
    winner = np.where(rng.random(rows) < p_skilled, rotation, others)
    return pd.DataFrame(
        {
            "game": np.repeat(np.arange(deals), players),
            "winner": winner.astype(np.int8),
            "rotation": rotation.astype(np.int8),
        }
    )


def test_skill_is_the_skilled_seats_share_with_an_interval_over_deals():
    players, deals = 4, 3000
    skill = skill_games(deals, players, 0.4, seed=5)
    games = simulated(np.random.default_rng(0), 50, [0.25] * players + [0.0], 20)
    table = balance_measures(games, spec=SHEDDING, players=players, skill=skill)
    per_deal = (skill["winner"] == skill["rotation"]).groupby(skill["game"]).mean()
    half = 1.959964 * per_deal.std(ddof=1) / math.sqrt(deals)
    row = table.loc["skill"]
    assert row.value == pytest.approx(per_deal.mean() - 1 / players)
    assert [row.lo, row.hi] == pytest.approx([row.value - half, row.value + half])
    assert row.lo < 0.4 - 1 / players < row.hi
    # Rows in any order give the same, and a batch cut inside a deal is carried over.
    shuffled = skill.sample(frac=1, random_state=1)
    pd.testing.assert_frame_equal(
        balance_measures(games, spec=SHEDDING, players=players, skill=shuffled), table
    )
    whole, parts = SkillCounts(list(skill.columns)), SkillCounts(list(skill.columns))
    data = {c: skill[c].to_numpy() for c in skill.columns}
    whole.update(Batch(0, data))
    for cut in np.split(np.arange(len(skill)), [5, 6, 1001, 7777]):
        parts.update(Batch(int(cut[0]), {c: v[cut] for c, v in data.items()}))
    assert whole.estimate() == pytest.approx(parts.estimate())


def test_skill_games_must_rotate():
    with pytest.raises(ReportError, match="rotation"):
        balance_measures(
            simulated(np.random.default_rng(0), 50, [0.5, 0.5, 0.0], 20),
            spec=SHEDDING,
            players=2,
            skill=skill_games(5, 2, 0.5, 1).drop(columns="rotation"),
        )
    meta = {"game": "pis-yedili", "players": 4, "rules": {"a": 1}}
    assert skill_mismatch(meta, {**meta, "rotate_seats": True}) is None
    assert "rules" in skill_mismatch(meta, {**meta, "rules": {"a": 2}, "rotate_seats": True})
    assert "rotate" in skill_mismatch(meta, meta)


def test_games_needed_is_where_the_one_sided_lead_becomes_clear():
    for p, players in ((0.3, 4), (0.55, 2), (0.2, 6)):
        n = games_needed(p, players)
        assert p - 1.645 * math.sqrt(p * (1 - p) / n) == pytest.approx(1 / players)
    assert games_needed(0.25, 4) == math.inf and games_needed(0.1, 4) == math.inf


# --- the intervals: coverage in simulated samples, and narrowing with n ----------------------


def simulated(rng, n: int, shares: list[float], mean_length: float) -> pd.DataFrame:
    players = len(shares) - 1
    winner = rng.choice(np.arange(-1, players), size=n, p=[shares[-1], *shares[:-1]])
    return pd.DataFrame(
        {
            "game": np.arange(n),
            "winner": winner.astype(np.int8),
            "end": pd.Categorical(["out"] * n),
            "turns": rng.geometric(1 / mean_length, n).astype(np.int32),
            "lead_changes": rng.poisson(2.5, n).astype(np.int32),
            "winner_behind": np.where(winner >= 0, rng.integers(0, 6, n), -1).astype(np.int32),
        }
    )


@pytest.mark.parametrize("shares", [[0.3, 0.3, 0.3, 0.1], [0.4, 0.3, 0.25, 0.05]])
def test_intervals_cover_the_truth_in_simulated_runs(shares):
    rng = np.random.default_rng(2026)
    players, mean_length = len(shares) - 1, 20.0
    q = 1 - 1 / mean_length
    truth = {
        "first_seat_advantage": shares[0] - 1 / players,
        "seat_spread": max(shares[:-1]) - min(shares[:-1]),
        "decisive": 1 - shares[-1],
        "turns": mean_length,
        "turns_p90": math.ceil(math.log(0.1) / math.log(q)),  # the geometric's 90th pct
        "lead_changes": 2.5,
        "comebacks": (1 - shares[-1]) * 3 / 6,
    }
    covered = {name: 0 for name in truth}
    replicates = 300
    for _ in range(replicates):
        table = balance_measures(
            simulated(rng, 500, shares, mean_length), spec=SHEDDING, players=players
        )
        for name, value in truth.items():
            covered[name] += table.loc[name, "lo"] <= value <= table.loc[name, "hi"]
    for name, count in covered.items():
        assert count / replicates >= 0.9, (name, count)


def test_intervals_narrow_as_games_accumulate():
    rng = np.random.default_rng(7)
    shares = [0.35, 0.3, 0.3, 0.05]
    small = balance_measures(simulated(rng, 1_000, shares, 20), spec=SHEDDING, players=3)
    large = balance_measures(simulated(rng, 16_000, shares, 20), spec=SHEDDING, players=3)
    for name in ("first_seat_advantage", "seat_spread", "decisive", "turns", "turns_p90",
                 "lead_changes", "comebacks"):  # fmt: skip
        ratio = (large.loc[name, "hi"] - large.loc[name, "lo"]) / (
            small.loc[name, "hi"] - small.loc[name, "lo"]
        )
        assert ratio < 0.5, (name, ratio)  # about 1/4 at 16 times the games


def test_the_measures_of_100000_games_take_milliseconds():
    games = simulated(np.random.default_rng(1), 100_000, [0.25, 0.25, 0.25, 0.25, 0.0], 30)
    games["first_seat"] = np.int8(0)
    skill = skill_games(25_000, 4, 0.3, seed=2)
    best = math.inf
    for _ in range(3):
        start = time.perf_counter()
        balance_measures(games, spec=SHEDDING, players=4, skill=skill)
        best = min(best, time.perf_counter() - start)
    assert best < 0.25  # about 5 ms on the 2-core machine (2026-12-01)


# --- real runs: simulate.balance, cardsim balance, reports, studies -------------------------


@pytest.fixture(scope="module")
def balanced(tmp_path_factory) -> tuple[Path, pd.DataFrame]:
    """1,000 single deals of 4-player Pis Yedili (first seat drawn) and their skill games
    (hold-wilds against random), with the report."""
    out = tmp_path_factory.mktemp("balance") / "py4"
    rules = {**SINGLE, "first_seat": "random"}
    table = simulate.balance(
        "pis-yedili", players=4, games=1000, seed=12, rules=rules, out=out, report=True
    )
    return out, table


def test_hold_wilds_beats_a_fair_share_against_random(balanced):
    _, table = balanced
    assert table.loc["skill", "lo"] > 0  # p > 1/4 (about 31% here)


def test_the_skill_games_are_a_run_folder_on_the_runs_deals(balanced):
    out, table = balanced
    run, skill = load_run(out), load_run(out / SKILL_FOLDER)
    assert skill.meta["rotate_seats"] and skill.meta["seed"] == run.meta["seed"]
    assert skill.meta["strategies"] == ["hold-wilds", "random", "random", "random"]
    assert skill.meta["rules"] == run.meta["rules"]
    # Every deal once per seat, and the first seat each deal draws is the run's.
    first = skill.games.pivot(index="game", columns="rotation", values="first_seat")
    assert list(first.columns) == [0, 1, 2, 3] and list(first.index) == list(run.games["game"])
    assert (first.to_numpy() == run.games["first_seat"].to_numpy()[:, None]).all()
    assert run.games["first_seat"].nunique() == 4
    pd.testing.assert_frame_equal(balance_table(run, skill=skill), table)
    verdict, skill_verdict = verify_run(out, replay=8), verify_run(out / SKILL_FOLDER, replay=4)
    assert verdict.healthy and skill_verdict.healthy, (verdict.problems, skill_verdict.problems)
    assert any("skill games" in note for note in verdict.notes)


def test_the_report_has_every_measure_and_balance_csv(balanced):
    out, table = balanced
    markdown = (out / "report.md").read_text("utf-8")
    balance = section(markdown, "Balance")
    for name in MEASURES:
        assert f"| `{name}` |" in balance
    assert "`hold-wilds` against `random`" in balance
    assert "games needed before the skilled player's lead over a fair share is clear" in balance
    assert markdown.index("## Balance") > markdown.index("## Run details")
    # balance.csv, counted in the report's pass over the records, equals the DataFrame's.
    written = read_balance(out)
    assert list(written.columns) == ["value", "lo", "hi"]
    pd.testing.assert_frame_equal(written, table[["value", "lo", "hi"]], check_exact=False)


@pytest.mark.end_to_end
def test_beggar_my_neighbour_has_no_skill_games_and_skill_zero(tmp_path):
    out = tmp_path / "bmn"
    table = simulate.balance("bmn", games=2000, seed=3, out=out, report=True)
    assert not (out / SKILL_FOLDER).exists()
    assert table.loc["skill", ["value", "lo", "hi"]].tolist() == [0.0, 0.0, 0.0]
    markdown = (out / "report.md").read_text("utf-8")
    assert "Skill is 0 by definition: Beggar-My-Neighbour has no choices to make" in markdown
    assert "| `skill` | 0.0 pts | exact |" in markdown
    with pytest.raises(CardsimError, match="no choices"):
        simulate.balance("bmn", games=10, skill="greedy")


def test_a_plain_runs_report_shows_no_skill_row(tmp_path):
    out = tmp_path / "plain"
    simulate.simulate("crazy-eights", players=3, games=300, seed=1, out=out)
    balance = section(to_markdown(build_report(open_run(out))[0]), "Balance")
    assert "| `turns` |" in balance and "| `skill` |" not in balance
    assert "Skill is not measured: this folder holds no skill games" in balance


def test_skill_games_of_other_rules_are_left_out(tmp_path):
    out = tmp_path / "run"
    simulate.simulate("crazy-eights", players=3, games=200, seed=1, out=out)
    simulate.simulate(
        "crazy-eights", players=3, games=200, seed=1, out=out / SKILL_FOLDER,
        rules={"hand_size": 6}, strategies=["greedy"], rotate_seats=True,
    )  # fmt: skip
    balance = section(to_markdown(build_report(open_run(out))[0]), "Balance")
    assert "left out: they are not this run's (their rules differ)" in balance
    assert "| `skill` |" not in balance


def test_a_report_of_records_before_the_tension_columns(tmp_path):
    folder = tmp_path / "old"
    folder.mkdir()
    games = bmn_games().drop(columns=["lead_changes", "winner_behind"])
    games.assign(cycle_cards=np.int32(0), cycle_tricks=np.int32(0)).to_parquet(
        folder / "games.parquet"
    )
    meta = {"game": "beggar-my-neighbour", "players": 2, "rules": {}, "seed": 1, "games": 10}
    (folder / "run.json").write_text(json.dumps(meta))
    balance = section(to_markdown(build_report(open_run(folder))[0]), "Balance")
    assert "no `lead_changes` and `winner_behind` columns" in balance
    assert "| `turns` |" in balance and "| `comebacks` |" not in balance


@pytest.mark.end_to_end
def test_cardsim_balance_plays_the_run_and_its_skill_games(tmp_path):
    out = tmp_path / "c8"
    args = ["balance", "crazy-eights", "--players", "3", "--games", "60", "--seed", "5",
            "--skill", "greedy", "--skill-games", "40", "--threads", "1", "--out", str(out)]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert {p.name for p in out.iterdir()} >= RUN_FOLDER | {SKILL_FOLDER, "balance.csv"}
    skill = load_run(out / SKILL_FOLDER)
    assert skill.meta["games"] == 40 and skill.meta["strategies"][0] == "greedy"
    assert "skill" in result.stdout and "games needed" in result.stdout
    run = load_run(out)
    written = read_balance(out)
    assert written.loc["first_seat_advantage", "value"] == pytest.approx(
        (run.games["winner"] == run.games["first_seat"]).mean() - 1 / 3
    )
    assert "skill" in written.index
    # Again: refused without --force; --resume keeps what is complete and writes the report.
    again = runner.invoke(app, args)
    assert again.exit_code == 2 and "already holds" in again.stderr
    resumed = runner.invoke(app, ["balance", "crazy-eights", "--out", str(out), "--resume"])
    assert resumed.exit_code == 0, resumed.output
    assert "complete, kept" in resumed.stderr
    other = ["balance", "crazy-eights", "--out", str(out), "--resume", "--skill", "random"]
    refused = runner.invoke(app, other)
    assert refused.exit_code == 2
    assert "holds skill games with other strategies" in refused.stderr
    assert "'greedy', 'random', 'random'" in refused.stderr


def test_skill_measured_with_a_strong_player_says_its_cost_and_names_it(tmp_path):
    out = tmp_path / "strong"
    args = ["balance", "crazy-eights", "--players", "3", "--games", "30", "--seed", "5",
            "--skill", "pimc:2", "--threads", "1", "--out", str(out)]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "strong players (pimc:2): " in result.stderr
    assert load_run(out / SKILL_FOLDER).meta["strategies"] == ["pimc:2", "random", "random"]
    assert "pimc:2" in (out / "report.md").read_text()


@pytest.mark.end_to_end
def test_resume_plays_the_skill_games_a_run_folder_lacks(tmp_path):
    out = tmp_path / "plain"
    simulate.simulate("crazy-eights", players=3, games=100, seed=2, out=out)
    result = runner.invoke(app, ["balance", "c8", "--out", str(out), "--resume", "--threads", "1"])
    assert result.exit_code == 0, result.output
    skill = load_run(out / SKILL_FOLDER)
    assert skill.meta["games"] == 100 and skill.meta["strategies"][0] == "hold-wilds"
    assert "skill" in read_balance(out).index


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["pis-yedili", "--games", "10", "--skill", "nope"], "--skill: unknown strategy 'nope'"),
        (["bmn", "--games", "10", "--skill", "greedy"], "--skill: beggar-my-neighbour has no"),
        (["pis-yedili"], "--games is needed"),
        (["pis-yedili", "--games", "10", "--skill-games", "0"], "--skill-games: games must"),
        (["pis-yedili", "--games", "10", "--rule", "colour=red"], "colour"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, args, says):
    out = tmp_path / "out"
    result = runner.invoke(app, ["balance", *args, "--out", str(out)])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and says in lines[0], lines
    assert not out.exists()


def test_skill_games_already_there_are_refused_before_anything_is_played(tmp_path, balanced):
    out = tmp_path / "x"
    shutil.copytree(balanced[0] / SKILL_FOLDER, out / SKILL_FOLDER)
    result = runner.invoke(app, ["balance", "pis-yedili", "--games", "10", "--out", str(out)])
    assert result.exit_code == 2 and "already holds skill games" in result.stderr
    assert {p.name for p in out.iterdir()} == {SKILL_FOLDER}


STUDY = """\
title = "skill per variant"
game = "crazy-eights"
players = [3]
games = 120
seed = 4
skill = "{skill}"

[[variant]]
name = "plain"

[[variant]]
name = "six"
rules = {{ hand_size = 6 }}
"""


def test_a_study_with_skill_plays_each_cells_skill_games(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text(STUDY.format(skill="greedy"))
    out = tmp_path / "out"
    simulate.sweep(path, out=out, report=False, threads=1)
    for cell in ("plain-3p", "six-3p"):
        run, skill = load_run(out / cell), load_run(out / cell / SKILL_FOLDER)
        assert skill.meta["rotate_seats"] and skill.meta["strategies"] == [
            "greedy",
            "random",
            "random",
        ]
        assert skill.meta["rules"] == run.meta["rules"] and skill.meta["seed"] == 4
        assert "skill" in balance_table(run, skill=skill).index
    plan = plan_sweep(load_study(path), out, resume=True)
    assert plan.actions == ["skip", "skip"] and plan.skill_actions == ["skip", "skip"]
    shutil.rmtree(out / "six-3p" / SKILL_FOLDER)  # a lost skill folder is played again
    plan = plan_sweep(load_study(path), out, resume=True)
    assert plan.actions == ["skip", "skip"] and plan.skill_actions == ["skip", "run"]


@pytest.mark.parametrize(
    ("game", "skill", "says"),
    [
        ("crazy-eights", "nope", "line 6: skill: unknown strategy 'nope'"),
        ("bmn", "greedy", "line 6: skill: beggar-my-neighbour has no choices"),
    ],
)
def test_a_bad_skill_key_is_a_located_error(tmp_path, game, skill, says):
    path = tmp_path / "study.toml"
    path.write_text(STUDY.format(skill=skill).replace('"crazy-eights"', f'"{game}"'))
    with pytest.raises(CardsimError, match=says):
        load_study(path)
