"""Runs on a Dask cluster (docs/cluster.md): the records of a run played by Dask workers are
those of a one-machine run (``load_run``: values, dtypes, order), for single games, matches,
rotated seats and a study's cells; the cluster's faults (a worker SIGKILLed, the scheduler
lost, the client interrupted) keep the run folder intact and resumable; an unreachable
scheduler, a missing ``distributed``, a bad address and workers of another version are each
one line and exit code 2, with nothing written.

Real components: a ``LocalCluster`` of two one-thread worker processes, and a real
``dask scheduler`` with ``dask worker`` subprocesses on 127.0.0.1 (``tests/cluster_hooks.py``
makes their tasks slow enough to be killed mid-run). Every process a test starts is stopped
by its fixture or its ``finally``, even on failure.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from pandas.testing import assert_frame_equal
from run_helpers import assert_intact, completed, records_equal
from typer.testing import CliRunner

import simulate
from analysis.load import load_run
from simulate.app.cli import app
from simulate.core.errors import CardsimError
from simulate.runs.cluster import parse_address
from simulate.runs.cluster.task import TaskRequest, VersionMismatch, describe, play_task
from simulate.runs.request import make_request

pytestmark = pytest.mark.xdist_group("cluster")  # one LocalCluster, fixed ports, real schedulers

distributed = pytest.importorskip("distributed", reason="pip install 'cardsim[cluster]'")

HOOKS = str(Path(__file__).with_name("cluster_hooks.py"))
BIN = Path(sys.executable).parent
runner = CliRunner()

RUNS = {
    "single": dict(game="bmn", games=40_000, seed=11),
    "matches": dict(
        game="pis-yedili", games=6_000, seed=12, players=3, log=2_000, trace=30, rollouts=2
    ),
    "rotated": dict(
        game="crazy-eights",
        games=9_000,
        seed=13,
        players=3,
        strategies=["greedy", "random", "random"],
        rotate_seats=True,
        rules={"match_deals": None},
        log=100,
        trace=40,
        rollouts=3,
    ),
}

STUDY = """\
title = "cluster"
game = "crazy-eights-plain"
players = [3]
games = 6000
seed = 5

[[variant]]
name = "base"
rules = {}

[[variant]]
name = "own"
rules = { wild_mode = "own_suit" }
"""


# --- helpers and fixtures ----------------------------------------------------------------


def one_machine(folder: Path, options: dict) -> Path:
    options = dict(options)
    simulate.simulate(options.pop("game"), out=folder, **options)
    return folder


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_chunk(folder: Path, proc: subprocess.Popen | None = None, timeout: float = 60):
    """Wait until the run in ``folder`` has a finished chunk."""
    deadline = time.monotonic() + timeout
    while not (folder / "manifest.jsonl").exists() or not completed(folder):
        assert proc is None or proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no chunk finished in time"
        time.sleep(0.02)


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait(timeout=30)


def one_error_line(returncode: int, stderr: str, *words: str) -> str:
    assert returncode == 2, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def start_scheduler(port: int) -> subprocess.Popen:
    return subprocess.Popen(
        [BIN / "dask", "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def start_worker(address: str) -> subprocess.Popen:
    """A ``dask worker`` without a nanny (so that SIGKILL kills the worker itself), one
    thread, whose tasks take at least half a second (tests/cluster_hooks.py)."""
    return subprocess.Popen(
        [BIN / "dask", "worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard"]
        + ["--preload", HOOKS],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def wait_for_workers(address: str, count: int) -> None:
    with distributed.Client(address, timeout="20s", set_as_default=False) as client:
        client.wait_for_workers(count, timeout=60)


@pytest.fixture
def real_cluster():
    """A real ``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1:
    ``(address, scheduler process, worker processes)``."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs = [start_scheduler(port)]
    try:
        procs += [start_worker(address), start_worker(address)]
        wait_for_workers(address, 2)
        yield address, procs[0], procs[1:]
    finally:
        for proc in reversed(procs):
            stop(proc)


# --- the records are a one-machine run's ------------------------------------------------


