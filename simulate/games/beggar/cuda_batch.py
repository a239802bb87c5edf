"""Beggar-My-Neighbour in bulk on a GPU: the columns of :func:`.batch.play_random`, played by
:mod:`.cuda_kernel`.

Importing this module imports ``numba.cuda`` (and compiles nothing until the first call);
:meth:`.engine.BeggarEngine.play` imports it only for ``backend="cuda"``.
"""

from __future__ import annotations

import numpy as np

from ...core.gpu import launch_grid
from ...core.rng import seed_key
from . import records
from .batch import packed_hands
from .cuda_kernel import cuda, play_given_deals, play_random_deals
from .rules import END_NAMES, BeggarRules

THREADS_PER_BLOCK = 128
BLOCKS_PER_SM = 16
"""Persistent threads: enough resident warps per multiprocessor to hide latency; each takes
deals from the shared counter until none is left."""
SIMULATOR_GRID = (2, 16)
"""Blocks and threads under the CUDA simulator (each thread a Python thread)."""

_NAMES = (
    ("cards", np.int32),
    ("tricks", np.int32),
    ("winner", np.int8),
    ("end", np.int8),
    ("cycle_cards", np.int32),
    ("cycle_tricks", np.int32),
)


def grid(count: int) -> tuple[int, int]:
    """``(blocks, threads per block)`` of a launch playing ``count`` deals."""
    return launch_grid(
        count,
        threads_per_block=THREADS_PER_BLOCK,
        blocks_per_sm=BLOCKS_PER_SM,
        simulator=SIMULATOR_GRID,
    )


def _device_outputs(count: int, players: int) -> dict:
    columns = {name: cuda.device_array(count, dtype) for name, dtype in _NAMES}
    columns["held"] = cuda.device_array((count, players), np.int8)
    columns["lead_changes"] = cuda.device_array(count, np.int32)
    columns["winner_behind"] = cuda.device_array(count, np.int32)
    return columns


def _columns(out: dict) -> tuple:
    """The output columns in the kernels' argument order."""
    order = ("cards", "tricks", "winner", "end", "cycle_cards", "cycle_tricks", "held")
    return (*(out[name] for name in order), out["lead_changes"], out["winner_behind"])


def play_on_device(seed: int, first_game: int, count: int, players: int, rules: BeggarRules):
    """Launch the kernel on games ``first_game .. first_game+count-1`` (``count`` >= 1) and
    return their columns as device arrays, without waiting for it (the kernel time alone,
    for the bench: ``cuda.synchronize()`` after)."""
    key0, key1 = seed_key(seed)
    out = _device_outputs(count, players)
    blocks, threads = grid(count)
    play_random_deals[blocks, threads](
        np.int64(key0),
        np.int64(key1),
        np.int64(first_game),
        np.int64(players),
        cuda.to_device(rules.to_vector()),
        *_columns(out),
        cuda.to_device(np.zeros(1, np.int64)),
    )
    return out


def play_random(seed: int, first_game: int, count: int, players: int, rules: BeggarRules):
    """Deal and play games ``first_game .. first_game+count-1`` of the run with this seed on
    the GPU: the same columns as :func:`.batch.play_random` without a log (``cards``,
    ``tricks``, ``cycle_cards``, ``cycle_tricks``, ``lead_changes``, ``winner_behind``
    int32[count]; ``winner``, ``end`` int8[count]; ``held`` int8[count, players])."""
    if count == 0:
        empty = _device_outputs(1, players)
        return {name: array.copy_to_host()[:0] for name, array in empty.items()}
    out = play_on_device(seed, first_game, count, players, rules)
    return {name: array.copy_to_host() for name, array in out.items()}


def device_chunk(seed: int, first_game: int, count: int, players: int, rules: BeggarRules):
    """Games ``first_game .. first_game+count-1`` (``count`` >= 1) played on the GPU, their
    records left in device memory: the :class:`~simulate.games.device_chunk.DeviceChunk` that an
    aggregate-only run reduces there."""
    from ..device_chunk import DeviceChunk

    out = play_on_device(seed, first_game, count, players, rules)
    counted = ("cards", "tricks", "cycle_cards", "cycle_tricks", "lead_changes", "winner_behind")
    columns = {name: out[name] for name in counted}
    columns.update({f"cards_held_{seat}": out["held"][:, seat] for seat in range(players)})
    return DeviceChunk(
        first_game,
        count,
        players,
        keys={"end": out["end"], "winner": out["winner"]},
        labels={"end": tuple(END_NAMES)},
        columns=columns,
        arrays={name: (array, 0) for name, array in out.items()},
        build=lambda host: records.to_table(first_game, host, players),
    )


def play_hands(deals: list[list[list[int]]], rules: BeggarRules):
    """:func:`.batch.play_hands` on the GPU: given deals (each a list of hands of kinds, top
    card first, all with the same number of seats), the same columns."""
    players, hands, lengths = packed_hands(deals)
    out = _device_outputs(len(deals), players)
    blocks, threads = grid(len(deals))
    play_given_deals[blocks, threads](
        np.int64(players),
        cuda.to_device(rules.to_vector()),
        cuda.to_device(hands),
        cuda.to_device(lengths),
        *_columns(out),
        cuda.to_device(np.zeros(1, np.int64)),
    )
    return {name: array.copy_to_host() for name, array in out.items()}
