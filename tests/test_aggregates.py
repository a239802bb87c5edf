"""Aggregate-only runs (``--records none``): the statistics kept instead of the rows, and
the report built from them equal to the one built from the full records."""

from __future__ import annotations

import dataclasses
import json
import random
import types
from fractions import Fraction

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from analysis.load import load_run, open_run, scan
from analysis.reports import write_report
from analysis.reports.matches import aggregated_matches
from analysis.statistics.tally import Values
from simulate.core.errors import CardsimError
from simulate.runs.engine import play_run
from simulate.runs.folder.aggregates import (
    LONGEST_KEPT,
    Aggregates,
    MatchAggregates,
    aggregate_games,
)
from simulate.runs.folder.distribution import Distribution
from simulate.runs.request import make_request


def _both(tmp_path, game, players, games, chunk_size, **options):
    """The same run with every record and aggregate-only, each with its report."""
    folders = []
    for records in ("all", "none"):
        out = tmp_path / records
        request = make_request(
            game, players=players, games=games, seed=11, threads=1, records=records, **options
        )
        play_run(request, out=out, collect=False, chunk_size=chunk_size)
        write_report(out, formats="png", dpi=50)
        folders.append(out)
    return folders


END_TO_END = pytest.mark.end_to_end


@pytest.mark.parametrize(
    ("game", "players", "games", "options"),
    [
        ("bmn", 2, 6000, {}),  # the one make test-fast runs: the others are end_to_end
        pytest.param("crazy-eights", 3, 6000, {"rotate_seats": True}, marks=END_TO_END),
        # match play: Pis Yedili's default rules (matches of 4 deals, finishing
        # multipliers), and Crazy Eights played to a target score (matches of any length)
        pytest.param("pis-yedili", 4, 2000, {}, marks=END_TO_END),
        pytest.param("crazy-eights", 3, 2000, {"rules": {"target_score": 100}}, marks=END_TO_END),
    ],
)
def test_report_from_aggregates_equals_the_full_records(tmp_path, game, players, games, options):
    full, aggregate = _both(tmp_path, game, players, games, 4096, **options)
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
    text = (aggregate / "report.md").read_text()
    assert "aggregate-only run" in text
    assert not list(aggregate.glob("games/*")) and not list(aggregate.glob("matches/*"))
    meta = json.loads((aggregate / "run.json").read_text())
    assert meta["records"] == "none" and meta["status"] == "complete"
    before = json.loads((full / "run.json").read_text())
    assert meta["completed_games"] == before["completed_games"] == games
    assert meta.get("completed_deals") == before.get("completed_deals")
    if meta.get("unit") == "match":
        assert "## Matches" in text and "no single deals or matches" in text
        run = load_run(aggregate)
        assert run.matches is not None and run.matches.empty
        assert run.aggregates.matches.records == games


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


def _match_play(game="pis-yedili", players=2, matches=1500, **options):
    request = make_request(game, players=players, games=matches, seed=7, threads=1, **options)
    games, matches_table = play_run(request, chunk_size=1000)
    return request, games, matches_table


@pytest.mark.parametrize(
    ("game", "players", "options"),
    [
        ("pis-yedili", 2, {}),
        ("crazy-eights", 4, {"rules": {"target_score": 60}, "rotate_seats": True}),
    ],
)
def test_match_statistics_equal_the_matches(game, players, options):
    """Per seat: the summed shares of the match wins (exact fractions, the match's m
    winners 1/m each), the match totals' and deals' histograms, as the rows give them;
    the deals' statistics leave out ``game`` and ``match`` and count ``deal``."""
    request, games, matches = _match_play(game, players, 600, **options)
    found = aggregate_games(games, request.meta(), matches).matches
    frame = matches.to_pandas()
    rows = 600 * (players if options.get("rotate_seats") else 1)  # one per seating
    assert found.records == len(frame) == rows
    shares = frame[[f"share_{s}" for s in range(players)]].to_numpy()
    exact = [Fraction(0)] * players
    for row in shares:
        won = np.flatnonzero(row > 0)
        for seat in won:
            exact[seat] += Fraction(1, len(won))
    assert found.wins(players).tolist() == [float(x) for x in exact]
    assert np.allclose(found.wins(players), shares.sum(axis=0), rtol=0, atol=1e-9)
    assert sum(group["n"] for group in found.groups.values()) == rows
    for column in ("deals", *(f"total_{s}" for s in range(players))):
        assert found.dist(column) == Distribution.of(frame[column].to_numpy())
    assert "match" not in next(iter(found.groups.values()))
    if "rotation" in frame:
        assert found.dist("rotation") == Distribution.of(frame["rotation"].to_numpy())
    summary = aggregated_matches(found, players)
    assert summary.n == rows and summary.totals[0] == found.dist("total_0")
    deals = next(iter(aggregate_games(games, request.meta(), matches).groups.values()))
    assert "deal" in deals and "game" not in deals and "match" not in deals


