"""Aggregate-only runs (``--records none``) reduced compiled, on every core numba is given:
a chunk's records become its :class:`~simulate.runs.folder.aggregates.Aggregates`, equal to
what the readable reduction (:func:`~simulate.runs.folder.aggregates.aggregate_games`)
gives, ties included.

The records are never copied: every integer column is read where Arrow holds it.

1. Each row's group ``(end, winner, finish_rank)`` (:func:`.reduction_rows.group_id`, the
   GPU's source too) and the rows per group.
2. For every integer column the readable reduction counts (the records' own, and the
   derived ``others_score``, ``decision_points``, ``options_left``, computed row by row by
   :mod:`.reduction_rows`), its least and greatest value, then its histogram per group:
   each thread counts a contiguous share of the rows into bins of its own, which are then
   added (so no two threads ever write one counter).
3. ``longest`` and ``first``: from the histograms, per length column and end reason, the
   value ``t`` of the :data:`~.folder.aggregates.LONGEST_KEPT`-th longest game; one pass
   over the rows marks those above ``t`` and, in row order, the first ones at ``t`` that
   complete the count, and the first :data:`~.folder.aggregates.FIRST_KEPT` rows of each
   end reason. The readable selection then runs on the marked rows alone (a few hundred),
   so both tables are its own. Rows not in (game, rotation) order (never from the engine)
   are left to the readable selection, which sorts them.

Match play's ``matches`` are grouped by the seats that share the win (a bit per seat, the
shares checked as the readable reduction checks them) and counted the same way.
"""

from __future__ import annotations

import threading

import numba
import numpy as np
import pyarrow as pa
from numba import njit, prange

from .folder.aggregates import (
    FIRST_KEPT,
    INDEX_COLUMNS,
    KEY_COLUMNS,
    LONGEST_KEPT,
    MATCH_INDEX,
    Aggregates,
    MatchAggregates,
    aggregate_games,
    derived_columns,
    group_keys,
    length_columns,
    top_rows,
)
from .folder.batch import batch_of
from .folder.distribution import Distribution
from .reduction_rows import group_id, others_term, signed_sum

MAX_BINS = 1 << 20
"""The most bins (groups x values) a column's histogram may take (each thread holds
:data:`LANES` int32 copies); a wider column (never seen: every count of a game is small)
is left to the readable reduction, as is a chunk of 2**31 rows or more."""


def reduce_records(games: pa.Table, meta: dict, matches: pa.Table | None = None) -> Aggregates:
    """The :class:`~.folder.aggregates.Aggregates` of one chunk's records of the run
    ``meta`` describes (its ``games``, deals in match play; in match play its
    ``matches``), equal to :func:`~.folder.aggregates.aggregate_games`'s, computed on
    ``numba.get_num_threads()`` threads."""
    if not 0 < games.num_rows < 2**31:  # int32 counters; an empty chunk has nothing
        return aggregate_games(games, meta, matches)
    lengths = length_columns(meta, games.schema.names)
    batch = batch_of(games)  # every column where Arrow holds it; strings as codes
    data, labels = batch.data, batch.labels
    columns = {
        name: values
        for name, values in data.items()
        if name not in INDEX_COLUMNS
        and name not in KEY_COLUMNS
        and name not in labels
        and values.dtype.kind in "biu"
    }
    parts = numba.get_num_threads()
    groups = _Groups(data, labels, parts)
    counted = {}
    for name, values in {**columns, **_derived(data["winner"], columns, parts)}.items():
        found = groups.count(values)
        if found is None:  # too wide for bins: the readable reduction counts everything
            return aggregate_games(games, meta, matches)
        counted[name] = found
    marked = groups.kept_rows(data, {name: counted[name] for name in lengths})
    if marked is None:
        longest = top_rows(games, lengths, LONGEST_KEPT, longest=True)
        first = top_rows(games, (), FIRST_KEPT, longest=False)
    else:
        candidates = games.take(pa.array(marked))
        longest = top_rows(candidates, lengths, LONGEST_KEPT, longest=True)
        first = top_rows(candidates, (), FIRST_KEPT, longest=False)
    return Aggregates(
        games.num_rows,
        groups.distributions(counted),
        longest,
        first,
        lengths,
        games.schema,
        _match_aggregates(matches, parts) if matches is not None else None,
        {c: tuple(labels[c]) for c in KEY_COLUMNS if c in labels},
    )


