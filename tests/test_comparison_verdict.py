"""The comparison report's verdict in plain words, the intervals and tests of scores and
match totals, and the report across player counts: on constructed rows whose answer is
known, and on one small Pis Yedili study (3 and 4 players) whose variants are the base
itself, a rule that barely shortens deals (stacked 7s doubling) and one that lengthens
them a lot (draw one card when no card plays)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import simulate
from analysis.balance import balance_table
from analysis.comparisons.players import PLAYERS_CSV, players_table
from analysis.comparisons.verdict import (
    CHANGED,
    NEGLIGIBLE,
    UNCLEAR,
    Thresholds,
    add_verdicts,
    findings,
    thresholds,
)
from analysis.errors import ReportError
from analysis.load import load_run
from simulate.app import api
from simulate.app.api import read_comparison
from simulate.app.cli import app
from simulate.core.errors import CardsimError

runner = CliRunner()

STUDY = """\
title = "verdict test"
game = "pis-yedili"
players = [3, 4]
games = 1000
seed = 11

[[variant]]
name = "base"
rules = {}

[[variant]]
name = "same"
rules = {}

[[variant]]
name = "doubling"
rules = { stack_growth = "double" }

[[variant]]
name = "draw-one"
rules = { on_no_play = "draw_one_may_play" }
"""


def one_error(result) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("verdict")
    path = root / "study.toml"
    path.write_text(STUDY)
    out = root / "out"
    args = ["sweep", str(path), "--out", str(out), "--formats", "png", "--dpi", "50"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return out


def comparison(study: Path, players: int) -> pd.DataFrame:
    return read_comparison(study / f"compare-{players}p" / "comparison.csv")


def row(table: pd.DataFrame, variant: str) -> pd.Series:
    return table[table["variant"] == variant].iloc[0]


# --- constructed rows ----------------------------------------------------------------------


def rows(**changes) -> tuple[pd.Series, pd.Series]:
    """A base row and a variant row of a comparison table: 4 players, 30 turns, 40 points
    per seat and deal, the first seat at 25%; ``changes`` set the variant's columns."""
    base = {
        "players": 4,
        "variant": "a",
        "base": "a",
        "is_base": True,
        "length_unit": "turns",
        "first_share": 0.25,
        "mean_length": 30.0,
        "mean_score": 40.0,
        "end_out": 0.3,
        "end_stock_out": 0.7,
        **{f"seat_{s}_share": 0.25 for s in range(4)},
        **{f"position_{s}_share": 0.25 for s in range(4)},
        "spread": 0.0,
    }
    variant = {
        **base,
        "variant": "b",
        "is_base": False,
        "first_diff": 0.0,
        "first_significant": False,
        "seats_p": 1.0,
        "seats_significant": False,
        "length_diff": 0.0,
        "length_significant": False,
        "score_diff": 0.0,
        "score_significant": False,
        "ends_p": 1.0,
        "ends_significant": False,
    }
    variant |= changes
    variant["first_share"] = variant["position_0_share"] = 0.25 + variant["first_diff"]
    if "length_diff" in changes:
        variant["mean_length"] = 30.0 + changes["length_diff"]
    if "score_diff" in changes:
        variant["mean_score"] = 40.0 + changes["score_diff"]
    return pd.Series(variant), pd.Series(base)


def verdicts(variant: pd.Series, base: pd.Series, limits: Thresholds | None = None) -> dict:
    return {f.measure: f for f in findings(variant, base, limits or Thresholds())}


def test_an_unchanged_variant_changes_nothing():
    found = verdicts(*rows())
    assert {f.verdict for f in found.values()} == {NEGLIGIBLE}
    assert found["wins"].text == "who wins does not change"
    assert found["length"].text == "deal length does not change (30.0 vs 30.0 turns)"
    assert found["score"].text == "scores do not change (40.0 vs 40.0 points per seat and deal)"
    assert found["ends"].text == "how deals end does not change"


