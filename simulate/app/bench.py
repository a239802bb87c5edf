"""``make bench``: games per second of the kernels, on one core and on all cores.

Each figure is the median of repeated timed runs of a compiled kernel over fresh games
(shuffling and dealing included, writing records excluded), after a warm-up run that
compiles it. Beggar-My-Neighbour for 2, 3 and 4 players; each shedding preset with
``random`` in every seat for 2 and 4 players; and, when OpenSpiel is installed
(``pip install open-spiel``), the ``openspiel`` preset with ``uniform`` in every seat beside
OpenSpiel's own C++ ``evaluate_bots`` with uniform random bots.

``--only runs`` times whole runs instead: ``cardsim simulate`` in a fresh process (start-up,
playing, Parquet writing, ``run.json``; no report) with ``--threads 1`` and with every core,
and prints the median wall times, the cores each kept busy (CPU time / wall time) and the
ratio.

``--only durability`` times whole runs into a run folder in this process, with every chunk
flushed to disk before it counts (the default) and without the flushes, in turn, and prints
what durability costs.

``--only logs`` times whole runs with and without ``--log 1000`` (the event log of their
first 1,000 games), in turn, and prints what the log costs.

``--only cluster`` starts a real Dask scheduler and one one-thread worker per core here,
and times whole runs on it against ``--threads`` on this machine (with and without
``--records none``), the overhead per task and the bytes per game that cross the network
(:mod:`simulate.runs.cluster.bench`).

``--only search`` times the strong players: one ``pimc:K`` seat (K = 8, 32, 128) or
``ismcts:K`` seat (K = 32, 128, 512) against three ``hold-wilds`` in four-seat Crazy Eights
and Pis Yedili single deals, in searched decisions (two options or more) per second on one
core and on every core.

``--only aggregates`` times aggregate-only runs (``--records none``) against the kernels
alone and against runs that keep every record, on one thread and on every core
(:mod:`.bench_reduction`).

``--against REV`` compares the kernels of this tree with those of another revision of the
project (a git worktree of ``REV`` made for the purpose and removed after; or a checkout's
path). For each kernel, ``--repeats`` runs: in each, one fresh process of each tree plays
``--rounds`` bursts of a 20th of ``--games`` games on one thread, the two taking turns
(:func:`paired_bursts`). The bench prints the median rate of each tree (games per CPU
second) and the median of the runs' ratios, a run's ratio being the median of its bursts'.
Neighbouring bursts see the same machine, so the ratio holds on a shared machine whose speed
wanders by a tenth within seconds, where whole runs of fresh processes in turn did not.
It measures what a change costs, such as the tension columns. ``REV`` must have the
same batch functions (``beggar.batch.play_random``, ``shedding.batch.play_random``).

``--backend cuda`` prints the rates on the GPU (the kernel alone, and with the records copied
back) beside the CPU's: Beggar-My-Neighbour for 2, 3 and 4 players, and each shedding preset
with ``random`` in every seat for 2 and 4 players; without a usable GPU it says so in one
line.

Usage: ``python -m simulate.app.bench [--games N] [--repeats R]
[--only bmn|shedding|openspiel|strategies|runs|durability|logs|cluster|search|trace|aggregates]
[--against REV|PATH [--rounds R]]
[--backend cpu|cuda]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numba
from numba import njit

from ..games.beggar import batch as beggar
from ..games.beggar.rules import BeggarRules
from ..games.shedding import batch as shedding
from ..games.shedding.kernel_strategies import DRAW, PASS, USER_SIGNATURE, VIEW_MAY_DRAW
from ..games.shedding.rules import PRESETS, preset


def median_rate(play: Callable[[int, int], object], games: int, threads: int, repeats: int):
    """Median games/s of ``repeats`` calls ``play(seed, games)`` on ``threads`` threads."""
    numba.set_num_threads(threads)
    play(0, min(games, 1000))  # compile (or load from the cache), warm up
    rates = []
    for repeat in range(repeats):
        started = time.perf_counter()
        play(repeat + 1, games)
        rates.append(games / (time.perf_counter() - started))
    return statistics.median(rates)


def _row(label: str, play, games: int, repeats: int, cores: int) -> float:
    one = median_rate(play, games, 1, repeats)
    every = median_rate(play, games, cores, repeats)
    print(f"{label:<28} {one:>16,.0f} {every:>18,.0f} {every / one:>6.2f}", flush=True)
    return one


def _whole_run_benches(cores: int) -> dict[str, Callable[[int, int], None]]:
    """The ``--only`` benches of whole runs (or of other costs than the kernels'), each
    called with ``(games, repeats)``; the slower imports only when asked for."""

    def aggregates(games: int, repeats: int) -> None:
        from .bench_reduction import aggregate_cost

        aggregate_cost(games, repeats, cores)

    def cluster(games: int, repeats: int) -> None:  # needs pip install 'cardsim[cluster]'
        from ..runs.cluster.bench import cluster_bench

        cluster_bench(games, repeats, workers=cores)

    return {
        "runs": lambda games, repeats: whole_runs(games, repeats, cores),
        "durability": durability,
        "logs": lambda games, repeats: log_cost(games, repeats, cores),
        "search": lambda games, repeats: search_rates(games, repeats, cores),
        "trace": lambda games, repeats: trace_rates(games, repeats, cores),
        "aggregates": aggregates,
        "cluster": cluster,
    }


def openspiel_rate(players: int, seconds: float = 3.0) -> float | None:
    """OpenSpiel's crazy_eights with uniform random bots, games/s on one core (or None)."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("crazy_eights", {"players": players})
    bots = [pyspiel.make_uniform_random_bot(seat, 1234 + seat) for seat in range(players)]
    started, played = time.perf_counter(), 0
    while time.perf_counter() - started < seconds:
        pyspiel.evaluate_bots(game.new_initial_state(), bots, played)
        played += 1
    return played / (time.perf_counter() - started)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000, help="games per timed run")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per figure")
    parser.add_argument(
        "--only",
        choices=(
            "bmn",
            "shedding",
            "openspiel",
            "strategies",
            "runs",
            "durability",
            "logs",
            "cluster",
            "search",
            "trace",
            "aggregates",
        ),
    )
    parser.add_argument(
        "--against",
        metavar="REV",
        help="compare the kernels with those of git revision REV (or of the checkout at a path)",
    )
    parser.add_argument(
        "--rounds", type=int, default=40, help="paired bursts per run, with --against"
    )
    parser.add_argument(
        "--backend",
        choices=("cpu", "cuda"),
        default="cpu",
        help="cuda: the GPU kernels' rates beside the CPU's",
    )
    args = parser.parse_args(argv)
    if args.backend == "cuda":
        gpu_rates(args.games, args.repeats, numba.config.NUMBA_NUM_THREADS)
        return
    if args.against:
        against(args.against, against_kernels(args.only, args.games), args.repeats, args.rounds)
        return
    cores = numba.config.NUMBA_NUM_THREADS
    whole = _whole_run_benches(cores).get(args.only)
    if whole is not None:  # a bench of whole runs rather than of the kernels
        whole(args.games, args.repeats)
        return
    print(
        f"{args.games:,} games per run, median of {args.repeats} runs; {cores} threads = all "
        f"cores ({platform.processor() or platform.machine()}, {os.cpu_count()} CPUs)"
    )
    print(f"{'kernel':<28} {'1 core (games/s)':>16} {f'{cores} cores (games/s)':>18} {'ratio':>6}")
    if args.only in (None, "bmn"):
        for players in (2, 3, 4):
            rules = BeggarRules()

            def play(seed, games, players=players, rules=rules):
                return beggar.play_random(seed, 0, games, players, rules)

            _row(f"beggar-my-neighbour, {players}p", play, args.games, args.repeats, cores)
    if args.only in (None, "shedding"):
        for name in PRESETS:
            for players in (2, 4):
                _row(
                    f"{name}, {players}p, random",
                    _shedding(name, players, "random"),
                    args.games // 4,
                    args.repeats,
                    cores,
                )
    if args.only in (None, "openspiel"):
        ours = _row(
            "openspiel, 5p, uniform",
            _shedding("openspiel", 5, "uniform"),
            args.games // 4,
            args.repeats,
            cores,
        )
        theirs = openspiel_rate(5)
        if theirs is None:
            print("OpenSpiel is not installed (pip install open-spiel): no comparison")
        else:
            print(
                f"{'OpenSpiel C++, 5p, uniform':<28} {theirs:>16,.0f} "
                f"{'':>18} {'':>6}\nratio cardsim / OpenSpiel on one core: {ours / theirs:.1f}"
            )

    if args.only == "strategies":  # not in the default set: the figures are above
        for label, strategy in (
            ("random", "random"),
            ("greedy", "greedy"),
            ("hold-wilds", "hold-wilds"),
            ("weighted", WEIGHTED_EXAMPLE),
            ("user fn", longest_suit),
        ):
            _row(
                f"pis-yedili, 4p, {label}",
                _shedding("pis-yedili", 4, strategy),
                args.games // 4,
                args.repeats,
                cores,
            )


