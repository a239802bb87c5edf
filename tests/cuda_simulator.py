"""Every check under numba's CUDA simulator, in one interpreter per test run.

The simulator is switched on by ``NUMBA_ENABLE_CUDASIM=1`` before numba.cuda is imported, so
it needs an interpreter of its own; starting one per check paid the imports and the CPU
kernels' loading each time. :func:`run_jobs` starts one, which runs every job of
:data:`JOBS` in turn (``python tests/cuda_simulator.py JOBS.json RESULTS.json``): a job is
the argv of a Python run, ``[SCRIPT, ARG...]`` (run as ``__main__``) or ``["-c", CODE]``,
with ``{tmp}`` standing for a folder of its own. Each job's result is what that run alone
would give: exit status, stdout and stderr (a traceback, status 1, when it raises). The jobs
share the interpreter, so none may leave behind a change another depends on; the one that
wraps a module's function runs last.

The simulator runs each CUDA thread of a block as a Python thread, and numba-cuda's block
manager polls them without pause for as long as any lives: holding the GIL, it took about
two thirds of the checks' time from the threads it waits for. :func:`poll_politely` gives the
GIL back between two polls, which changes nothing a thread computes (every job's report is
the same either way) and cut the simulator's 166 s to about a third (2026-12-06).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import runpy
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"

JOBS: dict[str, list[str]] = {
    "beggar-checks": [str(TESTS / "cuda_checks.py"), "1"],
    "shedding-checks": [str(TESTS / "cuda_shedding_checks.py"), "1"],
    "aggregates-checks": [str(TESTS / "gpu_aggregates_checks.py"), "1"],
    # The whole path (request, engine, chunks, run folder) with --log and --trace: the
    # logged and traced games are played on the CPU, the others on the (simulated) GPU;
    # records, events and trace as the CPU's.
    "bmn-api-run": [
        "-c",
        """
import warnings; warnings.simplefilter("ignore", RuntimeWarning)
from simulate.app.api import simulate
common = dict(players=3, games=300, seed=99, rules={"time_limit": 400}, log=4, trace=3,
              rollouts=2)
gpu = simulate("bmn", backend="cuda", out="{tmp}/gpu", **common)
cpu = simulate("bmn", out="{tmp}/cpu", **common)
print(gpu.games.equals(cpu.games), gpu.events.equals(cpu.events), gpu.meta.get("backend"),
      cpu.meta.get("backend"), len(gpu.games), sorted(set(gpu.games["end"])),
      gpu.trace.equals(cpu.trace), gpu.trace["game"].nunique())
""",
    ],
    # The whole path: Pis Yedili's matches with mixed seats and logged matches (played again
    # on the CPU), and single games, seats rotated.
    "shedding-api-runs": [
        "-c",
        """
import warnings; warnings.simplefilter("ignore", RuntimeWarning)
from simulate.app.api import simulate
seats = ["greedy", "random:forget=0.2", "attack", "uniform"]
runs = {
    "matches": dict(game="pis-yedili", players=4, games=40, seed=7, strategies=seats, log=2,
                    rules={"last_card_call": True}, trace=2, rollouts=2),
    "games": dict(game="crazy-eights", players=3, games=300, seed=8, strategies=seats[:3],
                  rotate_seats=True, rules={"stock_empty": "pass", "decks": 2}),
}
for name, common in runs.items():
    gpu = simulate(backend="cuda", out="{tmp}/gpu-" + name, **common)
    cpu = simulate(out="{tmp}/cpu-" + name, **common)
    same = [gpu.games.equals(cpu.games), gpu.meta.get("backend"), len(gpu.games)]
    if name == "matches":
        same += [gpu.matches.equals(cpu.matches), gpu.events.equals(cpu.events),
                 len(gpu.matches), len(gpu.events) > 0, gpu.trace.equals(cpu.trace)]
    print(name, *same)
""",
    ],
    "user-strategy-refused": [
        "-c",
        """
from simulate.app.api import simulate
from simulate.app.bench import longest_suit
from simulate.core.errors import CardsimError
from simulate.games.shedding import cuda_batch
from simulate.games.shedding.rules import preset
try:
    simulate("crazy-eights", players=2, games=10, strategies=[longest_suit], backend="cuda",
             out="{tmp}/run")
except CardsimError as exc:
    print(exc)
try:
    cuda_batch.play_random(preset("crazy-eights"), 2, ["greedy", longest_suit], 1, 0, 10)
except CardsimError as exc:
    print(exc)
try:
    simulate("crazy-eights", players=2, games=10, strategies=["pimc:4", "greedy"],
             backend="cuda", out="{tmp}/run")
except CardsimError as exc:
    print(exc)
try:
    cuda_batch.play_random(preset("crazy-eights"), 2, ["greedy", "pimc:k=2,rollout=greedy"], 1, 0, 10)
except CardsimError as exc:
    print(exc)
""",
    ],
    # The whole path: request, engine hook, chunks (two per run), run folder, report. Last:
    # it wraps gpu_aggregates.reduce_on_device to count its calls.
    "records-none-runs": [
        "-c",
        """
import json, sys, warnings
warnings.simplefilter("ignore", RuntimeWarning)
sys.path.insert(0, "tests")
from pathlib import Path
from analysis.load import load_run
from analysis.reports import write_report
from gpu_aggregates_checks import differences
from simulate.runs import gpu_aggregates
from simulate.runs.engine import play_run
from simulate.runs.request import make_request

calls = []
reduce = gpu_aggregates.reduce_on_device
def counted(*args, **kwargs):
    calls.append(1)
    return reduce(*args, **kwargs)
gpu_aggregates.reduce_on_device = counted

def body(folder):
    text = (folder / "report.md").read_text()
    return [line for line in text.splitlines() if not line.startswith(("| elapsed", "| created"))]

