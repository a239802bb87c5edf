"""Aggregate-only runs (``--records none``): the statistics kept instead of the rows, and
the report built from them equal to the one built from the full records."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from analysis.aggregates import LONGEST_KEPT, Aggregates, aggregate_games
from analysis.load import load_run, open_run, scan
from analysis.reports import write_report
from analysis.statistics.distribution import Distribution
from analysis.statistics.tally import Values
from simulate.engine import play_run
from simulate.errors import CardsimError
from simulate.request import make_request


def _both(tmp_path, game, players, games, chunk_size, **options):
    """The same run with every record and aggregate-only, each with its report."""
    folders = []
    for records in ("all", "none"):
        out = tmp_path / records
        request = make_request(game, players=players, games=games, seed=11, threads=1, **options)
        play_run(request, out=out, collect=False, chunk_size=chunk_size, records=records)
        write_report(out, formats="png", dpi=50)
        folders.append(out)
    return folders


@pytest.mark.parametrize(
    ("game", "players", "options"),
    [
        ("bmn", 2, {}),
        ("crazy-eights", 3, {"rotate_seats": True}),
    ],
)
def test_report_from_aggregates_equals_the_full_records(tmp_path, game, players, options):
    full, aggregate = _both(tmp_path, game, players, 6000, 4096, **options)
    for name in ("summary.csv", "balance.csv"):
        assert (full / name).read_text() == (aggregate / name).read_text()

    # Every section but the run's timing and the convergence by game index is the same.
    def body(folder):
        text = (folder / "report.md").read_text().split("## Convergence")
        kept = [
            line for line in text[0].splitlines() if not line.startswith(("| elapsed", "| created"))
        ]
        after = text[1].split("\n## ", 1)[1] if "\n## " in text[1] else ""
        return kept, after

    assert body(full) == body(aggregate)
    assert "aggregate-only run" in (aggregate / "report.md").read_text()
    assert not list(aggregate.glob("games/*"))
    meta = json.loads((aggregate / "run.json").read_text())
    assert meta["records"] == "none" and meta["status"] == "complete"


def test_histograms_equal_the_records(tmp_path):
    """Every integer column's histogram, and the wins, equal what the rows give."""
    request = make_request("crazy-eights", players=4, games=3000, seed=5, threads=1)
    games, _ = play_run(request, chunk_size=1000)
    found = aggregate_games(games, request.meta())
    frame = games.to_pandas()
    assert found.records == len(frame)
    for column in ("turns", "plays", "draws", "score_2", "lead_changes", "winner_behind"):
        every = sum((group[column] for group in found.groups.values()), Distribution.empty())
        assert every == Distribution.of(frame[column].to_numpy())
    for (end, winner, _rank), group in found.groups.items():
        assert (
            group["n"] == int(((frame["end"] == end) & (frame["winner"] == winner)).sum()) or _rank
        )
    longest = found.longest.to_pandas()
    top = frame.sort_values(["turns", "game"], ascending=[False, True]).head(LONGEST_KEPT)
    assert set(top["game"]) <= set(longest["game"])


def test_merge_is_exact_and_order_free():
    request = make_request("bmn", players=3, games=4000, seed=3, threads=1)
    games, _ = play_run(request, chunk_size=1000)
    meta = request.meta()
    whole = aggregate_games(games, meta)
    parts = [aggregate_games(games.slice(at, 1000), meta) for at in range(0, 4000, 1000)]
    random.Random(1).shuffle(parts)
    merged = parts[0]
    for part in parts[1:]:
        merged = merged.merge(part)
    again = Aggregates.from_bytes(merged.to_bytes())
    for found in (merged, again):
        assert found.records == whole.records
        assert found.groups.keys() == whole.groups.keys()
        for key, group in whole.groups.items():
            assert found.groups[key] == group
        assert found.longest.sort_by("game").equals(whole.longest.sort_by("game"))
        assert found.first.sort_by("game").column("game") == whole.first.sort_by("game").column(
            "game"
        )


def test_aggregates_file_stays_bounded(tmp_path):
    """Many chunks: one aggregates file under the manifest, its size not growing with the
    games, and load_run gives the aggregates, no rows."""
    sizes = []
    for games in (4000, 40000):
        out = tmp_path / str(games)
        request = make_request("bmn", players=2, games=games, seed=2, threads=1)
        play_run(request, out=out, collect=False, chunk_size=1000, records="none")
        files = list((out / "aggregates").iterdir())
        assert len(files) == 1
        lines = (out / "manifest.jsonl").read_text().splitlines()
        assert len(lines) == 1 and json.loads(lines[0])["count"] == games
        sizes.append(files[0].stat().st_size)
        run = load_run(out)
        assert run.games.empty and run.aggregates.records == games
    assert sizes[1] < 1.5 * sizes[0] + 20_000


def test_scan_fills_values_from_aggregates(tmp_path):
    request = make_request("bmn", players=2, games=3000, seed=9, threads=1)
    play_run(request, out=tmp_path / "all", collect=False, chunk_size=1000)
    play_run(request, out=tmp_path / "none", collect=False, chunk_size=1000, records="none")
    (a,) = scan(open_run(tmp_path / "all"), lambda: [Values("tricks")])
    (b,) = scan(open_run(tmp_path / "none"), lambda: [Values("tricks")])
    assert a.dist == b.dist and a.dist.n == 3000


def test_resume_completes_an_interrupted_aggregate_run(tmp_path):
    """A run cut after some chunks (its tail dropped from the manifest, as a crash leaves
    it) is completed by --resume to the same aggregates."""
    from simulate.engine import stream
    from simulate.folder.writer import RunWriter

    request = make_request("bmn", players=2, games=5000, seed=4, threads=1)
    play_run(request, out=tmp_path / "whole", collect=False, chunk_size=1000, records="none")
    out = tmp_path / "cut"
    meta = {**request.meta(), "records": "none"}
    with RunWriter(out, meta) as writer:
        stream(dataclasses.replace(request, games=2000), writer, chunk_size=1000)
    meta_now = json.loads((out / "run.json").read_text())
    meta_now.update(status="interrupted", games=5000)
    (out / "run.json").write_text(json.dumps(meta_now))
    writer, _ = RunWriter.resume(out)
    with writer:
        stream(request, writer, chunk_size=1000)
    a, b = load_run(tmp_path / "whole").aggregates, load_run(out).aggregates
    assert a.records == b.records == 5000
    assert a.groups == b.groups


def test_records_none_refuses_what_it_cannot_keep():
    request = make_request("pis-yedili", players=2, games=10, seed=1, threads=1)
    with pytest.raises(CardsimError, match="match play"):
        play_run(request, records="none")
    with pytest.raises(CardsimError, match="all or none"):
        play_run(make_request("bmn", games=10, seed=1, threads=1), records="some")


def test_cli_records_none(tmp_path, capsys):
    from typer.testing import CliRunner

    from simulate.cli import app

    out = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        [
            "simulate",
            "bmn",
            "--games",
            "3000",
            "--seed",
            "1",
            "--out",
            str(out),
            "--records",
            "none",
            "--threads",
            "1",
            "--no-report",
        ],
    )
    assert result.exit_code == 0, result.output
    assert load_run(out).aggregates.records == 3000
    bad = CliRunner().invoke(
        app, ["simulate", "bmn", "--games", "10", "--out", str(tmp_path / "x"), "--records", "few"]
    )
    assert bad.exit_code == 2 and "all or none" in bad.output
    assert not (tmp_path / "x").exists()
