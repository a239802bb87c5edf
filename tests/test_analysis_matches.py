"""The match section of a shedding report, from a small hand-made run folder of matches."""

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from chart_defaults import every_format
from scipy.stats import binomtest

from analysis.errors import ReportError
from analysis.load import open_run
from analysis.rendering.document import to_markdown
from analysis.rendering.words import fmt_num
from analysis.reports import build_report, write_report
from analysis.statistics.stats import wilson_interval
from simulate.games.shedding.rules import preset

PLAYERS = 3
# Four 2-deal matches: deal k of a match is led by seat k mod 3.
WINNERS = [0, 1, 2, 2, 1, 0, 0, 0]
TOTALS = [[10, 30, 40], [25, 25, 60], [50, 5, 20], [12, 40, 3]]
SHARES = [[1, 0, 0], [0.5, 0.5, 0], [0, 1, 0], [0, 0, 1]]


def strategy_column(count: int) -> pa.Array:
    return pa.DictionaryArray.from_arrays(pa.array(np.zeros(count, np.int8)), pa.array(["random"]))


def make_match_run(folder: Path, shares=SHARES, drop: str | None = None, status="complete") -> Path:
    """A Pis Yedili run of 4 matches of 2 deals, written by hand."""
    n = len(WINNERS)
    deal = np.arange(n) % 2
    rng = np.random.default_rng(1)
    games = {
        "game": np.arange(n, dtype=np.int64),
        "winner": np.array(WINNERS, np.int8),
        "end": pa.DictionaryArray.from_arrays(
            pa.array(np.zeros(n, np.int8)), pa.array(["out", "stock_out"])
        ),
        **{c: rng.integers(5, 40, n).astype(np.int32) for c in ("turns", "plays", "draws")},
        **{c: np.zeros(n, np.int32) for c in ("passes", "wilds", "reshuffles")},
        "finish_rank": pa.DictionaryArray.from_arrays(
            pa.array(np.full(n, 1, np.int8)), pa.array(["A", "7", "J"])
        ),
        "first_seat": (deal % PLAYERS).astype(np.int8),
    }
    for seat in range(PLAYERS):
        won = np.array(WINNERS) == seat
        games[f"cards_left_{seat}"] = np.where(won, 0, 3).astype(np.int16)
        games[f"points_{seat}"] = np.where(won, 0, 12).astype(np.int32)
        games[f"score_{seat}"] = np.where(won, 0, 36).astype(np.int32)
        games[f"strategy_{seat}"] = strategy_column(n)
    games["match"] = np.arange(n, dtype=np.int64) // 2
    games["deal"] = deal.astype(np.int64)
    matches = {"match": np.arange(4, dtype=np.int64), "deals": np.full(4, 2, np.int64)}
    for seat in range(PLAYERS):
        matches[f"total_{seat}"] = np.array([t[seat] for t in TOTALS], np.int64)
    for seat in range(PLAYERS):
        matches[f"share_{seat}"] = np.array([s[seat] for s in shares], np.float64)
        matches[f"strategy_{seat}"] = strategy_column(4)
    if drop:
        del matches[drop]
    folder.mkdir(parents=True)
    pq.write_table(pa.table(games), folder / "games.parquet")
    pq.write_table(pa.table(matches), folder / "matches.parquet")
    rules = preset("pis-yedili").with_overrides({"match_deals": 2}).to_dict()
    meta = {
        "game": "pis-yedili",
        "players": PLAYERS,
        "games": 4,
        "seed": 3,
        "rules": rules,
        "strategies": ["random"] * PLAYERS,
        "unit": "match",
        "status": status,
        "completed_games": 4 if status == "complete" else 3,
        "completed_deals": n,
    }
    (folder / "run.json").write_text(json.dumps(meta))
    return folder


def section(markdown: str, name: str) -> str:
    return markdown.split(f"\n## {name}\n", 1)[1].split("\n## ", 1)[0]


