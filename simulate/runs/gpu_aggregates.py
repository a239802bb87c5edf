"""Aggregate-only runs (``--records none``) reduced on the GPU: a chunk's records, left in
device memory where the kernel wrote them, become its :class:`simulate.runs.folder.aggregates.Aggregates`
with only small arrays copied back, equal to what the CPU's reduction of the copied-back
records gives (:func:`simulate.runs.folder.aggregates.aggregate_games`).

Each step is a kernel over the chunk's rows adding into small device arrays:

1. each row's group, ``(end, winner, finish_rank)`` as one int32, and the rows per group
   (back: one int32 per possible group);
2. for every integer column the CPU counts (the records' own, and ``others_score``,
   ``decision_points`` and ``options_left``, derived row by row on the device by the
   CPU's own compiled source, :mod:`.reduction_rows`, as the groups of step 1 are), its least and greatest value, then its histogram per group
   present (back: the bins that counted something, a place and a count each, or every bin
   where that is fewer bytes); a block's histogram is kept in shared memory when it fits,
   so that columns of a few values (seats, cards held) do not queue on a few global
   counters;
3. ``longest`` and ``first``: from the histograms, per length column and end reason, the
   value ``t`` of the :data:`~simulate.runs.folder.aggregates.LONGEST_KEPT`-th longest game; the rows
   above ``t``, and those at ``t`` up to the one that completes the count (found by counts
   per block of rows and one block's keys copied back: the CPU breaks ties by the lower
   game); per end reason, the rows up to its :data:`~simulate.runs.folder.aggregates.FIRST_KEPT`-th. Only
   those rows' records are gathered on the device and copied back, and the CPU's own
   selection runs on them, so both tables are the CPU's, ties included.

A game family describes its records on the device as a
:class:`~simulate.games.device_chunk.DeviceChunk` (its engine's ``device_chunk``, built by
its GPU batch module); :func:`simulate.runs.aggregate_runs.reduced_where_played` asks the
engine for one and calls :func:`reduce_on_device`.
Importing this module imports ``numba.cuda``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pyarrow as pa

from ..core import arrow
from ..core.gpu import launch_grid, load_cuda
from ..games.device_chunk import DeviceChunk
from .folder.records import rotation_tagged
from .reduction_rows import group_id, others_term, signed_sum

cuda = load_cuda()

SHARED_BINS = 4096
"""A histogram of at most this many int32 bins (16 KiB) is counted in each block's shared
memory first, then added to the device's."""
THREADS_PER_BLOCK = 256
BLOCKS_PER_SM = 8
SIMULATOR_GRID = (2, 16)
"""Blocks and threads under the CUDA simulator (each thread a Python thread)."""
CUT_BLOCKS = 1024
"""Finding the row that completes a count of tied rows: the rows are counted in at most
this many blocks (back: one int32 each), then one block's keys are copied back."""
MIN_CUT_BLOCK = 64
"""The fewest rows per block of that search."""
_LOW = np.iinfo(np.int64).max
_HIGH = np.iinfo(np.int64).min


def reduce_on_device(
    chunk: DeviceChunk, meta: dict, *, rotation: int | None = None, stats: dict | None = None
):
    """The :class:`simulate.runs.folder.aggregates.Aggregates` of ``chunk``'s records (the run
    ``meta`` describes), computed on the device, equal to the CPU's reduction of the same
    records. ``rotation``: the seating of the chunk in a run with rotated seats (the
    records' ``rotation`` column, constant here). ``stats`` (a dict), when given, receives
    ``bytes`` (copied back from the device), ``tie_cuts`` and ``first_cuts`` (searches for
    the row that completes a count), ``rows`` (the candidate rows copied back, int64, from
    0 at the chunk's first game), ``fallback`` (whether every record was copied back
    instead) and ``record_bytes`` (what copying every record back takes)."""
    from .folder.aggregates import aggregate_games, derived_columns

    stats = {} if stats is None else stats
    records = sum(array.nbytes for array, _ in chunk.arrays.values())
    stats.update(bytes=0, tie_cuts=0, first_cuts=0, fallback=False, record_bytes=records)
    n = chunk.count
    if not 0 < n < 2**31:  # int32 counters; an empty chunk has nothing to count
        return _reduced_on_host(chunk, meta, rotation, stats)
    device = _Device(n, stats)
    reduction = _Groups(chunk, device)
    columns = dict(chunk.columns)
    for name, made in derived_columns(columns).items():  # as the CPU's, row by row
        out = cuda.to_device(np.zeros(n, np.int64))
        if made[0] == "others":  # the summed score of the seats other than the winner
            for seat, score in made[1].items():
                _others[device.grid](columns[score], chunk.keys["winner"], np.int64(seat), out)
        else:
            _, a, b, sign = made
            _combine[device.grid](columns[a], columns[b], np.int64(sign), out)
        columns[name] = out
    counted = {name: reduction.count(values) for name, values in columns.items()}
    groups = reduction.groups(counted, rotation)

    rows = _candidates(chunk, meta, reduction, columns, counted)
    if rows is None:
        # Cannot happen (each search picks at most its bound); should it, correctness
        # first: every record is copied back and reduced on the CPU.
        return _reduced_on_host(chunk, meta, rotation, stats)
    stats["rows"] = rows
    candidates = _with_rotation(_rows_table(chunk, rows, device), rotation)
    found_rows = aggregate_games(candidates, meta)
    return dataclasses.replace(found_rows, records=n, groups=groups)