_scratch = threading.local()


def _buffer(name: str, n: int, dtype) -> np.ndarray:
    """An array of ``n`` items of ``dtype`` that this thread reuses chunk after chunk: a
    fresh one costs a page fault on each of its pages when first written (about 2 ms a
    megabyte on a virtual machine), more than the loop that fills it. The thread keeps
    the largest asked for (about 60 MB for an aggregate-only run's chunks of 2**21
    records)."""
    held = getattr(_scratch, name, None)
    if held is None or held.shape[0] < n or held.dtype != dtype:
        held = np.empty(n, dtype)
        setattr(_scratch, name, held)
    return held[:n]


def _derived(winner: np.ndarray, columns: dict, parts: int) -> dict[str, np.ndarray]:
    """``others_score`` (records with scores), ``decision_points`` and ``options_left``
    (records with the decision counts), as :func:`~.folder.aggregates.derived_columns`
    defines them, computed in parallel (into this thread's reused buffers)."""
    derived = {}
    for name, made in derived_columns(columns).items():
        total = _buffer(name, len(winner), np.int64)
        if made[0] == "others":
            total[:] = 0
            for seat, score in made[1].items():
                _add_others(columns[score], winner, np.int64(seat), total)
        else:
            _, a, b, sign = made
            _signed(columns[a], columns[b], np.int64(sign), total)
        derived[name] = total
    return derived


def _match_aggregates(matches: pa.Table, parts: int) -> MatchAggregates:
    """:meth:`~.folder.aggregates.MatchAggregates.of_table`, compiled: the matches grouped
    by the seats that share the win (a bit per seat), each integer column's histogram per
    group."""
    names = matches.schema.names
    shares = sorted((c for c in names if c.startswith("share_")), key=lambda c: int(c[6:]))
    if not 0 < matches.num_rows < 2**31 or len(shares) > 62:
        return MatchAggregates.of_table(matches)
    share = tuple(matches.column(c).to_numpy() for c in shares)
    won = np.empty(matches.num_rows, np.int64)
    if not _winning_seats(np.stack(share, axis=1), won):
        return MatchAggregates.of_table(matches)  # which raises, naming the fault
    sizes = np.bincount(won)
    present = np.flatnonzero(sizes)
    slot = np.full(len(sizes), -1, np.int32)
    slot[present] = np.arange(len(present), dtype=np.int32)
    keys = [tuple(s for s in range(len(shares)) if m >> s & 1) for m in present.tolist()]
    counter = _Slotted(keys, sizes[present], slot[won], parts)
    counted = {}
    for name in names:
        if name in MATCH_INDEX or not pa.types.is_integer(matches.schema.field(name).type):
            continue
        found = counter.count(matches.column(name).to_numpy())
        if found is None:
            return MatchAggregates.of_table(matches)
        counted[name] = found
    groups = counter.distributions(counted)
    return MatchAggregates(matches.num_rows, groups, matches.schema)


class _Slotted:
    """Rows in groups: ``keys`` (one per group), ``sizes`` (int64, the rows of each),
    ``slot`` (each row's group, its place in ``keys``); the histograms of columns per
    group, on ``parts`` threads."""

    def __init__(self, keys: list, sizes: np.ndarray, slot: np.ndarray, parts: int):
        self.keys, self.sizes, self.slot, self.parts = keys, sizes, slot, parts

    def count(self, values: np.ndarray):
        """``(least, counts)``: int64[groups, span], the rows per group and value; None
        when the histogram would be too wide."""
        low, high = _bounds(values, self.parts)
        span = int(high) - int(low) + 1
        if span == 1:  # one value: every group's rows have it
            return int(low), self.sizes.reshape(len(self.keys), 1)
        if span * len(self.keys) > MAX_BINS:
            return None
        slots = np.int64(len(self.keys))
        counts = _histogram(values, np.int64(low), np.int64(span), self.slot, slots, self.parts)
        return int(low), counts.reshape(len(self.keys), span)

    def distributions(self, counted: dict) -> dict[tuple, dict]:
        """The readable reduction's ``groups``: per group its ``n`` and a Distribution of
        every counted column."""
        groups = {key: {"n": int(self.sizes[i])} for i, key in enumerate(self.keys)}
        for name, (low, counts) in counted.items():
            rows, bins = np.nonzero(counts)
            cuts = np.searchsorted(rows, np.arange(len(self.keys) + 1))
            values = bins.astype(np.int64) + np.int64(low)
            tallies = counts[rows, bins]
            for i, key in enumerate(self.keys):
                groups[key][name] = Distribution(
                    values[cuts[i] : cuts[i + 1]], tallies[cuts[i] : cuts[i + 1]]
                )
        return groups


