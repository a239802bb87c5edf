"""The shedding games in bulk on a GPU: :func:`.batch.play_random` and
:func:`.batch.play_match_batch`, the games played by :mod:`.cuda_kernel`.

The same arguments and the same columns as the CPU's functions; logged games (``log``) are
played again on the CPU by the logging kernel, as there (the GPU kernels keep no log).
Importing this module imports ``numba.cuda``; :class:`.engine.SheddingEngine` imports it
only for ``backend="cuda"``.
"""

from __future__ import annotations

import numpy as np

from ...core.cards import RANKS
from ...core.errors import CardsimError
from ...core.gpu import launch_grid
from ...core.rng import seed_key
from . import records
from .batch import MAX_DEALS, game_results, match_results, rules_table, seat_arrays
from .columns import BYTE_COLUMNS, COUNT_COLUMNS, empty_columns, kernel_outputs
from .cuda_kernel import cuda, play_matches, play_random_games
from .kernel import Run, worker_scratch
from .kernel_layout import STRAT_USER
from .reference import END_REASONS
from .rules import SheddingRules
from .strategies import parse

THREADS_PER_BLOCK = 128
BLOCKS_PER_SM = 8
"""Persistent threads: resident warps enough to hide latency (each thread's scratch is
``G_SIZE`` words of local memory); each takes games from the shared counter until none is
left."""
SIMULATOR_GRID = (2, 8)
"""Blocks and threads under the CUDA simulator (each thread a Python thread)."""


def grid(count: int) -> tuple[int, int]:
    """``(blocks, threads per block)`` of a launch playing ``count`` games (or matches)."""
    return launch_grid(
        count,
        threads_per_block=THREADS_PER_BLOCK,
        blocks_per_sm=BLOCKS_PER_SM,
        simulator=SIMULATOR_GRID,
    )


def _prepared(rules: SheddingRules, players: int, strategies, forget):
    """``(table, seats, scratch)``: the kernels' :class:`.kernel.Table` and
    :class:`.kernel.Strategies`, and the run's scratch prepared by the CPU kernel's
    :func:`.kernel._prepare` (int64[G_SIZE]); refuses user strategies in one line."""
    table = rules_table(rules, players)
    seats = seat_arrays(strategies, players, forget)
    if (seats.codes == STRAT_USER).any():
        raise CardsimError(
            "backend cuda plays the built-in strategies only, not a user strategy (a Python "
            "function); play it with backend cpu"
        )
    if seats.budgets.any():
        specs = [parse(strategy) for strategy in strategies]
        searching = ", ".join(sorted({str(spec) for spec in specs if spec.searches}))
        raise CardsimError(
            f"backend cuda does not play strong players ({searching}): their rollouts run "
            "on the CPU; play them with backend cpu"
        )
    scratch = worker_scratch(table, seats)[0]
    return table, seats, scratch


def _device_columns(count: int, players: int) -> dict:
    """Device arrays shaped as :func:`.columns.kernel_outputs` of ``count`` rows."""
    host = kernel_outputs(empty_columns(count, players))
    return {
        name: cuda.device_array(
            array.shape, array.dtype, order="C" if array.flags.c_contiguous else "F"
        )
        for name, array in host._asdict().items()
    }


def _copy_back(device: dict, columns: dict) -> None:
    """Copy the device record arrays into ``columns`` (made by :func:`.columns.empty_columns`)."""
    if not next(iter(columns.values())).shape[0]:
        return
    for name, array in kernel_outputs(columns)._asdict().items():
        device[name].copy_to_host(array)


def _outputs(device: dict) -> tuple:
    return tuple(device[name] for name in ("small", "counts", "left", "points", "score"))


def play_on_device(rules, players: int, strategies, seed: int, first_game: int, count: int):
    """Launch the games kernel on games ``first_game .. first_game+count-1`` (``count`` >= 1)
    and return the device record arrays (``small``, ``counts``, ``left``, ``points``,
    ``score``) without waiting for it (the bench times the kernel alone:
    ``cuda.synchronize()`` after)."""
    table, _, scratch = _prepared(rules, players, strategies, None)
    return _launch_games(table, scratch, seed, first_game, count, players)


def _launch_games(table, scratch, seed: int, first_game: int, count: int, players: int):
    """Launch the games kernel (``scratch``: the run's prepared int64[G_SIZE]) into new
    device record arrays, which it returns without waiting."""
    device = _device_columns(count, players)
    key0, key1 = seed_key(seed)
    blocks, threads = grid(count)
    play_random_games[blocks, threads](
        cuda.to_device(scratch),
        np.int64(key0),
        np.int64(key1),
        np.int64(first_game),
        np.int64(table.decks),
        np.int64(table.hand_size),
        *_outputs(device),
        cuda.to_device(np.zeros(1, np.int64)),
    )
    return device


def play_random(
    rules: SheddingRules,
    players: int,
    strategies: list,
    seed: int,
    first_game: int,
    count: int,
    forget: list[float] | None = None,
    *,
    log: int = 0,
) -> dict[str, np.ndarray]:
    """:func:`.batch.play_random` with the games played on the GPU: the same columns
    (``log``: the first ``log`` games played again by the CPU's logging kernel, their
    ``events`` and ``event_games`` added)."""
    table, seats, scratch = _prepared(rules, players, strategies, forget)
    columns = empty_columns(count, players)
    if count:
        _copy_back(_launch_games(table, scratch, seed, first_game, count, players), columns)
    run = Run(*seed_key(seed), first_game)
    return game_results(table, seats, run, strategies=strategies, columns=columns, log=log)