def test_a_significant_change_under_the_threshold_is_negligible():
    # 1.5% shorter, significant: under the 2% threshold, so negligible all the same
    found = verdicts(*rows(length_diff=-0.45, length_significant=True))
    assert found["length"].verdict == NEGLIGIBLE
    assert found["length"].text == "deals are 1.5% shorter (29.6 vs 30.0 turns, negligible)"
    # at a 1% threshold the same change is stated
    found = verdicts(*rows(length_diff=-0.45, length_significant=True), Thresholds(0.5, 1))
    assert found["length"].verdict == CHANGED
    assert found["length"].text == "deals are 1.5% shorter (29.6 vs 30.0 turns)"


def test_a_large_change_that_is_not_significant_is_no_clear_change():
    found = verdicts(*rows(first_diff=0.02, first_share=0.27))
    assert found["wins"].verdict == UNCLEAR
    assert found["wins"].text == (
        "no clear change in who wins (the first seat's share 27.0% vs 25.0% of deals, "
        "+2.0 pts, not significant)"
    )
    found = verdicts(*rows(score_diff=4.0))
    assert found["score"].text == (
        "no clear change in scores (44.0 vs 40.0 points per seat and deal, +10.0%, not significant)"
    )


def test_clear_changes_come_first_largest_first():
    variant, base = rows(
        length_diff=3.0,  # +10%: 5 thresholds
        length_significant=True,
        score_diff=-8.0,  # -20%: 10 thresholds
        score_significant=True,
        first_diff=0.03,  # +3 pts, not significant: unclear
        first_share=0.28,
        end_out=0.31,  # +1 pt, not significant: unclear
        end_stock_out=0.69,
    )
    found = findings(variant, base, Thresholds())
    assert [f.measure for f in found] == ["score", "length", "wins", "ends"]
    assert [f.verdict for f in found] == [CHANGED, CHANGED, UNCLEAR, UNCLEAR]
    assert found[0].text == "scores fall 20.0% (32.0 vs 40.0 points per seat and deal)"
    assert found[1].text == "deals are 10.0% longer (33.0 vs 30.0 turns)"


def test_a_change_next_to_the_threshold_shows_the_digit_that_decides():
    found = verdicts(*rows(score_diff=0.784, score_significant=True))  # +1.96%
    assert (
        found["score"].text
        == "scores rise 1.96% (40.8 vs 40.0 points per seat and deal, negligible)"
    )
    found = verdicts(*rows(first_diff=0.0049, first_share=0.2549, first_significant=True))
    assert found["wins"].text == "who wins does not change"  # +0.49 pts, under 0.5
    found = verdicts(*rows(first_diff=0.0051, first_share=0.2551, first_significant=True))
    assert (
        found["wins"].text == "the first seat wins more often (25.5% vs 25.0% of deals, +0.51 pts)"
    )


def test_the_seat_that_changes_most_is_named_beside_the_first():
    """The first seat gains half a point, significant, while the second loses 1.39 points
    (the fairness gain a search was for): the verdict says both, the first seat first."""
    variant, base = rows(first_diff=0.0052, first_significant=True, seats_significant=True)
    base["position_1_share"] = 0.2617
    variant["position_1_share"] = 0.2478
    assert verdicts(variant, base)["wins"].text == (
        "the first seat wins more often (25.5% vs 25.0% of deals, +0.52 pts) and the second "
        "seat wins less often (24.8% vs 26.2% of deals, -1.4 pts)"
    )
    # the seats' test not significant: the second seat's change is said unclear beside it
    variant["seats_significant"] = False
    found = verdicts(variant, base)["wins"]
    assert found.verdict == CHANGED and found.text.endswith(
        ", with no clear change in the second seat's share 24.8% vs 26.2% of deals, "
        "-1.4 pts (not significant)"
    )
    # a seat whose change is under the first seat's is not named: the first's is the largest
    variant["position_1_share"] = 0.2617 - 0.004
    base["position_1_share"] = 0.2617
    assert "second" not in verdicts(variant, base)["wins"].text


