"""Aggregate-only runs (``--records none``): a run's exact statistics without its rows,
as the run folder stores them (one file per chunk, under the manifest).

Every chunk of such a run (a task, on a cluster) is reduced to an :class:`Aggregates`:

- ``groups``: the games split by *(end reason, winner, finishing rank)*; per group the
  number of games and a :class:`~simulate.runs.folder.distribution.Distribution` (integer
  counts per value) of every integer column of the records (counters, scores, cards held,
  the balance measures' ``lead_changes`` and ``winner_behind``, ``first_seat``, ``deal``,
  ``rotation``), plus ``others_score``: the summed score of the seats other than the winner,
  and (the shedding games) ``decision_points`` and ``options_left`` (:data:`POINTS`,
  :data:`LEFT`);
- ``longest``: for every length column and end reason, the :data:`LONGEST_KEPT` longest
  games (whole records, with their ``game`` index);
- ``first``: for every end reason, the :data:`FIRST_KEPT` first games (whole records);
- ``matches`` (match play: ``match_deals`` or ``target_score``): a
  :class:`MatchAggregates`, the matches counted by their winners (the seats that share the
  match win) with a histogram of every integer column of the matches (``deals``,
  ``total_<i>``, ``rotation``) per group; the report lists no single match, so none is kept.

In match play the records are the deals: ``game`` and ``match`` number them and are never
counted, ``deal`` (a deal's place in its match) is.

Merging two (:meth:`Aggregates.merge`) adds counts and keeps the longest and first rows
under a total order, so the result does not depend on the order of the chunks. Its size
is bounded by the number of distinct values, never by the number of games.

This is the run layer's reduction: the engine, the GPU and the cluster's tasks make it,
the writer stores it, and :mod:`analysis.aggregates` gives the report's accumulators what
one pass over the rows would, from it. Numba-free: the engine imports it lazily.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .distribution import Distribution

AGGREGATES_KIND = "aggregates"
"""The manifest's record kind of an aggregate-only run's statistics."""
LONGEST_KEPT = 100
"""Longest games kept per length column and end reason (a report lists at most this many)."""
FIRST_KEPT = 20
"""First games kept per end reason (Beggar-My-Neighbour's report lists the first cycles)."""
INDEX_COLUMNS = ("game", "match")
"""Columns that number the records: never counted (their values grow with the run)."""
KEY_COLUMNS = ("end", "winner", "finish_rank")
"""The columns that split the games into groups."""
OTHERS = "others_score"
"""Derived: the summed ``score_<i>`` of the seats other than the winner (games with one)."""
POINTS = "decision_points"
"""Derived: ``decisions + forced``, every decision point of a game (the shedding games)."""
LEFT = "options_left"
"""Derived: ``options - decisions``, the options a game's decisions left untaken. With
:data:`POINTS` it gives the measures' products of counts (``decisions × forced``,
``decisions × options``) from one-column distributions (:mod:`analysis.balance`)."""
DECISION_COLUMNS = ("decisions", "forced", "options")
MATCH_INDEX = ("match",)
"""The column that numbers the matches: never counted."""
_META = b"cardsim.aggregates"


def _order_columns(table: pa.Table) -> list[str]:
    return [c for c in ("game", "rotation") if c in table.schema.names]


@dataclass
class Aggregates:
    """Exact integer statistics of some games of a run (see the module's docstring).

    ``records``: rows they stand for (games; deals in match play); ``groups`` maps
    ``(end, winner, finish_rank)`` to ``{"n": games, column: Distribution}``;
    ``longest`` and ``first`` are Arrow tables of whole records; ``schema`` the records'."""

    records: int
    groups: dict[tuple, dict]
    longest: pa.Table
    first: pa.Table
    lengths: tuple[str, ...]
    schema: pa.Schema = field(repr=False, default=None)
    matches: MatchAggregates | None = None
    """Match play: the statistics of the matches (one row each in ``matches.parquet``)."""
    labels: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """The labels of the string key columns (``end``, ``finish_rank``) in the order of the
    records' dictionaries, unseen ones included: the order in which the report lists them
    (the engine writes the same dictionary in every chunk; were they to differ, the
    labels first seen in the chunks merged first come first, as when reading the rows)."""

    @property
    def columns(self) -> tuple[str, ...]:
        """The record columns of the run (as its games files would have)."""
        return tuple(self.schema.names)

    # ---- building --------------------------------------------------------------------

    @classmethod
    def of_table(
        cls, games: pa.Table, lengths: Sequence[str], matches: pa.Table | None = None
    ) -> Aggregates:
        """The aggregates of a chunk's ``games`` records (and, in match play, of its
        ``matches``); ``lengths``: the columns whose longest games are kept (the game's
        length columns)."""
        from .batch import batch_of

        lengths = tuple(c for c in lengths if c in games.schema.names)
        batch = batch_of(games) if games.num_rows else None
        groups: dict[tuple, dict] = {}
        labels: dict[str, tuple[str, ...]] = {}
        if batch is not None:
            groups = _groups(batch, games.schema.names)
            labels = {c: tuple(batch.labels[c]) for c in KEY_COLUMNS if c in batch.labels}
        return cls(
            games.num_rows,
            groups,
            top_rows(games, lengths, LONGEST_KEPT, longest=True),
            top_rows(games, (), FIRST_KEPT, longest=False),
            lengths,
            games.schema,
            MatchAggregates.of_table(matches) if matches is not None else None,
            labels,
        )

    def merge(self, other: Aggregates) -> Aggregates:
        """Both together: counts added, the longest and first games kept as for one chunk
        (the same result in any order)."""
        groups = _add_groups(self.groups, other.groups)
        longest = pa.concat_tables([self.longest, other.longest.cast(self.longest.schema)])
        first = pa.concat_tables([self.first, other.first.cast(self.first.schema)])
        return Aggregates(
            self.records + other.records,
            groups,
            top_rows(longest, self.lengths, LONGEST_KEPT, longest=True),
            top_rows(first, (), FIRST_KEPT, longest=False),
            self.lengths,
            self.schema,
            _merged(self.matches, other.matches),
            {
                c: tuple(dict.fromkeys([*self.labels.get(c, ()), *other.labels.get(c, ())]))
                for c in dict.fromkeys([*self.labels, *other.labels])
            },
        )

    def shifted(self, rows: int) -> Aggregates:
        """These aggregates with their kept games' ``game`` numbered ``rows`` further: in
        match play a cluster's task numbers its deals from 0, and the client, which knows
        how many deals precede them, numbers them again (``simulate.runs.cluster.numbered``).
        The longest and first games a chunk keeps do not change (their order does not)."""
        return dataclasses.replace(
            self, longest=_shift_games(self.longest, rows), first=_shift_games(self.first, rows)
        )

    # ---- files -----------------------------------------------------------------------

    def to_table(self) -> pa.Table:
        """One row per (group, column, value): ``end``, ``winner``, ``finish_rank``,
        ``column``, ``value``, ``count`` (``column`` ``n``: the group's games), and
        ``winners`` null; in match play also one row per (group of matches, column, value)
        with ``winners`` the seats sharing the match win (``"0"``, ``"1 2"``) and ``end``,
        ``winner``, ``finish_rank`` null. The longest and first games and the records'
        schemas ride in the file's metadata."""
        items = []  # (end, winner, finish_rank, winners, column, values, counts)
        for (end, winner, rank), value in sorted(self.groups.items(), key=_group_order):
            items += [(end, winner, rank, None, *_item(*pair)) for pair in sorted(value.items())]
        if self.matches is not None:
            for key, value in sorted(self.matches.groups.items()):
                shared = " ".join(map(str, key))
                items += [(None, None, None, shared, *_item(*p)) for p in sorted(value.items())]
        sizes = np.array([len(item[5]) for item in items], np.int64)

        def repeated(k: int, kind: pa.DataType) -> pa.Array:
            """Field ``k`` of every item, repeated once per value of the item."""
            labels = list(dict.fromkeys(item[k] for item in items))
            codes = np.repeat(np.array([labels.index(item[k]) for item in items]), sizes)
            return pa.array(labels, kind).take(pa.array(codes.astype(np.int64)))

        table = pa.table(
            {
                "end": repeated(0, pa.string()),
                "winner": repeated(1, pa.int16()),
                "finish_rank": repeated(2, pa.string()),
                "column": repeated(4, pa.string()),
                "value": pa.array(
                    np.concatenate([item[5] for item in items]) if items else [], pa.int64()
                ),
                "count": pa.array(
                    np.concatenate([item[6] for item in items]) if items else [], pa.int64()
                ),
                "winners": repeated(3, pa.string()),
            }
        )
        extra = {
            "records": self.records,
            "lengths": list(self.lengths),
            "longest": _ipc(self.longest).hex(),
            "first": _ipc(self.first).hex(),
            "labels": {c: list(v) for c, v in self.labels.items()},
        }
        if self.matches is not None:
            extra["matches"] = {
                "records": self.matches.records,
                "schema": _ipc(self.matches.schema.empty_table()).hex(),
            }
        return table.replace_schema_metadata({_META: json.dumps(extra).encode()})

    def to_bytes(self) -> bytes:
        """The Parquet file (zstd) of :meth:`to_table`."""
        return parquet_file(self.to_table())

    @classmethod
    def from_table(cls, table: pa.Table) -> Aggregates:
        extra = json.loads(table.schema.metadata[_META])
        longest = _from_ipc(bytes.fromhex(extra["longest"]))
        first = _from_ipc(bytes.fromhex(extra["first"]))
        of_matches = None
        if "winners" in table.schema.names:  # files written before match play have none
            of_matches = pc.is_valid(table.column("winners"))
        matches = None
        if of_matches is not None and "matches" in extra:
            matches = MatchAggregates.from_rows(table.filter(of_matches), extra["matches"])
        rows = table if of_matches is None else table.filter(pc.invert(of_matches))
        groups: dict[tuple, dict] = {}
        for (end, winner, rank), name, item in _segments(rows, ("end", "winner", "finish_rank")):
            value = groups.setdefault((end, int(winner), rank), {})
            _add_item(value, name, item)
        return cls(
            int(extra["records"]),
            groups,
            longest,
            first,
            tuple(extra["lengths"]),
            longest.schema,
            matches,
            {c: tuple(v) for c, v in extra.get("labels", {}).items()},
        )

    @classmethod
    def from_bytes(cls, data: bytes) -> Aggregates:
        return cls.from_table(pq.read_table(pa.BufferReader(data)))

    # ---- reading ---------------------------------------------------------------------

    def key_batch(self):
        """One row per group (columns ``end``, ``winner``, ``finish_rank``) as a
        :class:`analysis.load.Batch`, and the groups' game counts: what a filter on those
        columns keeps is then known per group."""
        from simulate.runs.folder.batch import Batch

        keys = sorted(self.groups, key=_group_order)
        ends = self._label_order("end", {k[0] for k in keys})
        ranks = self._label_order("finish_rank", {k[2] for k in keys})
        data = {
            "game": np.arange(len(keys), dtype=np.int64),
            "end": np.array([ends.index(k[0]) if k[0] is not None else -1 for k in keys]),
            "winner": np.array([k[1] for k in keys], np.int64),
            "finish_rank": np.array([ranks.index(k[2]) if k[2] is not None else -1 for k in keys]),
        }
        batch = Batch(0, data, {"end": ends, "finish_rank": ranks})
        return keys, batch

    def _label_order(self, column: str, seen: set) -> list[str]:
        """``column``'s labels as the records' dictionaries order them, then any other
        label ``seen`` (files written before the order was kept), sorted."""
        known = list(self.labels.get(column, ()))
        return known + sorted(seen - set(known) - {None})

    def dist(self, column: str, keys: Sequence[tuple]) -> Distribution:
        """The distribution of ``column`` over the groups ``keys``."""
        total = Distribution.empty()
        for key in keys:
            item = self.groups[key].get(column)
            if item is not None:
                total = total + item
        return total

    def first_record(self) -> pa.Table:
        """The run's first record (its strategies, its columns), as a one-row table."""
        rows = pa.concat_tables([self.first, self.longest.cast(self.first.schema)])
        order = _order_columns(rows)
        return rows.sort_by([(c, "ascending") for c in order]).slice(0, 1)


def _item(name: str, item) -> tuple[str, np.ndarray, np.ndarray]:
    """A group's ``n`` or a column's Distribution as ``(column, values, counts)`` rows."""
    if name == "n":
        return name, np.zeros(1, np.int64), np.array([item], np.int64)
    return name, np.asarray(item.values, np.int64), np.asarray(item.counts, np.int64)


def _group_order(item):
    key = item[0] if isinstance(item, tuple) and isinstance(item[0], tuple) else item
    return (key[0] or "", key[1], key[2] or "")


@dataclass
class MatchAggregates:
    """Exact integer statistics of some matches of a match-play run (``matches.parquet``'s
    rows): ``records`` matches; ``groups`` maps ``winners``, the seats that share the match
    win (a sorted tuple: ``(1,)``, or ``(0, 2)`` for a tie), to ``{"n": matches, column:
    Distribution}`` for every integer column but ``match`` (``deals``, ``total_<i>``,
    ``rotation``); ``schema`` the matches' records'. A seat's ``share_<i>`` of a match is
    1/m for each of m winners, so the groups give the summed shares (:meth:`wins`)."""

    records: int
    groups: dict[tuple[int, ...], dict]
    schema: pa.Schema = field(repr=False, default=None)

    @classmethod
    def of_table(cls, matches: pa.Table) -> MatchAggregates:
        """The statistics of a chunk's ``matches`` records. Raises ValueError when a
        match's shares are not 1/m for each of its m winners (then the winners would not
        give them back)."""
        names = matches.schema.names
        shares = sorted((c for c in names if c.startswith("share_")), key=lambda c: int(c[6:]))
        share = np.stack([matches.column(c).to_numpy() for c in shares], axis=1)
        won = share > 0
        each = 1.0 / np.maximum(won.sum(axis=1, keepdims=True), 1)
        if (share[won] != np.broadcast_to(each, share.shape)[won]).any():
            raise ValueError("a match's shares are not 1/m for each of its m winners")
        mask = (won.astype(np.int64) << np.arange(len(shares), dtype=np.int64)).sum(axis=1)
        present, inverse = np.unique(mask, return_inverse=True)
        keys = [tuple(s for s in range(len(shares)) if int(m) >> s & 1) for m in present.tolist()]
        columns = {
            name: matches.column(name).to_numpy()
            for name in names
            if name not in MATCH_INDEX and pa.types.is_integer(matches.schema.field(name).type)
        }
        groups: dict[tuple[int, ...], dict] = {key: {"n": 0} for key in keys}
        if matches.num_rows:
            _count_into(groups, keys, inverse.ravel(), columns)
        return cls(matches.num_rows, groups, matches.schema)

    def merge(self, other: MatchAggregates) -> MatchAggregates:
        """Both together: counts added."""
        return MatchAggregates(
            self.records + other.records, _add_groups(self.groups, other.groups), self.schema
        )

    @classmethod
    def from_rows(cls, table: pa.Table, extra: dict) -> MatchAggregates:
        """From the match rows of :meth:`Aggregates.to_table` and their metadata."""
        groups: dict[tuple[int, ...], dict] = {}
        for (shared,), name, item in _segments(table, ("winners",)):
            value = groups.setdefault(tuple(int(s) for s in shared.split()), {})
            _add_item(value, name, item)
        schema = _from_ipc(bytes.fromhex(extra["schema"])).schema
        return cls(int(extra["records"]), groups, schema)

    def dist(self, column: str) -> Distribution:
        """The distribution of ``column`` over every match."""
        total = Distribution.empty()
        for value in self.groups.values():
            if column in value:
                total = total + value[column]
        return total

    def wins(self, players: int) -> np.ndarray:
        """(players,) float64: each seat's summed share of the match wins, exact (counted
        in parts of 1/lcm(1..players), then divided once), as
        :func:`analysis.reports.matches.read_matches` sums the rows' ``share_<i>``."""
        whole = math.lcm(*range(1, players + 1))
        parts = [0] * players
        for key, value in self.groups.items():
            for seat in key:
                parts[seat] += value["n"] * (whole // len(key))
        return np.array([part / whole for part in parts], np.float64)


def _segments(table: pa.Table, keys: Sequence[str]):
    """The rows of an aggregates file (:meth:`Aggregates.to_table`) by group and column:
    yields ``(key, column, item)`` for each run of rows with the same ``keys`` and
    ``column``, ``key`` their values (None for null), ``item`` the run's summed count for
    the column ``n``, else its :class:`Distribution`. A group and column split into
    several runs (never written so) yields each: the caller adds them."""
    if not table.num_rows:
        return
    names = [*keys, "column"]
    codes, labels = [], []
    for name in names:
        column = table.column(name).combine_chunks()
        if pa.types.is_integer(column.type):
            found = pc.unique(column)
            encoded = pc.index_in(column, found)
            labels.append(found.to_pylist())
        else:
            encoded = pc.dictionary_encode(column)
            labels.append(encoded.dictionary.to_pylist())
            encoded = encoded.indices
        codes.append(pc.fill_null(encoded, -1).to_numpy().astype(np.int64))
    labels = [[*found, None] for found in labels]  # code -1: null
    value = table.column("value").to_numpy().astype(np.int64)
    count = table.column("count").to_numpy().astype(np.int64)
    starts = np.flatnonzero(
        np.concatenate([[True], np.any([c[1:] != c[:-1] for c in codes], axis=0)])
    )
    # where a run's values are not strictly increasing, or a count is not positive, it
    # is counted again by Distribution.from_counts
    unsorted = np.concatenate([[False], value[1:] <= value[:-1]]) | (count <= 0)
    unsorted[starts] = count[starts] <= 0
    rough = np.add.reduceat(unsorted, starts) > 0
    totals = np.add.reduceat(count, starts)
    stops = [*starts[1:].tolist(), len(value)]
    for k, (start, stop) in enumerate(zip(starts.tolist(), stops, strict=True)):
        key = tuple(labels[j][codes[j][start]] for j in range(len(keys)))
        name = labels[-1][codes[-1][start]]
        if name == "n":
            item = int(totals[k])
        elif rough[k]:
            item = Distribution.from_counts(value[start:stop], count[start:stop])
        else:
            item = Distribution(value[start:stop], count[start:stop])
        yield key, name, item


def _add_item(value: dict, name: str, item) -> None:
    """Add a group's ``n`` or a column's Distribution into ``value`` (a group's dict)."""
    if name in value:
        item = value[name] + item
    value[name] = item


def _add_groups(mine: dict, theirs: dict) -> dict:
    """Groups of counts and distributions added (:class:`Aggregates`' layout)."""
    groups = {key: dict(value) for key, value in mine.items()}
    pairs, places = [], []
    for key, value in theirs.items():
        into = groups.setdefault(key, {"n": 0})
        for name, item in value.items():
            if name == "n":
                into["n"] = into["n"] + item
            elif name in into:
                pairs.append((into[name], item))
                places.append((into, name))
            else:
                into[name] = item
    for (into, name), total in zip(places, Distribution.add_pairs(pairs), strict=True):
        into[name] = total
    return groups


def _merged(a: MatchAggregates | None, b: MatchAggregates | None) -> MatchAggregates | None:
    if a is None or b is None:
        return a if b is None else b
    return a.merge(b)


def _shift_games(table: pa.Table, rows: int) -> pa.Table:
    if rows == 0 or table.num_rows == 0 or "game" not in table.schema.names:
        return table
    index = table.schema.get_field_index("game")
    field_ = table.schema.field(index)
    shifted = pc.add(table.column(index), pa.scalar(rows, field_.type))
    return table.set_column(index, field_, shifted)


def derived_columns(columns) -> dict[str, tuple]:
    """How the derived columns of records holding ``columns`` (names) are made, in the
    order they are counted: :data:`OTHERS` ``("others", {seat: "score_<seat>"})`` for
    records with scores; :data:`POINTS` and :data:`LEFT` ``("sum", a, b, sign)``, each
    ``a + sign * b``, for records with the decision counts. One definition for every
    reduction (:mod:`simulate.runs.reduction` computes them compiled)."""
    found: dict[str, tuple] = {}
    scores = {int(c.removeprefix("score_")): c for c in columns if c.startswith("score_")}
    if scores:
        found[OTHERS] = ("others", scores)
    if all(name in columns for name in DECISION_COLUMNS):
        found[POINTS] = ("sum", "decisions", "forced", 1)
        found[LEFT] = ("sum", "options", "decisions", -1)
    return found


def decision_columns(columns: dict) -> dict[str, np.ndarray]:
    """The derived :data:`POINTS` and :data:`LEFT` of records holding the decision counts
    (int64; none otherwise)."""
    found = {}
    for name, made in derived_columns(columns).items():
        if made[0] == "sum":
            _, a, b, sign = made
            found[name] = np.asarray(columns[a], np.int64) + sign * np.asarray(columns[b], np.int64)
    return found


def _others_score(columns: dict, winner: np.ndarray, scores: dict) -> np.ndarray:
    """:data:`OTHERS`: the summed scores (``scores``: seat -> column) of the seats other
    than each row's ``winner``."""
    others = np.zeros(len(winner), dtype=np.int64)
    for seat, name in scores.items():
        others += np.where(winner == seat, 0, columns[name].astype(np.int64))
    return others


def _groups(batch, names: Sequence[str]) -> dict[tuple, dict]:
    """The groups of one batch of records (see :class:`Aggregates`)."""
    n = len(batch)
    ends = batch.labels.get("end", [])
    ranks = batch.labels.get("finish_rank")
    end_code = batch["end"].astype(np.int64) if "end" in batch.data else np.full(n, -1)
    winner = batch["winner"].astype(np.int64)
    rank_code = batch["finish_rank"].astype(np.int64) if ranks is not None else np.full(n, -1)
    players_span = int(winner.max()) + 2
    rank_span = (len(ranks) if ranks else 0) + 1
    gid = ((end_code + 1) * players_span + (winner + 1)) * rank_span + (rank_code + 1)
    present, inverse = _small_unique(gid)
    columns = {
        name: batch[name]
        for name in names
        if name not in INDEX_COLUMNS
        and name not in KEY_COLUMNS
        and name not in batch.labels
        and batch[name].dtype.kind in "biu"
    }
    made = derived_columns(columns)
    if OTHERS in made:
        columns[OTHERS] = _others_score(columns, winner, made[OTHERS][1])
    columns.update(decision_columns(columns))
    keys, _ = group_keys(present, ends, players_span, ranks or ())
    groups = {key: {"n": 0} for key in keys}
    _count_into(groups, keys, inverse, columns)
    return groups


def group_keys(
    present: np.ndarray, ends: Sequence[str], winners: int, ranks: Sequence[str]
) -> tuple[list[tuple], np.ndarray]:
    """The groups ``(end, winner, finish_rank)`` of the group ids ``present``, numbered
    ``((end + 1) * winners + winner + 1) * (len(ranks) + 1) + finish_rank + 1`` (codes into
    ``ends`` and ``ranks``, -1 for none; ``winners``: the seats plus one), as every
    reduction numbers them (:func:`simulate.runs.reduction_rows.group_id`); and each
    group's end code (int64, -1 for none)."""
    rank_span = len(ranks) + 1
    keys, end_codes = [], []
    for g in np.asarray(present).tolist():
        rank, rest = g % rank_span - 1, g // rank_span
        winner, end = rest % winners - 1, rest // winners - 1
        keys.append(
            (ends[end] if end >= 0 else None, int(winner), ranks[rank] if rank >= 0 else None)
        )
        end_codes.append(end)
    return keys, np.array(end_codes, np.int64)


def _small_unique(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(codes, return_inverse=True)`` for non-negative codes of a small range,
    by counting instead of sorting."""
    present = np.flatnonzero(np.bincount(codes))
    position = np.zeros(int(present[-1]) + 1 if len(present) else 0, dtype=np.int64)
    position[present] = np.arange(len(present))
    return present, position[codes]


def _count_into(groups: dict, keys: list, inverse: np.ndarray, columns: dict) -> None:
    """Fill ``groups[key]`` (``keys[g]`` for the rows whose ``inverse`` is g) with its
    row count ``n`` and a :class:`Distribution` of each of ``columns`` (integer arrays)."""
    sizes = np.bincount(inverse, minlength=len(keys))
    for i, key in enumerate(keys):
        groups[key]["n"] = int(sizes[i])
    for name, values in columns.items():
        values = values.astype(np.int64, copy=False)
        lo, hi = int(values.min()), int(values.max())
        span = hi - lo + 1
        counts = np.bincount(inverse * span + (values - lo), minlength=len(keys) * span)
        counts = counts.reshape(len(keys), span)
        for i, key in enumerate(keys):
            groups[key][name] = Distribution.from_bins(lo, counts[i])


def top_rows(table: pa.Table, lengths: Sequence[str], top: int, *, longest: bool) -> pa.Table:
    """For each end reason (and each of ``lengths`` when ``longest``), the ``top`` longest
    games (ties: lower game, then rotation, first), or the ``top`` first games; each row
    once, in game order.

    Only the rows that can be among the ``top`` of their end reason (a value at least the
    ``top``-th largest, found by partition) are sorted: a chunk's reduction stays linear."""
    if table.num_rows == 0:
        return table
    order = _sort_key(table, _order_columns(table))
    ends = _end_codes(table)
    keep: set[int] = set()
    for key in lengths if longest else (None,):
        # rank rows by (-value, order) when longest, else by order alone
        value = None if key is None else table.column(key).to_numpy().astype(np.int64)
        for code in _small_unique(ends + 1)[0].tolist():
            code -= 1
            rows = np.flatnonzero(ends == code)
            if len(rows) > top:
                primary = order[rows] if value is None else -value[rows]
                cut = np.partition(primary, top - 1)[top - 1]
                rows = rows[primary <= cut]
            ranked = (order[rows],) if value is None else (order[rows], -value[rows])
            keep.update(rows[np.lexsort(ranked)[:top]].tolist())
    chosen = np.array(sorted(keep, key=order.__getitem__), dtype=np.int64)
    return table.take(pa.array(chosen))


def _sort_key(table: pa.Table, columns: Sequence[str]) -> np.ndarray:
    """One int64 per row that orders the rows as ``columns`` (integers) do, in turn; row
    order when there are none."""
    if not columns:
        return np.arange(table.num_rows, dtype=np.int64)
    key = np.zeros(table.num_rows, dtype=np.int64)
    for name in columns:
        values = table.column(name).to_numpy().astype(np.int64)
        low = int(values.min())
        key = key * (int(values.max()) - low + 1) + (values - low)
    return key


def _end_codes(table: pa.Table) -> np.ndarray:
    """The rows' end reasons as integers (equal reasons, equal codes; -1 for none)."""
    if "end" not in table.schema.names:
        return np.zeros(table.num_rows, dtype=np.int64)
    names = pc.cast(table.column("end"), pa.string()).combine_chunks()
    return pc.fill_null(pc.dictionary_encode(names).indices, -1).to_numpy().astype(np.int64)


def parquet_file(table: pa.Table) -> bytes:
    """``table`` as the bytes of a Parquet file (zstd): how statistics are kept on disk."""
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue().to_pybytes()


def _ipc(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def _from_ipc(data: bytes) -> pa.Table:
    return pa.ipc.open_stream(pa.BufferReader(data)).read_all()


def length_columns(meta: dict, names: Sequence[str]) -> tuple[str, ...]:
    """The length columns whose longest games are kept, of the run ``meta`` describes,
    among the records' columns ``names``."""
    from .records import game_spec

    spec = game_spec(meta)
    known = [c.name for c in spec.columns]
    lengths = [spec.length.name, *(c for c in ("turns", "tricks", "cards") if c in known)]
    return tuple(c for c in dict.fromkeys(lengths) if c in names)


def aggregate_games(games: pa.Table, meta: dict, matches: pa.Table | None = None) -> Aggregates:
    """The :class:`Aggregates` of one chunk's records of the run ``meta`` describes: its
    ``games`` (deals in match play) and, in match play, its ``matches``. The readable
    reduction: :func:`simulate.runs.reduction.reduce_records` gives the same, compiled."""
    return Aggregates.of_table(games, length_columns(meta, games.schema.names), matches)