@pytest.mark.parametrize("name", sorted(RUNS))
def test_cluster_records_equal_one_machine(name, local_address, tmp_path):
    options = dict(RUNS[name])
    expected = one_machine(tmp_path / "here", options)
    game = options.pop("game")
    run = simulate.simulate(game, out=tmp_path / "cluster", scheduler=local_address, **options)
    assert run.meta["status"] == "complete"
    assert run.meta["writes"] == "workers"  # the folder is on storage every worker shares
    assert len(assert_intact(tmp_path / "cluster", run.meta["games"]).entries) > 1  # tasks
    assert not (tmp_path / "cluster" / "incoming").exists()  # every attempt committed
    records_equal(tmp_path / "cluster", expected)
    if name == "matches":  # in memory too (no run folder)
        in_memory = simulate.simulate(game, scheduler=local_address, **options)
        assert_frame_equal(in_memory.games, load_run(expected).games, check_exact=True)
        assert_frame_equal(in_memory.matches, load_run(expected).matches, check_exact=True)


def test_logged_matches_over_several_tasks_are_numbered_as_on_one_machine(local_address, tmp_path):
    """Each task numbers its deals (and its logged deals' events) from 0; the client
    numbers both again: the events equal a one-machine run's, in every chunk."""
    from simulate.runs.cluster import connect
    from simulate.runs.engine import play_run

    request = make_request("pis-yedili", players=2, games=1_500, seed=21, threads=1, log=1_500)
    with connect(local_address, threads=1) as cluster:
        play = cluster.play_chunks
        play_run(request, out=tmp_path / "cluster", chunk_size=4096, collect=False, play=play)
    play_run(request, out=tmp_path / "here", chunk_size=4096, collect=False)
    assert len(assert_intact(tmp_path / "cluster", 1_500).entries) > 1
    records_equal(tmp_path / "cluster", tmp_path / "here")


def test_aggregate_only_run_on_a_cluster_equals_one_machine(local_address, tmp_path):
    """--records none on the cluster: the tasks' aggregates, merged in whatever order they
    come, equal a one-machine aggregate-only run's, and so do their reports' numbers; the
    logged games' events come back from the workers all the same."""
    from analysis.reports import write_report

    options = dict(game="bmn", games=40_000, seed=11, records="none", log=300)
    folders = {}
    for where, scheduler in (("here", None), ("cluster", local_address)):
        folders[where] = tmp_path / where
        run = simulate.simulate(
            options["game"],
            out=folders[where],
            scheduler=scheduler,
            **{key: value for key, value in options.items() if key != "game"},
        )
        assert run.meta["status"] == "complete"
        write_report(folders[where], formats="png", dpi=50)
    here, there = (load_run(folders[where]).aggregates for where in ("here", "cluster"))
    assert there.records == here.records == 40_000
    assert there.groups == here.groups
    assert there.longest.sort_by("game").equals(here.longest.sort_by("game"))
    events = [load_run(folders[where]).events for where in ("here", "cluster")]
    assert sorted(events[0]["game"].unique()) == list(range(300))
    assert_frame_equal(events[1], events[0], check_exact=True)
    for name in ("summary.csv", "balance.csv"):
        assert (folders["here"] / name).read_text() == (folders["cluster"] / name).read_text()


def test_sweep_on_a_cluster_gives_the_cells_records(local_address, tmp_path):
    study = tmp_path / "study.toml"
    study.write_text(STUDY)
    here = simulate.sweep(study, out=tmp_path / "here", report=False)
    there = simulate.sweep(study, out=tmp_path / "there", report=False, scheduler=local_address)
    assert_frame_equal(here, there)
    cells = sorted(path.name for path in (tmp_path / "here").iterdir() if path.is_dir())
    assert cells == ["base-3p", "own-3p"]
    for cell in cells:
        records_equal(tmp_path / "there" / cell, tmp_path / "here" / cell)


def _stage_elsewhere(root: str | None) -> None:
    """On a worker: write staged files under ``root`` instead of the run folder (a worker
    whose storage the client does not see; None: as it should again)."""
    import simulate.runs.folder.writer as writer

    real = getattr(writer, "_real_stage_table", writer.stage_table)
    writer._real_stage_table = real
    if root is None:
        writer.stage_table = real
    else:
        writer.stage_table = lambda folder, *args: real(f"{root}{folder}", *args)


@contextlib.contextmanager
def on_the_workers(address: str, change, setting, restored):
    """``change(setting)`` run on every worker at ``address`` for the ``with`` block, then
    ``change(restored)``."""
    with distributed.Client(address, set_as_default=False) as client:
        client.run(change, setting)
        try:
            yield
        finally:
            client.run(change, restored)