def test_the_seat_spread_is_judged_by_its_interval():
    widens = dict(spread=0.04, spread_diff=0.01, spread_diff_lo=0.002, spread_diff_hi=0.018)
    variant, base = rows(**widens)
    base["spread"] = 0.03
    found = verdicts(variant, base)["spread"]
    assert (found.verdict, found.text) == (
        CHANGED,
        "the seat spread widens (4.0 vs 3.0 pts, +1.0 pts)",
    )
    variant["spread_diff_lo"] = -0.001  # the interval holds 0: not significant
    found = verdicts(variant, base)["spread"]
    assert (found.verdict, found.text) == (
        UNCLEAR,
        "no clear change in the seat spread (4.0 vs 3.0 pts, +1.0 pts, not significant)",
    )
    variant["spread"], variant["spread_diff"] = 0.027, -0.003  # under the threshold
    found = verdicts(variant, base)["spread"]
    assert (found.verdict, found.text) == (
        NEGLIGIBLE,
        "the seat spread narrows (2.7 vs 3.0 pts, -0.3 pts, negligible)",
    )


@pytest.mark.parametrize(
    "share, change, words",
    [
        (
            -0.5,
            None,
            "negligible_share must be a number of percentage points from 0 to under 100, got -0.5",
        ),
        (100, None, "got 100"),
        ("lots", None, "got 'lots'"),
        (True, None, "got True"),
        (float("nan"), None, "got nan"),
        (None, -1, "negligible_change must be a number of percent, 0 or more, got -1"),
        (None, "inf", "got 'inf'"),
    ],
)
def test_bad_thresholds_are_one_line(share, change, words):
    with pytest.raises(ReportError) as excinfo:
        thresholds(share, change)
    assert words in str(excinfo.value) and "\n" not in str(excinfo.value)


def test_thresholds_are_read_from_text():
    assert thresholds() == Thresholds(0.5, 2.0)
    assert thresholds("0", " 5.5 ") == Thresholds(0.0, 5.5)
    assert thresholds(99.9, 200) == Thresholds(99.9, 200.0)
    assert api.NEGLIGIBLE_SHARE == Thresholds().share
    assert api.NEGLIGIBLE_CHANGE == Thresholds().change


# --- a real study ----------------------------------------------------------------------


def test_the_verdict_opens_every_comparison_report(study):
    for players in (3, 4):
        folder = study / f"compare-{players}p"
        markdown = (folder / "report.md").read_text("utf-8")
        page = (folder / "report.html").read_text("utf-8")
        head, verdict = markdown.split("\n\n")[:2]
        assert head.startswith("# verdict test") and verdict == "## Verdict"
        paragraphs = markdown.split("\n## Verdict\n\n", 1)[1].split("\n## ", 1)[0].split("\n\n")
        names = [p.split(" against base: ")[0] for p in paragraphs[:3]]
        assert names == ["same", "doubling", "draw-one"]
        assert "A change is negligible when it is under 0.5 percentage points" in paragraphs[3]
        assert "or under 2% of the base's mean" in paragraphs[3]
        assert "<h2>Verdict</h2>" in page.split("<h2>Summary</h2>")[0]
        table = comparison(study, players)
        for name, text in zip(names, paragraphs[:3], strict=True):
            found = row(table, name)
            share, lo, hi = (
                found[c] for c in ("winner_changes", "winner_changes_lo", "winner_changes_hi")
            )
            assert 0 <= lo <= share <= hi <= 1
            assert (share == 0) == (name == "same")  # the base's own rules change no winner
            assert text == (
                f"{name} against base: {found['verdict']}. On the same deals the rules change "
                f"who wins {100 * share:.1f}% of them (95% interval {100 * lo:.1f}% to "
                f"{100 * hi:.1f}%)."
            )


