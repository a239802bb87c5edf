"""Aggregate-only studies (``cardsim sweep --records none``): the variants of a player count
played together, each variant's paired counts against the base kept in its folder, and the
comparison equal to that of the same study with every record; where pairing is impossible,
the comparison says it falls back to independent samples."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.compute as pc
import pytest
from run_helpers import assert_intact, assert_same_bytes, chunk_files
from typer.testing import CliRunner

from analysis.comparisons.report import compare_runs, write_comparison
from analysis.load import load_run, open_run
from analysis.paired_counts import NOT_KEPT, read_paired
from simulate.app.api import playing
from simulate.app.cli import app
from simulate.app.studies.file import load_study
from simulate.app.studies.sweep import RESUME, RUN, SweepInterrupted, plan_sweep, run_sweep
from simulate.runs.engine import play_run
from simulate.runs.folder.distribution import Distribution
from simulate.runs.paired_runs import CellsWriter
from simulate.runs.request import make_request

runner = CliRunner()

WILDS = """\
title = "wilds"
game = "crazy-eights-plain"
players = 3
games = 3000
seed = 5

[[variant]]
name = "any"
rules = {}

[[variant]]
name = "own"
rules = { wild_mode = "own_suit" }

[[variant]]
name = "match"
rules = { wild_mode = "match_suit" }
"""

SEVENS = """\
title = "sevens"
game = "pis-yedili"
players = 4
games = 500
seed = 7

[[variant]]
name = "adding"
rules = {}

[[variant]]
name = "doubling"
rules = { stack_growth = "double" }
"""


def study_file(tmp_path: Path, text: str, name: str = "study.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def sweep(study: Path, out: Path, records: str, chunk_size: int, **options) -> None:
    """Run a study's cells (no report: :func:`comparison` computes the comparison)."""
    plan = plan_sweep(load_study(study), out, threads=1, records=records, **options)
    run_sweep(plan, progress=False, compare=False, echo=lambda line: None, chunk_size=chunk_size)


def comparison(out: Path, cells: list[str], base: int = 0) -> str:
    """The comparison of a study's cells as ``comparison.csv`` holds it (nothing written)."""
    names = [cell.rsplit("-", 1)[0] for cell in cells]
    _, _, table = compare_runs([out / cell for cell in cells], names, base)
    return table.to_csv(index=False, float_format="%.10g")


def one_error(result) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


# --- the comparison equals the full records' ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "cells", "chunk_size"),
    [
        (WILDS, ["any-3p", "own-3p", "match-3p"], 1500),  # 6 ranges of 500 games
        (SEVENS, ["adding-4p", "doubling-4p"], 1600),  # match play: 3 ranges of 200 matches
    ],
)
@pytest.mark.end_to_end
def test_aggregate_only_study_compares_as_the_full_records_do(tmp_path, text, cells, chunk_size):
    study = study_file(tmp_path, text)
    sweep(study, tmp_path / "all", "all", chunk_size)
    sweep(study, tmp_path / "none", "none", chunk_size)

    kept = comparison(tmp_path / "none", cells)
    assert kept == comparison(tmp_path / "all", cells)
    table = pd.read_csv(io.StringIO(kept))
    others = table[~table["is_base"]]
    assert (others["first_analysis"] == "paired").all()
    assert (others["length_analysis"] == "paired").all()
    if "match_analysis" in others:
        assert (others["match_analysis"] == "paired").all()

    parsed = load_study(study)
    for position, cell in enumerate(parsed.cells()):
        folder = tmp_path / "none" / cells[position]
        meta = json.loads((folder / "run.json").read_text())
        assert (meta["records"], meta["status"]) == ("none", "complete")
        kinds = {p.name for p in folder.iterdir()} - {"run.json", "manifest.jsonl", ".lock"}
        assert kinds == ({"aggregates"} if position == 0 else {"aggregates", "paired"})
        manifest = assert_intact(folder, parsed.games)
        assert [(e.first, e.count) for e in manifest.entries] == [(0, parsed.games)]
        files = chunk_files(folder)
        assert len(files) == len(kinds)  # one merged file per kind
        # The cell's statistics are those of its run played alone (simulate --records
        # none), down to the game (deal) numbers of the longest games kept.
        alone = tmp_path / f"alone-{position}"
        play_run(replace(cell.request, records="none"), out=alone, collect=False, chunk_size=999)
        kept = {name: data for name, data in files.items() if name.startswith("aggregates/")}
        assert kept == chunk_files(alone)