def gpu_rates(games: int, repeats: int, cores: int) -> None:
    """``--backend cuda``: games per second on the GPU, the kernel alone (records left on the
    device) and with the records copied to the host, beside all the CPU cores:
    Beggar-My-Neighbour deals, then each shedding preset with ``random`` in every seat (a
    quarter as many games, as the CPU's bench); one line and nothing else without a usable
    GPU."""
    from ..core.errors import CardsimError
    from ..core.gpu import simulated
    from ..runs.request import check_backend

    try:
        check_backend("cuda", game="beggar-my-neighbour", backends=("cuda",))
    except CardsimError as exc:
        print(f"GPU bench skipped: {exc}")
        return
    if simulated():
        print("GPU bench skipped: the CUDA simulator is on (NUMBA_ENABLE_CUDASIM): no rates")
        return
    from ..games.beggar import cuda_batch
    from ..games.shedding import cuda_batch as shedding_cuda

    cuda = cuda_batch.cuda
    device = cuda.get_current_device()
    name = device.name.decode() if isinstance(device.name, bytes) else device.name
    print(
        f"{games:,} deals (shedding: {games // 4:,} games) per run, median of {repeats} runs; "
        f"GPU {name} ({device.MULTIPROCESSOR_COUNT} SMs), CPU {cores} threads"
    )
    print(f"{'games/s':<32} {'GPU kernel':>14} {'GPU + copy':>14} {'CPU':>14}")

    def row(label: str, kernel, copied, cpu, count: int) -> None:
        rates = [median_rate(play, count, cores, repeats) for play in (kernel, copied, cpu)]
        print(f"{label:<32} " + " ".join(f"{r:>14,.0f}" for r in rates), flush=True)

    for players in (2, 3, 4):
        rules = BeggarRules()

        def kernel(seed, count, players=players, rules=rules):
            cuda_batch.play_on_device(seed, 0, count, players, rules)
            cuda.synchronize()

        def copied(seed, count, players=players, rules=rules):
            return cuda_batch.play_random(seed, 0, count, players, rules)

        def cpu(seed, count, players=players, rules=rules):
            return beggar.play_random(seed, 0, count, players, rules)

        row(f"beggar-my-neighbour, {players}p", kernel, copied, cpu, games)
    for preset_name in PRESETS:
        for players in (2, 4):
            rules, seats = preset(preset_name), ["random"] * players

            def on_device(seed, count, rules=rules, players=players, seats=seats):
                shedding_cuda.play_on_device(rules, players, seats, seed, 0, count)
                cuda.synchronize()

            def shedding_copied(seed, count, rules=rules, players=players, seats=seats):
                return shedding_cuda.play_random(rules, players, seats, seed, 0, count)

            row(
                f"{preset_name}, {players}p, random",
                on_device,
                shedding_copied,
                _shedding(preset_name, players, "random"),
                games // 4,
            )


