"""Arrow arrays built from buffers equal pa.array's, without copies and without pandas."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest
from run_helpers import assert_intact

from simulate.core import arrow


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.float64])
def test_numeric_equals_pa_array_and_shares_memory(dtype):
    values = (np.arange(-20, 21) * 3).astype(dtype)
    built = arrow.numeric(values)
    assert built.equals(pa.array(values))
    assert built.buffers()[1].address == values.ctypes.data
    strided = np.arange(30, dtype=dtype).reshape(10, 3)[:, 1]
    assert arrow.numeric(strided).to_pylist() == strided.tolist()


def test_nulls_and_dictionaries():
    codes = np.array([2, -1, 0, 1, -1, 2, 2, 0, 1, 0, -1], np.int8)
    names = arrow.strings(["ace", "", "sept"])
    assert names.equals(pa.array(["ace", "", "sept"]))
    column = arrow.dictionary(codes, names, valid=codes >= 0)
    expected = [None if c < 0 else ["ace", "", "sept"][c] for c in codes]
    assert column.to_pylist() == expected
    assert column.null_count == 3
    assert arrow.dictionary(np.array([1, 1]), names).to_pylist() == ["", ""]
    assert arrow.constant(3, 4, np.int8).to_pylist() == [3, 3, 3, 3]
    assert arrow.strings([]).to_pylist() == []


@pytest.mark.parametrize(
    "arguments",
    [
        ["pis-yedili", "--rule", "match_deals=none"],
        ["pis-yedili", "--seats", "greedy,random", "--players", "2", "--rotate-seats"],
        ["bmn"],
    ],
    ids=["shedding", "matches-rotated", "bmn"],
)
def test_a_run_to_disk_never_imports_pandas(tmp_path, arguments):
    """pandas would add a fifth of a second to every run's start-up, and matplotlib more
    than half a second to one that writes no report (``--dpi`` and ``--formats`` are
    checked without it)."""
    command = [sys.executable, "-X", "importtime", "-m", "simulate.app.cli", "simulate"]
    command += [*arguments, "--games", "300", "--no-report", "--out", str(tmp_path / "run")]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert "simulate.games.shedding.kernel" in imported or "bmn" in arguments
    assert "pandas" not in imported and "matplotlib" not in imported
    # and the run wrote its records: every game in chunk files the manifest lists
    assert_intact(tmp_path / "run", 300)
