"""A chunk's records left in device memory, as a game family's GPU batch describes them
for the run layer, which reduces an aggregate-only chunk there
(:func:`simulate.runs.gpu_aggregates.reduce_on_device`). No numba: the arrays are numba
device arrays, but this module only names them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa


@dataclass(frozen=True)
class DeviceChunk:
    """A chunk's records in device memory, as a game family's GPU batch describes them.

    ``keys``: ``end`` and ``winner`` and, where the records have it, ``finish_rank``,
    int8[count] device arrays of codes into ``labels[name]`` (-1: none; ``winner``: the
    seat). ``columns``: every integer record column the CPU's reduction counts (neither
    ``game`` nor a key nor a label column), by name, in the records' order, each a 1-D
    integer device array of ``count`` rows (a strided view is fine). ``arrays``: the
    kernel's outputs by name, each ``(device array, axis)`` with its rows along ``axis``:
    what ``build`` turns into the records table (those arrays on the host, cut to some
    rows along their axis), ``game`` numbered from ``first``."""

    first: int
    count: int
    players: int
    keys: dict
    labels: dict[str, tuple[str, ...]]
    columns: dict
    arrays: dict[str, tuple]
    build: Callable[[dict[str, np.ndarray]], pa.Table] = field(repr=False)
