"""The shedding games' GPU records against the CPU's, for tests/test_cuda.py: run under numba's
CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, in a fresh interpreter: the variable is read when
numba.cuda is imported) or on a real GPU. ``python tests/cuda_shedding_checks.py SCALE``
prints the report as JSON; :func:`report` returns it.

Each check compares every column of :mod:`simulate.games.shedding.cuda_batch`'s
``play_random`` (or ``play_match_batch``, its matches' columns too) with the CPU's
:mod:`simulate.games.shedding.batch`, and records how the games ended, so that a test can
require that the checks reached every end. The checks: every preset at 2 and 4 seats; each
built-in strategy in every seat; the differential tests' grid of rule variants (every value
of every knob, mixed seatings, forget chances); matches of a fixed number of deals and to a
target score.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from differential.shedding_grid import CONFIGS  # noqa: E402
from shedding_helpers import EVERY_STRATEGY  # noqa: E402

from simulate.games.shedding import batch  # noqa: E402
from simulate.games.shedding.reference import END_REASONS  # noqa: E402
from simulate.games.shedding.rules import PRESETS, preset  # noqa: E402

SEED = 2026
FIRST = 10**12 + 7
"""Game numbers above 2**32: both counter words of a game's stream are used."""
MATCHES = {
    "match-deals-3": ("crazy-eights", {"match_deals": 3}, 3),
    "pis-yedili-matches": ("pis-yedili", {}, 4),
    "target-score": ("crazy-eights", {"target_score": 60, "scoring": "penalty"}, 2),
}
"""Match checks: ``name: (preset, overrides, players)``, mixed seatings."""


def _compare(gpu: dict, cpu: dict) -> dict:
    differ = [name for name in cpu if not np.array_equal(gpu[name], cpu[name])]
    differ += [name for name in gpu if name not in cpu]
    ends = np.bincount(cpu["end"], minlength=len(END_REASONS)).tolist()
    return {"differ": differ, "ends": ends, "games": len(cpu["end"])}


def _games(name, overrides, players, strategies, forget, count, first):
    from simulate.games.shedding import cuda_batch

    rules = preset(name).with_overrides(overrides)
    arguments = (rules, players, strategies, SEED, first, count, forget)
    return _compare(cuda_batch.play_random(*arguments), batch.play_random(*arguments))


def report(scale: int = 1) -> dict:
    """Every check at ``scale`` (1: a few dozen to a few hundred games each, for the simulator)."""
    from simulate.games.shedding import cuda_batch

    checks = {}
    for name in PRESETS:
        for players in (2, 4):
            strategies = ["random"] * players
            checks[f"{name}-{players}"] = _games(
                name, {}, players, strategies, None, 200 * scale, FIRST
            )
    for strategy in EVERY_STRATEGY:
        label = strategy.partition(":")[0]
        checks[f"strategy-{label}"] = _games(
            "crazy-eights", {}, 4, [strategy] * 4, None, 100 * scale, FIRST
        )
    for index, (label, name, overrides, players, strategies, forget) in enumerate(CONFIGS):
        checks[f"knobs-{label}"] = _games(
            name, overrides, players, strategies, forget, 60 * scale, 1_000 * index
        )
    for label, (name, overrides, players) in MATCHES.items():
        rules = preset(name).with_overrides(overrides)
        strategies = [EVERY_STRATEGY[(seat + 3) % len(EVERY_STRATEGY)] for seat in range(players)]
        arguments = (rules, players, strategies, SEED, FIRST, 30 * scale)
        gpu_deals, gpu_matches = cuda_batch.play_match_batch(*arguments)
        cpu_deals, cpu_matches = batch.play_match_batch(*arguments)
        check = _compare(gpu_deals, cpu_deals)
        check["differ"] += [
            f"matches.{key}"
            for key, column in cpu_matches.items()
            if not np.array_equal(gpu_matches[key], column)
        ]
        check["deals"] = int(cpu_matches["deals"].sum())
        checks[f"matches-{label}"] = check
    return checks


if __name__ == "__main__":
    warnings.simplefilter("ignore", RuntimeWarning)
    print(json.dumps(report(int(sys.argv[1]) if len(sys.argv) > 1 else 1)))