def test_the_same_rules_change_nothing(study):
    for players in (3, 4):
        same = row(comparison(study, players), "same")
        assert re.fullmatch(
            r"who wins does not change; the seat spread does not change \(\S+ vs \S+ pts\); "
            r"deal length does not change \(\S+ vs \S+ turns\); "
            r"scores do not change \(\S+ vs \S+ points per seat and deal\); "
            r"how deals end does not change",
            same["verdict"],
        ), same["verdict"]
        for measure in ("wins", "spread", "length", "score", "ends"):
            assert same[f"{measure}_verdict"] == NEGLIGIBLE
        for key in ("first", "length", "score", "match", "total_0"):
            assert same[f"{key}_diff"] == 0


def test_a_large_effect_is_stated_with_its_direction(study):
    for players in (3, 4):
        table = comparison(study, players)
        draw_one = row(table, "draw-one")
        base = load_run(study / f"base-{players}p").games
        variant = load_run(study / f"draw-one-{players}p").games
        # independently of the comparison: the records' mean turns and end shares
        percent = 100 * (variant["turns"].mean() / base["turns"].mean() - 1)
        assert percent > 10
        assert f"deals are {percent:.1f}% longer (" in draw_one["verdict"]
        out_change = (variant["end"] == "out").mean() - (base["end"] == "out").mean()
        assert out_change > 0.2
        # the largest change, in multiples of its threshold, comes first
        assert draw_one["verdict"].startswith("more deals end by `out` (")
        assert f"+{100 * out_change:.1f} pts)" in draw_one["verdict"].split(";")[0]
        assert draw_one["length_verdict"] == CHANGED and draw_one["ends_verdict"] == CHANGED


def test_a_significant_change_under_the_threshold_is_said_negligible(study):
    for players in (3, 4):
        doubling = row(comparison(study, players), "doubling")
        percent = (
            100 * doubling["length_diff"] / row(comparison(study, players), "base")["mean_length"]
        )
        assert doubling["length_significant"] and -2 < percent < 0
        assert doubling["length_verdict"] == NEGLIGIBLE
        assert re.search(
            r"deals are \d\.\d% shorter \([^)]*turns, negligible\)", doubling["verdict"]
        )


def test_thresholds_change_the_words(study):
    folders = [study / f"{v}-4p" for v in ("base", "doubling")]
    strict = simulate.compare(*folders, names=["base", "doubling"], negligible_change=0.5)
    doubling = row(strict, "doubling")
    assert doubling["length_verdict"] == CHANGED and set(strict["negligible_change"]) == {0.5}
    assert re.search(r"deals are \d\.\d% shorter \(\S+ vs \S+ turns\)", doubling["verdict"])
    # the numbers and tests (before Holm, whose family is smaller) are the default table's
    default = comparison(study, 4).set_index("variant").loc[["base", "doubling"]]
    for column in ("length_diff", "length_p", "score_diff_lo", "first_p"):
        np.testing.assert_allclose(
            strict[column].to_numpy(float), default[column].to_numpy(float), rtol=1e-9
        )
    loose = add_verdicts(comparison(study, 4), Thresholds(50, 90))
    draw_one = row(loose, "draw-one")
    assert draw_one["length_verdict"] == NEGLIGIBLE and draw_one["ends_verdict"] == NEGLIGIBLE
    assert "how deals end does not change" in draw_one["verdict"]
    assert re.search(r"deals are \d+\.\d% longer \([^)]*, negligible\)", draw_one["verdict"])


