"""Fill numba's on-disk cache with the kernels the tests use, before pytest-xdist's workers
start (``make test`` and ``make test-fast`` run it first): otherwise every worker compiles
the same kernels at once on a fresh clone, and the first tests of each wait for it.

Small runs of every game family and record kind: Beggar-My-Neighbour at 2 to 4 players,
logged and aggregate-only; each shedding preset with every kind of built-in strategy, single
games and match play, logged and aggregate-only, and with a searching seat (``pimc``). It checks nothing (the tests do); it only
compiles. ``python tests/warm_numba_cache.py`` prints what it compiled and how long it took.

The two families share no kernel, so each is compiled by a process of its own, side by side
where there are two cores (Beggar-My-Neighbour about 30 s, the shedding games about 63 s,
both 63 to 69 s where one after the other took 98 to 123 s on the 2-core machine,
2026-12-06; the strong players' search adds 17 s to the shedding games', 2026-12-07);
``--family NAME`` compiles one.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from differential.shedding_grid import EVERY_STRATEGY  # noqa: E402

from simulate.app.api import simulate  # noqa: E402
from simulate.games.shedding.rules import PRESETS  # noqa: E402

FAMILIES = ("beggar", "shedding")


def runs(family: str | None = None) -> list[tuple[str, dict]]:
    """The runs that compile every kernel the tests use (game, keyword arguments), or those
    of one of :data:`FAMILIES`."""
    found = []
    if family in (None, "beggar"):
        for players in (2, 3, 4):
            found.append(("bmn", {"players": players, "log": 2}))
        found.append(("bmn", {"players": 2, "records": "none", "rules": {"time_limit": 300}}))
    for name in PRESETS if family in (None, "shedding") else ():
        strategies = list(EVERY_STRATEGY[:4])
        found.append((name, {"players": 4, "strategies": strategies, "log": 2}))
        found.append(
            (name, {"players": 4, "strategies": list(EVERY_STRATEGY[3:]), "records": "none"})
        )
        found.append((name, {"players": 3, "rules": {"match_deals": 2}, "log": 1}))
    if family in (None, "shedding"):  # the compiled reduction of matches
        found.append(("pis-yedili", {"players": 3, "records": "none"}))
    if family in (None, "shedding"):  # the kernels with a search (the rules are data)
        searching = ["pimc:2", "random", "greedy"]
        found.append(("crazy-eights", {"players": 3, "strategies": searching, "log": 1}))
        options = {"players": 3, "strategies": searching, "rules": {"match_deals": 2}}
        found.append(("crazy-eights", options))
    return found


def warm(family: str | None) -> None:
    """Play the runs of ``family`` (all of them: None) in this process; for
    Beggar-My-Neighbour also given deals, logged or not (the kernels of the case,
    differential and replay tests)."""
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as tmp:
        for i, (game, options) in enumerate(runs(family)):
            simulate(game, games=64, seed=1, threads=1, out=Path(tmp) / str(i), **options)
    if family in (None, "beggar"):
        from differential.beggar_grid import short_deal

        from simulate.games.beggar import batch
        from simulate.games.beggar.rules import BeggarRules

        deal = short_deal(random.Random(1))
        batch.play_hands([deal], BeggarRules())
        batch.log_hands(deal, BeggarRules())


def drop_stale_caches(root: Path) -> int:
    """Delete numba's on-disk cache entries under ``root`` that can no longer be loaded:
    an index (``__pycache__/*.nbi``) pickles the types its kernels were compiled for, by
    module, and after a module moves numba raises ModuleNotFoundError on it instead of
    compiling again. Returns how many indexes went (each with its ``.nbc`` data files)."""
    import pickle

    dropped = 0
    for index in sorted(root.rglob("__pycache__/*.nbi")):
        try:
            with index.open("rb") as file:
                pickle.load(file)  # numba's version
                pickle.loads(file.read())  # (source stamp, overloads)
        except (ImportError, AttributeError, EOFError, pickle.UnpicklingError):
            for data in index.parent.glob(f"{index.name.removesuffix('.nbi')}.*.nbc"):
                data.unlink(missing_ok=True)
            index.unlink(missing_ok=True)
            dropped += 1
    return dropped


def main(argv: list[str]) -> int:
    start = time.perf_counter()
    family = argv[1] if argv[:1] == ["--family"] else None
    if family is None:
        stale = drop_stale_caches(Path(__file__).resolve().parents[1] / "simulate")
        if stale:
            print(f"numba cache: {stale} entries that no longer load dropped")
    if family is not None or (os.cpu_count() or 1) < 2:
        warm(family)
    else:
        children = [
            subprocess.Popen([sys.executable, __file__, "--family", name]) for name in FAMILIES
        ]
        if [child.wait() for child in children] != [0] * len(children):
            return 1
    took = time.perf_counter() - start
    print(
        f"numba cache warm ({family or 'every family'}): {len(runs(family))} runs in {took:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