_GAME_AXIS = {"small": 1, "counts": 1, "left": 0, "points": 0, "score": 0}
"""The axis of each device record array along which its games lie (see :mod:`.columns`)."""
_SEAT_ARRAYS = {"cards_left": "left", "points": "points", "score": "score"}
"""The per-seat record columns' device arrays."""


def device_chunk(
    rules: SheddingRules,
    players: int,
    strategies: list,
    seed: int,
    first_game: int,
    count: int,
    every_strategy=None,
):
    """Games ``first_game .. first_game+count-1`` (``count`` >= 1) played on the GPU, their
    records left in device memory: the :class:`~simulate.games.device_chunk.DeviceChunk` that an
    aggregate-only run reduces there (``every_strategy``: as :func:`.records.to_table`)."""
    from ..device_chunk import DeviceChunk

    device = play_on_device(rules, players, strategies, seed, first_game, count)
    rows = {name: device["small"][k] for k, name in enumerate(BYTE_COLUMNS)}
    rows.update({name: device["counts"][k] for k, name in enumerate(COUNT_COLUMNS)})
    columns = {}
    for name, (kind, _) in records.COLUMNS.items():
        if name in ("game", "winner", "match", "deal") or kind.startswith("dictionary"):
            continue
        if name.endswith("_<i>"):
            array = device[_SEAT_ARRAYS[name.removesuffix("_<i>")]]
            columns.update({name.replace("<i>", str(s)): array[:, s] for s in range(players)})
        else:
            columns[name] = rows[name]
    names = [str(strategy) for strategy in strategies]

    def build(host: dict) -> object:
        columns = empty_columns(host["small"].shape[1], players)
        for name, array in kernel_outputs(columns)._asdict().items():
            array[...] = host[name]
        return records.to_table(first_game, columns, names, every_strategy)

    return DeviceChunk(
        first_game,
        count,
        players,
        keys={name: rows[name] for name in ("end", "winner", "finish_rank")},
        labels={"end": tuple(END_REASONS), "finish_rank": tuple(RANKS)},
        columns=columns,
        arrays={name: (array, _GAME_AXIS[name]) for name, array in device.items()},
        build=build,
    )


def _launch_matches(table, scratch, key0, key1, first, ending, offsets, write, device, tallies):
    count = tallies[1].shape[0]
    blocks, threads = grid(count)
    play_matches[blocks, threads](
        cuda.to_device(scratch),
        np.int64(key0),
        np.int64(key1),
        np.int64(first),
        np.int64(table.decks),
        np.int64(table.hand_size),
        *(np.int64(value) for value in ending),
        offsets,
        np.int64(write),
        *_outputs(device),
        *tallies,
        cuda.to_device(np.zeros(1, np.int64)),
    )


def play_match_batch(
    rules: SheddingRules,
    players: int,
    strategies: list,
    seed: int,
    first_match: int,
    count: int,
    forget: list[float] | None = None,
    *,
    log: int = 0,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """:func:`.batch.play_match_batch` with the matches played on the GPU: the same
    ``(deals, matches)`` columns (``log``: every deal of the first ``log`` matches played
    again by the CPU's logging kernel)."""
    if rules.match_deals is None and rules.target_score is None:
        raise CardsimError("a match needs match_deals or target_score")
    table, seats, scratch = _prepared(rules, players, strategies, forget)
    key0, key1 = seed_key(seed)
    ending = (rules.match_deals or 0, rules.target_score or 0, MAX_DEALS)
    totals = cuda.device_array((count, players), np.int64)
    played = cuda.device_array(count, np.int64)
    tallies = (totals, played)
    if rules.target_score is None:
        deals = np.full(count, rules.match_deals, np.int64)
    else:  # a first pass counts each match's deals
        nothing = _device_columns(0, players)
        no_offsets = cuda.to_device(np.zeros(1, np.int64))
        if count:
            _launch_matches(
                table, scratch, key0, key1, first_match, ending, no_offsets, 0, nothing, tallies
            )
        deals = played.copy_to_host() if count else np.zeros(0, np.int64)
    offsets = np.zeros(count + 1, np.int64)
    np.cumsum(deals, out=offsets[1:])
    columns = empty_columns(int(offsets[-1]), players)
    if count:
        device = _device_columns(int(offsets[-1]), players)
        _launch_matches(
            table,
            scratch,
            key0,
            key1,
            first_match,
            ending,
            cuda.to_device(offsets),
            1,
            device,
            tallies,
        )
        _copy_back(device, columns)
        deals = played.copy_to_host()  # as the CPU's: the deals the second pass played
    totals = totals.copy_to_host() if count else np.zeros((0, players), np.int64)
    return match_results(
        rules,
        table,
        seats,
        Run(key0, key1, first_match),
        strategies=strategies,
        columns=columns,
        offsets=offsets,
        played=deals,
        totals=totals,
        log=log,
    )