def _candidates(chunk: DeviceChunk, meta: dict, reduction, columns: dict, counted: dict):
    """The rows (sorted int64) that hold every game the CPU keeps in ``longest`` and
    ``first``, and no other; None should the device pick more than the bound."""
    from .folder.aggregates import FIRST_KEPT, LONGEST_KEPT, aggregate_games

    device, ends = reduction.device, reduction.end_sizes
    lengths = aggregate_games(_empty_table(chunk), meta).lengths
    bound = sum(min(size, LONGEST_KEPT) for size in ends) * len(lengths)
    bound += sum(min(size, FIRST_KEPT) for size in ends)
    picked = cuda.device_array(bound, np.int64)
    found = cuda.to_device(np.zeros(1, np.int64))
    end = chunk.keys["end"]
    for name in lengths:
        above, cut = _longest_cuts(reduction, name, counted[name], LONGEST_KEPT)
        _pick_longest[device.grid](end, columns[name], above, cut, picked, found)
    cut = np.full(len(ends), device.n, np.int64)
    for code, size in enumerate(ends):
        if size > FIRST_KEPT:
            cut[code] = device.nth_row(end, code, None, 0, FIRST_KEPT) + 1
            device.stats["first_cuts"] += 1
    _pick_first[device.grid](end, cuda.to_device(cut), picked, found)
    picks = int(device.back(found)[0])
    if picks > bound:
        return None
    return np.unique(device.back(picked[:picks]) if picks else np.zeros(0, np.int64))