RUNS = (
    ("pis-yedili", ("--rule", "match_deals=none"), 1),
    ("pis-yedili", (), 4),
    ("bmn", (), 1),
)
"""The whole runs timed by ``--only runs``, each ``(game, options, divisor)``: single Pis
Yedili games, Pis Yedili's 4-deal matches (``--games N / 4`` matches: N deals) and
Beggar-My-Neighbour."""


def whole_runs(games: int, repeats: int, cores: int) -> None:
    """Print the median wall time of ``cardsim simulate`` runs on 1 and on ``cores`` threads.

    The two are run in turn (1, all, 1, all, ...), so that a slow spell of a shared machine
    weighs on both; the ratio is that of the medians."""
    if cores < 2:
        print("one core: no thread counts to compare")
        return
    print(
        "cardsim simulate GAME ... --seed 1 --no-report --threads T: "
        f"median of {repeats} runs each, in turn ({os.cpu_count()} CPUs)"
    )
    print(f"{'run':<56} {'1 thread':>16} {f'{cores} threads':>16} {'ratio':>6}")
    for game, extra, divisor in RUNS:
        count = games // divisor
        timings: dict[int, list[tuple[float, float]]] = {1: [], cores: []}
        with tempfile.TemporaryDirectory() as folder:
            for _ in range(repeats):
                for threads in timings:
                    timings[threads].append(_run_time(game, extra, count, threads, folder))
        (one, one_busy), (every, every_busy) = (
            tuple(statistics.median(values) for values in zip(*runs, strict=True))
            for runs in timings.values()
        )
        label = " ".join((game, *extra, f"--games {count:,}"))
        print(
            f"{label:<56} {one:>7.2f} s ({one_busy:.2f}) {every:>7.2f} s ({every_busy:.2f}) "
            f"{one / every:>6.2f}",
            flush=True,
        )
    print("(in brackets: cores kept busy, the run's CPU time over its wall time)")


