"""The GPU backend (``backend="cuda"``): the same records as the CPU.

Under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, set in a fresh interpreter: numba
reads it when numba.cuda is imported) the GPU kernels run as Python, so small runs check
every column against the CPU kernel: Beggar-My-Neighbour's (players, rules, cycles and time
limits) and the shedding games' (every preset, strategy and knob, matches). Every GPU
kernel's threads call the CPU kernel's own game, which runs compiled for the CPU under the
simulator, so the simulator checks their launching; that the kernels compile for the device
is checked with numba-cuda's compiler where the CUDA toolkit's libraries are found, and the
same checks on a real GPU (skipped without one) are what proves the device code.
Without a GPU, ``--backend cuda`` is one line, exit 2.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from simulate.core.errors import CardsimError

pytestmark = pytest.mark.xdist_group("cuda")  # the CUDA simulator's interpreters, one at a time

ROOT = Path(__file__).resolve().parents[1]
CARDSIM = Path(sys.executable).parent / "cardsim"

HAS_NUMBA_CUDA = importlib.util.find_spec("numba_cuda") is not None
needs_numba_cuda = pytest.mark.skipif(
    not HAS_NUMBA_CUDA, reason="numba-cuda is not installed (pip install 'cardsim[cuda]')"
)


def _env(simulator: bool) -> dict:
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_ENABLE_CUDASIM"}
    if simulator:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    return env


# The timeouts guard against a hang, never time anything: a fresh clone's first compiles in
# these processes took over 180 s on a slow day of the 2-core machine (2026-12-02).
def _python(code_or_args: list[str], *, simulator: bool, timeout: int = 600):
    return subprocess.run(
        [sys.executable, *code_or_args],
        cwd=ROOT,
        env=_env(simulator),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@cache
def real_gpu() -> bool:
    """Whether numba.cuda finds a real GPU here (asked in a process without the simulator)."""
    if not HAS_NUMBA_CUDA:
        return False
    done = _python(
        ["-c", "from simulate.core.gpu import load_cuda; print(load_cuda().is_available())"],
        simulator=False,
    )
    return done.stdout.strip() == "True"


needs_gpu = pytest.mark.skipif("not real_gpu()", reason="no CUDA GPU here")
without_gpu = pytest.mark.skipif("real_gpu()", reason="a CUDA GPU is here")


def _checks(script: str, scale: int, *, simulator: bool, timeout: int = 600) -> dict:
    """The JSON report of ``tests/SCRIPT SCALE``, run under the simulator or not."""
    done = _python([str(ROOT / "tests" / script), str(scale)], simulator=simulator, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def simulated(runs: dict, job: str):
    """The stdout of ``job`` of ``tests/cuda_simulator.py``'s run, which must have passed."""
    done = runs[job]
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.fixture
def simulated_checks(simulator_runs) -> dict:
    """tests/cuda_checks.py's report, run under the simulator."""
    return json.loads(simulated(simulator_runs, "beggar-checks"))


@needs_numba_cuda
def test_simulated_gpu_records_equal_cpu_records(simulated_checks):
    unequal = {name: check["differ"] for name, check in simulated_checks.items()}
    assert {name: differ for name, differ in unequal.items() if differ} == {}
    for players in (2, 3, 4):
        for rules in ("default", "penalties", "time_limit"):
            assert simulated_checks[f"random-{players}-{rules}"]["games"] == 200
    # The checks reached every way a deal ends, at every player count.
    for players in (2, 3, 4):
        ends = np.sum(
            [c["ends"] for name, c in simulated_checks.items() if f"-{players}-" in name], axis=0
        )
        assert (ends > 0).all(), (players, ends)


@needs_numba_cuda
def test_simulated_api_run_equals_cpu_run(simulator_runs):
    # The whole path with --log and --trace (tests/cuda_simulator.py, job "bmn-api-run").
    stdout = simulated(simulator_runs, "bmn-api-run")
    assert stdout.split() == [
        "True",
        "True",
        "cuda",
        "None",
        "300",
        "['out',",
        "'time_limit']",
        "True",
        "3",
    ]


