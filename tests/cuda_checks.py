"""GPU records against CPU records, for tests/test_cuda.py: run under numba's CUDA simulator
(``NUMBA_ENABLE_CUDASIM=1``, in a fresh interpreter: the variable is read when numba.cuda is
imported) or on a real GPU. ``python tests/cuda_checks.py SCALE`` prints the report as
JSON; :func:`report` returns it.

Each check compares every column of :func:`simulate.games.beggar.cuda_batch.play_random`
(or ``play_hands``) with the CPU's, and records how the deals ended, so a test can also
require that the checks reached cycles and time limits.
"""

from __future__ import annotations

import json
import random
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from differential.beggar_grid import cycling_deals, short_deal  # noqa: E402

from simulate.games.beggar import batch  # noqa: E402
from simulate.games.beggar.rules import BeggarRules  # noqa: E402

RANDOM_RULES = {
    "default": {},
    "penalties": {"penalties.J": 2, "penalties.Q": 1, "penalties.K": 4, "penalties.A": 3},
    "time_limit": {"time_limit": 180},
}


def _compare(gpu: dict, cpu: dict) -> dict:
    differ = [name for name in cpu if not np.array_equal(gpu[name], cpu[name])]
    ends = np.bincount(cpu["end"], minlength=3).tolist()
    return {"equal": not differ, "differ": differ, "ends": ends, "games": len(cpu["cards"])}


def report(scale: int = 1) -> dict:
    """Every check at ``scale`` (1: a few hundred games each, for the simulator)."""
    from simulate.games.beggar import cuda_batch

    checks = {}
    for players in (2, 3, 4):
        for name, overrides in RANDOM_RULES.items():
            rules = BeggarRules().with_overrides(overrides)
            count = 200 * scale
            gpu = cuda_batch.play_random(2026, 10**12 + 5, count, players, rules)
            cpu = batch.play_random(2026, 10**12 + 5, count, players, rules)
            checks[f"random-{players}-{name}"] = _compare(gpu, cpu)
    # Short deals: cycles, and time limits falling before, at and after a loop's start.
    rng = random.Random(5)
    by_players: dict[int, list] = {}
    while sum(map(len, by_players.values())) < 300 * scale:
        deal = short_deal(rng)
        by_players.setdefault(len(deal), []).append(deal)
    cycling: dict[int, list] = {}
    for hands, record in cycling_deals(30 * scale):
        cycling.setdefault(len(hands), []).append((hands, record))
    for players, deals in sorted(by_players.items()):
        for limit in (None, 30):
            rules = BeggarRules(penalties={"J": 1, "Q": 3, "K": 2, "A": 4}, time_limit=limit)
            gpu, cpu = cuda_batch.play_hands(deals, rules), batch.play_hands(deals, rules)
            checks[f"short-{players}-limit{limit}"] = _compare(gpu, cpu)
    for players, items in sorted(cycling.items()):
        deals = [hands for hands, _ in items]
        first_repeat = items[0][1].cards
        for limit in (None, first_repeat - 1, first_repeat, first_repeat + 1):
            rules = BeggarRules(time_limit=limit or None)
            gpu, cpu = cuda_batch.play_hands(deals, rules), batch.play_hands(deals, rules)
            checks[f"cycling-{players}-limit{limit}"] = _compare(gpu, cpu)
    return checks


if __name__ == "__main__":
    # The simulator multiplies uint64 scalars in numpy, which warns when a product wraps
    # (the kernel keeps only the low 32 bits, as the device does).
    warnings.simplefilter("ignore", RuntimeWarning)
    print(json.dumps(report(int(sys.argv[1]) if len(sys.argv) > 1 else 1)))