def test_match_wins_are_exact_from_rows_and_from_aggregates():
    """With ties of three seats (shares of 1/3) a float sum of the rows' shares depends on
    their order; the report counts the wins exactly, from the rows (``read_matches``) and
    from the aggregates alike, both equal to the exact sum rounded once."""
    from analysis.reports.matches import read_matches

    rng = np.random.default_rng(1)
    n = 30_000
    won = (rng.integers(1, 8, n)[:, None] >> np.arange(3)) & 1  # any non-empty set of seats
    share = won / won.sum(axis=1, keepdims=True)
    table = pa.table(
        {
            "match": np.arange(n, dtype=np.int64),
            "deals": rng.integers(1, 9, n),
            **{f"total_{s}": rng.integers(0, 300, n) for s in range(3)},
            **{f"share_{s}": share[:, s] for s in range(3)},
        }
    )
    ways = won.sum(axis=1)
    exact = [
        float(sum(Fraction(int((won[:, s] & (ways == m)).sum()), m) for m in (1, 2, 3)))
        for s in range(3)
    ]

    class Files:
        path = "matches"

        def __bool__(self):
            return True

        def metadata(self):
            return n, tuple(table.schema.names)

        def batches(self, columns, size):
            return table.select(columns).to_batches(7_000)

    folder = types.SimpleNamespace(aggregates=None, players=3, records=lambda kind: Files())
    from_rows = read_matches(folder)
    from_aggregates = MatchAggregates.of_table(table)
    assert from_rows.wins.tolist() == from_aggregates.wins(3).tolist() == exact
    summary = aggregated_matches(from_aggregates, 3)
    assert summary.n == from_rows.n == n
    assert summary.totals == from_rows.totals and summary.deals == from_rows.deals


def _slices(games: pa.Table, matches: pa.Table, bounds: list[int]):
    """The chunks of a match-play run cut at the matches ``bounds``: (deals, matches)."""
    for lo, hi in zip(bounds, bounds[1:], strict=False):
        match = games.column("match")
        keep = pc.and_(pc.greater_equal(match, lo), pc.less(match, hi))
        yield games.filter(keep), matches.slice(lo, hi - lo)


def test_match_play_merge_is_exact_and_order_free():
    request, games, matches = _match_play(matches=1500)
    meta = request.meta()
    whole = aggregate_games(games, meta, matches)
    parts = [aggregate_games(g, meta, m) for g, m in _slices(games, matches, [0, 400, 900, 1500])]
    random.Random(2).shuffle(parts)
    merged = parts[0].merge(parts[1]).merge(parts[2])
    for found in (merged, Aggregates.from_bytes(merged.to_bytes())):
        assert found.records == whole.records == games.num_rows
        assert found.groups == whole.groups
        assert found.matches.records == whole.matches.records == 1500
        assert found.matches.groups == whole.matches.groups
        assert found.matches.schema.equals(matches.schema)
        assert found.longest.sort_by("game").equals(whole.longest.sort_by("game"))
        assert found.labels == whole.labels


