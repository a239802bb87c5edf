"""Aggregate-only runs reduced on the GPU (``--backend cuda --records none``): the same
:class:`simulate.runs.folder.aggregates.Aggregates`, and so the same report, as the CPU's reduction of the
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
from test_cuda import simulated as simulated_stdout

# every test runs the simulator (Python speed) in a subprocess, in the CUDA simulator's group
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("cuda")]


@pytest.fixture
def simulated(simulator_runs) -> dict:
    """tests/gpu_aggregates_checks.py's report, run under the simulator."""
    return json.loads(simulated_stdout(simulator_runs, "aggregates-checks"))


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
    assert len(found) == 14 and all(  # the toolkit flag and 13 kernels
        size > 1000 for name, size in found.items() if name != "toolkit"
    )


@needs_numba_cuda
def test_simulated_records_none_run_and_report_equal_cpu_run(simulator_runs):
    # The whole path: request, engine hook, chunks (two per run), run folder, report
    # (tests/cuda_simulator.py, job "records-none-runs").
    stdout = simulated_stdout(simulator_runs, "records-none-runs")
    found = [json.loads(line) for line in stdout.strip().splitlines()]
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