def _probe_fails(fails: bool) -> None:
    """On a worker: its storage probe says it cannot reach the folder (False: as it is)."""
    import simulate.runs.cluster.task as task

    real = getattr(task, "_real_probe_storage", task.probe_storage)
    task._real_probe_storage = real
    task.probe_storage = (
        (lambda folder, token, dask_worker=None: f"worker {dask_worker.address} cannot reach")
        if fails
        else real
    )


def test_the_client_writes_where_the_workers_cannot_or_where_asked(
    local_address, tmp_path, monkeypatch
):
    """Storage a worker cannot reach (its probe fails) and the variable that asks for it:
    the client writes every record, as before, and says why."""
    options = dict(RUNS["single"], games=20_000)
    expected = one_machine(tmp_path / "here", options)
    game = options.pop("game")
    with on_the_workers(local_address, _probe_fails, True, False):
        run = simulate.simulate(game, out=tmp_path / "probe", scheduler=local_address, **options)
    assert run.meta["writes"] == "client" and "cannot reach" in run.meta["writes_why"]
    records_equal(tmp_path / "probe", expected)
    monkeypatch.setenv("CARDSIM_CLUSTER_WRITES", "client")
    run = simulate.simulate(game, out=tmp_path / "asked", scheduler=local_address, **options)
    assert run.meta["writes"] == "client" and "CARDSIM_CLUSTER_WRITES" in run.meta["writes_why"]
    records_equal(tmp_path / "asked", expected)
    monkeypatch.delenv("CARDSIM_CLUSTER_WRITES")


def test_workers_asked_to_write_storage_they_cannot_reach_is_one_line_and_writes_nothing(
    local_address, tmp_path, monkeypatch
):
    out = tmp_path / "never"
    args = ["simulate", "bmn", "--games", "1000", "--out", str(out), "--scheduler", local_address]
    monkeypatch.setenv("CARDSIM_CLUSTER_WRITES", "workers")
    with on_the_workers(local_address, _probe_fails, True, False):
        result = runner.invoke(app, args)
    line = one_error_line(result.exit_code, result.stderr, "cannot write the run folder")
    assert str(out) in line and "cannot reach" in line and "CARDSIM_CLUSTER_WRITES" in line
    assert not out.exists()
    monkeypatch.setenv("CARDSIM_CLUSTER_WRITES", "sometimes")
    result = runner.invoke(app, args)
    one_error_line(result.exit_code, result.stderr, "'sometimes'", "auto, workers or client")
    assert not out.exists()


def test_matches_of_any_length_are_numbered_and_staged_where_they_were_played(
    local_address, tmp_path, monkeypatch
):
    """Matches to a target score (any number of deals): each task's chunk stays on its
    worker until every earlier task's deals are counted, then its worker numbers and
    stages them; the records, events and trace equal a one-machine run's."""
    options = dict(TARGET_MATCHES, log=40, trace=5, rollouts=2)
    expected = one_machine(tmp_path / "here", options)
    game = options.pop("game")
    monkeypatch.setattr("simulate.runs.cluster.session.SMALLEST_TASK", 1 << 10)  # tasks
    run = simulate.simulate(game, out=tmp_path / "cluster", scheduler=local_address, **options)
    assert run.meta["writes"] == "workers"
    assert len(assert_intact(tmp_path / "cluster", 3_000).entries) > 4
    assert not (tmp_path / "cluster" / "incoming").exists()
    records_equal(tmp_path / "cluster", expected)


TARGET_MATCHES = dict(
    game="crazy-eights", games=3_000, seed=8, players=3, rules={"target_score": 60}
)
"""Matches of any length (to a target score), over many small tasks."""


@pytest.mark.parametrize("kind", ["single", "target"])
def test_a_staged_file_the_client_cannot_see_is_played_again_and_written_by_the_client(
    local_address, tmp_path, monkeypatch, kind
):
    """A worker that passed the probe but stages its files where the client does not
    look (its storage changed under it): no such chunk is committed; each is played again
    with its records sent back, the rest of the run too (matches held on the workers to be
    numbered among them), and run.json says so."""
    monkeypatch.setattr("simulate.runs.cluster.session.SMALLEST_TASK", 1 << 10)  # tasks
    options = dict(RUNS["single"], games=20_000) if kind == "single" else dict(TARGET_MATCHES)
    expected = one_machine(tmp_path / "here", options)
    game = options.pop("game")
    elsewhere = tmp_path / "elsewhere"
    with on_the_workers(local_address, _stage_elsewhere, str(elsewhere), None):
        run = simulate.simulate(game, out=tmp_path / "cluster", scheduler=local_address, **options)
    assert run.meta["writes"] == "client" and "is not here" in run.meta["writes_why"]
    assert list(elsewhere.rglob("*.parquet"))  # the staged files nobody committed
    assert not (tmp_path / "cluster" / "incoming").exists()
    records_equal(tmp_path / "cluster", expected)