runs = {
    "bmn": dict(players=2, games=400, rules={"time_limit": 300}),
    "crazy-eights": dict(players=3, games=300, strategies=["greedy", "random", "attack"],
                         rules={"stock_empty": "end", "max_plays": 30}),
}
try:
    for game, options in runs.items():
        folders = {}
        for backend in ("cuda", "cpu"):
            out = Path("{tmp}") / f"{game}-{backend}"
            request = make_request(
                game, seed=17, threads=1, backend=backend, records="none", **options
            )
            play_run(request, out=out, collect=False, chunk_size=256)
            write_report(out, formats="png", dpi=50)
            folders[backend] = out
        gpu, cpu = (load_run(folders[b]) for b in ("cuda", "cpu"))
        print(json.dumps({
            "game": game,
            "calls": len(calls),
            "differ": differences(gpu.aggregates, cpu.aggregates),
            "report": body(folders["cuda"]) == body(folders["cpu"]),
            "summary": all(
                (folders["cuda"] / name).read_text() == (folders["cpu"] / name).read_text()
                for name in ("summary.csv", "balance.csv")
            ),
            "records": gpu.aggregates.records,
            "aggregate_only": "aggregate-only run" in (folders["cuda"] / "report.md").read_text(),
        }))
        calls.clear()
finally:
    gpu_aggregates.reduce_on_device = reduce
""",
    ],
}


POLL_PAUSE = 2e-4
"""Seconds the block manager sleeps between two polls of its threads (releasing the GIL)."""


def _run_block(self, grid_point, *args) -> None:
    """One block of the simulated kernel: every thread started; whenever all the live ones
    wait at ``syncthreads`` they are released together; a thread's exception stops the others
    and is raised. numba-cuda's ``BlockManager.run`` does the same, without the pause."""
    from numba.cuda.simulator.kernel import BlockThread

    def target():
        self._f(*args)

    threads = [
        BlockThread(target, self, grid_point, point, self._debug)
        for point in np.ndindex(*self._block_dim)
    ]
    for thread in threads:
        thread.start()
    live = threads
    while live:
        failed = next((t for t in live if not t.syncthreads_blocked and t.exception), None)
        if failed is not None:
            for other in threads:
                other.abort = True
                other.syncthreads_blocked = False
                other.syncthreads_event.set()
            raise failed.exception[0].with_traceback(failed.exception[1])
        if all(t.syncthreads_blocked for t in live):
            for thread in live:
                thread.syncthreads_blocked = False
                thread.syncthreads_event.set()
        live = [t for t in live if t.is_alive()]
        if live:
            time.sleep(POLL_PAUSE)
    for thread in threads:
        if thread.exception:
            raise thread.exception[0].with_traceback(thread.exception[1])


def poll_politely() -> bool:
    """Put :func:`_run_block` in place of the simulator's block manager's ``run`` (in this
    interpreter, which must run under the simulator); whether it could: a numba-cuda whose
    simulator threads lack what it uses keeps its own (slower, equally right)."""
    from numba.cuda.simulator import kernel

    manager = getattr(kernel, "BlockManager", None)
    thread = getattr(kernel, "BlockThread", None)
    needed = ("syncthreads_blocked", "syncthreads_event", "exception", "abort")
    if manager is None or thread is None or not hasattr(manager, "run"):
        return False
    if not all(name in thread.__init__.__code__.co_names for name in needed):
        return False
    if not all(name in manager.__init__.__code__.co_names for name in ("_f", "_block_dim")):
        return False
    manager.run = _run_block
    return True


def _run_job(argv: list[str], tmp: Path) -> dict:
    """One job in this interpreter: ``{"returncode", "stdout", "stderr"}``."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            if argv[0] == "-c":
                sys.argv = ["-c", *argv[2:]]
                exec(
                    compile(argv[1].replace("{tmp}", str(tmp)), "<job>", "exec"),
                    {"__name__": "__main__"},
                )
            else:
                sys.argv = list(argv)
                runpy.run_path(argv[0], run_name="__main__")
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
        except BaseException:  # noqa: BLE001 (reported as the run's own traceback)
            traceback.print_exc()
            code = 1
        finally:
            sys.argv, sys.path[:] = saved_argv, saved_path
    return {"returncode": code, "stdout": out.getvalue(), "stderr": err.getvalue()}


@dataclass(frozen=True)
class JobResult:
    """What a job's run gave, and the folder that stood for its ``{tmp}``."""

    returncode: int
    stdout: str
    stderr: str
    seconds: float
    """How long the job took (its share of the interpreter's time, the imports in the
    first job's)."""
    folder: Path


def run_jobs(tmp: Path, *, timeout: int = 1200) -> dict[str, JobResult]:
    """Every job of :data:`JOBS` in one interpreter under the simulator, each with its own
    folder under ``tmp``: job name -> :class:`JobResult`. The timeout guards against a
    hang and times nothing."""
    jobs = tmp / "jobs.json"
    results = tmp / "results.json"
    jobs.write_text(json.dumps({name: [argv, str(tmp / name)] for name, argv in JOBS.items()}))
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    done = subprocess.run(
        [sys.executable, __file__, str(jobs), str(results)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0 and results.is_file(), done.stderr[-3000:]
    found = json.loads(results.read_text())
    return {name: JobResult(**found[name], folder=tmp / name) for name in JOBS}


def main(jobs_file: str, results_file: str) -> int:
    poll_politely()
    jobs = json.loads(Path(jobs_file).read_text())
    results = {}
    for name, (argv, folder) in jobs.items():
        Path(folder).mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        results[name] = _run_job(argv, Path(folder))
        results[name]["seconds"] = round(time.perf_counter() - start, 2)
    Path(results_file).write_text(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