def test_the_verdict_follows_the_report_tests(study):
    """Each measure's verdict is the table's own difference and Holm-adjusted test against
    the threshold: negligible under it, changed above it when significant, else unclear."""
    for players in (3, 4):
        table = comparison(study, players)
        base = row(table, "base")
        ends = [c for c in table.columns if c.startswith("end_")]
        for _, variant in table[~table["is_base"]].iterrows():
            sizes = {
                "length": (100 * abs(variant["length_diff"]) / base["mean_length"], 2),
                "score": (100 * abs(variant["score_diff"]) / base["mean_score"], 2),
                "ends": (100 * max(abs(variant[c] - base[c]) for c in ends), 0.5),
            }
            for key, (size, limit) in sizes.items():
                significant = variant[f"{key}_significant"]
                expected = (
                    NEGLIGIBLE if size < limit or size == 0 else CHANGED if significant else UNCLEAR
                )
                assert variant[f"{key}_verdict"] == expected, (variant["variant"], key)
            assert variant["wins_verdict"] in (CHANGED, UNCLEAR, NEGLIGIBLE)


def test_scores_and_match_totals_have_intervals_and_paired_tests(study):
    table = comparison(study, 4)
    base_games = load_run(study / "base-4p")
    variant_run = load_run(study / "draw-one-4p")
    seats = [f"score_{s}" for s in range(4)]
    for name, run in (("base", base_games), ("draw-one", variant_run)):
        found = row(table, name)
        # independently: the records' means
        assert found["mean_score"] == pytest.approx(run.games[seats].sum(axis=1).mean() / 4)
        for s in range(4):
            assert found[f"mean_score_{s}"] == pytest.approx(run.games[f"score_{s}"].mean())
            assert found[f"mean_total_{s}"] == pytest.approx(run.matches[f"total_{s}"].mean())
        for column in ("mean_score", *(f"mean_score_{s}" for s in range(4)), "mean_deals",
                       *(f"mean_total_{s}" for s in range(4))):  # fmt: skip
            assert found[f"{column}_lo"] <= found[column] <= found[f"{column}_hi"], column
    draw_one = row(table, "draw-one")
    paired = (variant_run.games[seats].sum(axis=1) - base_games.games[seats].sum(axis=1)) / 4
    assert draw_one["score_diff"] == pytest.approx(paired.mean())
    total = variant_run.matches["total_2"] - base_games.matches["total_2"]
    assert draw_one["total_2_diff"] == pytest.approx(total.mean())
    for key in ("score", *(f"score_{s}" for s in range(4)), *(f"total_{s}" for s in range(4))):
        assert draw_one[f"{key}_analysis"] == "paired"
        assert draw_one[f"{key}_test"] == "Wilcoxon signed-rank test"
        assert draw_one[f"{key}_diff_lo"] <= draw_one[f"{key}_diff"] <= draw_one[f"{key}_diff_hi"]
        assert draw_one[f"{key}_ind_lo"] <= draw_one[f"{key}_diff"] <= draw_one[f"{key}_ind_hi"]
        assert not math.isnan(draw_one[f"{key}_p_holm"])
    # matches of 4 deals each: nothing to test in their length
    assert "deals_p" not in table
    markdown = (study / "compare-4p" / "report.md").read_text("utf-8")
    assert "| draw-one vs base | mean score per seat | " in markdown
    assert "| draw-one vs base | seat 3's mean match total | " in markdown
    tests = int(table.filter(like="_p_holm").notna().to_numpy().sum())
    assert f"The {tests} tests form one family" in markdown