def test_a_worker_not_probed_yet_is_probed_before_its_chunk_is_committed(local_address, tmp_path):
    """A worker that joined after the run began (here: none probed at the start) is
    probed when its first chunk arrives; the chunks are committed by renaming."""
    from simulate.runs.cluster import connect
    from simulate.runs.engine import play_run

    request = make_request("bmn", games=20_000, seed=4, threads=1)
    out = tmp_path / "cluster"
    with connect(local_address, threads=1) as cluster:
        assert not cluster.probed
        play = functools.partial(cluster.play_chunks, stage=out.resolve())
        play_run(request, out=out, chunk_size=4096, collect=False, play=play)
        assert cluster.probed and cluster.stage_failed is None
    play_run(request, out=tmp_path / "here", chunk_size=4096, collect=False)
    assert not (out / "incoming").exists()
    records_equal(out, tmp_path / "here")


def test_cli_scheduler_local_2(tmp_path):
    expected = one_machine(tmp_path / "here", RUNS["single"])
    out = tmp_path / "cluster"
    args = ["simulate", "bmn", "--games", "40000", "--seed", "11", "--no-report"]
    result = runner.invoke(app, [*args, "--out", str(out), "--scheduler", "local:2"])
    assert result.exit_code == 0, result.output
    assert "2 workers at local:2" in result.stderr and "Warning" not in result.stderr
    records_equal(out, expected)


# --- faults ------------------------------------------------------------------------------


WRITES = pytest.mark.parametrize("writes", ["workers", "client"])
"""The fault tests run with the records written by the workers (the run folder shared,
here) and by the client (``CARDSIM_CLUSTER_WRITES=client``)."""


def writes_env(writes: str) -> dict:
    """The environment of a client whose records ``writes`` writes."""
    return {**os.environ, "CARDSIM_CLUSTER_WRITES": "client" if writes == "client" else "auto"}


@pytest.mark.slow  # real dask scheduler and worker processes
@WRITES
def test_a_worker_killed_mid_run_changes_no_record(real_cluster, tmp_path, writes, monkeypatch):
    monkeypatch.setenv("CARDSIM_CLUSTER_WRITES", writes_env(writes)["CARDSIM_CLUSTER_WRITES"])
    address, _, workers = real_cluster
    options = dict(RUNS["single"], games=200_000)
    expected = one_machine(tmp_path / "here", options)
    out = tmp_path / "cluster"
    killed_at = []

    def kill_a_worker():
        try:
            wait_for_chunk(out)
            killed_at.append(completed(out))
        finally:
            workers[0].send_signal(signal.SIGKILL)

    killer = threading.Thread(target=kill_a_worker, daemon=True)
    killer.start()
    game = options.pop("game")
    run = simulate.simulate(game, out=out, scheduler=address, **options)
    killer.join(timeout=30)
    assert workers[0].wait(timeout=10) == -signal.SIGKILL
    assert killed_at and 0 < killed_at[0] < 200_000  # killed mid-run
    assert run.meta["status"] == "complete" and run.meta["writes"] == writes
    assert_intact(out, 200_000)
    assert not (out / "incoming").exists()  # a killed worker's attempt is cleaned away
    records_equal(out, expected)


@pytest.mark.slow  # real dask scheduler and worker processes
@WRITES
def test_a_lost_scheduler_interrupts_the_run_and_resume_completes_it(tmp_path, writes):
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    scheduler = start_scheduler(port)
    procs = [scheduler]
    out = tmp_path / "cluster"
    try:
        procs.append(start_worker(address))
        wait_for_workers(address, 1)
        client = subprocess.Popen(
            [BIN / "cardsim", "simulate", "bmn", "--games", "200000", "--seed", "11"]
            + ["--out", str(out), "--no-report", "--scheduler", address],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=writes_env(writes),
        )
        procs.append(client)
        wait_for_chunk(out, client)
        scheduler.send_signal(signal.SIGKILL)
        started = time.monotonic()
        _, err = client.communicate(timeout=60)
        assert time.monotonic() - started < 15
    finally:
        for proc in reversed(procs):
            stop(proc)
    assert client.returncode == 130, err
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"lost the Dask scheduler at {address}: interrupted after"), err
    assert "--resume" in last and "Traceback" not in err
    meta = json.loads((out / "run.json").read_text())
    assert meta["status"] == "interrupted" and 0 < meta["completed_games"] < 200_000
    assert meta["writes"] == writes
    assert_intact(out)
    resume = ["simulate", "bmn", "--out", str(out), "--resume", "--no-report"]
    result = runner.invoke(app, [*resume, "--scheduler", "local:2"])  # on the cluster
    assert result.exit_code == 0, result.output
    expected = one_machine(tmp_path / "here", dict(RUNS["single"], games=200_000))
    records_equal(out, expected)


