"""Aggregates reduced on the GPU against the CPU's reduction of the same records, for
tests/test_gpu_aggregates.py: run under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, in
a fresh interpreter) or on a real GPU. ``python tests/gpu_aggregates_checks.py SCALE`` prints
the report as JSON; ``... compile`` compiles the kernels instead (no GPU needed), and
``... bytes GAME PLAYERS GAMES`` measures what one chunk copies back (:func:`transfer`).

Each check plays one chunk twice, on the CPU (records, then
:func:`simulate.runs.folder.aggregates.aggregate_games`) and on the device
(:func:`simulate.runs.gpu_aggregates.reduce_on_device`), and lists which parts of the two
:class:`~simulate.runs.folder.aggregates.Aggregates` differ, with the device reduction's ``stats`` and the
end reasons the chunk reached.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

from simulate.runs.aggregate_runs import reduced, reduced_where_played
from simulate.runs.engine import play_chunk
from simulate.runs.folder.aggregates import aggregate_games
from simulate.runs.request import make_request

CASES = {
    # Beggar-My-Neighbour with a time limit most deals reach: their `cards` all tie at the
    # limit, so the longest kept are the first of many tied rows.
    "bmn-2-time-limit": dict(game="bmn", players=2, rules={"time_limit": 180}),
    "bmn-4": dict(game="bmn", players=4, rules={"time_limit": 900}),
    # Crazy Eights ending in four ways (out, stock_out, play_cap, turn_cap).
    "crazy-eights-2": dict(
        game="crazy-eights",
        players=2,
        rules={"stock_empty": "end", "max_plays": 22, "max_turns": 40, "decks": 1},
        strategies=["greedy", "random"],
    ),
    "crazy-eights-4": dict(
        game="crazy-eights",
        players=4,
        rules={"stock_empty": "pass", "max_plays": 60},
        strategies=["greedy", "random", "attack", "uniform"],
    ),
    # Pis Yedili's single games (no matches): finishing ranks, scores, others_score.
    "pis-yedili-4": dict(
        game="pis-yedili",
        players=4,
        rules={"match_deals": None, "max_turns": 70},
        strategies=["random", "greedy", "hold-wilds", "random:forget=0.2"],
    ),
}


def differences(gpu, cpu) -> list[str]:
    """The parts in which two Aggregates differ (empty: equal)."""
    differ = []
    if gpu.records != cpu.records:
        differ.append("records")
    if set(gpu.groups) != set(cpu.groups):
        differ.append("group keys")
    for key in set(gpu.groups) & set(cpu.groups):
        mine, theirs = gpu.groups[key], cpu.groups[key]
        if set(mine) != set(theirs):
            differ.append(f"columns of {key}")
        differ += [
            f"{key} {name}" for name in theirs if name in mine and mine[name] != theirs[name]
        ]
    for part in ("longest", "first"):
        if not getattr(gpu, part).equals(getattr(cpu, part)):
            differ.append(part)
    if not gpu.schema.equals(cpu.schema):
        differ.append("schema")
    for part in ("lengths", "labels", "matches"):
        if getattr(gpu, part) != getattr(cpu, part):
            differ.append(part)
    return differ


def _check(case: dict, first: int, count: int) -> dict:
    from simulate.runs.gpu_aggregates import reduce_on_device

    options = {k: v for k, v in case.items() if k != "game"}
    common = dict(games=first + count, seed=41, threads=1, **options)
    gpu_request = make_request(case["game"], backend="cuda", **common)
    cpu_request = make_request(case["game"], **common)
    meta, seating = cpu_request.meta(), cpu_request.seatings()[0]
    engine = cpu_request.game.spec.engine()
    table = engine.play(cpu_request, seating, first, count, 0).games
    cpu = aggregate_games(table, meta)
    stats: dict = {}
    device = engine.device_chunk(gpu_request, seating, first, count)
    gpu = reduce_on_device(device, meta, stats=stats)
    ends = table.column("end").combine_chunks()
    # The candidates copied back are exactly the games kept: none missing, none extra.
    kept = {*cpu.longest.column("game").to_pylist(), *cpu.first.column("game").to_pylist()}
    candidates = [first + row for row in stats.pop("rows", [-1 - first])]  # none: fallback
    stats["exact"] = candidates == sorted(kept)
    stats["candidates"] = len(candidates)
    return {
        "differ": differences(gpu, cpu),
        "games": count,
        "ends": sorted(set(ends.dictionary.take(ends.indices).to_pylist())),
        "stats": stats,
        "groups": len(cpu.groups),
    }


def _rotated(scale: int) -> dict:
    """A chunk with rotated seats, through the engine's hook (seatings merged), against the
    CPU's reduction of the interleaved records."""
    options = dict(
        players=3,
        games=100 * scale,
        seed=5,
        threads=1,
        rules={"stock_empty": "end"},
        strategies=["greedy", "random", "attack"],
        rotate_seats=True,
    )
    gpu_request = make_request("crazy-eights", backend="cuda", **options)
    cpu_request = make_request("crazy-eights", **options)
    first, count = 3, 100 * scale - 3
    found = reduced_where_played(gpu_request, gpu_request.seatings(), first, count, _hears_nothing)
    cpu = reduced(play_chunk(cpu_request, first, count), cpu_request.meta()).aggregates
    return {"differ": differences(found.aggregates, cpu), "games": count * 3, "ends": []}


