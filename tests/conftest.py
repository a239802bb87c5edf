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