# A kernel's player for --against, in a process of whichever tree is first on sys.path:
# argv = kernel ("bmn:2", "pis-yedili:4"). It warms up, says "ready", then plays a burst for
# each line "seed games" it reads and answers the burst's CPU seconds.
_BURSTS = """
import sys, time
import numba
numba.set_num_threads(1)
name, players = sys.argv[1].split(":")
players = int(players)
if name == "bmn":
    from simulate.games.beggar import batch
    from simulate.games.beggar.rules import BeggarRules
    rules = BeggarRules()
    def play(seed, count):
        batch.play_random(seed, 0, count, players, rules)
else:
    from simulate.games.shedding import batch
    from simulate.games.shedding.rules import preset
    rules = preset(name)
    def play(seed, count):
        batch.play_random(rules, players, ["random"] * players, seed, 0, count)
play(1, 1000)
print("ready", flush=True)
for line in sys.stdin:
    seed, count = map(int, line.split())
    started = time.process_time()
    play(seed, count)
    print(time.process_time() - started, flush=True)
"""

AGAINST_BURSTS = 20
"""``--against`` plays each kernel in bursts of ``--games`` / AGAINST_BURSTS games."""


def paired_bursts(trees: list[Path], kernel: str, burst: int, rounds: int) -> list[list[float]]:
    """CPU seconds of ``rounds`` bursts of ``burst`` games of ``kernel`` ("bmn:2",
    "crazy-eights:4", ...) by the code of each tree: one process a tree, kept from burst to
    burst, the trees taking turns (the order reversed every round), so that neighbouring
    bursts see the same machine. Returns a list of ``rounds`` seconds per tree."""
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", _BURSTS, kernel],
            cwd=tree,
            env={**os.environ, "PYTHONPATH": str(tree)},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for tree in trees
    ]
    try:
        for worker in workers:
            if worker.stdout.readline().strip() != "ready":
                raise RuntimeError(f"{kernel}: a worker did not start (exit {worker.wait()})")
        seconds: list[list[float]] = [[] for _ in trees]
        for round_ in range(rounds):
            order = range(len(trees)) if round_ % 2 == 0 else reversed(range(len(trees)))
            for i in order:
                workers[i].stdin.write(f"{round_ + 2} {burst}\n")
                workers[i].stdin.flush()
                seconds[i].append(float(workers[i].stdout.readline()))
        return seconds
    finally:
        for worker in workers:
            worker.stdin.close()
            worker.wait()