def test_kept_pairs_equal_the_pairs_of_the_records(tmp_path):
    """The paired counts of an aggregate-only variant equal those counted by hand from the
    two runs' records (an independent count: pandas, not the comparison's code)."""
    study = study_file(tmp_path, WILDS.replace("3000", "2000"))
    sweep(study, tmp_path / "all", "all", 1200)
    sweep(study, tmp_path / "none", "none", 1200)
    base = load_run(tmp_path / "all" / "any-3p").games
    variant = load_run(tmp_path / "all" / "own-3p").games
    counts = read_paired(open_run(tmp_path / "none" / "own-3p"))
    assert counts.base["rules"]["wild_mode"] == "any" and counts.reason is None
    deals = counts.deals
    assert deals.n == len(base) == 2000
    led_b = base["winner"] == base["first_seat"] % 3
    led_v = variant["winner"] == variant["first_seat"] % 3
    assert deals.first.tolist() == pd.crosstab(led_b, led_v).to_numpy().tolist()
    assert deals.length == Distribution.of((variant["turns"] - base["turns"]).to_numpy())
    summed = sum(variant[f"score_{s}"] - base[f"score_{s}"] for s in range(3))
    assert deals.sums["score"] == Distribution.of(summed.to_numpy())
    assert deals.winner_changes == int((variant["winner"] != base["winner"]).sum()) > 0


def test_paired_counts_stored_before_winner_changes_still_read(tmp_path):
    """A variant's paired counts written before ``winner_changes`` was counted (no such
    figure in the file) read back with it unknown, everything else as stored; with it, the
    file keeps it exactly."""
    from simulate.runs.folder.paired import PairedCounts

    study = study_file(tmp_path, WILDS.replace("3000", "600"))
    sweep(study, tmp_path / "none", "none", 600)
    counts = read_paired(open_run(tmp_path / "none" / "own-3p"))
    table = counts.to_table()
    assert PairedCounts.from_table(table).to_table().equals(table, check_metadata=True)
    older = table.filter(pc.not_equal(table.column("figure"), "winner_changes"))
    assert older.num_rows == table.num_rows - 1
    found = PairedCounts.from_table(older)
    assert found.deals.winner_changes is None and found.deals.n == counts.deals.n
    assert found.to_table().equals(older, check_metadata=True)


# --- resuming, and where the ranges come from ---------------------------------------------


