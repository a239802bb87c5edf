"""Reports of shedding-game runs, built from small run folders played by the reference."""

import json
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from chart_defaults import every_format
from scipy.stats import binomtest

from analysis.errors import ReportError
from analysis.load import open_run
from analysis.rendering.words import fmt_num, fmt_range, non_default_rules
from analysis.reports import write_report
from analysis.statistics.bootstrap import mean_interval
from simulate.games.shedding import records, reference
from simulate.games.shedding.rules import preset
from simulate.runs.folder.distribution import Distribution

SECTIONS = [
    "Run details",
    "Win share by seat",
    "Win share by strategy",
    "Game length",
    "End reasons",
    "Points and scores",
    "Convergence",
    "Longest deals",
]
END_REASONS = ["out", "stock_out", "blocked", "play_cap", "turn_cap"]


def make_run(folder: Path, game, players, strategies, n, overrides=None, seed=11) -> Path:
    rules = preset(game).with_overrides(overrides or {})
    recs = [reference.play(rules, players, strategies, seed, g) for g in range(n)]
    table = records.to_table(0, records.reference_columns(recs), strategies)
    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, folder / "games.parquet")
    meta = {
        "game": game,
        "players": players,
        "games": n,
        "seed": seed,
        "rules": rules.to_dict(),
        "threads": 1,
        "strategies": strategies,
        "status": "complete",
        "completed_games": n,
        "elapsed_s": 0.5,
        "versions": {"cardsim": "0.1.0"},
        "created": "2026-01-01T00:00:00+00:00",
    }
    (folder / "run.json").write_text(json.dumps(meta))
    return folder


