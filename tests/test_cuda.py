"""The GPU backend (``backend="cuda"``): the same records as the CPU.

Under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, set in a fresh interpreter: numba
reads it when numba.cuda is imported) the GPU kernels run as Python, so small runs check
every column against the CPU kernel (players, rules, cycles and time limits); the simulator
runs Python semantics, not numba's typing, so the same checks on a real GPU (skipped without
one) are what proves the device code. Without a GPU, ``--backend cuda`` is one line, exit 2.
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

from simulate.errors import CardsimError

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


def _python(code_or_args: list[str], *, simulator: bool, timeout: int = 180):
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
        ["-c", "from simulate.gpu import load_cuda; print(load_cuda().is_available())"],
        simulator=False,
    )
    return done.stdout.strip() == "True"


needs_gpu = pytest.mark.skipif("not real_gpu()", reason="no CUDA GPU here")
without_gpu = pytest.mark.skipif("real_gpu()", reason="a CUDA GPU is here")


@pytest.fixture(scope="module")
def simulated_checks() -> dict:
    """tests/cuda_checks.py's report, run under the simulator."""
    done = _python([str(ROOT / "tests" / "cuda_checks.py"), "1"], simulator=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


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
def test_simulated_api_run_equals_cpu_run(tmp_path):
    # The whole path (request, engine, chunks, run folder) with --log: the logged games are
    # played on the CPU, the others on the (simulated) GPU; records and events as the CPU's.
    code = f"""
import warnings; warnings.simplefilter("ignore", RuntimeWarning)
from simulate.api import simulate
common = dict(players=3, games=300, seed=99, rules={{"time_limit": 400}}, log=4)
gpu = simulate("bmn", backend="cuda", out={str(tmp_path / "gpu")!r}, **common)
cpu = simulate("bmn", out={str(tmp_path / "cpu")!r}, **common)
print(gpu.games.equals(cpu.games), gpu.events.equals(cpu.events), gpu.meta.get("backend"),
      cpu.meta.get("backend"), len(gpu.games), sorted(set(gpu.games["end"])))
"""
    done = _python(["-c", code], simulator=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == [
        "True",
        "True",
        "cuda",
        "None",
        "300",
        "['out',",
        "'time_limit']",
    ]


@needs_numba_cuda
@without_gpu
def test_cli_backend_cuda_without_gpu_is_one_line(tmp_path):
    out = tmp_path / "run"
    done = subprocess.run(
        [str(CARDSIM), "simulate", "bmn", "--games", "100", "--backend", "cuda", "--out", str(out)],
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


def test_cli_backend_cuda_names_the_games_it_plays(tmp_path):
    out = tmp_path / "run"
    done = subprocess.run(
        [str(CARDSIM), "simulate", "pis-yedili", "--games", "10", "--backend", "cuda"]
        + ["--out", str(out)],
        env=_env(False),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: pis-yedili has no cuda kernel yet; backend cuda plays: beggar-my-neighbour"
    ]
    assert not out.exists()


def test_unknown_backend_and_cluster_are_refused():
    from simulate.api import simulate

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
        "import sys, simulate, simulate.api, simulate.request, simulate.gpu\n"
        "from simulate.request import make_request\n"
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
    done = _python(["-m", "simulate.bench", "--backend", "cuda"], simulator=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines() == [
        "GPU bench skipped: backend cuda: no usable CUDA GPU here (numba.cuda finds no device "
        "or driver); use backend cpu"
    ]