@pytest.mark.parametrize("task_chunk", [None, 400])
def test_cluster_tasks_of_match_play_reduce_and_number_their_deals(task_chunk):
    """The cluster's path without a cluster: each task (``play_task``, records none)
    numbers its deals from 0 and returns its chunk reduced; the client numbers the
    deals kept again (``numbered``), and the tasks merged in game order equal the
    one-machine aggregate-only run, down to the ``game`` of the longest deals kept and
    of the logged deals' events. ``task_chunk`` 400: each task plays and reduces five
    chunks of 100 matches, one after the other."""
    from simulate.runs.cluster.session import numbered
    from simulate.runs.cluster.task import describe, play_task

    request = make_request(
        "pis-yedili", players=2, games=1200, seed=6, threads=1, log=700, records="none"
    )
    here: list = []
    logged: list = []
    play_run(request, collect=False, chunk_size=2000, aggregates=here, events=logged)
    task, merged, row, events = describe(request, threads=1), None, 0, []
    for first in range(0, 1200, 500):
        chunk = play_task(task, first, min(500, 1200 - first), chunk_size=task_chunk)
        assert chunk.games is None and chunk.matches is None
        chunk = numbered(chunk, row)
        row += chunk.aggregates.records
        merged = chunk.aggregates if merged is None else merged.merge(chunk.aggregates)
        events += [chunk.events] if chunk.events is not None else []
    assert pa.concat_tables(events).equals(pa.concat_tables(logged))
    (expected,) = here
    assert merged.records == expected.records == row
    assert merged.groups == expected.groups
    assert merged.matches.groups == expected.matches.groups
    assert merged.longest.sort_by("game").equals(expected.longest.sort_by("game"))
    assert merged.first.sort_by("game").equals(expected.first.sort_by("game"))


def test_aggregates_file_stays_bounded(tmp_path):
    """Many chunks: one aggregates file under the manifest, its size not growing with the
    games, and load_run gives the aggregates, no rows."""
    sizes = []
    for games in (4000, 40000):
        out = tmp_path / str(games)
        request = make_request("bmn", players=2, games=games, seed=2, threads=1, records="none")
        play_run(request, out=out, collect=False, chunk_size=1000)
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
    aggregate_only = dataclasses.replace(request, records="none")
    play_run(aggregate_only, out=tmp_path / "none", collect=False, chunk_size=1000)
    (a,) = scan(open_run(tmp_path / "all"), lambda: [Values("tricks")])
    (b,) = scan(open_run(tmp_path / "none"), lambda: [Values("tricks")])
    assert a.dist == b.dist and a.dist.n == 3000


@pytest.mark.end_to_end
@pytest.mark.parametrize("game", ["bmn", "pis-yedili"])
def test_resume_completes_an_interrupted_aggregate_run(tmp_path, game):
    """A run cut after some chunks (its tail dropped from the manifest, as a crash leaves
    it) is completed by --resume to the same aggregates (in match play: the deals kept
    numbered as in one go, the matches counted)."""
    from simulate.runs.engine import stream
    from simulate.runs.folder.writer import RunWriter

    request = make_request(game, players=2, games=5000, seed=4, threads=1, records="none")
    play_run(request, out=tmp_path / "whole", collect=False, chunk_size=1000)
    out = tmp_path / "cut"
    with RunWriter(out, request.meta()) as writer:
        stream(dataclasses.replace(request, games=2000), writer, chunk_size=1000)
    meta_now = json.loads((out / "run.json").read_text())
    meta_now.update(status="interrupted", games=5000)
    (out / "run.json").write_text(json.dumps(meta_now))
    writer, _ = RunWriter.resume(out)
    with writer:
        stream(request, writer, chunk_size=1000)
    a, b = load_run(tmp_path / "whole").aggregates, load_run(out).aggregates
    assert a.records == b.records
    assert a.groups == b.groups
    assert a.longest.sort_by("game").equals(b.longest.sort_by("game"))
    if game == "bmn":
        assert a.records == 5000 and a.matches is None
    else:
        assert a.matches.records == b.matches.records == 5000
        assert a.matches.groups == b.matches.groups


def test_what_a_run_keeps_is_part_of_its_request(tmp_path):
    """run.json says ``records`` from the request alone, and gives it back to a resumed or
    verified run; a run of every record says nothing, as folders from before did. A
    request is never streamed into a folder that keeps other records."""
    from simulate.runs.engine import stream
    from simulate.runs.folder.writer import RunWriter
    from simulate.runs.request import request_from_meta

    for game in ("bmn", "pis-yedili"):
        kept = make_request(game, games=10, seed=1, threads=1, records="none")
        assert kept.meta()["records"] == "none"
        assert request_from_meta(kept.meta(), threads=1) == kept
        every = dataclasses.replace(kept, records="all")
        assert "records" not in every.meta()
        assert request_from_meta(every.meta()).records == "all"
        with RunWriter(tmp_path / game, kept.meta()) as writer:
            with pytest.raises(ValueError, match="keeps others"):
                stream(every, writer)


