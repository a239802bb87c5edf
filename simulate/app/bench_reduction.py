"""``python -m simulate.app.bench --only aggregates``: what an aggregate-only run costs
beside the kernels alone, and beside a run that keeps every record, on one thread and on
every core.

For each game, three things are timed in this process, in turn (so that a slow spell of
a shared machine weighs on all three), ``repeats`` times each at each thread count:

- **kernels**: the run's chunks played (``simulate.runs.engine.play_chunks``, every record
  kept in memory as the engine builds it, then dropped): the games alone;
- **none**: the whole aggregate-only run into a run folder (``records="none"``: each chunk
  reduced, merged into the folder's aggregates file, the manifest written, durably);
- **all**: the whole run into a run folder with every record (Parquet, durably).

It prints the median wall time of each and the ratios none / kernels (what the reduction
and its file add to the games) and none / all.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

import numba

from .api.playing import make_request, play_chunks, play_run

RUNS = (
    ("bmn", 2, {}, 1),
    ("crazy-eights", 4, {}, 1),
    ("pis-yedili", 4, {"match_deals": None}, 1),
    ("pis-yedili", 4, {}, 4),
)
"""The runs timed, each ``(game, players, rules, divisor)``: Beggar-My-Neighbour, four-seat
Crazy Eights and Pis Yedili single games (scores, decision counts), and Pis Yedili's
matches of four deals (``--games N / 4`` matches: N deals)."""


def _kernels(request) -> None:
    for _ in play_chunks(request):
        pass


def _run(request, folder: Path) -> None:
    play_run(request, out=folder, collect=False, force=True)


def aggregate_cost(games: int, repeats: int, cores: int) -> None:
    """Print the timings described in the module's docstring, at 1 and ``cores`` threads."""
    counts = sorted({1, cores})
    print(
        f"{games:,} games (deals) a run, median of {repeats} runs each, in turn; "
        "kernels: the chunks played, nothing reduced or written"
    )
    print(
        f"{'run':<34} {'threads':>7} {'kernels':>9} {'none':>9} {'all':>9} "
        f"{'none/kernels':>12} {'none/all':>9}"
    )
    for game, players, rules, divisor in RUNS:
        count = games // divisor
        label = f"{game} {players}p" + (" single deals" if rules else "")
        for threads in counts:
            options = dict(players=players, games=count, seed=1, threads=threads, rules=rules)
            plain = make_request(game, **options)
            reduced = make_request(game, records="none", **options)
            times: dict[str, list[float]] = {"kernels": [], "none": [], "all": []}
            with tempfile.TemporaryDirectory() as folder:
                warm = make_request(game, **{**options, "games": 2000, "records": "none"})
                _run(warm, Path(folder) / "warm")  # compile (or load) every kernel first
                for _ in range(repeats):
                    for what in times:
                        started = time.perf_counter()
                        if what == "kernels":
                            _kernels(plain)
                        else:
                            _run(reduced if what == "none" else plain, Path(folder) / what)
                        times[what].append(time.perf_counter() - started)
            kernels, none, every = (statistics.median(times[k]) for k in times)
            print(
                f"{label:<34} {threads:>7} {kernels:>7.2f} s {none:>7.2f} s {every:>7.2f} s "
                f"{none / kernels:>12.3f} {none / every:>9.3f}",
                flush=True,
            )
    numba.set_num_threads(cores)