@WRITES
def test_script_client_ctrl_c_keeps_finished_chunks_and_resume_completes(
    tmp_path, cardsim_exe, writes
):
    """Ctrl-C as a terminal sends it: SIGINT to the client's whole process group, local
    cluster included. The client stops cleanly, the cluster goes away, and a one-machine
    --resume completes the run."""
    out = tmp_path / "cluster"
    client = slow_local_client(
        cardsim_exe,
        ["pis-yedili", "--games", "60000", "--seed", "12", "--players", "3"],
        out,
        writes,
    )
    try:
        wait_for_chunk(out, client)
        os.killpg(client.pid, signal.SIGINT)
        _, err = client.communicate(timeout=60)
        deadline = time.monotonic() + 20  # the local cluster's processes are gone too
        while _group_alive(client.pid):
            assert time.monotonic() < deadline, "the local cluster outlived its client"
            time.sleep(0.1)
    finally:
        if _group_alive(client.pid):
            os.killpg(client.pid, signal.SIGKILL)
        stop(client)
    assert client.returncode == 130, err
    assert "Traceback" not in err
    assert "resume with: cardsim simulate pis-yedili" in err.strip().splitlines()[-1]
    meta = json.loads((out / "run.json").read_text())
    assert meta["status"] == "interrupted" and 0 < meta["completed_games"] < 60_000
    assert meta["writes"] == writes
    assert_intact(out)
    result = runner.invoke(
        app, ["simulate", "pis-yedili", "--out", str(out), "--resume", "--no-report"]
    )
    assert result.exit_code == 0, result.output
    expected = one_machine(tmp_path / "here", dict(RUNS["matches"], games=60_000, log=0, trace=0))
    records_equal(out, expected)