@needs_numba_cuda
def test_simulated_shedding_gpu_records_equal_cpu_records(simulator_runs):
    from simulate.games.shedding.reference import END_REASONS
    from simulate.games.shedding.rules import PRESETS

    checks = json.loads(simulated(simulator_runs, "shedding-checks"))
    assert {name: c["differ"] for name, c in checks.items() if c["differ"]} == {}
    for name in PRESETS:
        for players in (2, 4):
            assert checks[f"{name}-{players}"]["games"] == 200
    strategies = [name for name in checks if name.startswith("strategy-")]
    assert len(strategies) == 7 and all(checks[name]["games"] == 100 for name in strategies)
    assert sum(name.startswith("knobs-") for name in checks) >= 40
    for name in ("match-deals-3", "pis-yedili-matches", "target-score"):
        check = checks[f"matches-{name}"]
        assert check["games"] == check["deals"] >= 60
    # The matches to a target score took varying numbers of deals.
    assert checks["matches-target-score"]["deals"] not in (30, 60, 90)
    # The checks reached every way a game ends.
    ends = np.sum([c["ends"] for c in checks.values()], axis=0)
    assert len(ends) == len(END_REASONS) and (ends > 0).all(), ends


@needs_numba_cuda
def test_simulated_shedding_api_runs_equal_cpu_runs(simulator_runs):
    # The whole path, matches and rotated seats (tests/cuda_simulator.py, "shedding-api-runs").
    stdout = simulated(simulator_runs, "shedding-api-runs")
    lines = [line.split() for line in stdout.strip().splitlines()]
    # 40 matches of 4 deals; 300 deals played in each of the 3 seatings
    assert lines[0] == ["matches", "True", "cuda", "160", "True", "True", "40", "True", "True"]
    assert lines[1] == ["games", "True", "cuda", "900"]


@needs_numba_cuda
def test_simulated_user_and_searching_strategies_are_refused_on_the_gpu(simulator_runs):
    stdout = simulated(simulator_runs, "user-strategy-refused")
    refusal = (
        "backend cuda plays the built-in strategies only, not a user strategy (a Python "
        "function); play it with backend cpu"
    )
    strong = (
        "backend cuda does not play strong players ({}): their rollouts run on the CPU; "
        "play them with backend cpu"
    )
    assert stdout.strip().splitlines() == [
        refusal,
        refusal,
        strong.format("pimc:4"),
        strong.format("pimc:k=2,rollout=greedy"),
    ]
    assert not (simulator_runs["user-strategy-refused"].folder / "run").exists()


@needs_numba_cuda
def test_every_kernel_compiles_for_the_device():
    # numba-cuda's own compiler, no GPU: numba's typing, which the simulator skips, accepts
    # every kernel; the shedding games' CPU game compiles as device code with user=None
    # (skipped where the CUDA toolkit's NVVM and NVRTC libraries are not found).
    done = _python([str(ROOT / "tests" / "cuda_compile_check.py")], simulator=False)
    assert done.returncode == 0, done.stderr[-3000:]
    from simulate.games.shedding.kernel_layout import G_SIZE

    found = json.loads(done.stdout)
    if not found["toolkit"]:
        pytest.skip(f"no CUDA toolkit compiler here: {found['why']}")
    kernels = ("play_random_games", "play_matches", "play_random_deals", "play_given_deals")
    for kernel in kernels:
        assert found[kernel]["ptx_bytes"] > 10_000, found
    for kernel in kernels[:2]:
        # The game's scratch (G_SIZE int64 words) is per-thread local memory.
        assert found[kernel]["local_bytes"] >= 8 * G_SIZE, found


