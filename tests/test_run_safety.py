"""Run folders that never lose or corrupt data: crashes (SIGKILL at every moment of a chunk's
write), full disks, two runs in one folder, damaged files, and folders from before the
manifest. Each scenario runs the real ``cardsim`` in a subprocess (``tests/faults.py``
injects the fault), and the records it ends with are compared with an uninterrupted run's.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_helpers import cardsim_here as cardsim  # what a command makes of a folder
from faults import set_chunk_size
from pandas.testing import assert_frame_equal
from run_helpers import records_equal

import simulate
from analysis.load import load_run
from simulate.runs.folder import manifest as mf
from simulate.runs.folder.lock import lock_folder
from simulate.runs.folder.records import DamagedRun

# The runs killed or failed on purpose are real processes (FAULTS: start_faulty, a full disk);
# what a command then makes of their folder runs in this process (cardsim).
FAULTS = str(Path(__file__).with_name("faults.py"))
PIS_SINGLE = ["--rule", "match_deals=none"]


def start_faulty(*faults: str, args: list[str], ready: Path) -> subprocess.Popen:
    """Start cardsim with a fault that stops it at a moment; wait till it is there."""
    proc = subprocess.Popen(
        [sys.executable, FAULTS, *faults, "--ready", str(ready), "--", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 90
    while not ready.exists():
        if proc.poll() is not None:
            raise AssertionError(proc.communicate())
        assert time.monotonic() < deadline, "the fault was never reached"
        time.sleep(0.05)
    return proc


def kill(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)


def one_error_line(result: subprocess.CompletedProcess, *words: str) -> str:
    """Exit code 2 and one ``error:`` line naming ``words``, the last thing printed (after
    the run's banner and progress bar, when it had started), no traceback."""
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1 and lines[-1] == errors[0], result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in errors[0], (word, errors[0])
    return errors[0]


def meta_of(folder: Path) -> dict:
    return json.loads((folder / "run.json").read_text())


SCENARIOS = {
    "single": ["simulate", "bmn", "--games", "40000", "--seed", "11"],
    "matches": ["simulate", "pis-yedili", "--games", "6000", "--seed", "12"],
    "rotated": [
        "simulate",
        "crazy-eights",
        "--games",
        "9000",
        "--seed",
        "13",
        "--seats",
        "greedy,random,random",
        "--players",
        "3",
        "--rotate-seats",
        *PIS_SINGLE,
    ],
}


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> dict[str, Path]:
    """Each scenario's run, played in one go (in chunks of other sizes than the killed
    runs')."""
    folders = {}
    before = set_chunk_size(7000)
    try:
        for name, args in SCENARIOS.items():
            folder = tmp_path_factory.mktemp("whole") / name
            result = cardsim(*args, "--out", str(folder), "--no-report")
            assert result.returncode == 0, result.stderr
            assert len(mf.read_manifest(folder).entries) >= 4
            folders[name] = folder
    finally:
        set_chunk_size(before)
    return folders


@pytest.mark.slow
@pytest.mark.parametrize(
    ("scenario", "moment"),
    [
        ("single", "played:2"),
        ("single", "mid-file:3"),
        ("single", "before-line:2"),
        ("single", "mid-line:4"),
        ("matches", "mid-file:2"),
        ("matches", "mid-line:3"),
        ("rotated", "before-line:3"),
        ("rotated", "played:1"),
    ],
)
def test_sigkill_loses_only_the_chunk_in_flight(tmp_path, uninterrupted, scenario, moment):
    out = tmp_path / "run"
    args = [*SCENARIOS[scenario], "--out", str(out), "--no-report"]
    proc = start_faulty("--chunk", "3000", "--stop-at", moment, args=args, ready=tmp_path / "r")
    kill(proc)
    meta = meta_of(out)
    assert meta["status"] == "running"  # run.json exists from the first moment
    finished = int(moment.split(":")[1]) - (0 if moment.startswith("played") else 1)
    assert mf.read_manifest(out).completed == finished * 3000 // (
        3 if scenario == "rotated" else 4 if scenario == "matches" else 1
    )
    report = cardsim("report", str(out))
    one_error_line(report, "crashed", "--resume")
    resumed = cardsim(*SCENARIOS[scenario][:2], "--out", str(out), "--resume", "--no-report")
    assert resumed.returncode == 0, resumed.stderr
    assert "crashed" in resumed.stderr and "Traceback" not in resumed.stderr
    assert meta_of(out)["status"] == "complete"
    assert not list(out.rglob("*.partial"))
    records_equal(out, uninterrupted[scenario])