def against_kernels(only: str | None, games: int) -> list[tuple[str, int, int]]:
    """The kernels ``--against`` times for ``--only`` (``None``: every one), each ``(name,
    players, games)``: Beggar-My-Neighbour's 2-4 players with ``games`` deals, each
    shedding preset's 2 and 4 players with a quarter as many."""
    kernels = []
    if only in (None, "bmn"):
        kernels += [("bmn", players, games) for players in (2, 3, 4)]
    if only in (None, "shedding"):
        kernels += [(name, players, games // 4) for name in PRESETS for players in (2, 4)]
    return kernels


def against(revision: str, kernels: list[tuple[str, int, int]], repeats: int, rounds: int) -> None:
    """Print, per kernel, the one-thread rates of ``revision``'s tree and of this one, and
    their ratio (this tree over the other). ``repeats`` runs, each a fresh pair of processes
    playing ``rounds`` paired bursts (:func:`paired_bursts`): a run's ratio is the median of
    its bursts' ratios, the ratio printed the median of the runs' (with their range), the
    rates the medians over every burst. Fresh processes, because one process of a tree can
    run a few percent faster or slower than the next (where its arrays and code fall).
    ``revision``: a git revision, or the path of a checkout (say a worktree with a change
    that is measured, not committed). ``kernels``: ``(name, players, games)`` each, as
    :func:`against_kernels` gives them."""
    root = Path(__file__).resolve().parents[2]  # the checkout: simulate/app/bench.py
    with tempfile.TemporaryDirectory() as folder:
        old = Path(revision)
        made = not (old / "simulate").is_dir()
        if made:
            old = Path(folder) / "tree"
            subprocess.run(
                ["git", "-C", str(root), "worktree", "add", "--detach", str(old), revision],
                check=True,
                capture_output=True,
            )
        label = revision if made else old.name
        try:
            print(
                f"games per CPU second on one thread, {label} against this tree: median of "
                f"{repeats} runs of {rounds} paired bursts each (the runs' range in brackets)"
            )
            print(
                f"{'kernel':<28} {label[:14]:>14} {'this tree':>14} {'ratio':>6} "
                f"{'[range]':>16} {'burst':>8}"
            )
            for name, players, count in kernels:
                burst = max(count // AGAINST_BURSTS, 1)
                seconds: list[list[float]] = [[], []]
                ratios = []
                for _ in range(repeats):
                    before, after = paired_bursts([old, root], f"{name}:{players}", burst, rounds)
                    seconds[0] += before
                    seconds[1] += after
                    ratios.append(
                        statistics.median(b / a for b, a in zip(before, after, strict=True))
                    )
                rates = [burst / statistics.median(times) for times in seconds]
                kernel = f"{'beggar-my-neighbour' if name == 'bmn' else name}, {players}p"
                spread = f"[{min(ratios):.3f}, {max(ratios):.3f}]"
                print(
                    f"{kernel:<28} {rates[0]:>14,.0f} {rates[1]:>14,.0f} "
                    f"{statistics.median(ratios):>6.3f} {spread:>16} {burst:>8,}",
                    flush=True,
                )
        finally:
            if made:
                subprocess.run(
                    ["git", "-C", str(root), "worktree", "remove", "--force", str(old)],
                    check=False,
                    capture_output=True,
                )


LOGGED_RUNS = (("bmn", ()), ("pis-yedili", ("--rule", "match_deals=none")))
"""The whole runs timed by ``--only logs``, each ``(game, options)``."""
LOGGED_GAMES = 1000
"""The games ``--only logs`` logs (``--log 1000``)."""


def log_cost(games: int, repeats: int, cores: int) -> None:
    """Print the median wall time of whole runs with and without ``--log``
    :data:`LOGGED_GAMES`, in turn, on every core: what logging a few games costs a run."""
    print(
        f"cardsim simulate GAME ... --games {games:,} --seed 1 --no-report, with and without "
        f"--log {LOGGED_GAMES}: median of {repeats} runs each, in turn ({cores} threads)"
    )
    print(f"{'run':<40} {'no log':>10} {'--log':>10} {'cost':>7}")
    for game, extra in LOGGED_RUNS:
        timings: dict[bool, list[float]] = {False: [], True: []}
        with tempfile.TemporaryDirectory() as folder:
            for _ in range(repeats):
                for logged in timings:
                    options = (*extra, "--log", str(LOGGED_GAMES)) if logged else extra
                    timings[logged].append(_run_time(game, options, games, cores, folder)[0])
        plain, logged = (statistics.median(found) for found in timings.values())
        label = " ".join((game, *extra))
        print(
            f"{label:<40} {plain:>8.2f} s {logged:>8.2f} s {logged / plain - 1:>+7.1%}",
            flush=True,
        )


DURABLE_RUNS = (("beggar-my-neighbour", {}), ("pis-yedili", {"match_deals": "none"}))


def durability(games: int, repeats: int) -> None:
    """Print the median wall time of whole runs into a run folder with and without the
    flushes to disk that make every finished chunk survive a crash (run in turn)."""
    from ..runs.folder.writer import RunWriter
    from ..runs.request import make_request
    from .api.playing import stream

    print(f"{games:,} games into a run folder, all threads, median of {repeats} runs each")
    print(f"{'run':<40} {'durable':>16} {'no fsync':>16} {'cost':>7}")
    for game, rules in DURABLE_RUNS:
        request = make_request(game, games=games, seed=1, rules=rules)
        times: dict[bool, list[float]] = {True: [], False: []}
        with tempfile.TemporaryDirectory() as folder:
            stream(make_request(game, games=1000, seed=1, rules=rules), None)  # compile
            for _ in range(repeats):
                for durable in times:
                    started = time.perf_counter()
                    with RunWriter(folder, request.meta(), force=True, durable=durable) as w:
                        stream(request, w)
                    times[durable].append(time.perf_counter() - started)
        safe, fast = statistics.median(times[True]), statistics.median(times[False])
        label = f"{game} {' '.join(f'{k}={v}' for k, v in rules.items())}".strip()
        print(
            f"{label:<40} {games / safe:>10,.0f} g/s {games / fast:>10,.0f} g/s "
            f"{safe / fast - 1:>+6.1%}",
            flush=True,
        )


def _run_time(game: str, extra, games: int, threads: int, folder: str) -> tuple[float, float]:
    """Wall seconds of one run into ``folder``, and the cores it kept busy."""
    command = [sys.executable, "-m", "simulate.app.cli", "simulate", game, *extra]
    command += ["--games", str(games), "--seed", "1", "--threads", str(threads)]
    command += ["--no-report", "--force", "--out", folder]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu / wall


SEARCHERS = {
    "pimc:8": 8, "pimc:32": 32, "pimc:128": 128,
    "ismcts:32": 8, "ismcts:128": 32, "ismcts:512": 128,
}  # fmt: skip
"""The strong players ``--only search`` times (against three ``hold-wilds``), each with
its cost in ``pimc`` budgets (a decision of ``pimc:K`` plays about 4 K playouts, one of
``ismcts:K`` K playouts)."""


def search_rates(games: int, repeats: int, cores: int) -> None:
    """Print the searched decisions per second of one strong seat (``SEARCHERS``) against
    three ``hold-wilds`` (four-seat single deals), on one core and on ``cores``: the
    decisions counted by :func:`.kernel.count_searches`, the time the median of ``repeats``
    runs of ``games // (1000 cost)`` games (at least 20)."""
    from ..games.shedding.batch import rules_table, seat_arrays
    from ..games.shedding.kernel import count_searches

    print(f"one strong seat against 3 hold-wilds, 4p single deals; {cores} threads = all cores")
    print(
        f"{'game, budget':<24} {'decisions/game':>14} {'1 core (decisions/s)':>21} "
        f"{f'{cores} cores (decisions/s)':>22} {'ratio':>6}"
    )
    for name in ("crazy-eights", "pis-yedili"):
        rules = preset(name).with_overrides({"match_deals": None, "target_score": None})
        for searcher, cost in SEARCHERS.items():
            seats = [searcher] + ["hold-wilds"] * 3
            count = max(20, games // (1000 * cost))
            table, strategies = rules_table(rules, 4), seat_arrays(seats, 4)
            decisions = count_searches(table, strategies, 1, 0, 0, count)  # compiles, counts

            def play(seed, games, rules=rules, seats=seats):
                return shedding.play_random(rules, 4, seats, seed, 0, games)

            one = median_rate(play, count, 1, repeats)
            many = median_rate(play, count, cores, repeats)
            per_game = decisions / count
            print(
                f"{name + f', {searcher}':<24} {per_game:>14.1f} {one * per_game:>21,.0f} "
                f"{many * per_game:>22,.0f} {many / one:>6.2f}"
            )


TRACED = (
    ("bmn", 2, {}),
    ("crazy-eights", 4, {}),
    ("pis-yedili", 4, {"match_deals": None}),
    ("openspiel", 4, {}),
)
"""The games ``--only trace`` traces: four random seats (Beggar-My-Neighbour: two)."""


def trace_rates(games: int, repeats: int, cores: int) -> None:
    """Print the rollouts per second of a trace (``--trace``, 64 rollouts a point) of
    ``games // 5000`` games (at least 20) of each of :data:`TRACED`, on one core and on
    ``cores``: the time of the trace alone (the games' records played first), the median
    of ``repeats``."""
    from ..runs.request import DEFAULT_ROLLOUTS, make_request

    count = max(20, games // 5000)
    print(
        f"{count:,} games traced at {DEFAULT_ROLLOUTS} rollouts a point, median of {repeats}; "
        f"{cores} threads = all cores"
    )
    print(
        f"{'game':<22} {'points/game':>11} {'1 core (rollouts/s)':>20} "
        f"{f'{cores} cores (rollouts/s)':>22} {'ratio':>6}"
    )
    for name, players, rules in TRACED:
        request = make_request(name, players=players, games=count, seed=1, rules=rules)
        engine = request.game.spec.engine()
        records = engine.play(request, request.specs, 0, count, 0).games

        def trace(seed, games, request=request, records=records, engine=engine):
            return engine.trace(request, request.specs, 0, records, count=games)

        points = len(trace(0, count)) // players
        rollouts = (points - count) * DEFAULT_ROLLOUTS  # the outcomes take none
        one = median_rate(trace, count, 1, repeats) * rollouts / count
        many = median_rate(trace, count, cores, repeats) * rollouts / count
        print(
            f"{name:<22} {points / count:>11.1f} {one:>20,.0f} {many:>22,.0f} {many / one:>6.2f}",
            flush=True,
        )


WEIGHTED_EXAMPLE = (
    "weighted:points=1,wild=-0.5,action=0.2,draw=0.1,attack=2,again=0.3,suit_left=0.4,rank_left=0.1"
)


@njit(USER_SIGNATURE, cache=True)
def longest_suit(hand, legal, view):
    """The user-strategy example of docs/user_strategies.md."""
    if legal == 0:
        return DRAW if view[VIEW_MAY_DRAW] else PASS
    best, best_length = -1, -1
    for card in range(52):
        if (legal >> card) & 1:
            suit = card // 13
            length = hand[suit * 13 : suit * 13 + 13].sum()
            if length > best_length:
                best, best_length = card, length
    return best


def _shedding(name: str, players: int, strategy):
    rules = preset(name)

    def play(seed, games):
        return shedding.play_random(rules, players, [strategy] * players, seed, 0, games)

    return play


if __name__ == "__main__":
    main()