@needs_numba_cuda
@without_gpu
@pytest.mark.parametrize("game", ["bmn", "pis-yedili"])
def test_cli_backend_cuda_without_gpu_is_one_line(tmp_path, game):
    out = tmp_path / "run"
    done = subprocess.run(
        [str(CARDSIM), "simulate", game, "--games", "100", "--backend", "cuda", "--out", str(out)],
        env=_env(False),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: backend cuda: no usable CUDA GPU here (numba.cuda finds no device or driver); "
        "use backend cpu"
    ]
    assert not out.exists()


def test_backend_cuda_names_the_games_it_plays(tmp_path):
    # A game without a GPU kernel (the toy plugin game) is refused, naming those with one.
    from plugin_helpers import installed, make_site

    from simulate.runs.request import make_request

    with installed(make_site(tmp_path / "site")):
        with pytest.raises(CardsimError) as refused:
            make_request("highcard", games=10, backend="cuda")
    assert str(refused.value) == (
        "highcard has no cuda kernel yet; backend cuda plays: beggar-my-neighbour, "
        "pis-yedili, crazy-eights, crazy-eights-plain, openspiel"
    )


def test_unknown_backend_and_cluster_are_refused():
    from simulate.app.api import simulate

    with pytest.raises(CardsimError, match="backend must be one of cpu, cuda, got 'gpu'"):
        simulate("bmn", games=10, backend="gpu")
    done = subprocess.run(
        [str(CARDSIM), "simulate", "bmn", "--backend", "cuda", "--scheduler", "local"],
        env=_env(False),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "give --scheduler or --backend" in done.stderr


def test_importing_simulate_never_imports_numba_cuda():
    code = (
        "import sys, simulate, simulate.app.api, simulate.runs.request, simulate.core.gpu\n"
        "from simulate.runs.request import make_request\n"
        "make_request('bmn', games=10)\n"
        "print('numba.cuda' in sys.modules)"
    )
    done = _python(["-c", code], simulator=False)
    assert done.stdout.strip() == "False", done.stderr


@needs_gpu
def test_gpu_records_equal_cpu_records():
    # On a real device: the typing the simulator does not prove (uint64 words, wrapping).
    done = _python([str(ROOT / "tests" / "cuda_checks.py"), "20"], simulator=False, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    checks = json.loads(done.stdout)
    assert {name: c["differ"] for name, c in checks.items() if c["differ"]} == {}


@needs_gpu
def test_gpu_shedding_records_equal_cpu_records():
    # The shedding checks at 20 times the simulator's size, on the device.
    checks = _checks("cuda_shedding_checks.py", 20, simulator=False, timeout=600)
    assert {name: c["differ"] for name, c in checks.items() if c["differ"]} == {}


@needs_gpu
def test_gpu_shedding_large_run_equals_cpu():
    from simulate.games.shedding import batch as shedding_batch
    from simulate.games.shedding import cuda_batch as shedding_cuda
    from simulate.games.shedding.rules import preset

    for name, players in (("pis-yedili", 4), ("crazy-eights", 2)):
        arguments = (preset(name), players, ["random"] * players, 5, 2**40, 200_000)
        gpu, cpu = shedding_cuda.play_random(*arguments), shedding_batch.play_random(*arguments)
        for column, values in cpu.items():
            assert np.array_equal(gpu[column], values), (name, column)


@needs_gpu
def test_gpu_large_run_equals_cpu():
    from simulate.games.beggar import batch, cuda_batch
    from simulate.games.beggar.rules import BeggarRules

    for players in (2, 3, 4):
        gpu = cuda_batch.play_random(5, 2**40, 200_000, players, BeggarRules())
        cpu = batch.play_random(5, 2**40, 200_000, players, BeggarRules())
        for name, column in cpu.items():
            assert np.array_equal(gpu[name], column), (players, name)


@needs_numba_cuda
@without_gpu
def test_bench_backend_cuda_without_gpu_skips_in_one_line():
    done = _python(["-m", "simulate.app.bench", "--backend", "cuda"], simulator=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines() == [
        "GPU bench skipped: backend cuda: no usable CUDA GPU here (numba.cuda finds no device "
        "or driver); use backend cpu"
    ]
