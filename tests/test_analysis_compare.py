"""Comparison reports (analysis.comparisons.report.write_comparison) from small synthetic runs."""

import csv
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from chart_defaults import SMALL_DPI, every_format
from scipy import stats
from test_analysis_matches import make_match_run

from analysis.comparisons.report import write_comparison
from analysis.errors import ReportError
from analysis.rendering.words import fmt_num
from analysis.statistics.significance import holm, newcombe_interval, two_proportion_test

DEFAULT = {"penalties": {"J": 1, "Q": 2, "K": 3, "A": 4}, "time_limit": None}


def make_run(
    folder: Path,
    first_wins: int,
    n: int = 1000,
    players: int = 2,
    shift: int = 0,
    rules=None,
    seed: int = 1,
) -> Path:
    """A Beggar-My-Neighbour run of ``n`` deals of which seat 0 wins ``first_wins``, the rest
    spread over the other seats and 10 cycles; lengths uniform on 20–600 plus ``shift``.
    ``seed`` is the one ``run.json`` records (runs with the same seed and players are
    compared as paired samples)."""
    rng = np.random.default_rng(first_wins + shift + players)
    winner = np.concatenate(
        [np.zeros(first_wins, np.int8), rng.integers(1, players, n - first_wins).astype(np.int8)]
    )
    rng.shuffle(winner)
    end = np.full(n, "out", dtype=object)
    cycles = np.flatnonzero(winner != 0)[:10]
    end[cycles], winner[cycles] = "cycle", -1
    cards = (rng.integers(20, 600, n) + shift).astype(np.int32)
    games = pd.DataFrame(
        {
            "game": np.arange(n, dtype=np.int64),
            "cards": cards,
            "tricks": (cards // 7 + 1).astype(np.int32),
            "winner": winner,
            "end": pd.Categorical(end, categories=["out", "cycle", "time_limit"]),
            "cycle_cards": np.zeros(n, np.int32),
            "cycle_tricks": np.zeros(n, np.int32),
        }
    )
    folder.mkdir(parents=True)
    games.to_parquet(folder / "games.parquet")
    meta = {
        "game": "beggar-my-neighbour",
        "players": players,
        "rules": rules or DEFAULT,
        "seed": seed,
        "games": n,
        "completed_games": n,
        "status": "complete",
    }
    (folder / "run.json").write_text(json.dumps(meta))
    return folder


def summary_paragraphs(markdown: str) -> list[str]:
    """The paragraphs of a comparison's summary, which follows its verdict."""
    return markdown.split("\n## Summary\n\n", 1)[1].split("\n\n")


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    root = tmp_path_factory.mktemp("compare")
    runs = [
        make_run(root / "base", 495),
        make_run(
            root / "aces5",
            600,
            shift=40,
            rules={**DEFAULT, "penalties": {**DEFAULT["penalties"], "A": 5}},
            seed=2,
        ),
        make_run(root / "short", 500, rules={**DEFAULT, "time_limit": 300}),
        make_run(root / "three", 340, players=3),
    ]
    out = root / "out"
    with every_format():  # its tests read every format written by default
        html_path, md_path = write_comparison(runs, out, title="Ace penalty study")
    games = [pd.read_parquet(r / "games.parquet") for r in runs]
    with open(out / "comparison.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    return runs, out, games, rows, md_path.read_text("utf-8"), html_path.read_text("utf-8")


def test_files_are_written(compared):
    _, out, _, rows, markdown, page = compared
    names = sorted(p.name for p in (out / "charts").iterdir())
    for chart in ("forest_2p", "win_share_2p", "survival_2p", "win_share_3p", "survival_3p"):
        assert f"{chart}.png" in names and f"{chart}.svg" in names
    assert "forest_3p.png" not in names  # one three-player run: nothing to compare
    assert page.count("data:image/png;base64,") == 5
    assert not re.search(r'(src|href)="(?!data:)', page)
    assert not [p for p in out.rglob("*") if p.name.endswith(".tmp")]
    assert [r["variant"] for r in rows] == ["base", "aces5", "short", "three"]
    assert markdown.startswith("# Ace penalty study\n")


def test_side_by_side_numbers_match_the_records(compared):
    _, _, games, rows, markdown, _ = compared
    for row, frame in zip(rows, games, strict=True):
        ended = frame[frame["end"] != "cycle"]
        assert int(row["games"]) == len(frame)
        assert int(row["first_wins"]) == (frame["winner"] == 0).sum()
        assert float(row["mean_length"]) == pytest.approx(ended["cards"].mean())
        assert float(row["median_length"]) == ended["cards"].median()
        assert float(row["end_cycle"]) == pytest.approx((frame["end"] == "cycle").mean())
    assert [r["base"] for r in rows] == ["base", "base", "base", "three"]
    assert [r["is_base"] for r in rows] == ["True", "False", "False", "True"]
    text = markdown.split("\n## Two-player runs\n", 1)[1]
    assert "| base (base) | 1,000 | 49.50% |" in text
    assert "| aces5 | 1,000 | 60.00% |" in text


def test_differences_tests_and_holm(compared):
    _, _, games, rows, markdown, _ = compared
    base, aces = games[0], games[1]
    row = rows[1]
    z, p = two_proportion_test(495, 1000, 600, 1000)
    assert float(row["first_p"]) == pytest.approx(p, rel=1e-8)
    lo, hi = newcombe_interval(495, 1000, 600, 1000)
    assert float(row["first_diff_lo"]) == pytest.approx(lo, rel=1e-8)
    assert float(row["first_diff"]) == pytest.approx(0.105)
    ended = [f.loc[f["end"] != "cycle", "cards"] for f in (base, aces)]
    mw = stats.mannwhitneyu(ended[1], ended[0], method="asymptotic")
    assert float(row["length_p"]) == pytest.approx(mw.pvalue, rel=1e-8)
    assert float(row["length_diff"]) == pytest.approx(ended[1].mean() - ended[0].mean())
    seats = stats.chi2_contingency(
        [np.bincount(f["winner"] + 1, minlength=3) for f in (base, aces)], correction=False
    )
    assert float(row["seats_p"]) == pytest.approx(seats.pvalue, rel=1e-8)
    family = [float(r[f"{k}_p"]) for r in rows[1:3] for k in ("first", "seats", "length", "ends")]
    family = [p for p in family if not math.isnan(p)]
    adjusted = holm(family)
    assert float(row["first_p_holm"]) == pytest.approx(adjusted[0], rel=1e-8)
    assert row["first_significant"] == "True" and row["length_significant"] == "True"
    assert rows[2]["first_significant"] == "False"
    table = markdown.split("\n## Two-player runs\n", 1)[1]
    assert "| aces5 vs base | first seat's win share | +10.5 pts |" in table
    assert (
        f"| aces5 vs base | mean length | {ended[1].mean() - ended[0].mean():+,.1f} cards |"
        in table
    )


def test_summary_is_plain_language_with_intervals(compared):
    _, _, games, rows, markdown, _ = compared
    summary = summary_paragraphs(markdown)[0]
    assert summary.startswith(
        "In 2-player Beggar-My-Neighbour the first seat wins 49.5% ± 3.1% of deals under base "
        "(default rules; 1,000 deals)"
    )
    assert "Under aces5 (penalties.A = 5) the first seat wins 60.0% ± 3.0% (+10.5 pts" in summary
    assert "significant, Holm-adjusted p < 0.001" in summary
    assert f"deals last {fmt_num(float(rows[0]['mean_length']))} cards on average" in summary
    three = summary_paragraphs(markdown)[1]
    assert three.startswith("In 3-player Beggar-My-Neighbour the first seat wins 34.0% ± ")
    assert "No other run has 3 players" in three
    for heading in ("Variants", "Two-player runs", "Three-player runs", "Methods"):
        assert f"\n## {heading}\n" in markdown


def test_default_names_and_base(tmp_path):
    a = make_run(tmp_path / "x" / "run", 500)
    b = make_run(tmp_path / "y" / "run", 520)
    write_comparison([a, b], tmp_path / "out", base=1)
    rows = list(csv.DictReader(open(tmp_path / "out" / "comparison.csv")))
    assert [r["variant"] for r in rows] == [str(a), str(b)]
    assert [r["base"] for r in rows] == [str(b), str(b)]
    assert float(rows[0]["first_diff"]) == pytest.approx(-0.02)


@pytest.mark.parametrize(
    "case, message",
    [
        ("one", "at least two run folders, got 1"),
        ("names", "got 1 names for 2 run folders"),
        ("twice", "variant name 'a' is given twice"),
        ("base", "base 2 is not a run index: use 0 to 1"),
        ("family", "cannot be compared with"),
        ("missing", "run folder not found"),
    ],
)
def test_runs_that_cannot_be_compared_give_one_line(tmp_path, case, message):
    a, b = make_run(tmp_path / "a", 500), make_run(tmp_path / "b", 510)
    args = {"run_dirs": [a, b], "out_dir": tmp_path / "out"}
    if case == "one":
        args["run_dirs"] = [a]
    elif case == "names":
        args["names"] = ["a"]
    elif case == "twice":
        args["names"] = ["a", "a"]
    elif case == "base":
        args["base"] = 2
    elif case == "family":
        args["run_dirs"] = [a, make_match_run(tmp_path / "pis")]
    elif case == "missing":
        args["run_dirs"] = [a, tmp_path / "nowhere"]
    with pytest.raises(ReportError) as excinfo:
        write_comparison(**args)
    assert message in str(excinfo.value) and "\n" not in str(excinfo.value)
    if case == "family":
        assert "Pis Yedili cannot be compared with" in str(excinfo.value)
    assert not (tmp_path / "out").exists()


def test_shedding_match_runs_compare_the_deal_leader_matches_and_scores(tmp_path):
    a = make_match_run(tmp_path / "a")
    more = [[1, 0, 0], [1, 0, 0], [0, 1, 0], [1, 0, 0]]  # seat 0 wins 3 of 4 matches
    b = make_match_run(tmp_path / "b", shares=more)
    html_path, md_path = write_comparison([a, b], tmp_path / "out", names=["one", "two"])
    rows = list(csv.DictReader(open(tmp_path / "out" / "comparison.csv")))
    games = pd.read_parquet(a / "games.parquet")
    leader = int((games["winner"] == games["first_seat"]).sum())
    assert [int(r["first_wins"]) for r in rows] == [leader, leader]
    assert {r["length_unit"] for r in rows} == {"turns"}
    assert float(rows[1]["first_diff"]) == 0 and float(rows[1]["length_diff"]) == 0
    assert [float(r["match_share"]) for r in rows] == [1.5 / 4, 3 / 4]
    assert float(rows[1]["match_diff"]) == pytest.approx(0.375)
    # same seed and deals: the matches are paired by index (paired t-test on seat 0's shares)
    paired = stats.ttest_rel([1, 1, 0, 1], [1, 0.5, 0, 0])
    assert rows[1]["match_analysis"] == "paired" and rows[1]["match_test"] == "paired t-test"
    assert float(rows[1]["match_p"]) == pytest.approx(paired.pvalue, rel=1e-8)
    assert float(rows[1]["match_ind_p"]) == pytest.approx(two_proportion_test(1.5, 4, 3, 4)[1])
    assert float(rows[0]["mean_score_0"]) == pytest.approx(games["score_0"].mean())
    markdown = md_path.read_text()
    assert "the one that took the first turn of the deal" in markdown
    assert "| one | 4 | 37.50% |" in markdown and "| two | 4 | 75.00% |" in markdown
    assert "| two vs one | seat 0's match win share | +37.5 pts |" in markdown
    scores = markdown.split("Mean score per deal", 1)[1]
    line = next(x for x in scores.splitlines() if x.startswith("| one | "))
    cells = [cell.strip() for cell in line.strip("| ").split(" | ")]
    for s in range(3):  # variant, per seat and its CI, then each seat's mean and its CI
        assert float(cells[3 + 2 * s]) == pytest.approx(games[f"score_{s}"].mean(), abs=0.05)
    # 3 of 4 matches: an asymmetric Wilson interval, given as a range.
    assert "seat 0 wins 75.0% (30.1–95.4%) of the matches" in summary_paragraphs(markdown)[0]


def test_comparison_never_imports_numba(tmp_path):
    a, b = make_run(tmp_path / "a", 150, n=300), make_run(tmp_path / "b", 160, n=300)
    code = (
        "import sys\nimport analysis.comparisons.report\nassert 'numba' not in sys.modules, 'on import'\n"
        f"analysis.comparisons.report.write_comparison([{str(a)!r}, {str(b)!r}], "
        f"{str(tmp_path / 'out')!r}, dpi={SMALL_DPI}, formats='png')\n"
        "assert 'numba' not in sys.modules, 'while writing'\n"
    )
    repo = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=repo, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr


def test_each_difference_says_whether_it_is_paired(compared):
    _, _, games, rows, markdown, _ = compared
    aces, short = rows[1], rows[2]  # aces5 has its own seed; short shares the base's
    assert [aces[f"{k}_analysis"] for k in ("first", "length")] == ["independent"] * 2
    assert [short[f"{k}_analysis"] for k in ("first", "length")] == ["paired"] * 2
    assert short["first_test"] == "McNemar's test"
    assert short["length_test"] == "Wilcoxon signed-rank test"
    assert aces["first_test"] == "two-proportion z-test" and aces["length_test"] == (
        "Mann-Whitney U test"
    )
    assert float(aces["first_ind_p"]) == float(aces["first_p"])
    assert int(short["pairs"]) == len(games[0])
    text = markdown.split("\n## Two-player runs\n", 1)[1]
    assert "aces5 and base are compared as independent samples: the seeds differ (1 and 2)." in text
    assert "| short vs base | first seat's win share |" in text
    line = next(x for x in text.splitlines() if x.startswith("| short vs base | mean length |"))
    assert "| paired: the same deals in both runs | Wilcoxon signed-rank test |" in line
    line = next(x for x in text.splitlines() if x.startswith("| aces5 vs base | mean length |"))
    assert "| independent samples | Mann-Whitney U test |" in line
    assert "of short against base, paired (1,000 pairs of deals) against independent" in text
    summary = summary_paragraphs(markdown)[0]
    assert "paired 95% CI" in summary.split("Under short")[1]
    assert "paired 95% CI" not in summary.split("Under short")[0]
    methods = markdown.split("\n## Methods\n", 1)[1]
    assert "McNemar's test" in methods and "over the pairs in which both deals end" in methods
    assert "Comparisons whose runs do not hold the same deals (each says why)" in methods