class _Device:
    """Launches over a chunk's ``n`` rows, and what comes back (counted in ``stats``)."""

    def __init__(self, n: int, stats: dict):
        self.n, self.stats = n, stats
        self.grid = _grid(n)

    def back(self, array) -> np.ndarray:
        host = array.copy_to_host()
        self.stats["bytes"] += host.nbytes
        return host

    def span(self, values) -> tuple[int, int]:
        """The least and greatest of ``values``."""
        bounds = cuda.to_device(np.array([_LOW, _HIGH], np.int64))
        _bounds[self.grid](values, bounds)
        low, high = self.back(bounds)
        return int(low), int(high)

    def histogram(self, values, low: int, span: int, gid, slot, slots: int) -> np.ndarray:
        """int64[slots, span]: the rows per group slot (``slot[gid]``) and value."""
        bins = slots * span
        counts = cuda.to_device(np.zeros(bins, np.int32))
        kernel = _count_shared if bins <= SHARED_BINS else _count_global
        kernel[self.grid](values, np.int64(low), np.int64(span), gid, slot, counts)
        # Back: the bins that counted something (place, int32 count), or every bin where
        # that is fewer bytes (the counters of a few values).
        room = min(bins, self.n)
        places = cuda.device_array(room, np.int32 if bins < 2**31 else np.int64)
        tallies = cuda.device_array(room, np.int32)
        found = cuda.to_device(np.zeros(1, np.int64))
        _nonzero[_grid(bins)](counts, places, tallies, found)
        hits = int(self.back(found)[0])
        if hits * (places.dtype.itemsize + 4) < bins * 4:
            dense = np.zeros(bins, np.int64)
            dense[self.back(places[:hits])] = self.back(tallies[:hits])
        else:
            dense = self.back(counts).astype(np.int64)
        return dense.reshape(slots, span)

    def take(self, array, rows, axis: int) -> np.ndarray:
        """``array``'s ``rows`` (a device int64 array) along ``axis``, on the host."""
        shape = list(array.shape)
        shape[axis] = rows.shape[0]
        if not rows.shape[0]:
            return np.empty(shape, array.dtype)
        out = cuda.device_array(tuple(shape), array.dtype)
        grid = _grid(out.size)
        if array.ndim == 1:
            _take_1d[grid](array, rows, out)
        elif axis == 0:
            _take_rows[grid](array, rows, out)
        else:
            _take_columns[grid](array, rows, out)
        return self.back(out)

    def nth_row(self, end, code: int, values, value: int, nth: int) -> int:
        """The row of the ``nth`` (from 1) row in order whose end is ``code`` (and whose
        ``values`` is ``value``, when given): counted per block, then one block's keys
        copied back."""
        block = max(MIN_CUT_BLOCK, -(-self.n // CUT_BLOCKS))
        counts = cuda.to_device(np.zeros(-(-self.n // block), np.int32))
        use = values is not None
        _block_counts[self.grid](
            end,
            np.int64(code),
            values if use else end,
            np.int64(value),
            np.int64(use),
            np.int64(block),
            counts,
        )
        running = np.cumsum(self.back(counts).astype(np.int64))
        at = int(np.searchsorted(running, nth))
        before = int(running[at - 1]) if at else 0
        rows = np.arange(at * block, min((at + 1) * block, self.n), dtype=np.int64)
        on_device = cuda.to_device(rows)
        hit = self.take(end, on_device, 0) == code
        if use:
            hit &= self.take(values, on_device, 0) == value
        return int(rows[np.flatnonzero(hit)[nth - before - 1]])


class _Groups:
    """The rows' groups ``(end, winner, finish_rank)`` of a chunk on the device: the
    group of each row, the groups present and their sizes."""

    def __init__(self, chunk: DeviceChunk, device: _Device):
        self.chunk, self.device = chunk, device
        keys = chunk.keys
        self.ends = tuple(chunk.labels["end"])
        self.ranks = tuple(chunk.labels["finish_rank"]) if "finish_rank" in keys else ()
        winners, ranks = chunk.players + 1, len(self.ranks) + 1
        possible = (len(self.ends) + 1) * winners * ranks
        self.gid = cuda.device_array(device.n, np.int32)
        _group_ids[device.grid](
            keys["end"],
            keys["winner"],
            keys.get("finish_rank", keys["end"]),
            np.int64("finish_rank" in keys),
            np.int64(winners),
            np.int64(ranks),
            self.gid,
        )
        everything = cuda.to_device(np.zeros(possible, np.int32))
        sizes = device.histogram(self.gid, 0, possible, self.gid, everything, 1)[0]
        present = np.flatnonzero(sizes)
        slot = np.full(possible, -1, np.int32)
        slot[present] = np.arange(len(present), dtype=np.int32)
        self.slot = cuda.to_device(slot)
        self.sizes = sizes[present]
        from .folder.aggregates import group_keys

        self.keys, self.end_codes = group_keys(present, self.ends, winners, self.ranks)
        self.end_sizes = [int(self.sizes[self.end_codes == e].sum()) for e in range(len(self.ends))]

    def count(self, values) -> tuple[int, np.ndarray]:
        """``(least, counts)``: int64[groups, span] rows per group and value."""
        low, high = self.device.span(values)
        slots = len(self.keys)
        return low, self.device.histogram(values, low, high - low + 1, self.gid, self.slot, slots)

    def groups(self, counted: dict, rotation: int | None) -> dict[tuple, dict]:
        """The CPU's ``Aggregates.groups``: per group its ``n`` and a Distribution per
        column (``rotation``'s: the constant seating of the chunk)."""
        from simulate.runs.folder.distribution import Distribution

        from .folder.aggregates import LEFT, OTHERS, POINTS

        derived = (OTHERS, POINTS, LEFT)  # after the records' columns, as the CPU's
        groups = {}
        for i, key in enumerate(self.keys):
            value = {"n": int(self.sizes[i])}
            for name, (low, counts) in counted.items():
                if name not in derived:
                    value[name] = Distribution.from_bins(low, counts[i])
            if rotation is not None:
                value["rotation"] = Distribution.from_bins(rotation, np.array([self.sizes[i]]))
            for name in derived:
                if name in counted:
                    low, counts = counted[name]
                    value[name] = Distribution.from_bins(low, counts[i])
            groups[key] = value
        return groups


def _longest_cuts(reduction: _Groups, name: str, counted, top: int):
    """Per end reason (device int64 arrays ``above``, ``cut``): the rows whose ``name`` is
    above ``above[e]``, or equal to it in a row before ``cut[e]``, are exactly the ``top``
    longest of end ``e`` (ties: the first rows), as the CPU keeps them."""
    low, counts = counted
    device, ends = reduction.device, len(reduction.ends)
    above = np.full(ends, low - 1, np.int64)  # ends of at most `top` rows: all of them
    cut = np.zeros(ends, np.int64)
    for code in range(ends):
        if reduction.end_sizes[code] <= top:
            continue
        per_value = counts[reduction.end_codes == code].sum(axis=0)
        from_top = np.cumsum(per_value[::-1])
        at = int(np.searchsorted(from_top, top))  # values above the threshold's: `at`
        threshold = len(per_value) - 1 - at
        over = int(from_top[at - 1]) if at else 0
        needed, tied = top - over, int(per_value[threshold])
        above[code] = low + threshold
        if tied == needed:
            cut[code] = device.n
        else:
            values = reduction.chunk.columns[name]
            end = reduction.chunk.keys["end"]
            cut[code] = device.nth_row(end, code, values, low + threshold, needed) + 1
            device.stats["tie_cuts"] += 1
    return cuda.to_device(above), cuda.to_device(cut)


def _empty_table(chunk: DeviceChunk) -> pa.Table:
    """The records table of none of the chunk's games (its schema)."""
    host = {}
    for name, (array, axis) in chunk.arrays.items():
        shape = list(array.shape)
        shape[axis] = 0
        host[name] = np.empty(shape, array.dtype)
    return chunk.build(host)


def _rows_table(chunk: DeviceChunk, rows, device: _Device) -> pa.Table:
    """The records of ``rows`` (sorted int64 row numbers), their ``game`` numbered as in
    the run."""
    on_device = cuda.to_device(rows)
    host = {
        name: device.take(array, on_device, axis) for name, (array, axis) in chunk.arrays.items()
    }
    table = chunk.build(host)
    index = table.schema.get_field_index("game")
    games = arrow.numeric(np.asarray(rows, np.int64) + np.int64(chunk.first))
    return table.set_column(index, table.schema.field(index), games)


def _with_rotation(table: pa.Table, rotation: int | None) -> pa.Table:
    """The records tagged with their seating (``rotation``: None, untagged)."""
    return table if rotation is None else rotation_tagged(table, rotation)


def _reduced_on_host(chunk: DeviceChunk, meta: dict, rotation: int | None, stats: dict):
    """Every record copied back and reduced by the CPU."""
    from .folder.aggregates import aggregate_games

    host = {}
    for name, (array, _) in chunk.arrays.items():
        host[name] = array.copy_to_host()
        stats["bytes"] += host[name].nbytes
    stats["fallback"] = True
    return aggregate_games(_with_rotation(chunk.build(host), rotation), meta)


def _grid(count: int) -> tuple[int, int]:
    return launch_grid(
        count,
        threads_per_block=THREADS_PER_BLOCK,
        blocks_per_sm=BLOCKS_PER_SM,
        simulator=SIMULATOR_GRID,
    )


# ---- kernels: grid-stride loops over the rows; every integer's type explicit -----------


@cuda.jit
def _group_ids(end, winner, finish, has_finish, winners, ranks, gid):
    i = cuda.grid(1)
    while i < gid.shape[0]:
        g = group_id(
            np.int64(end[i]), np.int64(winner[i]), np.int64(finish[i]), has_finish, winners, ranks
        )
        gid[i] = np.int32(g)
        i += cuda.gridsize(1)


@cuda.jit
def _others(score, winner, seat, total):
    i = cuda.grid(1)
    while i < total.shape[0]:
        total[i] += others_term(np.int64(score[i]), np.int64(winner[i]), seat)
        i += cuda.gridsize(1)


@cuda.jit
def _combine(a, b, sign, out):
    i = cuda.grid(1)
    while i < out.shape[0]:
        out[i] = signed_sum(np.int64(a[i]), np.int64(b[i]), sign)
        i += cuda.gridsize(1)


@cuda.jit
def _bounds(values, bounds):
    i = cuda.grid(1)
    low = np.int64(_LOW)
    high = np.int64(_HIGH)
    while i < values.shape[0]:
        value = np.int64(values[i])
        low = min(low, value)
        high = max(high, value)
        i += cuda.gridsize(1)
    cuda.atomic.min(bounds, 0, low)
    cuda.atomic.max(bounds, 1, high)


@cuda.jit
def _count_shared(values, low, span, gid, slot, counts):
    local = cuda.shared.array(SHARED_BINS, np.int32)
    j = cuda.threadIdx.x
    while j < counts.shape[0]:
        local[j] = np.int32(0)
        j += cuda.blockDim.x
    cuda.syncthreads()
    i = cuda.grid(1)
    while i < values.shape[0]:
        at = np.int64(slot[gid[i]]) * span + np.int64(values[i]) - low
        cuda.atomic.add(local, at, np.int32(1))
        i += cuda.gridsize(1)
    cuda.syncthreads()
    j = cuda.threadIdx.x
    while j < counts.shape[0]:
        if local[j] != np.int32(0):
            cuda.atomic.add(counts, j, local[j])
        j += cuda.blockDim.x


@cuda.jit
def _count_global(values, low, span, gid, slot, counts):
    i = cuda.grid(1)
    while i < values.shape[0]:
        at = np.int64(slot[gid[i]]) * span + np.int64(values[i]) - low
        cuda.atomic.add(counts, at, np.int32(1))
        i += cuda.gridsize(1)


@cuda.jit
def _nonzero(counts, places, tallies, found):
    i = cuda.grid(1)
    while i < counts.shape[0]:
        if counts[i] != np.int32(0):
            at = cuda.atomic.add(found, 0, np.int64(1))
            places[at] = i
            tallies[at] = counts[i]
        i += cuda.gridsize(1)


@cuda.jit
def _block_counts(end, code, values, value, use_values, block, counts):
    i = cuda.grid(1)
    while i < end.shape[0]:
        if np.int64(end[i]) == code and (use_values == 0 or np.int64(values[i]) == value):
            cuda.atomic.add(counts, np.int64(i) // block, np.int32(1))
        i += cuda.gridsize(1)


@cuda.jit
def _pick_longest(end, values, above, cut, picked, found):
    i = cuda.grid(1)
    while i < end.shape[0]:
        code = np.int64(end[i])
        value = np.int64(values[i])
        if value > above[code] or (value == above[code] and np.int64(i) < cut[code]):
            at = cuda.atomic.add(found, 0, np.int64(1))
            if at < picked.shape[0]:
                picked[at] = np.int64(i)
        i += cuda.gridsize(1)


@cuda.jit
def _pick_first(end, cut, picked, found):
    i = cuda.grid(1)
    while i < end.shape[0]:
        if np.int64(i) < cut[np.int64(end[i])]:
            at = cuda.atomic.add(found, 0, np.int64(1))
            if at < picked.shape[0]:
                picked[at] = np.int64(i)
        i += cuda.gridsize(1)


@cuda.jit
def _take_1d(source, rows, out):
    i = cuda.grid(1)
    while i < out.shape[0]:
        out[i] = source[rows[i]]
        i += cuda.gridsize(1)


@cuda.jit
def _take_rows(source, rows, out):
    i = cuda.grid(1)
    width = out.shape[1]
    while i < out.shape[0] * width:
        row, column = i // width, i % width
        out[row, column] = source[rows[row], column]
        i += cuda.gridsize(1)


@cuda.jit
def _take_columns(source, rows, out):
    i = cuda.grid(1)
    count = out.shape[1]
    while i < out.shape[0] * count:
        line, j = i // count, i % count
        out[line, j] = source[line, rows[j]]
        i += cuda.gridsize(1)