def _hears_nothing(*_) -> None:
    """A ``playing`` callback (which seating is being played) that ignores it."""


def compiled() -> dict:
    """Every kernel of :mod:`simulate.runs.gpu_aggregates` compiled to PTX with numba-cuda's real
    compiler (no GPU: numba's typing, which the simulator skips), for the argument types a
    reduction gives them (every integer width of a column, strided views included); as
    ``tests/cuda_compile_check.py`` does it. ``{"toolkit": false, "why": ...}`` without the
    CUDA toolkit's libraries."""
    import types as pytypes

    import numba.cuda.dispatcher as dispatcher
    from cuda_compile_check import CC, _toolkit
    from numba import types

    from simulate.core.gpu import load_cuda
    from simulate.runs import gpu_aggregates as g

    cuda = load_cuda()
    why = _toolkit(cuda)
    if why is not None:
        return {"toolkit": False, "why": why}
    dispatcher.get_current_device = lambda: pytypes.SimpleNamespace(compute_capability=CC)
    i64, key, rows = types.int64, types.int8[:], types.int64[::1]
    i32 = types.int32[::1]
    signatures = [
        (g._group_ids, (key, key, key, i64, i64, i64, i32)),
        (g._others, (types.int32[:], key, i64, rows)),
        (g._combine, (types.int32[:], types.int32[:], i64, rows)),
        (g._nonzero, (i32, i32, i32, rows)),
        (g._nonzero, (i32, rows, i32, rows)),
        (g._pick_longest, (key, types.int32[:], rows, rows, rows, rows)),
        (g._pick_first, (key, rows, rows, rows)),
    ]
    for width in (types.int8, types.int16, types.int32, types.int64):
        values = width[:]
        signatures += [
            (g._bounds, (values, rows)),
            (g._count_shared, (values, i64, i64, i32, i32, i32)),
            (g._count_global, (values, i64, i64, i32, i32, i32)),
            (g._block_counts, (key, i64, values, i64, i64, i64, i32)),
            (g._take_1d, (values, rows, width[::1])),
            (g._take_rows, (width[:, :], rows, width[:, ::1])),
            (g._take_columns, (width[:, :], rows, width[:, ::1])),
        ]
    found = {"toolkit": True}
    for kernel, signature in signatures:
        ptx, _ = cuda.compile_ptx(kernel.py_func, signature, cc=CC)
        name = kernel.py_func.__name__
        found[name] = found.get(name, 0) + len(ptx)
    return found


def transfer(game: str, players: int, games: int) -> dict:
    """What one chunk of ``games`` games (seed 2026, every seat ``random``) copies back from
    the device: reduced there (``bytes``: histograms, counts, keys of the searched blocks,
    the candidates' records) and, for comparison, as records (``record_bytes``: the
    kernel's output arrays, which a run that keeps its records copies back whole)."""
    from simulate.runs.gpu_aggregates import reduce_on_device

    request = make_request(game, players=players, games=games, seed=2026, backend="cuda")
    stats: dict = {}
    engine = request.game.spec.engine()
    device = engine.device_chunk(request, request.seatings()[0], 0, games)
    reduce_on_device(device, request.meta(), stats=stats)
    return {
        "game": game,
        "players": players,
        "games": games,
        "bytes": stats["bytes"],
        "candidates": len(stats["rows"]),
        "record_bytes": stats["record_bytes"],
    }


def report(scale: int = 1) -> dict:
    checks = {name: _check(case, 1000 + 7 * scale, 300 * scale) for name, case in CASES.items()}
    checks["crazy-eights-3-rotated"] = _rotated(scale)
    return checks


if __name__ == "__main__":
    warnings.simplefilter("ignore", RuntimeWarning)
    if sys.argv[1:] == ["compile"]:
        sys.path.insert(0, str(Path(__file__).parent))
        found = compiled()
    elif sys.argv[1:2] == ["bytes"]:
        found = transfer(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        found = report(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
    print(json.dumps(found))