@pytest.mark.slow
def test_a_sweep_killed_mid_cell_resumes_to_the_same_records(tmp_path):
    study = tmp_path / "study.toml"
    study.write_text(
        'title = "small"\ngame = "pis-yedili"\nplayers = [3]\ngames = 8000\nseed = 5\n'
        'rules = { match_deals = "none" }\n'
        '[[variant]]\nname = "base"\n[[variant]]\nname = "double"\n'
        'rules = { stack_growth = "double" }\n'
    )
    out = tmp_path / "out"
    args = ["sweep", str(study), "--out", str(out), "--no-report"]
    proc = start_faulty(
        "--chunk", "2000", "--stop-at", "mid-file:6", args=args, ready=tmp_path / "r"
    )
    kill(proc)
    assert meta_of(out / "base-3p")["status"] == "complete"
    assert meta_of(out / "double-3p")["status"] == "running"
    resumed = cardsim(*args, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    whole = tmp_path / "whole"
    assert cardsim("sweep", str(study), "--out", str(whole), "--no-report").returncode == 0
    for cell in ("base-3p", "double-3p"):
        assert meta_of(out / cell)["status"] == "complete"
        records_equal(out / cell, whole / cell)


def test_a_full_disk_is_one_line_and_resume_completes_the_run(tmp_path, uninterrupted):
    out = tmp_path / "run"
    args = [*SCENARIOS["single"], "--out", str(out), "--no-report"]
    result = subprocess.run(
        [sys.executable, FAULTS, "--chunk", "5000", "--enospc-at", "3", "--", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    line = one_error_line(result, "no space left", str(out), "more", "--resume")
    assert "10,000 finished games are kept" in line
    assert meta_of(out)["status"] == "interrupted"
    assert mf.read_manifest(out).completed == 10_000
    assert not list(out.rglob("*.partial"))
    resumed = cardsim("simulate", "bmn", "--out", str(out), "--resume", "--no-report")
    assert resumed.returncode == 0, resumed.stderr
    records_equal(out, uninterrupted["single"])


def _mount_tmpfs(folder: Path, size: str) -> bool:
    folder.mkdir()
    options = f"size={size}"
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True
    )
    return done.returncode == 0


@pytest.mark.slow
def test_a_small_filesystem(tmp_path, uninterrupted):
    disk = tmp_path / "disk"
    if os.geteuid() != 0 or shutil.which("mount") is None or not _mount_tmpfs(disk, "48k"):
        pytest.skip("cannot mount a small tmpfs here")
    try:
        out = disk / "run"
        args = [*SCENARIOS["single"], "--out", str(out), "--no-report"]
        precheck = cardsim(*args)
        one_error_line(precheck, "needs about", "free", "--skip-space-check")
        assert not out.exists()
        full = subprocess.run(
            [sys.executable, FAULTS, "--chunk", "5000", "--", *args, "--skip-space-check"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        one_error_line(full, "no space left", "--resume")
        kept = mf.read_manifest(out).completed
        assert kept > 0 and meta_of(out)["status"] in ("interrupted", "running")
        grown = subprocess.run(["mount", "-o", "remount,size=20m", str(disk)], capture_output=True)
        assert grown.returncode == 0, grown.stderr
        resumed = cardsim("simulate", "bmn", "--out", str(out), "--resume", "--no-report")
        assert resumed.returncode == 0, resumed.stderr
        records_equal(out, uninterrupted["single"])
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)


def test_two_runs_in_one_folder(tmp_path):
    out = tmp_path / "run"
    args = [*SCENARIOS["single"], "--out", str(out), "--no-report"]
    proc = start_faulty("--chunk", "5000", "--stop-at", "played:2", args=args, ready=tmp_path / "r")
    try:
        before = (out / "run.json").read_bytes(), (out / mf.MANIFEST_FILE).read_bytes()
        for extra in ([], ["--force"]):
            second = cardsim(*SCENARIOS["single"], "--out", str(out), *extra)
            one_error_line(second, "in use by another run", f"pid {proc.pid}", "since")
        one_error_line(cardsim("report", str(out)), "in progress", "10,000 of 40,000 games")
        one_error_line(cardsim("verify", str(out)), "in progress")
        one_error_line(cardsim("simulate", "bmn", "--out", str(out), "--resume"), "in use")
        assert ((out / "run.json").read_bytes(), (out / mf.MANIFEST_FILE).read_bytes()) == before
    finally:
        kill(proc)


def _damage(folder: Path, index: int) -> Path:
    part = folder / mf.read_manifest(folder).parts("games")[index].file
    data = part.read_bytes()
    part.write_bytes(data[: len(data) // 3])  # a copy cut short
    return part


def test_damaged_files_are_named_and_repaired(tmp_path, uninterrupted):
    out = tmp_path / "run"
    shutil.copytree(uninterrupted["single"], out)
    assert cardsim("verify", str(out), "--replay", "50").returncode == 0
    healthy = cardsim("verify", str(out), "--repair", "--replay", "20")
    assert healthy.returncode == 0 and "nothing to repair" in healthy.stdout
    part = _damage(out, 1)
    with open(out / mf.MANIFEST_FILE, "r+b") as handle:  # and one manifest line garbled
        lines = handle.read().split(b"\n")
        lines[0] = b"{garbled" + lines[0][8:]
        handle.seek(0)
        handle.write(b"\n".join(lines))
    report = one_error_line(cardsim("report", str(out)), "damaged", "verify", "--repair")
    assert str(out) in report
    with pytest.raises(DamagedRun):
        load_run(out)
    found = cardsim("verify", str(out), "--replay", "20")
    assert found.returncode == 1, found.stderr
    problems = [line for line in found.stdout.splitlines() if line.startswith("damaged:")]
    assert len(problems) == 3, found.stdout  # the line, its games, the cut file
    assert any(part.name in line for line in problems)
    repaired = cardsim("verify", str(out), "--repair", "--replay", "20")
    assert repaired.returncode == 0, (repaired.stdout, repaired.stderr)
    assert "repaired:" in repaired.stdout
    records_equal(out, uninterrupted["single"])


def test_resume_of_a_damaged_interrupted_run_replays_the_damaged_chunk(tmp_path, uninterrupted):
    out = tmp_path / "run"
    args = [*SCENARIOS["matches"], "--out", str(out), "--no-report"]
    proc = start_faulty("--chunk", "4000", "--stop-at", "played:3", args=args, ready=tmp_path / "r")
    kill(proc)
    _damage(out, 0)
    (out / mf.read_manifest(out).parts("matches")[1].file).unlink()
    resumed = cardsim("simulate", "pis-yedili", "--out", str(out), "--resume", "--no-report")
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stderr.count("damaged, played again") == 2
    records_equal(out, uninterrupted["matches"])


def _as_legacy(source: Path, folder: Path, status: str = "complete") -> None:
    """The run folder that cardsim wrote before the manifest: one games.parquet (one row
    group per chunk), matches.parquet, run.json without ``format``."""
    folder.mkdir()
    meta = meta_of(source)
    for kind in ("games", "matches"):
        parts = mf.read_manifest(source).parts(kind)
        if status != "complete":
            parts = parts[:1]
        if not parts:
            continue
        tables = [pq.read_table(source / part.file) for part in parts]
        with pq.ParquetWriter(folder / f"{kind}.parquet", tables[0].schema) as writer:
            for table in tables:
                writer.write_table(table, row_group_size=max(1, table.num_rows))
    meta.pop("format")
    meta["status"] = status
    if status != "complete":
        meta["completed_games"] = mf.read_manifest(source).entries[0].count
        meta.pop("completed_deals", None)
    (folder / "run.json").write_text(json.dumps(meta))


def test_folders_from_before_the_manifest_are_still_read(tmp_path, uninterrupted):
    for name in ("single", "matches"):
        legacy = tmp_path / name
        _as_legacy(uninterrupted[name], legacy)
        records_equal(legacy, uninterrupted[name])
        report = cardsim("report", str(legacy))
        assert report.returncode == 0, report.stderr
        checked = cardsim("verify", str(legacy), "--replay", "30")
        assert checked.returncode == 0, checked.stdout
        assert "before checksums" in checked.stdout
    compared = cardsim(
        "compare",
        str(tmp_path / "single"),
        str(uninterrupted["single"]),
        "--out",
        str(tmp_path / "c"),
    )
    assert compared.returncode == 0, compared.stderr
    # an interrupted one resumes into the new layout with the same records
    interrupted = tmp_path / "interrupted"
    _as_legacy(uninterrupted["matches"], interrupted, status="interrupted")
    resumed = cardsim(
        "simulate", "pis-yedili", "--out", str(interrupted), "--resume", "--no-report"
    )
    assert resumed.returncode == 0, resumed.stderr
    assert not (interrupted / "games.parquet").exists()
    records_equal(interrupted, uninterrupted["matches"])


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["verify", "{tmp}"], ["not a run folder"]),
        (["verify", "{run}", "--replay", "0"], ["--replay", "at least 1", "0"]),
        (["verify", "{tmp}/nowhere"], ["not a run folder"]),
    ],
)
def test_verify_bad_input(tmp_path, uninterrupted, args, words):
    filled = [a.format(tmp=tmp_path, run=uninterrupted["single"]) for a in args]
    one_error_line(cardsim(*filled), *words)


def test_records_of_a_run_folder_equal_the_run_in_memory(tmp_path):
    frame = simulate.run("crazy-eights", games=3000, seed=4, out=tmp_path / "r", chunk_size=700)
    loaded = load_run(tmp_path / "r").games
    assert_frame_equal(loaded, frame.assign(end=frame["end"].astype("category")))
    assert len(mf.read_manifest(tmp_path / "r").entries) > 3


def test_manifest_ignores_a_line_cut_short_and_reports_a_garbled_one(tmp_path):
    entry = mf.Entry(0, 10, {"games": mf.Part("games/0.parquet", 10, 5, "ab")})
    later = mf.Entry(10, 5, {"games": mf.Part("games/10.parquet", 5, 5, "cd")})
    (tmp_path / mf.MANIFEST_FILE).write_text(entry.to_line() + later.to_line()[:20])
    manifest = mf.read_manifest(tmp_path)
    assert manifest.entries == [entry] and manifest.bad_lines == []
    assert manifest.gaps(20) == [(10, 20)]
    (tmp_path / mf.MANIFEST_FILE).write_text("garbage\n" + later.to_line())
    manifest = mf.read_manifest(tmp_path)
    assert manifest.entries == [later] and manifest.bad_lines == [1]
    assert manifest.gaps(15) == [(0, 10)]


def test_the_lock_is_reentrant_in_its_thread_and_refused_elsewhere(tmp_path):
    import threading

    from simulate.runs.folder.lock import FolderInUse, is_locked

    with lock_folder(tmp_path):
        with lock_folder(tmp_path):
            assert not is_locked(tmp_path)  # held by this very thread
        errors = []

        def other():
            try:
                lock_folder(tmp_path)
            except FolderInUse as exc:
                errors.append(str(exc))
            errors.append(is_locked(tmp_path))

        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        assert errors[-1] is True and "in use" in errors[0]
    assert not is_locked(tmp_path)
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            f"from simulate.runs.folder.lock import is_locked; print(is_locked({str(tmp_path)!r}))",
        ],
        capture_output=True,
        text=True,
    )
    assert probe.stdout.strip() == "False"


def test_a_chunk_file_is_read_against_its_checksum(tmp_path, uninterrupted):
    out = tmp_path / "run"
    shutil.copytree(uninterrupted["single"], out)
    part = out / mf.read_manifest(out).parts("games")[0].file
    table = pq.read_table(part)
    flipped = table.set_column(1, "winner", pa.array(1 - table["winner"].to_numpy(), pa.int8()))
    pq.write_table(flipped, part)  # a readable file with other records: only a checksum sees it
    with pytest.raises(DamagedRun, match="checksum|bytes"):
        load_run(out)
