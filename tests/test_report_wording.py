"""The wording of reports and comparisons, checked on real reports of tiny runs (written
through the CLI, in process): counts agree with their nouns ("1 deal", "1 thread"), nothing
is said of "0 deals never ended", a signed figure that rounds to zero has no sign ("0.0",
never "-0.0"), fixed-length matches are "4 deals each" and only matches played to a target
score "on average", and an interval far from symmetric about its share is given as a range
("16.7% (4.7–44.8%)"), never as "± half-width"."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from analysis.rendering.words import (
    chart_title,
    count_text,
    fmt_points,
    fmt_quantity,
    fmt_share_lead,
    fmt_share_pm,
    fmt_signed,
    is_symmetric,
)
from simulate.app.cli import app

runner = CliRunner()
STUDY = Path(__file__).resolve().parents[1] / "studies" / "pis-yedili-sevens.toml"

#: "share ± half-width" in a report's text, and the Wilson interval a summary gives after it.
PM = re.compile(r"\d+\.\d+% ± \d+\.\d+%")
PM_WILSON = re.compile(
    r"(\d+\.\d+)% ± \d+\.\d+% of \w+ \(95% Wilson interval (\d+\.\d+)–(\d+\.\d+)%"
)
#: A count of one with a plural noun ("1 deals", "(1 cards)"), not part of a larger number
#: nor of a progress bar's "1/1 games".
ONE_PLURAL = re.compile(
    r"(?<![\d.,/])1 (deals|cards|turns|games|matches|threads|pairs|variants|runs|tricks)\b"
)
#: A signed figure that rounds to zero: "-0.0", "+0.00", "-0 " ...
SIGNED_ZERO = re.compile(r"(?<![\d.])[+-]0(\.0+)?(?![\d.]*[1-9])\b")


def cardsim(*args: str) -> tuple[str, str]:
    """Run ``cardsim ARGS`` in process; (stdout, stderr)."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def report(folder: Path) -> str:
    return (folder / "report.md").read_text("utf-8")


def summary(markdown: str) -> str:
    """The report's opening paragraph (a comparison's summary: the first after its verdict)."""
    if "\n## Summary\n\n" in markdown:
        return markdown.split("\n## Summary\n\n", 1)[1].split("\n\n")[0]
    return markdown.split("\n\n")[1]


def prose(markdown: str) -> str:
    """The report's text without its tables' numbers: paragraphs and headings."""
    return "\n".join(line for line in markdown.splitlines() if not line.startswith("|"))


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, tuple[str, str]]:
    """Tiny runs and a study, each as (report.md, the CLI's stderr), their folder's path in
    either written ``<root>`` (a study's report names its runs' folders, and pytest's own,
    ``pytest-0`` on a fresh machine, would read as a signed zero)."""
    root = tmp_path_factory.mktemp("wording")
    commands = {
        # 12 four-deal matches: intervals far from symmetric, fixed-length matches.
        "pis12": ("simulate", "pis-yedili", "--games", "12", "--seed", "1"),
        # One deal on one thread.
        "bmn1": ("simulate", "bmn", "--games", "1", "--players", "2", "--seed", "1"),
        "bmn3": ("simulate", "bmn", "--games", "3", "--players", "2", "--seed", "1"),
        # Every deal stopped after 1 card.
        "limit1": (
            "simulate", "bmn", "--games", "3", "--players", "2", "--seed", "1",
            "--rule", "time_limit=1",
        ),
        # Matches of one deal, each deal stopped after 1 turn.
        "cap1": (
            "simulate", "pis-yedili", "--games", "2", "--seed", "1",
            "--rule", "match_deals=1", "--rule", "max_turns=1",
        ),
        # Matches played to a target score: they vary in length.
        "target": (
            "simulate", "crazy-eights", "--games", "50", "--seed", "1",
            "--rule", "target_score=100",
        ),
        "study": ("sweep", str(STUDY), "--games", "20"),
    }  # fmt: skip
    out = {}
    for name, args in commands.items():
        folder = root / name
        _, err = cardsim(*args, "--threads", "1", "--out", str(folder))
        out[name] = tuple(text.replace(str(root), "<root>") for text in (report(folder), err))
    return out


def test_counts_agree_with_their_nouns(runs):
    for name, (markdown, err) in runs.items():
        assert not ONE_PLURAL.search(markdown), (name, ONE_PLURAL.search(markdown))
        assert not ONE_PLURAL.search(err), (name, err)
    one, err = runs["bmn1"]
    assert one.startswith("# Beggar-My-Neighbour · 2 players · 1 deal · default rules\n")
    assert "(default rules; 1 deal)" in summary(one)
    assert "Shares are of the 1 deal," in one
    assert "1 game, 2 players, seed 1, 1 thread ->" in err
    limit = runs["limit1"][0]
    assert "deals last 1 card on average" in summary(limit)
    assert "| rule: time_limit | time limit 1 card (changed) |" in limit
    cap = runs["cap1"][0]
    assert "deals last 1 turn on average" in summary(cap)
    assert "with 1 card played" in summary(cap)
    assert "(1 deal each)" in summary(cap) and "Each match is 1 deal;" in cap
    assert "the `max_turns` safety cap (1 turn) was reached" in cap
    assert "2 variants x 1 player count (4), 20 matches each" in runs["study"][1]