def tables(markdown: str, name: str) -> list[list[list[str]]]:
    found, current = [], []
    for line in section(markdown, name).splitlines() + [""]:
        if line.startswith("|"):
            current.append([cell.strip() for cell in line[1:-1].split(" | ")])
        elif current:
            found.append(current[2:])
            current = []
    return found


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = make_match_run(tmp_path_factory.mktemp("matches") / "run")
    with every_format():  # its tests read every format written by default
        html_path, md_path = write_report(folder)
    return folder, md_path.read_text("utf-8"), html_path.read_text("utf-8")


def test_match_section_numbers_match_the_records(built):
    folder, markdown, page = built
    assert "<h2>Matches</h2>" in page
    shares, totals = tables(markdown, "Matches")
    for seat, expected in enumerate([1.5, 1.5, 1.0]):
        lo, hi = wilson_interval(expected, 4)
        assert shares[seat] == [
            f"seat {seat}",
            fmt_num(expected),
            f"{100 * expected / 4:.2f}%",
            f"{100 * lo:.2f}–{100 * hi:.2f}%",
        ]
    assert len(shares) == PLAYERS  # a match always has a winner: no "no winner" row
    for seat, row in enumerate(totals):
        values = np.array([t[seat] for t in TOTALS], dtype=float)
        assert row[0] == f"seat {seat}"
        assert row[1:4] == [
            fmt_num(values.mean()),
            fmt_num(np.percentile(values, 10)),
            fmt_num(np.median(values)),
        ]
        assert row[5:] == [fmt_num(values.min()), fmt_num(values.max())]
    assert "Each match is 2 deals" in markdown and "the lowest total wins" in markdown
    for chart in ("match_win_share", "match_totals"):
        assert (folder / "charts" / f"{chart}.svg").is_file()


def test_summary_and_details_count_matches_and_deals(built):
    _, markdown, _ = built
    summary = markdown.split("\n\n")[1]
    assert (
        "Over 4 matches (2 deals each), seat 0, which leads the first deal, wins 37.5% of "
        "matches (95% Wilson interval " in summary
    )
    details = dict(tables(markdown, "Run details")[0])
    assert details["matches"] == "4 recorded of 4 requested"
    assert details["deals"] == "8 recorded"


def test_first_seat_is_the_deal_leader(built):
    _, markdown, _ = built
    seats, positions = tables(markdown, "Win share by seat")
    assert [r[1] for r in seats] == ["4", "2", "2", "0"]
    leader_wins = sum(w == d % 2 for d, w in enumerate(WINNERS))  # first_seat = deal mod 3
    assert positions[0][:2] == ["leader", str(leader_wins)]
    ci = binomtest(leader_wins, len(WINNERS)).proportion_ci(method="wilson")
    summary = markdown.split("\n\n")[1]
    # The interval is far from symmetric about the share: the share alone, then the range.
    assert f"the first seat wins {100 * leader_wins / 8:.1f}% of deals (95% Wilson " in summary
    assert f"{100 * ci.low:.1f}–{100 * ci.high:.1f}%" in summary
    assert "in a match the lead rotates" in summary


def test_incomplete_match_run_says_matches(tmp_path):
    folder = make_match_run(tmp_path / "run", status="interrupted")
    markdown = to_markdown(build_report(open_run(folder))[0])
    assert "The run is incomplete (interrupted): 3 of 4 matches were played." in markdown


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"drop": "share_2"}, "missing columns share_2"),
        ({"shares": [[1, 0, 0], [0.5, 0.4, 0], [0, 1, 0], [0, 0, 1]]}, "match 1 do not sum to 1"),
    ],
)
def test_bad_matches_file_is_one_line_naming_it(tmp_path, kwargs, message):
    folder = make_match_run(tmp_path / "run", **kwargs)
    with pytest.raises(ReportError) as excinfo:
        build_report(open_run(folder))
    text = str(excinfo.value)
    assert str(folder / "matches.parquet") in text and message in text and "\n" not in text