def test_the_report_across_player_counts_agrees_with_each_count(study):
    assert (study / "report.md").exists() and (study / "report.html").exists()
    assert (study / "charts" / "players_length.png").exists()
    across = pd.read_csv(study / PLAYERS_CSV)
    assert list(zip(across["players"], across["variant"], strict=True)) == [
        (p, v) for p in (3, 4) for v in ("base", "same", "doubling", "draw-one")
    ]
    pd.testing.assert_frame_equal(
        across, players_table([study / "compare-3p", study / "compare-4p"]), check_dtype=False
    )
    for players in (3, 4):
        each = comparison(study, players).set_index("variant")
        mine = across[across["players"] == players].set_index("variant")
        for column in mine.columns.drop(["players", "base", "is_base", "length_unit"]):
            np.testing.assert_array_equal(mine[column], each.loc[mine.index, column])
        # independently of either table: the records' mean turns and first seat's share
        games = load_run(study / f"draw-one-{players}p").games
        assert mine.loc["draw-one", "mean_length"] == pytest.approx(games["turns"].mean())
        first = (games["winner"] == games["first_seat"]).mean() - 1 / players
        assert mine.loc["draw-one", "advantage"] == pytest.approx(first)
        assert mine.loc["draw-one", "decisive"] == pytest.approx((games["winner"] >= 0).mean())
    markdown = (study / "report.md").read_text("utf-8")
    for heading in ("Verdicts", "First seat's advantage", "Decisive deals", "Mean length",
                    "Mean score", "Seat 0's match wins"):  # fmt: skip
        assert f"\n## {heading}\n" in markdown
    length = markdown.split("\n## Mean length\n", 1)[1]
    line = next(x for x in length.splitlines() if x.startswith("| draw-one |"))
    value = across.query("players == 3 and variant == 'draw-one'").iloc[0]
    assert f"| draw-one | {value['mean_length']:.1f} (" in line
    assert "`compare-3p/report.md`" in markdown


def test_bad_thresholds_on_the_command_line_write_nothing(study, tmp_path):
    study_file = study / "study.toml"
    for option, value in (
        ("--negligible-share", "-1"),
        ("--negligible-share", "100"),
        ("--negligible-share", "half"),
        ("--negligible-change", "-0.1"),
        ("--negligible-change", "x"),
    ):
        out = tmp_path / f"sweep{option}{value}"
        line = one_error(
            runner.invoke(app, ["sweep", str(study_file), "--out", str(out), option, value])
        )
        assert f"{option} must be a number" in line and repr(value) in line
        assert not out.exists()
        out = tmp_path / f"compare{option}{value}"
        cells = [str(study / "base-4p"), str(study / "same-4p")]
        line = one_error(runner.invoke(app, ["compare", *cells, "--out", str(out), option, value]))
        assert f"{option} must be a number" in line
        assert not out.exists()
    with pytest.raises(CardsimError, match="negligible_share must be a number"):
        simulate.sweep(study_file, out=tmp_path / "api", negligible_share=-1)
    with pytest.raises(CardsimError, match="negligible_change must be a number"):
        simulate.compare(
            study / "base-4p", study / "same-4p", out=tmp_path / "api", negligible_change="x"
        )
    assert not (tmp_path / "api").exists()


# --- balance per variant -----------------------------------------------------------------

SKILL_STUDY = """\
title = "skill test"
game = "crazy-eights-plain"
players = [3]
games = 400
seed = 5
skill = "hold-wilds"

[[variant]]
name = "any"
rules = {}

[[variant]]
name = "own"
rules = { wild_mode = "own_suit" }
"""


def test_each_variant_has_its_balance_measures(study):
    table = comparison(study, 3)
    for variant in ("base", "draw-one"):
        expected = balance_table(load_run(study / f"{variant}-3p"))
        found = row(table, variant)
        for measure, values in expected.iterrows():
            for column, suffix in (("value", ""), ("lo", "_lo"), ("hi", "_hi")):
                assert found[f"{measure}{suffix}"] == pytest.approx(values[column], rel=1e-9)
        assert "skill" not in table  # no skill games in these folders
    markdown = (study / "compare-3p" / "report.md").read_text("utf-8")
    balance = markdown.split("\n## Balance\n", 1)[1].split("\n## ", 1)[0]
    assert "| measure | base | same | doubling | draw-one |" in balance
    assert balance.count("| `lead_changes` |") == 2  # its values, then its definition once
    assert "draw-one: not measured (no skill games in its folder)" in balance


