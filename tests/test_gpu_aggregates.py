"""Aggregate-only runs reduced on the GPU (``--backend cuda --records none``): the same
:class:`analysis.aggregates.Aggregates`, and so the same report, as the CPU's reduction of the
same records.

Under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, set in a fresh interpreter, as
tests/test_cuda.py does) the reduction's kernels run as Python: tests/gpu_aggregates_checks.py
plays chunks of a few hundred games of Beggar-My-Neighbour (2 and 4 players) and of the
shedding games (2, 3 and 4 players, rotated seats), with several end reasons each and ties at
the length a kept game must reach, and compares every group, histogram, kept game, label and
schema with the CPU's. numba's typing of the kernels, which the simulator skips, is checked by
compiling them with numba-cuda's real compiler where the CUDA toolkit's libraries are found.
"""

from __future__ import annotations

import json

import pytest
from test_cuda import ROOT, _checks, _python, needs_gpu, needs_numba_cuda, real_gpu  # noqa: F401

pytestmark = pytest.mark.slow  # every test runs the simulator (Python speed) in a subprocess


@pytest.fixture(scope="module")
def simulated() -> dict:
    """tests/gpu_aggregates_checks.py's report, run under the simulator."""
    return _checks("gpu_aggregates_checks.py", 1, simulator=True)


@needs_numba_cuda
def test_simulated_device_aggregates_equal_cpu_aggregates(simulated):
    assert {name: check["differ"] for name, check in simulated.items() if check["differ"]} == {}
    chunks = {name: check for name, check in simulated.items() if "stats" in check}
    assert len(chunks) == 5 and all(check["games"] == 300 for check in chunks.values())
    assert simulated["crazy-eights-3-rotated"]["games"] == 3 * 97
    for check in chunks.values():
        assert not check["stats"]["fallback"]  # reduced on the device, not copied back
        # Only the games kept come back: the device's cuts are exact, not merely enough.
        assert check["stats"]["exact"] and check["stats"]["candidates"] >= 100
        assert len(check["ends"]) >= 2 and check["groups"] >= 4
        # The kept games were found among ties: the first of many rows at the threshold
        # length, and the first rows of an end reason with more than FIRST_KEPT games.
        assert check["stats"]["tie_cuts"] >= 1 and check["stats"]["first_cuts"] >= 1
    assert len(chunks["crazy-eights-2"]["ends"]) == 3
    assert chunks["bmn-2-time-limit"]["stats"]["tie_cuts"] >= 2


@needs_numba_cuda
def test_device_kernels_compile():
    done = _python([str(ROOT / "tests" / "gpu_aggregates_checks.py"), "compile"], simulator=False)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout)
    if not found["toolkit"]:
        pytest.skip(f"no CUDA toolkit compiler here: {found['why']}")
    assert len(found) == 13 and all(
        size > 1000 for name, size in found.items() if name != "toolkit"
    )


@needs_numba_cuda
def test_simulated_records_none_run_and_report_equal_cpu_run(tmp_path):
    # The whole path: request, engine hook, chunks (two per run), run folder, report.
    code = f"""
import json, sys, warnings
warnings.simplefilter("ignore", RuntimeWarning)
sys.path.insert(0, "tests")
from pathlib import Path
from analysis.load import load_run
from analysis.reports import write_report
from gpu_aggregates_checks import differences
from simulate import gpu_aggregates
from simulate.engine import play_run
from simulate.request import make_request

calls = []
reduce = gpu_aggregates.reduce_on_device
def counted(*args, **kwargs):
    calls.append(1)
    return reduce(*args, **kwargs)
gpu_aggregates.reduce_on_device = counted

def body(folder):
    text = (folder / "report.md").read_text()
    return [line for line in text.splitlines() if not line.startswith(("| elapsed", "| created"))]

runs = {{
    "bmn": dict(players=2, games=400, rules={{"time_limit": 300}}),
    "crazy-eights": dict(players=3, games=300, strategies=["greedy", "random", "attack"],
                         rules={{"stock_empty": "end", "max_plays": 30}}),
}}
for game, options in runs.items():
    folders = {{}}
    for backend in ("cuda", "cpu"):
        out = Path({str(tmp_path)!r}) / f"{{game}}-{{backend}}"
        request = make_request(game, seed=17, threads=1, backend=backend, **options)
        play_run(request, out=out, collect=False, chunk_size=256, records="none")
        write_report(out, formats="png", dpi=50)
        folders[backend] = out
    gpu, cpu = (load_run(folders[b]) for b in ("cuda", "cpu"))
    print(json.dumps({{
        "game": game,
        "calls": len(calls),
        "differ": differences(gpu.aggregates, cpu.aggregates),
        "report": body(folders["cuda"]) == body(folders["cpu"]),
        "summary": all((folders["cuda"] / name).read_text() == (folders["cpu"] / name).read_text()
                       for name in ("summary.csv", "balance.csv")),
        "records": gpu.aggregates.records,
        "aggregate_only": "aggregate-only run" in (folders["cuda"] / "report.md").read_text(),
    }}))
    calls.clear()
"""
    done = _python(["-c", code], simulator=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    found = [json.loads(line) for line in done.stdout.strip().splitlines()]
    assert [run["game"] for run in found] == ["bmn", "crazy-eights"]
    for run in found:
        assert run["differ"] == [] and run["report"] and run["summary"] and run["aggregate_only"]
    # Two chunks each (256 games, then the rest), each reduced on the (simulated) device.
    assert [(run["records"], run["calls"]) for run in found] == [(400, 2), (300, 2)]


@needs_gpu
def test_gpu_device_aggregates_equal_cpu_aggregates():
    # On a real device, 20 times the simulator's chunks.
    checks = _checks("gpu_aggregates_checks.py", 20, simulator=False, timeout=600)
    assert {name: check["differ"] for name, check in checks.items() if check["differ"]} == {}