class _Groups(_Slotted):
    """The groups ``(end, winner, finish_rank)`` of a chunk's rows."""

    def __init__(self, data: dict, labels: dict, parts: int):
        self.ends = list(labels.get("end", []))
        ranks = labels.get("finish_rank")
        winner = data["winner"]
        n = len(winner)
        self.end = data["end"] if "end" in data else np.full(n, -1, np.int8)
        finish = data["finish_rank"] if ranks is not None else self.end
        self.ranks = list(ranks) if ranks is not None else []
        self.winners = int(_bounds(winner, parts)[1]) + 2
        self.rank_span = len(self.ranks) + 1
        possible = (len(self.ends) + 1) * self.winners * self.rank_span
        gid = _buffer("gid", n, np.int32)
        _group_ids(
            self.end,
            winner,
            finish,
            np.int64(ranks is not None),
            np.int64(self.winners),
            np.int64(self.rank_span),
            gid,
        )
        sizes = np.bincount(gid, minlength=possible)
        present = np.flatnonzero(sizes)
        slot = np.full(possible, -1, np.int32)
        slot[present] = np.arange(len(present), dtype=np.int32)
        _to_slots(gid, slot, gid)  # each row's group's place among the groups present
        keys, self.end_codes = group_keys(present, self.ends, self.winners, self.ranks)
        super().__init__(keys, sizes[present], gid, parts)

    def kept_rows(self, data: dict, lengths: dict) -> np.ndarray | None:
        """The rows (sorted int64) that hold every game the readable reduction keeps in
        ``longest`` and ``first`` (and no more than ``LONGEST_KEPT`` per length column and
        end reason plus ``FIRST_KEPT`` per end reason); None when the rows are not in
        (game, rotation) order."""
        order = [data[c] for c in ("game", "rotation") if c in data]
        if order and not _in_order(order[0], order[1] if len(order) > 1 else order[0]):
            return None
        ends = len(self.ends) + 1  # end code + 1: 0 for none
        per_end = np.bincount(self.end_codes + 1, weights=self.sizes, minlength=ends)
        marked = _buffer("marked", len(self.slot), np.bool_)
        marked[:] = False
        for name, (low, counts) in lengths.items():
            above = np.full(ends, low - 1, np.int64)  # an end of at most LONGEST_KEPT: all
            needed = np.zeros(ends, np.int64)
            for code in range(ends):
                if per_end[code] <= LONGEST_KEPT:
                    continue
                per_value = counts[self.end_codes + 1 == code].sum(axis=0)
                from_top = np.cumsum(per_value[::-1])
                at = int(np.searchsorted(from_top, LONGEST_KEPT))
                threshold = len(per_value) - 1 - at
                above[code] = low + threshold
                needed[code] = LONGEST_KEPT - (int(from_top[at - 1]) if at else 0)
            _mark_longest(self.end, data[name], above, needed, marked)
        _mark_first(self.end, np.int64(ends), np.int64(FIRST_KEPT), marked)
        return np.flatnonzero(marked)


# ---- compiled: every loop over the rows; prange shares a loop's rows out in `parts` ----


@njit(cache=True, parallel=True)
def _bounds(values, parts):
    """(least, greatest) of ``values`` (int64 each)."""
    n = values.shape[0]
    step = (n + parts - 1) // parts
    lows = np.full(parts, np.iinfo(np.int64).max, np.int64)
    highs = np.full(parts, np.iinfo(np.int64).min, np.int64)
    for p in prange(parts):
        share = values[p * step : min(n, (p + 1) * step)]
        if share.shape[0]:
            lows[p] = share.min()
            highs[p] = share.max()
    return lows.min(), highs.max()


