"""The fresh sample of stored games that the references play again on each test run.

The sample's seed is drawn once per test run (``tests/conftest.py``: the same in every
xdist worker, printed in pytest's header) unless ``--reference-seed N`` replays a run's.
"""

from __future__ import annotations

import random
from collections.abc import Sequence


def sample(seed: int, name: str, population: Sequence[int], k: int) -> list[int]:
    """``k`` of ``population`` (all of it when shorter), drawn for the part ``name`` of a
    grid from the run's ``seed``: the same for the same seed whichever worker draws it."""
    return sorted(random.Random(f"{seed}:{name}").sample(list(population), min(k, len(population))))
