"""``python -m simulate.app.bench --only cluster``: what the cluster path costs, measured here.

1. A real ``dask scheduler`` and ``workers`` one-thread ``dask worker`` processes are
   started on 127.0.0.1; the time until every worker has joined and loaded the kernels is
   the cluster's start-up, reported apart.
2. Whole runs of ``cardsim simulate`` in fresh processes, in turn: ``--threads W`` on this
   machine and ``--scheduler tcp://…`` on the already-running cluster, with every record
   (written by the workers, the folder being shared here, and by the client,
   ``CARDSIM_CLUSTER_WRITES=client``) and with ``--records none`` (:data:`MODES`); the
   median wall times and their ratio (one machine over cluster: above 1 the cluster is
   faster).
3. The overhead per task: the round trip of an empty task, one at a time, and how many
   empty tasks a second the scheduler completes when 2,000 are submitted at once.
4. The bytes that cross the network per task and per game: a task's result for a full
   chunk, pickled as Dask sends it, with every record (as Arrow tables; encoded as the
   chunk's files, as a run into a folder sends them where the client writes; staged: the
   manifest lines of the files the worker wrote) and reduced to its statistics.
"""

from __future__ import annotations

import os
import pickle
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

RUN = ("pis-yedili", ("--rule", "match_deals=none"))
"""The run timed: single Pis Yedili games (the issue's figure)."""
EMPTY_TASKS = 2_000
"""Empty tasks submitted at once to measure the scheduler's rate."""
BYTES_GAMES = 1 << 20
"""Games in the chunk whose pickled result is weighed (a full chunk, as long runs have)."""


def _noop(index: int) -> int:
    return index


def _warm(_: int = 0) -> int:
    """Load (or compile) the timed run's kernels on a worker, and what an aggregate-only
    task imports; the games played."""
    import simulate.runs.folder.aggregates  # noqa: F401
    from simulate.runs.engine import play_chunk
    from simulate.runs.request import make_request

    game, _options = RUN
    request = make_request(game, games=1_000, seed=1, threads=1, rules={"match_deals": None})
    return play_chunk(request, 0, 100).games.num_rows


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def running_cluster(workers: int):
    """A ``dask scheduler`` and ``workers`` one-thread ``dask worker`` processes on
    127.0.0.1 for the ``with`` block: yields ``(address, seconds)``, the seconds from the
    first process started to every worker joined and warm (kernels loaded)."""
    from distributed import Client

    dask = Path(sys.executable).parent / "dask"
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    started = time.perf_counter()
    procs = [
        subprocess.Popen(
            [dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
            **quiet,
        )
    ]
    try:
        for _ in range(workers):
            command = [dask, "worker", address, "--nthreads", "1", "--no-dashboard"]
            procs.append(subprocess.Popen(command, **quiet))
        with Client(address, timeout="60s", set_as_default=False) as client:
            client.wait_for_workers(workers, timeout=120)
            client.run(_warm)  # every worker, once
        yield address, time.perf_counter() - started
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


MODES = (
    ("every record, the workers write", "all", "auto"),
    ("every record, the client writes", "all", "client"),
    ("--records none", "none", "auto"),
)
"""The runs timed on the cluster, each ``(label, --records, CARDSIM_CLUSTER_WRITES)``: the
workers commit their own chunk files where the folder is shared (here it is), the client
writes every file (as where it is not), and an aggregate-only run."""


def _run_wall(options: list[str], games: int, folder: str, writes: str = "auto") -> float:
    game, extra = RUN
    command = [sys.executable, "-m", "simulate.app.cli", "simulate", game, *extra]
    command += ["--games", str(games), "--seed", "2026", "--no-report", "--force"]
    command += ["--out", folder, *options]
    env = {**os.environ, "CARDSIM_CLUSTER_WRITES": writes}
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=env)
    return time.perf_counter() - started


