"""``make bench``: deals per second of the kernels, on one core and on all cores.

Each figure is the median of repeated timed runs of the compiled kernel over fresh deals
(shuffling and dealing included, writing records excluded), after a warm-up run that
compiles it. Usage: ``python -m simulate.bench [--games N] [--repeats R] [--players 2 3 4]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numba

from .games.beggar.batch import play_random
from .games.beggar.rules import BeggarRules


def deals_per_second(players: int, games: int, threads: int, repeats: int) -> float:
    """Median deals/s of ``repeats`` runs of ``games`` deals each on ``threads`` threads."""
    numba.set_num_threads(threads)
    rules = BeggarRules()
    play_random(0, 0, 1000, players, rules)  # compile (or load from the cache), warm up
    rates = []
    for repeat in range(repeats):
        started = time.perf_counter()
        play_random(repeat + 1, 0, games, players, rules)
        rates.append(games / (time.perf_counter() - started))
    return statistics.median(rates)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000, help="deals per timed run")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per figure")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    args = parser.parse_args(argv)
    cores = numba.config.NUMBA_NUM_THREADS
    print(
        f"Beggar-My-Neighbour kernel: {args.games:,} deals per run, median of "
        f"{args.repeats} runs; {cores} threads = all cores "
        f"({platform.processor() or platform.machine()}, {os.cpu_count()} CPUs)"
    )
    print(f"{'players':>7} {'1 core (deals/s)':>18} {f'{cores} cores (deals/s)':>20} {'ratio':>6}")
    for players in args.players:
        one = deals_per_second(players, args.games, 1, args.repeats)
        every = deals_per_second(players, args.games, cores, args.repeats)
        print(f"{players:>7} {one:>18,.0f} {every:>20,.0f} {every / one:>6.2f}")


if __name__ == "__main__":
    main()