def slow_local_client(cardsim_exe: str, args: list[str], out: Path, writes: str):
    """``cardsim simulate ARGS --out OUT --scheduler local:2`` in a session of its own (its
    local cluster in its process group), its tasks slowed by the test hooks, its records
    written as ``writes`` says."""
    env = {**writes_env(writes), "DASK_DISTRIBUTED__WORKER__PRELOAD": json.dumps([HOOKS])}
    return subprocess.Popen(
        [
            cardsim_exe,
            "simulate",
            *args,
            "--out",
            str(out),
            "--no-report",
            "--scheduler",
            "local:2",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# --- one-line refusals -------------------------------------------------------------------


def simulate_on(
    cardsim_exe: str, out: Path, port: int, writes: str = "workers"
) -> tuple[subprocess.CompletedProcess, float]:
    """``cardsim simulate`` of 1,000 deals on the scheduler at 127.0.0.1:``port``, and
    the seconds it took."""
    started = time.monotonic()
    result = subprocess.run(
        [cardsim_exe, "simulate", "bmn", "--games", "1000", "--out", str(out)]
        + ["--scheduler", f"tcp://127.0.0.1:{port}"],
        capture_output=True,
        text=True,
        timeout=60,
        env=writes_env(writes),
    )
    return result, time.monotonic() - started


@WRITES
def test_script_a_client_killed_mid_run_leaves_a_run_that_resume_completes(
    tmp_path, cardsim_exe, writes
):
    """The client SIGKILLed with its local cluster (a crash: no clean stop): the finished
    chunks are intact, and --resume on a cluster completes the run with a one-machine
    run's records; what the workers had staged and nobody committed is gone."""
    out = tmp_path / "cluster"
    client = slow_local_client(
        cardsim_exe, ["bmn", "--games", "200000", "--seed", "11"], out, writes
    )
    try:
        wait_for_chunk(out, client)
        os.killpg(client.pid, signal.SIGKILL)
        client.communicate(timeout=60)
    finally:
        if _group_alive(client.pid):
            os.killpg(client.pid, signal.SIGKILL)
        stop(client)
    assert client.returncode == -signal.SIGKILL
    meta = json.loads((out / "run.json").read_text())
    assert meta["status"] == "running" and meta["writes"] == writes  # crashed
    assert_intact(out)
    resume = ["simulate", "bmn", "--out", str(out), "--resume", "--no-report"]
    result = runner.invoke(app, [*resume, "--scheduler", "local:2"], env=writes_env(writes))
    assert result.exit_code == 0, result.output
    assert not (out / "incoming").exists()
    records_equal(out, one_machine(tmp_path / "here", dict(RUNS["single"], games=200_000)))


@WRITES
def test_script_unreachable_scheduler_is_one_line_within_10_s(tmp_path, cardsim_exe, writes):
    out = tmp_path / "never"
    result, seconds = simulate_on(cardsim_exe, out, free_port(), writes)
    assert seconds < 10
    one_error_line(result.returncode, result.stderr, "cannot reach the Dask scheduler")
    assert not out.exists()


@pytest.mark.parametrize("server", ["silent", "http"])
def test_script_a_server_that_is_no_scheduler_is_one_line_within_10_s(
    tmp_path, cardsim_exe, server
):
    """A port that accepts and never answers, or a web server (issue 32: over 10 minutes
    of hanging): one line, exit 2, nothing written, as for a closed port."""
    import http.server
    import threading

    if server == "http":
        httpd = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler
        )
        port = httpd.server_address[1]
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        stop = httpd.shutdown
    else:
        listener = socket.create_server(("127.0.0.1", 0))
        port = listener.getsockname()[1]
        stop = listener.close
    out = tmp_path / "never"
    try:
        result, seconds = simulate_on(cardsim_exe, out, port)
    finally:
        stop()
    assert seconds < 10
    line = one_error_line(result.returncode, result.stderr, "no Dask scheduler answers")
    assert f"127.0.0.1:{port}" in line and "Traceback" not in result.stderr
    assert not out.exists()


def test_script_without_distributed_says_how_to_install_it(tmp_path):
    out = tmp_path / "never"
    code = (
        "import sys; sys.modules['distributed'] = None\n"
        "from simulate.app.cli import main\n"
        f"sys.argv = ['cardsim', 'simulate', 'bmn', '--games', '1000', '--out', {str(out)!r},"
        " '--scheduler', 'local:1']\n"
        "main()\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    one_error_line(result.returncode, result.stderr, "pip install 'cardsim[cluster]'")
    assert not out.exists()


def test_importing_simulate_never_imports_distributed():
    code = (
        "import sys, simulate, simulate.app.api, simulate.app.cli, simulate.runs.cluster, simulate.runs.engine\n"
        "assert 'distributed' not in sys.modules and 'dask' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    "address", ["foo", "local:0", "local:x", "tcp://127.0.0.1", "http://a:1", "tcp://a:99999"]
)
def test_bad_scheduler_address_is_one_line_and_writes_nothing(address, tmp_path):
    out = tmp_path / "never"
    result = runner.invoke(
        app, ["simulate", "bmn", "--games", "1000", "--out", str(out), "--scheduler", address]
    )
    one_error_line(result.exit_code, result.stderr, repr(address), "tcp://HOST:PORT", "local:N")
    assert not out.exists()


def test_addresses_accepted():
    assert parse_address("local").workers >= 1
    assert parse_address("local:1").workers == 1 and parse_address("local:1").local
    remote = parse_address(" tcp://10.0.0.7:8786 ")
    assert remote.url == "tcp://10.0.0.7:8786" and not remote.local


def _set_worker_numba(version: str | None) -> None:
    """On a worker: pretend its numba is ``version`` (None: its own again)."""
    import simulate.runs.cluster.task as task

    real = getattr(task, "_real_worker_versions", task.worker_versions)
    task._real_worker_versions = real
    task.worker_versions = real if version is None else (lambda: {**real(), "numba": version})


def test_workers_of_another_version_are_refused(local_address, tmp_path):
    with distributed.Client(local_address, set_as_default=False) as client:
        client.run(_set_worker_numba, "0.0.1")
        try:
            with pytest.raises(CardsimError, match="has numba 0.0.1 where the client has"):
                simulate.simulate("bmn", games=1000, scheduler=local_address)
            out = tmp_path / "never"
            result = runner.invoke(
                app,
                ["simulate", "bmn", "--games", "1000", "--out", str(out)]
                + ["--scheduler", local_address],
            )
            one_error_line(result.exit_code, result.stderr, "numba 0.0.1", "refused")
            assert not out.exists()
        finally:
            client.run(_set_worker_numba, None)


def test_a_task_refuses_a_client_of_another_version():
    task = describe(make_request("bmn", games=10, seed=1))
    other = TaskRequest(task.meta, task.user_strategies, 1, (("numba", "0.0.1"),))
    with pytest.raises(VersionMismatch, match="numba .* where the client has 0.0.1"):
        play_task(other, 0, 10)


def test_an_encoded_task_sends_the_files_the_writer_would_write():
    """``encoded``: a task sends what the client only writes as its files' bytes (single
    games: the games and the logged games' events; match play: the matches only, since
    the client numbers the deals again)."""
    from simulate.runs.folder.writer import Encoded, parquet_bytes

    single = describe(make_request("crazy-eights", games=400, seed=3, log=20, threads=1))
    plain, encoded = play_task(single, 0, 300), play_task(single, 0, 300, encoded=True)
    for kind in ("games", "events"):
        table, sent = getattr(plain, kind), getattr(encoded, kind)
        assert isinstance(sent, Encoded) and sent.num_rows == table.num_rows
        assert sent.data.equals(parquet_bytes(table))
    matches = describe(make_request("pis-yedili", games=50, seed=3, threads=1))
    plain, encoded = play_task(matches, 0, 50), play_task(matches, 0, 50, encoded=True)
    assert encoded.games.equals(plain.games)
    assert encoded.matches.data.equals(parquet_bytes(plain.matches))


def test_a_user_strategy_must_be_importable_by_the_workers():
    from cluster_hooks import first_legal

    def local_strategy(hand, legal, view):
        return first_legal(hand, legal, view)

    request = make_request("crazy-eights", games=10, seed=1, strategies=[local_strategy])
    with pytest.raises(CardsimError, match="cannot go to the workers.*module that they can"):
        describe(request)
    task = describe(make_request("crazy-eights", games=10, seed=1, strategies=[first_legal]))
    assert task.user_strategies == ((0, "cluster_hooks", "first_legal"),)


# --- the other commands on a cluster: tournament, tune, explore, search, balance ----------


@pytest.fixture
def cluster_plays(monkeypatch):
    """The runs played through a cluster session (``Cluster.play_chunks`` calls)."""
    import simulate.runs.cluster.session as session

    calls = []
    real = session.Cluster.play_chunks

    def counted(self, request, *args, **kwargs):
        calls.append(request.games)
        yield from real(self, request, *args, **kwargs)

    monkeypatch.setattr(session.Cluster, "play_chunks", counted)
    return calls


def test_tournament_on_a_cluster_gives_every_pairing_s_records(local_address, tmp_path):
    options = dict(strategies="random,greedy", players=3, games=2_000, seed=21, report=False)
    here = simulate.tournament("crazy-eights", out=tmp_path / "here", **options)
    there = simulate.tournament(
        "crazy-eights", out=tmp_path / "there", scheduler=local_address, **options
    )
    assert_frame_equal(here, there)
    pairs = sorted(path.name for path in (tmp_path / "here").glob("pair-*"))
    assert pairs == ["pair-0-1", "pair-1-0"]
    for pair in pairs:
        records_equal(tmp_path / "there" / pair, tmp_path / "here" / pair)


def test_tune_on_a_cluster_gives_the_same_result(local_address, cluster_plays):
    """Every candidate's games on the cluster: the same shares, so the same choices."""
    options = dict(opponents="random", players=2, budget=2_600, holdout=1_000, seed=22)
    here = simulate.tune("crazy-eights", **options)
    there = simulate.tune("crazy-eights", scheduler=local_address, **options)
    assert there == here
    assert len(cluster_plays) >= 8 * 16 + 2  # every candidate, and the held-out runs
    assert len(here.history) == 8 and here.holdout_games == 2 * 1_000  # both seatings


def test_explore_on_local_2_writes_the_same_explore_csv(tmp_path, cluster_plays):
    """Same seed => same choices and the same explore.csv, here or on a cluster."""
    args = ["explore", "crazy-eights-plain", "--players", "3", "--seed", "1"]
    args += ["--vary", "hand_size=5,7", "--aim", "turns=min", "--budget", "10000"]
    args += ["--first-round", "500"]
    folders = {}
    for where, extra in (("here", []), ("cluster", ["--scheduler", "local:2"])):
        folders[where] = tmp_path / where
        result = runner.invoke(app, [*args, "--out", str(folders[where]), *extra])
        assert result.exit_code == 0, result.output
    assert len(cluster_plays) >= 2 * 2  # round 1 and the held-out deals of both rule sets
    here, there = (folders[where] / "explore.csv" for where in ("here", "cluster"))
    assert len(here.read_text().splitlines()) == 3  # a header, two rule sets
    assert there.read_bytes() == here.read_bytes()
    assert (folders["cluster"] / "best.toml").read_bytes() == (
        folders["here"] / "best.toml"
    ).read_bytes()


def test_search_on_a_cluster_finds_the_same_deals(local_address, cluster_plays):
    """The longest deals and the loops of 40,000 deals, cut into the cluster's tasks rather
    than this machine's chunks: the same text (ties go to the lowest game either way)."""
    args = ["search", "bmn", "--games", "40000", "--seed", "3", "--top", "5"]
    here = runner.invoke(app, args)
    there = runner.invoke(app, [*args, "--scheduler", local_address])
    assert here.exit_code == 0 and there.exit_code == 0, (here.output, there.output)
    assert "The 5 longest deals that end:" in here.stdout
    assert there.stdout == here.stdout
    assert cluster_plays == [40_000]


def test_search_keeps_the_same_deals_however_the_run_is_chunked():
    """Found.add sees chunks of any size: the longest deals are those of one chunk of all."""
    from simulate.app.commands.beggar_search import Found
    from simulate.runs.engine import play_chunks

    request = make_request("bmn", games=6_000, seed=4, threads=1)
    whole, pieces = Found(request, 50), Found(request, 50)
    for _, _, chunk in play_chunks(request, chunk_size=6_000):
        whole.add(chunk)
    for _, _, chunk in play_chunks(request, chunk_size=700):
        pieces.add(chunk)
    assert pieces.longest == whole.longest and len(whole.longest) == 50
    cards = [row[0] for row in whole.longest]
    assert cards == sorted(cards, reverse=True)


def test_balance_on_a_cluster_gives_the_run_and_skill_records(local_address, tmp_path):
    options = dict(players=3, games=1_500, seed=23)
    here = simulate.balance("crazy-eights", out=tmp_path / "here", **options)
    there = simulate.balance(
        "crazy-eights", out=tmp_path / "there", scheduler=local_address, **options
    )
    assert_frame_equal(here, there)
    records_equal(tmp_path / "there", tmp_path / "here")
    records_equal(tmp_path / "there" / "skill", tmp_path / "here" / "skill")


def test_balance_cli_connects_once_for_the_run_and_its_skill_games(
    local_address, tmp_path, monkeypatch
):
    import simulate.runs.cluster.session as session

    connects = []
    real = session.connect

    def counted(*args, **kwargs):
        connects.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(session, "connect", counted)
    args = ["balance", "crazy-eights", "--players", "3", "--games", "600", "--seed", "5"]
    expected = tmp_path / "here"
    assert runner.invoke(app, [*args, "--out", str(expected)]).exit_code == 0
    out = tmp_path / "cluster"
    result = runner.invoke(app, [*args, "--out", str(out), "--scheduler", local_address])
    assert result.exit_code == 0, result.output
    # the run, its trace check (the first traced games at twice the rollouts), the skill games
    assert result.stderr.count("2 workers at") == 3
    assert len(connects) == 1
    records_equal(out, expected)
    records_equal(out / "trace-check", expected / "trace-check")
    records_equal(out / "skill", expected / "skill")


@pytest.mark.parametrize(
    "command",
    [
        ["tournament", "crazy-eights", "--strategies", "random,greedy", "--games", "100"],
        ["tune", "crazy-eights", "--budget", "3000"],
        ["explore", "crazy-eights-plain", "--vary", "hand_size=5,7", "--aim", "turns=min"],
        ["search", "bmn", "--games", "100"],
        ["balance", "crazy-eights", "--games", "100"],
    ],
    ids=lambda command: command[0],
)
def test_bad_scheduler_on_every_command_is_one_line_and_writes_nothing(command, tmp_path):
    out = tmp_path / "never"
    args = [*command, "--scheduler", "local:x"]
    if command[0] != "search":
        args += ["--out", str(out / "result.json" if command[0] == "tune" else out)]
    result = runner.invoke(app, args)
    one_error_line(result.exit_code, result.stderr, "'local:x'", "tcp://HOST:PORT", "local:N")
    assert not out.exists()