def test_records_none_refuses_what_it_cannot_keep():
    request = make_request("pis-yedili", players=2, games=10, seed=1, threads=1, records="none")
    found: list = []
    assert play_run(request, aggregates=found) == (None, None)
    assert found[0].matches.records == 10  # match play is kept too
    with pytest.raises(CardsimError, match="all or none"):
        make_request("bmn", games=10, seed=1, threads=1, records="some")


def test_cli_records_none(tmp_path, capsys):
    from typer.testing import CliRunner

    from simulate.app.cli import app

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
    assert bad.exit_code == 2 and "--records is all or none" in bad.output
    assert not (tmp_path / "x").exists()


def test_top_rows_keep_what_a_full_sort_keeps():
    """The longest and first rows, found by partition, are those a stable sort of every row
    by (length descending, game, rotation) per end reason keeps: ties, nulls and short
    groups included."""

    from simulate.runs.folder.aggregates import top_rows

    rng = np.random.default_rng(7)
    n = 20_000
    table = pa.table(
        {
            "game": pa.array(np.repeat(rng.permutation(n // 2), 2), pa.int64()),
            "rotation": pa.array(np.tile([1, 0], n // 2), pa.int8()),
            "end": pa.array(
                rng.choice(["win", "cycle", None, "limit"], n, p=[0.9, 0.05, 0.049, 0.001])
            ),
            "turns": pa.array(rng.integers(0, 40, n), pa.int32()),
            "cards": pa.array(rng.integers(0, 5, n), pa.int16()),
        }
    ).append_column("row", pa.array(np.arange(n)))
    frame = table.to_pandas()
    for longest, top in ((True, 100), (False, 20), (True, 3)):
        keep = set()
        for key in ("turns", "cards") if longest else (None,):
            by = ([key] if key else []) + ["game", "rotation"]
            ordered = frame.sort_values(
                by, ascending=[not key] + [True, True] if key else True, kind="stable"
            )
            keep.update(ordered.groupby("end", dropna=False, sort=False).head(top)["row"])
        expected = frame[frame["row"].isin(keep)].sort_values(["game", "rotation"])["row"].tolist()
        lengths = ("turns", "cards") if longest else ()
        assert top_rows(table, lengths, top, longest=longest)["row"].to_pylist() == expected


def test_verify_replays_the_kept_games_of_an_aggregate_only_run_and_repairs_it(tmp_path):
    """``verify`` on an aggregate-only run: the checksums, and a replay of the whole
    records it keeps (the longest and first games); a kept record that is not what the
    rules give is found, and a lost aggregates file is played again by ``--repair``."""
    import shutil

    from simulate.app.commands.verify import verify_run
    from simulate.runs.folder.manifest import read_manifest

    request = make_request(
        "crazy-eights", players=3, games=6_000, seed=4, threads=1, records="none"
    )
    folder = tmp_path / "run"
    play_run(request, out=folder, chunk_size=2_000, collect=False)
    before = load_run(folder).aggregates
    verdict = verify_run(folder, replay=30)
    assert verdict.healthy and verdict.replayed == 30, verdict

    other = tmp_path / "other"  # the same folder whose run.json names another seed
    shutil.copytree(folder, other)
    meta = json.loads((other / "run.json").read_text())
    (other / "run.json").write_text(json.dumps({**meta, "seed": 5}))
    assert any("differs from its replay" in line for line in verify_run(other, replay=5).problems)

    (folder / read_manifest(folder).entries[0].parts["aggregates"].file).unlink()
    assert not verify_run(folder, replay=5).healthy
    repaired = verify_run(folder, replay=5, repair=True)
    assert repaired.healthy and repaired.repaired == ["games 0-5,999"]
    after = load_run(folder).aggregates
    assert after.groups == before.groups and after.longest.equals(before.longest)