@pytest.mark.end_to_end
def test_skill_games_of_a_study_reach_the_comparison(tmp_path):
    path = tmp_path / "skill.toml"
    path.write_text(SKILL_STUDY)
    out = tmp_path / "out"
    args = ["sweep", str(path), "--out", str(out), "--formats", "png", "--dpi", "50"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    table = read_comparison(out / "comparison.csv")
    for variant in ("any", "own"):
        cell = out / f"{variant}-3p"
        expected = balance_table(load_run(cell), skill=load_run(cell / "skill")).loc["skill"]
        found = row(table, variant)
        assert found["skill"] == pytest.approx(expected["value"], rel=1e-9)
        assert found["skill_lo"] <= found["skill"] <= found["skill_hi"]
    markdown = (out / "report.md").read_text("utf-8")
    assert "any: `hold-wilds` against `random`; own: `hold-wilds` against `random`" in markdown


def test_the_verdict_names_the_seat_that_changes_most_from_the_records(study):
    """Independently of the comparison: each seat's share counted from the deal's leader in
    the records, the seat whose share changes most, and the seat spread."""
    named = 0
    for players in (3, 4):
        table = comparison(study, players)
        shares = {}
        for name in ("base", "doubling", "draw-one"):
            games = load_run(study / f"{name}-{players}p").games
            won = games[games["winner"] >= 0]
            position = (won["winner"] - won["first_seat"]) % players
            shares[name] = np.bincount(position, minlength=players) / len(games)
        for name in ("doubling", "draw-one"):
            found = row(table, name)
            change = shares[name] - shares["base"]
            for k in range(players):
                assert found[f"position_{k}_share"] == pytest.approx(shares[name][k])
            spread = np.ptp(shares[name]) - np.ptp(shares["base"])
            assert found["spread_diff"] == pytest.approx(spread)
            assert found["spread_diff_lo"] <= found["spread_diff"] <= found["spread_diff_hi"]
            largest = int(np.argmax(np.abs(change)))
            ordinal = ("first", "second", "third", "fourth")[largest]
            points = 100 * abs(change[largest])
            if points >= 0.5 and found["wins_verdict"] != NEGLIGIBLE:
                assert f"the {ordinal} seat" in found["verdict"], found["verdict"]
                named += ordinal != "first"
    assert named  # some variant's largest change is not the first seat's: it is named


def test_runs_that_differ_in_more_than_rules_are_flagged(tmp_path):
    """A variant whose seat 0 plays another strategy: the verdict opens with a warning and
    the variants table shows the strategies; another seed is shown (unpaired), not warned."""
    options = dict(players=3, games=300)
    base = simulate.simulate("crazy-eights", seed=4, out=tmp_path / "base", **options)
    assert base is not None
    simulate.simulate(
        "crazy-eights", seed=4, strategies=["greedy"], out=tmp_path / "greedy", **options
    )
    simulate.simulate("crazy-eights", seed=5, out=tmp_path / "reseeded", **options)
    folders = [tmp_path / n for n in ("base", "greedy", "reseeded")]
    table = simulate.compare(*folders, out=tmp_path / "compare")
    greedy, reseeded = row(table, "greedy"), row(table, "reseeded")
    assert greedy["verdict"].startswith(
        "warning: not only the rules differ (strategies greedy, random, random vs random, "
        "random, random), so the changes below are not the rules' alone; "
    )
    assert not reseeded["verdict"].startswith("warning") and reseeded["not_rules"] == ""
    markdown = (tmp_path / "compare" / "report.md").read_text("utf-8")
    variants = markdown.split("\n## Variants\n", 1)[1].split("\n## ", 1)[0]
    assert "| strategies |" in variants and "| seats |" not in variants
    assert "| greedy, random, random |" in variants
    assert "| 5 (unpaired) |" in variants and "| 4 (unpaired) |" not in variants
    assert f"greedy against base: {greedy['verdict']}." in markdown
