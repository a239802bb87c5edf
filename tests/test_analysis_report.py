"""Reports built from small synthetic run folders, and the errors of unusable ones."""

import base64
import json
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from chart_defaults import SMALL_DPI, every_format
from scipy.stats import binomtest

from analysis.errors import ReportError
from analysis.load import load_run, open_run
from analysis.rendering import output as output_module
from analysis.rendering.document import to_markdown
from analysis.rendering.words import chart_title, fmt_num, fmt_range, non_default_rules
from analysis.reports import build_report, write_report
from analysis.statistics.bootstrap import mean_interval
from simulate.runs.folder.distribution import Distribution

REPO = Path(__file__).resolve().parents[1]
DEAL_MODULE = "simulate.games.beggar.deal"
SECTIONS = [
    "Run details",
    "Game length",
    "Win share by seat",
    "End reasons",
    "Convergence",
    "Longest deals",
    "Cycles",
]
CYCLES = {17: (6, 2), 301: (12, 4)}  # game index: (cycle_cards, cycle_tricks)
LONGEST = 123


def make_run(folder: Path, players: int = 2, rules: dict | None = None) -> Path:
    """Write a synthetic 500-deal run folder: random lengths and winners, cycles at CYCLES,
    and game LONGEST the longest deal."""
    n = 500
    rng = np.random.default_rng(42)
    cards = rng.integers(20, 900, n).astype(np.int32)
    cards[LONGEST] = 5000
    end = np.full(n, "out", dtype=object)
    winner = rng.integers(0, players, n).astype(np.int8)
    cycle_cards, cycle_tricks = np.zeros(n, np.int32), np.zeros(n, np.int32)
    for game, (c_cards, c_tricks) in CYCLES.items():
        end[game], winner[game] = "cycle", -1
        cycle_cards[game], cycle_tricks[game] = c_cards, c_tricks
    games = pd.DataFrame(
        {
            "game": np.arange(n, dtype=np.int64),
            "cards": cards,
            "tricks": (cards // 7 + 1).astype(np.int32),
            "winner": winner,
            "end": pd.Categorical(end, categories=["out", "cycle", "time_limit"]),
            "cycle_cards": cycle_cards,
            "cycle_tricks": cycle_tricks,
            **{f"cards_held_{i}": np.zeros(n, np.int8) for i in range(players)},
        }
    )
    folder.mkdir(parents=True, exist_ok=True)
    games.to_parquet(folder / "games.parquet")
    meta = {
        "game": "beggar-my-neighbour",
        "players": players,
        "rules": rules or {"penalties": {"J": 1, "Q": 2, "K": 3, "A": 4}, "time_limit": None},
        "seed": 7,
        "games": n,
        "completed_games": n,
        "status": "complete",
        "threads": 2,
        "elapsed_s": 0.5,
        "versions": {"cardsim": "0.1.0"},
        "created": "2026-11-29T23:50:00+00:00",
    }
    (folder / "run.json").write_text(json.dumps(meta))
    return folder


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A 500-deal run and its report, built once: (folder, games, markdown, html)."""
    folder = make_run(tmp_path_factory.mktemp("run") / "run")
    with every_format():  # its tests read every format written by default
        html_path, md_path = write_report(folder, top=5)
    assert (html_path, md_path) == (folder / "report.html", folder / "report.md")
    games = pd.read_parquet(folder / "games.parquet")
    return folder, games, md_path.read_text(encoding="utf-8"), html_path.read_text(encoding="utf-8")


def table_rows(markdown: str, section: str) -> list[list[str]]:
    """Cells of the body rows of the first Markdown table in ``section``."""
    text = markdown.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in text.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line[1:-1].split(" | ")] for line in lines[2:]]


def markdown_of(folder: Path, top: int = 10) -> str:
    """The report's Markdown without rendering charts (faster than write_report)."""
    return to_markdown(build_report(open_run(folder), top)[0])


def test_report_has_every_section_in_both_files(built):
    _, _, markdown, page = built
    for section in SECTIONS:
        assert f"\n## {section}\n" in markdown
        assert f"<h2>{section}</h2>" in page
    assert markdown.startswith("# Beggar-My-Neighbour · 2 players · 500 deals · default rules\n")
    summary = markdown.split("\n\n")[1]
    assert summary.startswith(
        "In two-player Beggar-My-Neighbour (default rules; 500 deals), the first seat wins"
    )


def test_report_numbers_match_the_records(built):
    _, games, markdown, page = built
    n = len(games)
    seat0 = int((games["winner"] == 0).sum())
    seat_rows = table_rows(markdown, "Win share by seat")
    ci = binomtest(seat0, n).proportion_ci(method="wilson")
    assert seat_rows[0] == [
        "seat 0",
        str(seat0),
        f"{100 * seat0 / n:.2f}%",
        f"{100 * ci.low:.2f}–{100 * ci.high:.2f}%",
    ]
    assert seat_rows[-1][:2] == ["no winner", str(len(CYCLES))]
    half = 100 * (ci.high - ci.low) / 2
    assert f"the first seat wins {100 * seat0 / n:.1f}% ± {half:.1f}% of deals" in markdown

    ended = games[games["end"] != "cycle"]
    length_rows = table_rows(markdown, "Game length")
    lo, hi = mean_interval(Distribution.of(ended["cards"].to_numpy()))
    assert lo < ended["cards"].mean() < hi
    assert length_rows[0][:4] == [
        "cards",
        fmt_num(ended["cards"].mean()),
        fmt_range(lo, hi),
        fmt_num(ended["cards"].median()),
    ]
    assert length_rows[0][-1] == "5,000"
    assert f"last {fmt_num(ended['cards'].mean())} cards on average" in markdown

    convergence = table_rows(markdown, "Convergence")
    assert [r[0] for r in convergence] == ["100", "200", "500"]
    first_100 = games.iloc[:100]
    assert convergence[0][1] == f"{(first_100['winner'] == 0).mean() * 100:.2f}%"
    kept = first_100[first_100["end"] != "cycle"]["cards"]
    assert convergence[0][3] == fmt_num(kept.mean(), 2)
    assert convergence[-1][1:3] == seat_rows[0][2:4]
    assert convergence[-1][3] == fmt_num(ended["cards"].mean(), 2)

    assert f"{len(CYCLES)} deals never ended" in markdown
    cycle_rows = table_rows(markdown, "Cycles")
    assert [(int(r[0]), int(r[3]), int(r[4])) for r in cycle_rows] == [
        (g, c, t) for g, (c, t) in CYCLES.items()
    ]
    reason_rows = {r[0]: r[2] for r in table_rows(markdown, "End reasons")}
    assert reason_rows == {
        "`out`": str(n - len(CYCLES)),
        "`cycle`": str(len(CYCLES)),
        "`time_limit`": "0",
    }
    # The HTML holds the same formatted numbers.
    for row in seat_rows + length_rows:
        for cell in row:
            assert cell.replace("`", "") in page


def test_longest_deals_are_sorted_and_limited_to_top(built):
    _, games, markdown, _ = built
    rows = table_rows(markdown, "Longest deals")
    assert len(rows) == 5 and int(rows[0][0]) == LONGEST
    expected = games[games["end"] != "cycle"].nlargest(5, "cards")["cards"]
    assert [int(r[1].replace(",", "")) for r in rows] == expected.tolist()


def test_charts_are_embedded_in_html_and_linked_from_markdown(built):
    folder, _, markdown, page = built
    images = re.findall(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) == 4
    assert all(base64.b64decode(data).startswith(b"\x89PNG") for data in images)
    assert not re.search(r'(src|href)="(?!data:)', page)
    assert "<script" not in page and "<link" not in page
    for name in re.findall(r"\]\((charts/[\w.]+)\)", markdown):
        assert (folder / name).is_file()
    assert sorted(p.name for p in (folder / "charts").iterdir()) == [
        f"{chart}.{ext}"
        for chart in ("convergence", "length_histogram", "survival", "win_share")
        for ext in ("pdf", "png", "svg")
    ]
    assert not [p for p in folder.rglob("*") if p.name.endswith(".tmp")]


def test_deal_strings_come_from_the_deal_module(tmp_path, monkeypatch):
    calls = []
    fake = types.ModuleType(DEAL_MODULE)
    fake.deal_string = lambda seed, game, players: calls.append((seed, game, players)) or "J/3J"
    monkeypatch.setitem(sys.modules, DEAL_MODULE, fake)
    markdown = markdown_of(make_run(tmp_path / "run"), top=3)
    assert (7, LONGEST, 2) in calls and (7, 17, 2) in calls
    assert len(calls) == 3 + len(CYCLES)
    assert "`J/3J`" in markdown and "cardsim play beggar-my-neighbour --deal" in markdown


def test_deals_fall_back_to_seed_and_index_without_deal_module(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, DEAL_MODULE, None)  # makes the import fail
    markdown = markdown_of(make_run(tmp_path / "run"), top=3)
    assert f"`seed 7, game {LONGEST}`" in markdown


def test_variant_rules_and_more_players(tmp_path):
    rules = {"penalties": {"J": 1, "Q": 2, "K": 3, "A": 5}, "time_limit": 5000}
    markdown = markdown_of(make_run(tmp_path / "run", players=3, rules=rules))
    assert markdown.startswith(
        "# Beggar-My-Neighbour · 3 players · 500 deals · penalties.A = 5, time_limit = 5,000\n"
    )
    assert "In three-player Beggar-My-Neighbour (penalties.A = 5, time_limit = 5,000" in markdown
    assert "against an equal share of 33.3%" in markdown
    assert len(table_rows(markdown, "Win share by seat")) == 4


def test_titles_name_only_non_default_rules():
    meta = {
        "game": "beggar-my-neighbour",
        "players": 4,
        "rules": {"penalties": {"J": 1, "Q": 2, "K": 3, "A": 4}, "time_limit": 300},
    }
    assert non_default_rules(meta) == ["time_limit = 300"]  # as --rule takes it
    assert chart_title(meta, 1_000_000) == (
        "Beggar-My-Neighbour · 4 players · 1,000,000 deals · time_limit = 300"
    )


def test_numbers_are_formatted_without_spurious_decimals():
    assert fmt_num(122.99999999) == "123"
    assert fmt_num(91.64) == "91.6"
    assert fmt_num(1234567.0) == "1,234,567"
    assert fmt_num(float("nan")) == "–"


def test_summary_when_every_deal_cycles(tmp_path):
    folder = make_run(tmp_path / "run")
    games = pd.read_parquet(folder / "games.parquet")
    games["end"], games["winner"] = "cycle", np.int8(-1)
    games.to_parquet(folder / "games.parquet")
    markdown = markdown_of(folder)
    assert "no deal ended: every one was caught in a cycle." in markdown
    assert len(table_rows(markdown, "Cycles")) == 500
    assert table_rows(markdown, "Longest deals") == []


def test_failed_write_leaves_previous_report_intact(tmp_path, monkeypatch):
    folder = make_run(tmp_path / "run")
    (folder / "report.html").write_text("old")

    def refuse(src, dst):
        raise PermissionError(13, "Permission denied", str(dst))

    monkeypatch.setattr(output_module.os, "replace", refuse)
    monkeypatch.setattr(output_module, "render", lambda fig, fmt, dpi=200: b"chart")  # speed
    with pytest.raises(ReportError, match="cannot write report"):
        write_report(folder)
    assert (folder / "report.html").read_text() == "old"
    assert not [p for p in folder.rglob("*") if p.name.endswith(".tmp")]


def _break_parquet(folder: Path) -> Path:
    (folder / "games.parquet").write_bytes(b"PAR1 this is not parquet")
    return folder / "games.parquet"


def _break_json(folder: Path) -> Path:
    (folder / "run.json").write_text('{"game": ')
    return folder / "run.json"


def _drop(name: str):
    def drop(folder: Path) -> Path:
        (folder / name).unlink()
        return folder / name

    return drop


def _drop_column(folder: Path) -> Path:
    path = folder / "games.parquet"
    pd.read_parquet(path).drop(columns="winner").to_parquet(path)
    return path


@pytest.mark.parametrize(
    "damage, message",
    [
        (_break_parquet, "unreadable Parquet file"),
        (_break_json, "invalid JSON"),
        (_drop("run.json"), "missing"),
        (_drop("games.parquet"), "missing"),
        (_drop_column, "missing columns winner"),
    ],
)
@pytest.mark.parametrize("reader", [load_run, write_report])
def test_unusable_run_folder_raises_report_error(tmp_path, damage, message, reader):
    folder = make_run(tmp_path / "run")
    path = damage(folder)
    with pytest.raises(ReportError) as excinfo:
        reader(folder)
    text = str(excinfo.value)
    assert str(path) in text and message in text and "\n" not in text


def test_missing_folder_raises_report_error(tmp_path):
    with pytest.raises(ReportError, match=re.escape(str(tmp_path / "nowhere"))):
        write_report(tmp_path / "nowhere")


def test_report_never_imports_numba(tmp_path):
    folder = make_run(tmp_path / "run")
    code = (
        "import sys\nimport analysis.reports\nassert 'numba' not in sys.modules, 'on import'\n"
        # the tests' small charts: the backends are matplotlib's, whatever the format
        f"analysis.reports.write_report({str(folder)!r}, dpi={SMALL_DPI}, formats='png')\n"
        "assert 'numba' not in sys.modules, 'while writing'\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr


def test_winner_out_of_range_names_the_game(tmp_path):
    folder = make_run(tmp_path / "run")
    games = pd.read_parquet(folder / "games.parquet")
    games.loc[250, "winner"] = 2
    games.to_parquet(folder / "games.parquet")
    with pytest.raises(ReportError, match="winner out of range for 2 players \\(game 250\\)"):
        markdown_of(folder)


def test_batches_and_game_order_do_not_change_the_report(tmp_path, monkeypatch):
    folder = make_run(tmp_path / "run")
    whole = markdown_of(folder)
    monkeypatch.setattr("analysis.load.BATCH_ROWS", 37)
    assert markdown_of(folder) == whole
    shuffled = make_run(tmp_path / "shuffled")
    games = pd.read_parquet(shuffled / "games.parquet")
    games.sample(frac=1, random_state=1).to_parquet(shuffled / "games.parquet")
    assert markdown_of(shuffled) == whole


def test_markdown_escapes_raw_html_outside_code_as_the_html_page_does():
    """A title or name a user gave (issue 32: ``<script>`` kept raw in report.md)."""
    from analysis.rendering.document import Heading, Paragraph, Table, to_html, to_markdown

    blocks = [
        Heading("Study <script>alert(1)</script>", 1),
        Paragraph("p < 0.05 and 3<4, `<kept>` in code, <!-- not a comment -->"),
        Table(["variant", "share"], [["<b>bold</b>", "50%"]], align=["l", "r"]),
    ]
    text = to_markdown(blocks)
    assert "<script>" not in text and "&lt;script>alert(1)&lt;/script>" in text
    assert "p < 0.05 and 3<4, `<kept>` in code, &lt;!-- not a comment -->" in text
    assert "| &lt;b>bold&lt;/b> | 50% |" in text
    assert "<script>" not in to_html(blocks, "t", {})
