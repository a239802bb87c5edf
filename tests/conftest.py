"""Shared helpers for the engine and CLI tests."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def cardsim_exe() -> str:
    """Path of the installed ``cardsim`` console script (next to this interpreter first)."""
    beside = Path(sys.executable).parent / "cardsim"
    if beside.exists():
        return str(beside)
    found = shutil.which("cardsim")
    if found is None:
        pytest.skip("the cardsim console script is not installed")
    return found


SLOW_MODULES = {
    "test_run_safety",  # real runs killed, disks filled, folders damaged: subprocesses
    "test_shedding_differential",  # the kernel against the reference over the knob grid
    "test_beggar_differential",  # the same for Beggar-My-Neighbour, thousands of deals
    "test_shedding_properties",  # hypothesis: 250 random configurations
    "test_golden_records",  # every game, preset and strategy against committed records
    "test_report_wording",  # whole reports of many small runs, read for their words
    "test_bench",  # whole benchmark runs in subprocesses
    "test_cluster",  # Dask clusters started, workers and schedulers killed
    "test_cuda",  # the GPU kernel under numba's CUDA simulator (Python speed)
    "test_shedding_logs",  # the logging kernel against the reference over a grid
}
"""Test modules that are slow as a whole; ``make test-fast`` leaves them out."""


def pytest_collection_modifyitems(config, items):
    """Mark ``slow`` (left out by ``make test-fast``, run by ``make test``) every test of a
    :data:`SLOW_MODULES` module, and every test that runs ``cardsim`` or Python in a
    subprocess (it uses the ``cardsim_exe`` fixture, or its name says ``script`` or
    ``never_imports``)."""
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1]
        subprocess_test = (
            "cardsim_exe" in getattr(item, "fixturenames", ())
            or "script" in item.name
            or "never_imports" in item.name  # a fresh interpreter, to see what it imports
        )
        if module in SLOW_MODULES or subprocess_test:
            item.add_marker(pytest.mark.slow)