@pytest.mark.end_to_end
def test_resume_completes_an_aggregate_only_study_with_the_same_counts(tmp_path, monkeypatch):
    study = study_file(tmp_path, WILDS)
    sweep(study, tmp_path / "whole", "none", 1500)
    out = tmp_path / "out"
    real_stream = playing.stream

    def stop_after_first_range(request, writer, consume=None, **options):
        def stop(_chunk):
            raise KeyboardInterrupt

        return real_stream(request, writer, stop, **options)

    monkeypatch.setattr(playing, "stream", stop_after_first_range)
    plan = plan_sweep(load_study(study), out, threads=1, records="none")
    resume = r"resume with: cardsim sweep .* --resume --records none"
    with pytest.raises(SweepInterrupted, match=resume):
        run_sweep(plan, progress=False, compare=False, echo=lambda line: None, chunk_size=1500)
    monkeypatch.setattr(playing, "stream", real_stream)
    for cell in ("any-3p", "own-3p", "match-3p"):
        meta = json.loads((out / cell / "run.json").read_text())
        assert (meta["status"], meta["completed_games"]) == ("interrupted", 500)
        assert_intact(out / cell)

    # A cell lost since (as after a crash between two cells' writes): its first range is
    # played again with the base's, which keeps its own.
    for path in sorted((out / "own-3p").rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    (out / "own-3p").rmdir()
    line = one_error(
        runner.invoke(app, ["sweep", str(study), "--out", str(out), "--resume", "--no-report"])
    )
    assert "--records none, not all" in line and "give --records none" in line
    plan = plan_sweep(load_study(study), out, threads=1, resume=True, records="none")
    assert plan.actions == [RESUME, RUN, RESUME]
    run_sweep(plan, progress=False, compare=False, echo=lambda line: None, chunk_size=1500)
    for cell in ("any-3p", "own-3p", "match-3p"):
        assert_same_bytes(out / cell, tmp_path / "whole" / cell)


class _Cell:
    """A cell's writer as :class:`CellsWriter` reads it: the games it lacks."""

    def __init__(self, gaps):
        self.gaps, self.meta, self.written = gaps, {"games": 100}, []

    def todo(self, games):
        return self.gaps

    def write(self, first, count, parts):
        self.written.append((first, count, sorted(parts)))


def test_cells_writer_plays_what_any_cell_lacks_and_writes_each_only_its_own(tmp_path):
    base, lost, behind = _Cell([(40, 100)]), _Cell([(0, 100)]), _Cell([(60, 100)])
    cells = CellsWriter([base, None, lost, behind], tmp_path)
    assert cells.todo(100) == [(0, 40), (40, 60), (60, 100)]
    assert CellsWriter([None, _Cell([(0, 10), (20, 30)])], tmp_path).todo(30) == [(0, 10), (20, 30)]
    assert CellsWriter([_Cell([]), None], tmp_path).todo(30) == []

    class Together:
        aggregates = ("a0", "a1", "a2", "a3")
        paired = (None, "p1", "p2", "p3")

        @classmethod
        def reduce(cls):
            return cls

    cells.write(0, 40, {"aggregates": Together})
    cells.write(40, 20, {"aggregates": Together})
    assert base.written == [(40, 20, ["aggregates"])]
    assert lost.written == [(0, 40, ["aggregates", "paired"]), (40, 20, ["aggregates", "paired"])]
    assert behind.written == []


# --- where pairing is impossible ----------------------------------------------------------


@pytest.mark.end_to_end
def test_variants_dealt_differently_are_compared_as_independent_samples(tmp_path):
    text = WILDS.replace('wild_mode = "own_suit"', "decks = 2").replace("3000", "1000")
    plan = plan_sweep(load_study(study_file(tmp_path, text)), tmp_path / "out", records="none")
    run_sweep(plan, progress=False, echo=lambda line: None, charts={"formats": "png", "dpi": 50})
    table = pd.read_csv(tmp_path / "out" / "comparison.csv")
    two_decks = table[table["variant"] == "own"].iloc[0]
    assert two_decks["first_analysis"] == "independent"
    assert two_decks["pairing_note"].startswith("the deals differ")
    assert table[table["variant"] == "match"].iloc[0]["first_analysis"] == "paired"
    assert not (tmp_path / "out" / "own-3p" / "paired").exists()
    report = (tmp_path / "out" / "report.md").read_text()
    assert "own and any are compared as independent samples: the deals differ" in report


@pytest.mark.end_to_end
def test_aggregate_runs_not_played_together_fall_back_and_a_turned_base_stays_paired(tmp_path):
    study = study_file(tmp_path, WILDS.replace("3000", "1500"))
    sweep(study, tmp_path / "all", "all", 1 << 20)
    sweep(study, tmp_path / "none", "none", 1 << 20)
    # The variant as the base: the base's pairs seen the other way round, as the records give.
    turned = comparison(tmp_path / "none", ["any-3p", "own-3p"], base=1)
    assert turned == comparison(tmp_path / "all", ["any-3p", "own-3p"], base=1)
    assert pd.read_csv(io.StringIO(turned))["first_analysis"][0] == "paired"

    # Two aggregate-only runs played apart keep no pairs: independent samples, said once.
    apart = []
    for name, rules in (("any", {}), ("own", {"wild_mode": "own_suit"})):
        request = make_request(
            "crazy-eights-plain", players=3, games=1500, seed=5, rules=rules, records="none"
        )
        play_run(request, out=tmp_path / name, collect=False)
        apart.append(tmp_path / name)
    _, md = write_comparison(apart, tmp_path / "apart", formats="png", dpi=50)
    row = pd.read_csv(tmp_path / "apart" / "comparison.csv").iloc[1]
    assert row["first_analysis"] == "independent" and row["pairing_note"] == NOT_KEPT
    assert f"own and any are compared as independent samples: {NOT_KEPT}." in md.read_text()
    # ... and their independent figures are those of the study's cells (the same games).
    kept = pd.read_csv(io.StringIO(comparison(tmp_path / "none", ["any-3p", "own-3p"]))).iloc[1]
    assert row["first_diff"] == kept["first_diff"]
    assert (row["first_diff_lo"], row["first_diff_hi"]) == (
        kept["first_ind_lo"],
        kept["first_ind_hi"],
    )
    assert not np.isclose(
        kept["first_diff_hi"] - kept["first_diff_lo"], row["first_diff_hi"] - row["first_diff_lo"]
    )


# --- mistakes --------------------------------------------------------------------------------


def test_what_an_aggregate_only_study_refuses_is_one_line(tmp_path):
    study = study_file(tmp_path, WILDS)
    out = tmp_path / "out"
    line = one_error(
        runner.invoke(app, ["sweep", str(study), "--out", str(out), "--records", "some"])
    )
    assert "'some'" in line and "all or none" in line
    skill = study_file(
        tmp_path, WILDS.replace("seed = 5", 'seed = 5\nskill = "first"'), "skill.toml"
    )
    line = one_error(
        runner.invoke(app, ["sweep", str(skill), "--out", str(out), "--records", "none"])
    )
    assert "skill.toml line 6" in line and "skill games cannot be aggregate-only" in line
    bad = study_file(tmp_path, WILDS.replace("seed = 5", 'seed = 5\nrecords = "few"'), "bad.toml")
    line = one_error(runner.invoke(app, ["sweep", str(bad), "--out", str(out)]))
    assert "bad.toml line 6" in line and "records must be all or none" in line
    assert not out.exists()


@pytest.mark.end_to_end
def test_records_none_in_the_study_file_and_the_command(tmp_path):
    text = WILDS.replace("seed = 5", 'seed = 5\nrecords = "none"').replace("3000", "600")
    out = tmp_path / "out"
    args = ["sweep", str(study_file(tmp_path, text)), "--out", str(out), "--formats", "png"]
    result = runner.invoke(app, [*args, "--dpi", "50", "--threads", "1"])
    assert result.exit_code == 0, result.output
    assert "aggregate-only" in result.stderr and "played together" in result.stderr
    assert json.loads((out / "own-3p" / "run.json").read_text())["records"] == "none"
    assert (out / "own-3p" / "paired").is_dir() and not (out / "own-3p" / "games").exists()
    report = runner.invoke(app, ["report", str(out / "own-3p"), "--formats", "png", "--dpi", "50"])
    assert report.exit_code == 0, report.output
    assert "aggregate-only run" in (out / "own-3p" / "report.md").read_text()
    assert "kept in each variant's folder" in (out / "report.md").read_text()


# --- on a cluster ------------------------------------------------------------------------------


@pytest.mark.xdist_group("cluster")
def test_aggregate_only_study_on_a_cluster_keeps_the_same_counts(tmp_path, local_address):
    """Each task plays its range of every variant and returns their statistics and pairs:
    the cells' folders equal those written here, byte for byte (match play, whose deals
    the client numbers per cell)."""
    from simulate.app.api import sweep as api_sweep

    study = study_file(tmp_path, SEVENS.replace("games = 500", "games = 10000"))
    sweep(study, tmp_path / "here", "none", 24000)  # 3 ranges here, 2 tasks there
    api_sweep(
        study,
        out=tmp_path / "there",
        threads=1,
        report=False,
        records="none",
        scheduler=local_address,
    )
    for cell in ("adding-4p", "doubling-4p"):
        assert_same_bytes(tmp_path / "there" / cell, tmp_path / "here" / cell)