@njit(cache=True, parallel=True)
def _group_ids(end, winner, finish, has_finish, winners, ranks, gid):
    for i in prange(gid.shape[0]):
        gid[i] = np.int32(
            group_id(
                np.int64(end[i]),
                np.int64(winner[i]),
                np.int64(finish[i]),
                has_finish,
                winners,
                ranks,
            )
        )


@njit(cache=True, parallel=True)
def _to_slots(gid, slot, out):
    """Each row's group's slot (``slot[gid]``; ``out`` may be ``gid`` itself)."""
    for i in prange(gid.shape[0]):
        out[i] = slot[gid[i]]


LANES = 4
"""Each thread counts into this many copies of its bins, a row's lane its place mod LANES:
consecutive rows of one value then add to different counters instead of waiting on one."""


@njit(cache=True, parallel=True)
def _histogram(values, low, span, slot, slots, parts):
    """int64[slots * span]: the rows per group slot (``slot``, one per row) and value,
    each of ``parts`` threads counting its share of the rows into its own bins. Places
    are computed as int64 and read as unsigned, so that numba adds no test for negative
    indices to the loop."""
    n = values.shape[0]
    bins = slots * span
    counts = np.zeros(parts * LANES * bins, np.int32)
    step = (n + parts - 1) // parts
    for p in prange(parts):
        base = p * LANES * bins - low
        i, stop = p * step, min(n, (p + 1) * step)
        while i + LANES <= stop:
            for lane in range(LANES):
                at = base + lane * bins + np.int64(slot[i + lane]) * span
                counts[np.uint64(at + np.int64(values[i + lane]))] += 1
            i += LANES
        while i < stop:
            counts[np.uint64(base + np.int64(slot[i]) * span + np.int64(values[i]))] += 1
            i += 1
    total = np.zeros(bins, np.int64)
    for k in range(parts * LANES):
        for j in range(bins):
            total[j] += counts[k * bins + j]
    return total


@njit(cache=True, parallel=True)
def _add_others(score, winner, seat, total):
    for i in prange(total.shape[0]):
        total[i] += others_term(np.int64(score[i]), np.int64(winner[i]), seat)


@njit(cache=True, parallel=True)
def _signed(a, b, sign, out):
    for i in prange(out.shape[0]):
        out[i] = signed_sum(np.int64(a[i]), np.int64(b[i]), sign)


@njit(cache=True, parallel=True)
def _winning_seats(share, won):
    """``won[i]``: the seats with a share of match ``i`` (a bit each); False when a
    match's shares are not 1/m for each of its m winners."""
    fine = np.ones(share.shape[0], np.bool_)
    for i in prange(share.shape[0]):
        mask, winners = np.int64(0), 0
        for seat in range(share.shape[1]):
            if share[i, seat] > 0:
                mask |= np.int64(1) << seat
                winners += 1
        won[i] = mask
        each = 1.0 / max(winners, 1)
        for seat in range(share.shape[1]):
            if share[i, seat] > 0 and share[i, seat] != each:
                fine[i] = False
    return fine.all()


@njit(cache=True)
def _in_order(game, rotation):
    """Whether the rows are in (game, rotation) order, ties allowed."""
    for i in range(1, game.shape[0]):
        if game[i] < game[i - 1] or (game[i] == game[i - 1] and rotation[i] < rotation[i - 1]):
            return False
    return True


@njit(cache=True)
def _mark_longest(end, values, above, needed, marked):
    """Mark the rows of end ``e`` (``end + 1``) whose value is above ``above[e]``, and the
    first ``needed[e]`` whose value is ``above[e]``."""
    taken = np.zeros(above.shape[0], np.int64)
    for i in range(values.shape[0]):
        e = np.int64(end[i]) + 1
        value = np.int64(values[i])
        if value > above[e]:
            marked[i] = True
        elif value == above[e] and taken[e] < needed[e]:
            taken[e] += 1
            marked[i] = True


@njit(cache=True)
def _mark_first(end, ends, first, marked):
    """Mark the first ``first`` rows of each end reason."""
    taken = np.zeros(ends, np.int64)
    for i in range(end.shape[0]):
        e = np.int64(end[i]) + 1
        if taken[e] < first:
            taken[e] += 1
            marked[i] = True