def test_no_zero_count_of_deals_that_never_ended(runs):
    for name in ("bmn1", "bmn3"):
        text = summary(runs[name][0])
        assert "0 deals never ended" not in text
        assert text.endswith("; every deal ended.")
    # Deals stopped at the time limit did not end by play: nothing said of every deal.
    assert summary(runs["limit1"][0]).endswith("; 3 deals stopped at the time limit.")


def test_signed_figures_that_round_to_zero_have_no_sign(runs):
    for name, (markdown, _) in runs.items():
        assert not SIGNED_ZERO.search(markdown), (name, SIGNED_ZERO.search(markdown))
    study = runs["study"][0]
    # The base's advantage (exactly an equal share) and the paired interval's upper end.
    assert "| adding (base) | 80 | 25.00% | 16.8–35.5% | 0.0 pts |" in study
    assert "paired 95% CI -1.0 to 0.0;" in summary(study)


def test_fixed_matches_are_n_deals_each_and_target_matches_on_average(runs):
    fixed = summary(runs["pis12"][0])
    assert "Over 12 matches (4 deals each), " in fixed and "on average)" not in fixed
    target = summary(runs["target"][0])
    assert "Over 50 matches (2.5 deals each on average), " in target
    assert (
        "A match goes on until a seat's total reaches 100: 2.5 deals on average"
        in (runs["target"][0])
    )


def test_asymmetric_intervals_are_ranges(runs):
    for name, (markdown, _) in runs.items():
        text = prose(markdown)
        # Every "x ± h" is followed by its interval, which is symmetric about x.
        checked = PM_WILSON.findall(text)
        assert len(checked) == len(PM.findall(text)), (name, PM.findall(text))
        for share, lo, hi in ((float(v) for v in found) for found in checked):
            below, above = share - lo, hi - share
            assert abs(below - above) <= max(0.1 * max(below, above), 0.1) + 0.1, name
    assert len(PM_WILSON.findall(runs["cap1"][0])) == 1  # 1 of 2 matches: 9.5–90.5%
    pis = runs["pis12"][0]
    # The leader wins 8 of 48 deals (Wilson 8.7–29.6%); seat 0 3 of 12 matches.
    assert "the first seat wins 16.7% of deals (95% Wilson interval 8.7–29.6%)" in summary(pis)
    assert "wins 25.0% of matches (95% Wilson interval 8.9–53.2%" in summary(pis)
    study = summary(runs["study"][0])
    assert "the first seat wins 25.0% (16.8–35.5%) of deals under adding" in study
    assert "seat 0 wins 15.0% (5.2–36.0%) of the matches" in study
    assert "±" not in study


def test_symmetric_intervals_keep_plus_minus():
    # 2 of 4 matches: the Wilson interval is symmetric about 50%.
    assert fmt_share_pm(0.5, 0.15, 0.85) == "50.0% ± 35.0%"
    assert fmt_share_lead(0.5, 0.15, 0.85) == "50.0% ± 35.0%"
    # Large runs: the half-widths differ in a digit not printed.
    assert fmt_share_pm(0.2503, 0.2443, 0.2564) == "25.0% ± 0.6%"
    assert fmt_share_pm(0.251, 0.25015, 0.25185) == "25.10% ± 0.09%"


def test_share_formatters():
    # 2 of 12 matches: Wilson 4.7–44.8%, not "16.7% ± 20.1%".
    assert fmt_share_pm(2 / 12, 0.04702, 0.44798) == "16.7% (4.7–44.8%)"
    assert fmt_share_lead(2 / 12, 0.04702, 0.44798) == "16.7%"
    assert fmt_share_pm(0.0, 0.0, 0.793) == "0.0% (0.0–79.3%)"
    assert is_symmetric(0.5, 0.4, 0.6) and is_symmetric(0.5, 0.41, 0.6)
    assert not is_symmetric(0.5, 0.3, 0.6)
    assert is_symmetric(0.5, 0.3, 0.6, resolution=0.2)


def test_signed_and_count_formatters():
    assert fmt_signed(-0.04) == "0.0" and fmt_signed(0.04) == "0.0"
    assert fmt_signed(-0.0) == "0.0" and fmt_signed(-0.004, 2) == "0.00"
    assert fmt_signed(-0.05, 2) == "-0.05" and fmt_signed(1234.5) == "+1,234.5"
    assert fmt_points(-0.0004) == "0.0 pts" and fmt_points(0.021) == "+2.1 pts"
    assert count_text(1, "deal") == "1 deal" and count_text(1_200, "deal") == "1,200 deals"
    assert count_text(1, "match") == "1 match" and count_text(0, "match") == "0 matches"
    assert fmt_quantity(1.0, "card") == "1 card" and fmt_quantity(1.04, "card") == "1 card"
    assert fmt_quantity(1.5, "card") == "1.5 cards" and fmt_quantity(0, "turn") == "0 turns"
    from analysis.reports.beggar import rule_text

    assert rule_text("time_limit", 1) == "time limit 1 card"
    meta = {"game": "beggar-my-neighbour", "players": 2, "rules": {}}
    assert chart_title(meta, 1) == "Beggar-My-Neighbour · 2 players · 1 deal · default rules"
    assert chart_title(meta, 1, "matches").endswith(" · 1 match · default rules")
    assert " · 2 matches · " in chart_title(meta, 2, "matches")