@pytest.fixture(scope="module", params=["pis-yedili", "crazy-eights"])
def built(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp("run") / request.param
    if request.param == "pis-yedili":
        make_run(folder, "pis-yedili", 4, ["random"] * 4, 500, {"stacking": "any_draw"})
    else:
        make_run(folder, "crazy-eights", 3, ["first", "random", "random"], 400)
    with every_format():  # its tests read every format written by default
        html_path, md_path = write_report(folder, top=5)
    games = pd.read_parquet(folder / "games.parquet")
    meta = json.loads((folder / "run.json").read_text())
    return folder, meta, games, md_path.read_text("utf-8"), html_path.read_text("utf-8")


def section(markdown: str, name: str) -> str:
    return markdown.split(f"\n## {name}\n", 1)[1].split("\n## ", 1)[0]


def table_rows(markdown: str, name: str, which: int = 0) -> list[list[str]]:
    tables, current = [], []
    for line in section(markdown, name).splitlines() + [""]:
        if line.startswith("|"):
            current.append(line)
        elif current:
            tables.append(current)
            current = []
    lines = tables[which][2:]
    return [[cell.strip() for cell in line[1:-1].split(" | ")] for line in lines]


def test_every_section_in_both_files(built):
    folder, meta, _, markdown, page = built
    sections = SECTIONS + (["Finishing multipliers"] if meta["rules"]["finish_multiplier"] else [])
    for name in sections:
        assert f"\n## {name}\n" in markdown
        assert f"<h2>{name}</h2>" in page
    assert markdown.startswith(f"# {'Pis Yedili' if meta['game'] == 'pis-yedili' else 'Crazy'}")
    charts = ("length_histogram", "survival", "win_share", "score_distribution", "convergence")
    for chart in charts:
        for ext in ("png", "svg"):
            assert (folder / "charts" / f"{chart}.{ext}").is_file()
        assert f"charts/{chart}.png" in markdown
    assert page.count("data:image/png;base64,") == len(charts)


def test_numbers_match_the_records(built):
    _, meta, games, markdown, _ = built
    n, players = len(games), meta["players"]
    seat0 = int((games["winner"] == 0).sum())
    ci = binomtest(seat0, n).proportion_ci(method="wilson")
    rows = table_rows(markdown, "Win share by seat")
    assert rows[0] == [
        "seat 0",
        str(seat0),
        f"{100 * seat0 / n:.2f}%",
        f"{100 * ci.low:.2f}–{100 * ci.high:.2f}%",
    ]
    assert rows[-1][:2] == ["no winner", str(int((games["winner"] < 0).sum()))]
    summary = markdown.split("\n\n")[1]
    half = 100 * (ci.high - ci.low) / 2
    below, above = seat0 / n - ci.low, ci.high - seat0 / n
    if abs(below - above) < max(0.1 * max(below, above), 0.001):  # symmetric: share ± half
        assert f"wins {100 * seat0 / n:.1f}% ± {half:.1f}% of deals" in summary
    else:  # asymmetric: the share alone, its range following
        assert f"wins {100 * seat0 / n:.1f}% of deals (95% Wilson interval" in summary
    assert f"95% Wilson interval {100 * ci.low:.1f}–{100 * ci.high:.1f}%" in summary
    assert summary.startswith(f"In {players}-player ")
    assert f"deals last {fmt_num(games['turns'].mean())} turns on average" in summary
    advantage = 100 * (seat0 / n - 1 / players)
    assert f"{advantage:+.1f} pts" in summary

    lengths = {r[0]: r for r in table_rows(markdown, "Game length")}
    lo, hi = mean_interval(Distribution.of(games["turns"].to_numpy()))
    assert lengths["turns"][1:4] == [
        fmt_num(games["turns"].mean()),
        fmt_range(lo, hi),
        fmt_num(games["turns"].median()),
    ]
    assert lengths["cards drawn"][1] == fmt_num(games["draws"].mean())

    counts = games["end"].astype(str).value_counts()
    reasons = {r[0].strip("`"): r[2] for r in table_rows(markdown, "End reasons")}
    assert list(reasons) == END_REASONS
    assert reasons == {reason: str(int(counts.get(reason, 0))) for reason in END_REASONS}

    scores = table_rows(markdown, "Points and scores")
    assert len(scores) == players
    for seat, row in enumerate(scores):
        assert row[0] == f"seat {seat}" and row[1] == meta["strategies"][seat]
        assert row[4] == fmt_num(games[f"score_{seat}"].mean())
        assert row[3] == fmt_num(games[f"points_{seat}"].mean())


def test_rules_and_strategies_are_named(built):
    _, meta, games, markdown, _ = built
    details = dict(table_rows(markdown, "Run details"))
    summary = markdown.split("\n\n")[1]
    if meta["game"] == "pis-yedili":
        assert non_default_rules(meta) == ["stacking = any_draw"]
        assert markdown.startswith("# Pis Yedili · 4 players · 500 deals · stacking = any_draw\n")
        assert details["rule"] == "stacking = any_draw (changed)"
        assert "random in every seat" in summary and "stacking = any_draw" in summary
        assert "preset's defaults" in details["other rules"]
    else:
        assert markdown.startswith("# Crazy Eights · 3 players · 400 deals · default rules\n")
        assert "rule" not in details
        assert "first in seat 0, random in seats 1–2" in summary
        rows = {r[0]: r for r in table_rows(markdown, "Win share by strategy")}
        first_wins = int((games["winner"] == 0).sum())
        assert rows["`first`"][1:3] == ["1", str(first_wins)]
        assert rows["`random`"][1:3] == ["2", str(int(games["winner"].isin([1, 2]).sum()))]


def test_finishing_multipliers(built):
    _, meta, games, markdown, _ = built
    if not meta["rules"]["finish_multiplier"]:
        assert "Finishing multipliers" not in markdown
        return
    out = games[games["end"] == "out"]
    ranks = {r[0]: r for r in table_rows(markdown, "Finishing multipliers")}
    sevens = int((out["finish_rank"] == "7").sum())
    assert ranks["7"][1:3] == ["×3", str(sevens)]
    special = out["finish_rank"].astype(str).isin(["7", "J"])
    others = table_rows(markdown, "Finishing multipliers", 1)
    assert others[0][:2] == ["multiplier", str(int(special.sum()))]
    assert others[1][:2] == ["no multiplier", str(int((~special).sum()))]
    total, count = 0, 0
    for game in out[special].itertuples():
        for seat in range(meta["players"]):
            if seat != game.winner:
                total += getattr(game, f"score_{seat}")
                count += 1
    assert others[0][2] == fmt_num(total / count)


def test_missing_column_names_the_file(tmp_path):
    folder = make_run(tmp_path / "run", "crazy-eights", 4, ["random"] * 4, 30)
    path = folder / "games.parquet"
    pd.read_parquet(path).drop(columns="turns").to_parquet(path)
    with pytest.raises(ReportError) as excinfo:
        write_report(folder)
    assert str(path) in str(excinfo.value) and "missing columns turns" in str(excinfo.value)


def test_openspiel_names_seat_zero_not_the_first_seat(tmp_path):
    from analysis.rendering.document import to_markdown
    from analysis.reports import build_report

    folder = make_run(tmp_path / "run", "openspiel", 5, ["random"] * 5, 60)
    markdown = to_markdown(build_report(open_run(folder))[0])
    summary = markdown.split("\n\n")[1]
    assert "the first seat wins" in summary and "drawn at random" in summary
    games = pd.read_parquet(folder / "games.parquet")
    first = int((games["winner"] == games["first_seat"]).sum())
    positions = table_rows(markdown, "Win share by seat", 1)
    assert positions[0][:2] == ["leader", str(first)]
    assert sum(int(r[1]) for r in positions) == 60
    assert "Finishing multipliers" not in markdown


@pytest.mark.end_to_end
def test_rotated_seats_count_wins_by_strategy(tmp_path):
    """With --rotate-seats a seat plays every strategy in turn: the strategy table counts
    each game's winner by the strategy it played in that game."""
    import simulate
    from analysis.reports import write_report

    out = tmp_path / "rot"
    frame = simulate.run(
        "crazy-eights",
        players=3,
        games=3000,
        seed=5,
        strategies=["greedy", "random", "random"],
        rotate_seats=True,
        out=out,
    )
    played = [frame[f"strategy_{s}"].astype(str).to_numpy() for s in range(3)]
    winner = frame["winner"].to_numpy()
    greedy_wins = sum(1 for i, w in enumerate(winner) if w >= 0 and played[w][i] == "greedy")
    _, md = write_report(out)
    text = md.read_text()
    share = f"{100 * greedy_wins / len(frame):.2f}%"
    row = next(line for line in text.splitlines() if line.startswith("| `greedy` |"))
    assert share in row, (share, row)
    assert "every deal played once per cyclic seating" in text
