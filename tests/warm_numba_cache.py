"""Fill numba's on-disk cache with the kernels the tests use, before pytest-xdist's workers
start (``make test`` and ``make test-fast`` run it first): otherwise every worker compiles
the same kernels at once on a fresh clone, and the first tests of each wait for it.

Small runs of every game family and record kind: Beggar-My-Neighbour at 2 to 4 players,
logged and aggregate-only; each shedding preset with every kind of built-in strategy, single
games and match play, logged and aggregate-only. It checks nothing (the tests do); it only
compiles. ``python tests/warm_numba_cache.py`` prints what it compiled and how long it took.
"""

from __future__ import annotations

import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from differential.shedding_grid import EVERY_STRATEGY  # noqa: E402

from simulate.api import simulate  # noqa: E402
from simulate.games.shedding.rules import PRESETS  # noqa: E402


def runs() -> list[tuple[str, dict]]:
    """The runs that compile every kernel the tests use (game, keyword arguments)."""
    found = []
    for players in (2, 3, 4):
        found.append(("bmn", {"players": players, "log": 2}))
    found.append(("bmn", {"players": 2, "records": "none", "rules": {"time_limit": 300}}))
    for name in PRESETS:
        strategies = list(EVERY_STRATEGY[:4])
        found.append((name, {"players": 4, "strategies": strategies, "log": 2}))
        found.append(
            (name, {"players": 4, "strategies": list(EVERY_STRATEGY[3:]), "records": "none"})
        )
        found.append((name, {"players": 3, "rules": {"match_deals": 2}, "log": 1}))
    return found


def main() -> int:
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for i, (game, options) in enumerate(runs()):
            simulate(game, games=64, seed=1, threads=1, out=Path(tmp) / str(i), **options)
    print(f"numba cache warm: {len(runs())} runs in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