def task_overhead(address: str, tasks: int = EMPTY_TASKS) -> tuple[float, float]:
    """``(seconds, per_second)``: the median round trip of one empty task submitted alone,
    and the empty tasks completed per second when ``tasks`` are submitted at once (what
    the scheduler sustains, with the workers doing nothing else)."""
    from distributed import Client

    with Client(address, timeout="60s", set_as_default=False) as client:
        trips = []
        for index in range(50):
            started = time.perf_counter()
            client.submit(_noop, index, pure=False).result()
            trips.append(time.perf_counter() - started)
        started = time.perf_counter()
        futures = client.map(_noop, range(tasks), pure=False)
        client.gather(futures)
        rate = tasks / (time.perf_counter() - started)
    return statistics.median(trips), rate


def task_bytes(games: int = BYTES_GAMES) -> dict[str, int]:
    """Bytes a task's result takes pickled, by game and ``records`` (``all`` as Arrow
    tables, ``all`` encoded as the files' bytes, as a run into a folder sends them, and
    ``none``), for a chunk of ``games`` single Pis Yedili games and of
    Beggar-My-Neighbour deals."""
    from simulate.runs.cluster.task import describe, play_task
    from simulate.runs.request import make_request

    sizes = {}
    for label, game, rules in (
        ("Pis Yedili, 4 players", "pis-yedili", {"match_deals": None}),
        ("Beggar-My-Neighbour, 2 players", "bmn", {}),
    ):
        for records, how in (("all", ""), ("all", "encoded"), ("all", "staged"), ("none", "")):
            request = make_request(
                game, games=games, seed=2026, threads=None, rules=rules, records=records
            )
            with tempfile.TemporaryDirectory() as folder:
                stage = folder if how == "staged" else None
                result = play_task(
                    describe(request), 0, games, encoded=how == "encoded", stage=stage
                )
            sizes[f"{label}, --records {records}{', ' + how if how else ''}"] = len(
                pickle.dumps(result)
            )
    return sizes


def cluster_bench(
    games: int,
    repeats: int,
    workers: int = 2,
    *,
    bytes_games: int = BYTES_GAMES,
    empty_tasks: int = EMPTY_TASKS,
) -> None:
    """Print the cluster's start-up, the runs' median wall times (one machine and cluster,
    with and without records), the overhead per task (``empty_tasks`` submitted at once
    for the scheduler's rate) and the bytes per game (a task of ``bytes_games`` games)."""
    print(f"cluster bench: {workers} one-thread dask workers on 127.0.0.1 ({os.cpu_count()} CPUs)")
    with running_cluster(workers) as (address, start_up):
        print(f"start-up: scheduler and {workers} workers joined and warm in {start_up:.1f} s")
        print(
            f"cardsim simulate {RUN[0]} {' '.join(RUN[1])} --games {games:,}: "
            f"median of {repeats} runs each, in turn"
        )
        print(f"{'run':<34} {f'--threads {workers}':>14} {'--scheduler':>14} {'ratio':>6}")
        for label, records, writes in MODES:
            here, there = [], []
            with tempfile.TemporaryDirectory() as folder:
                for _ in range(repeats):
                    common = ["--records", records]
                    here.append(_run_wall([*common, "--threads", str(workers)], games, folder))
                    options = [*common, "--scheduler", address]
                    there.append(_run_wall(options, games, folder, writes))
            one, many = statistics.median(here), statistics.median(there)
            print(f"{label:<34} {one:>12.2f} s {many:>12.2f} s {one / many:>6.2f}", flush=True)
        trip, rate = task_overhead(address, empty_tasks)
    print(f"an empty task's round trip: {trip * 1000:.1f} ms (median of 50, one at a time)")
    print(f"empty tasks completed per second, {empty_tasks:,} submitted at once: {rate:,.0f}")
    print(f"a task's result pickled, for a chunk of {bytes_games:,} games:")
    for label, size in task_bytes(bytes_games).items():
        print(f"  {label:<62} {size:>12,} bytes {size / bytes_games:>8.2f} a game")
