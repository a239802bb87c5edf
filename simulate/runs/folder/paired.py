"""The deal-pair counts of two runs played on the same deals (common random numbers),
counted from their records in step: what a paired comparison needs, and what an
aggregate-only study keeps of each variant against its base while both runs' records of a
range of games are still in memory (it keeps no single deals to read afterwards).

Game i of a run is played from the random stream (seed, i), and in match play deal k of
match m from (seed, m, k): two runs with the same seed and player count, whose deals take
the same cards (:func:`deal_obstacle`), start each game from the same deal, and game i of
one and game i of the other form a pair. :func:`count_deal_pairs` and
:func:`count_match_pairs` count any two streams of record batches in step (the files of
two runs, which :func:`analysis.statistics.paired.pair_runs` reads, or one chunk range of
two runs in memory); :func:`count_pairs` gives a variant's :class:`PairedCounts` against
its base for one range, kept in the variant's folder under its manifest (record kind
``paired``, merged chunk by chunk, as ``aggregates`` are) and read back by
:mod:`analysis.paired_counts`.

A file is small and bounded, whatever the number of games: the (2, 2) table of first-seat
wins, the pairs whose winner differs, and the histograms of the deals' paired differences (length, and the scores where the
game has them), and in match play those of the matches' (seat 0's share of the match win,
counted in whole fractions, the deals per match and each seat's total).

This is the run layer's: numba-free, and it never imports analysis.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import SimpleNamespace

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .aggregates import parquet_file
from .batch import Batch, lead_column, leaders
from .distribution import Distribution
from .records import game_spec


@dataclass(frozen=True)
class DealPairs:
    """The deals of two runs paired by index: ``n`` pairs; ``first`` (2, 2) int64 with
    ``first[i, j]`` the pairs in which the deal's first seat (the seat that led it) won (1)
    or not (0) in the base run (i) and in the variant (j); ``length`` the distribution of
    the variant's length minus the base's (the length column given to :func:`pair_runs`),
    over the pairs in which both deals count; ``sums`` for each name of the ``sums`` given
    to :func:`pair_runs`, the distribution of the variant's sum of those columns minus the
    base's, over every pair; ``winner_changes`` the pairs whose winner differs (a seat in
    one and another seat, or no winner, in the other), None where it was not counted
    (paired counts an aggregate-only study stored before 2026-12-07)."""

    n: int
    first: np.ndarray
    length: Distribution
    sums: dict[str, Distribution] = field(default_factory=dict)
    winner_changes: int | None = None

    def merge(self, other: DealPairs) -> DealPairs:
        """The pairs of both (disjoint sets of deals of the same two runs): counts added,
        so the result does not depend on the order of merging."""
        empty = Distribution.empty()
        changes = None
        if self.winner_changes is not None and other.winner_changes is not None:
            changes = self.winner_changes + other.winner_changes
        return DealPairs(
            self.n + other.n,
            self.first + other.first,
            self.length + other.length,
            {
                name: self.sums.get(name, empty) + other.sums.get(name, empty)
                for name in dict.fromkeys([*self.sums, *other.sums])
            },
            changes,
        )

    def reversed(self) -> DealPairs:
        """The same pairs with the roles of the runs swapped (the variant as the base):
        ``first`` transposed, every difference negated."""
        return DealPairs(
            self.n,
            self.first.T.copy(),
            _negated(self.length),
            {name: _negated(dist) for name, dist in self.sums.items()},
            self.winner_changes,
        )


def _negated(dist: Distribution) -> Distribution:
    return Distribution(-dist.values[::-1].copy(), dist.counts[::-1].copy())


@dataclass(frozen=True)
class MatchPairs:
    """The matches of two runs paired by ``match``: ``n`` pairs, and of the differences d
    (seat 0's share of the match win in the variant minus in the base) ``total`` = Σd and
    ``squares`` = Σd²; ``sums`` for each name of the ``match_sums`` given to
    :func:`pair_runs`, the distribution of the variant's sum of those columns of
    ``matches.parquet`` minus the base's. ``shares``: the distribution of d × ``scale``,
    whole numbers (a share is k/m for m tied winners, and ``scale`` is a multiple of every
    m: :func:`share_scale`), from which ``total`` and ``squares`` are computed exactly, so
    that they do not depend on how the matches were cut into batches or chunks."""

    n: int
    total: float
    squares: float
    sums: dict[str, Distribution] = field(default_factory=dict)
    shares: Distribution | None = None
    scale: int = 1

    @classmethod
    def of_shares(
        cls, shares: Distribution, scale: int, sums: dict[str, Distribution]
    ) -> MatchPairs:
        """The pairs whose differences d × ``scale`` are counted in ``shares``."""
        squares = int(np.dot(shares.values * shares.values, shares.counts)) if shares.n else 0
        return cls(shares.n, shares.total / scale, squares / scale**2, sums, shares, scale)

    def mean(self) -> float:
        return self.total / self.n if self.n else float("nan")

    def var(self) -> float:
        """Sample variance of the differences (divisor n − 1); NaN below two matches."""
        if self.n < 2:
            return float("nan")
        if self.shares is not None:
            return self.shares.var() / self.scale**2
        return max(0.0, (self.squares - self.total**2 / self.n) / (self.n - 1))

    def merge(self, other: MatchPairs) -> MatchPairs:
        """The pairs of both (disjoint matches of the same two runs), counts added."""
        empty = Distribution.empty()
        sums = {
            name: self.sums.get(name, empty) + other.sums.get(name, empty)
            for name in dict.fromkeys([*self.sums, *other.sums])
        }
        return MatchPairs.of_shares(self.shares + other.shares, self.scale, sums)

    def reversed(self) -> MatchPairs:
        """The same pairs with the roles of the runs swapped: every difference negated."""
        sums = {name: _negated(dist) for name, dist in self.sums.items()}
        return MatchPairs.of_shares(_negated(self.shares), self.scale, sums)


def share_scale(players: int) -> int:
    """A whole number that turns every share of a match win at ``players`` seats (k/m, m
    tied winners) into a whole number: the least common multiple of 1 .. ``players``."""
    return math.lcm(*range(1, players + 1))


def deal_obstacle(base: Mapping, variant: Mapping) -> str | None:
    """:func:`obstacle` from two runs' ``run.json`` (or ``Request.meta()``) alone."""
    seeds = (base.get("seed"), variant.get("seed"))
    if None in seeds:
        return "a run does not record its seed"
    if seeds[0] != seeds[1]:
        return f"the seeds differ ({seeds[0]} and {seeds[1]})"
    players = (int(base["players"]), int(variant["players"]))
    if players[0] != players[1]:
        return f"the player counts differ ({players[0]} and {players[1]})"
    specs = (game_spec(base), game_spec(variant))
    if specs[0] is not specs[1]:
        return "the runs are of different games"
    if (base.get("unit") == "match") != (variant.get("unit") == "match"):
        return "one run plays matches, the other single deals"
    try:
        shapes = [
            spec.deal_shape(meta.get("rules", {}), players[0])
            for spec, meta in zip(specs, (base, variant), strict=True)
        ]
    except ValueError as exc:
        return f"a run does not record {exc}"
    if shapes[0] != shapes[1]:
        return f"the deals differ ({shapes[0]} against {shapes[1]})"
    return None


def match_sums(players: int) -> dict[str, tuple[str, ...]]:
    """The sums of columns of the matches whose paired differences a comparison counts
    (the ``match_sums`` of :func:`pair_runs`): the deals per match and each seat's total."""
    return {"deals": ("deals",), **{f"total_{s}": (f"total_{s}",) for s in range(players)}}


def deal_sums(players: int, columns: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """The sums of columns whose paired differences a comparison counts per deal (the
    ``sums`` of :func:`pair_runs`): every seat's score summed (``score``) and each seat's
    (``score_<i>``), where the records have a score per seat; else none."""
    scores = tuple(f"score_{s}" for s in range(players))
    if not all(column in columns for column in scores):
        return {}
    return {"score": scores, **{column: (column,) for column in scores}}


class Unpaired(Exception):
    """The two runs do not hold the same games at the same positions."""


_Unpaired = Unpaired  # its name before it was public


def in_step(
    left: Iterator[pa.RecordBatch], right: Iterator[pa.RecordBatch]
) -> Iterator[tuple[pa.RecordBatch, pa.RecordBatch]]:
    """Two streams of record batches cut into pairs of slices of equal length, in order
    (no copy: slices share the batches' buffers). Raises :class:`Unpaired` when one stream
    ends before the other."""
    a = b = None
    while True:
        while a is None or a.num_rows == 0:
            a = next(left, None)
            if a is None:
                break
        while b is None or b.num_rows == 0:
            b = next(right, None)
            if b is None:
                break
        if a is None or b is None:
            if a is not None or b is not None:
                raise Unpaired("the runs hold different numbers of rows")
            return
        k = min(a.num_rows, b.num_rows)
        yield a.slice(0, k), b.slice(0, k)
        a, b = a.slice(k), b.slice(k)


def pair_keys(meta: Mapping) -> tuple[str, ...]:
    """The columns that index a run's records, by which deals pair: ``game``, or ``match``
    and ``deal`` in match play."""
    return ("match", "deal") if meta.get("unit") == "match" else ("game",)


def pair_columns(
    keys: Sequence[str],
    length: str,
    lead: str | None,
    skip_ends: Sequence[str] = (),
    sums: Mapping[str, Sequence[str]] | None = None,
) -> list[str]:
    """The columns of one run that :func:`count_deal_pairs` reads."""
    extra = [column for columns in (sums or {}).values() for column in columns]
    wanted = [*keys, "winner", length, lead, *(["end"] if skip_ends else []), *extra]
    return list(dict.fromkeys(c for c in wanted if c is not None))


def count_deal_pairs(
    base: Iterator[pa.RecordBatch],
    variant: Iterator[pa.RecordBatch],
    *,
    keys: Sequence[str],
    length: str,
    leads: tuple[str | None, str | None],
    players: int,
    skip_ends: Sequence[str] = (),
    sums: Mapping[str, Sequence[str]] | None = None,
) -> DealPairs:
    """The paired counts of two runs' records, given as two streams of record batches in
    game order (two runs' files, or one chunk range of each still in memory) holding at
    least the :func:`pair_columns`: the deals are paired by position and checked to have
    the same ``keys``; ``leads`` is each run's :func:`~simulate.runs.folder.batch.lead_column`.
    See :func:`pair_runs` for ``length``, ``skip_ends`` and ``sums``. Raises
    :class:`Unpaired` when the streams do not hold the same deals at the same positions."""
    sums = dict(sums or {})
    first = np.zeros(4, np.int64)
    differences = Distribution.empty()
    summed = {name: Distribution.empty() for name in sums}
    n = changes = 0
    for left, right in in_step(iter(base), iter(variant)):
        b, v = _arrays(left), _arrays(right)
        for key in keys:
            if not np.array_equal(b[key], v[key]):
                at = int(np.argmax(b[key] != v[key]))
                where = ", ".join(f"{k} {int(b[k][at])}" for k in keys)
                raise Unpaired(f"the runs hold different deals (at {where})")
        won_b = b["winner"] == leaders(Batch(0, b), leads[0], players)
        won_v = v["winner"] == leaders(Batch(0, v), leads[1], players)
        cell = 2 * won_b.astype(np.int64) + won_v
        first += np.bincount(cell, minlength=4)
        changes += int(np.count_nonzero(b["winner"] != v["winner"]))
        keep = np.ones(len(won_b), bool)
        if skip_ends:
            keep = ~_ends_in(left, skip_ends) & ~_ends_in(right, skip_ends)
        step = np.subtract(v[length][keep], b[length][keep], dtype=np.int64)
        differences = differences + Distribution.of(step)
        summed = _add_sums(summed, sums, b, v)
        n += len(won_b)
    return DealPairs(n, first.reshape(2, 2), differences, summed, changes)


def _add_sums(
    summed: dict[str, Distribution],
    sums: dict[str, Sequence[str]],
    base: dict[str, np.ndarray],
    variant: dict[str, np.ndarray],
) -> dict[str, Distribution]:
    """``summed`` with the paired differences of one batch's row sums added."""

    def total(arrays: dict[str, np.ndarray], columns: Sequence[str]) -> np.ndarray:
        return np.sum([arrays[c].astype(np.int64) for c in columns], axis=0, dtype=np.int64)

    return {
        name: summed[name] + Distribution.of(total(variant, cols) - total(base, cols))
        for name, cols in sums.items()
    }


def match_columns(sums: Mapping[str, Sequence[str]] | None = None) -> list[str]:
    """The columns of one run's matches that :func:`count_match_pairs` reads."""
    extra = [column for columns in (sums or {}).values() for column in columns]
    return list(dict.fromkeys(["match", "share_0", *extra]))


def count_match_pairs(
    base: Iterator[pa.RecordBatch],
    variant: Iterator[pa.RecordBatch],
    *,
    players: int,
    sums: Mapping[str, Sequence[str]] | None = None,
) -> MatchPairs:
    """The paired counts of two runs' matches, given as two streams of record batches in
    match order holding at least the :func:`match_columns` (two runs' ``matches`` files,
    or one chunk range of each in memory); see :func:`pair_runs` for ``sums``. Raises
    :class:`Unpaired` when they do not hold the same matches at the same positions."""
    sums = dict(sums or {})
    scale = share_scale(players)
    shares = Distribution.empty()
    summed = {name: Distribution.empty() for name in sums}
    for left, right in in_step(iter(base), iter(variant)):
        b, v = _arrays(left), _arrays(right)
        if not np.array_equal(b["match"], v["match"]):
            at = int(np.argmax(b["match"] != v["match"]))
            raise Unpaired(f"the runs hold different matches (at match {b['match'][at]})")
        d = _scaled(v["share_0"], scale) - _scaled(b["share_0"], scale)
        shares = shares + Distribution.of(d)
        summed = _add_sums(summed, sums, b, v)
    return MatchPairs.of_shares(shares, scale, summed)


def _scaled(share: np.ndarray, scale: int) -> np.ndarray:
    return np.rint(share.astype(float) * scale).astype(np.int64)


def _arrays(record_batch: pa.RecordBatch) -> dict[str, np.ndarray]:
    """The numeric columns of a record batch as numpy arrays (string columns left out)."""
    return {
        name: column.to_numpy(zero_copy_only=False)
        for name, column in zip(record_batch.schema.names, record_batch.columns, strict=True)
        if pa.types.is_integer(column.type) or pa.types.is_floating(column.type)
    }


def _ends_in(record_batch: pa.RecordBatch, names: Sequence[str]) -> np.ndarray:
    """Boolean mask of the rows whose ``end`` is one of ``names`` (a null is none)."""
    column = record_batch.column("end")
    if not pa.types.is_dictionary(column.type):
        column = column.dictionary_encode()
    codes = [i for i, label in enumerate(column.dictionary.to_pylist()) if label in names]
    indices = column.indices.to_numpy(zero_copy_only=False)
    mask = np.isin(indices, codes)
    if column.null_count:
        mask &= column.is_valid().to_numpy(zero_copy_only=False)
    return mask


PAIRED_KIND = "paired"
"""The manifest's record kind of a variant's paired counts against its study's base."""
IDENTITY = ("game", "players", "games", "seed", "rules", "strategies", "unit", "rotate_seats")
"""The keys of a run's ``run.json`` that decide its records: the base the counts were
counted against is recorded by these, and a comparison uses them only against that base."""
_META = b"cardsim.paired"


def identity(meta: Mapping) -> dict:
    """What decides a run's records, from its ``run.json`` (or ``Request.meta()``), in JSON
    form: the :data:`IDENTITY` keys it has."""
    return json.loads(json.dumps({key: meta[key] for key in IDENTITY if key in meta}))


@dataclass(frozen=True)
class PairedCounts:
    """A variant's paired counts against a base, over some of their games.

    ``base``: the base's :func:`identity`; ``length``, ``skip_ends``, ``sums`` and
    ``match_sums``: what was counted (:func:`~analysis.statistics.paired.pair_runs`'s
    arguments); ``deals``: the counts of the deals, or None when they did not pair,
    ``reason`` then saying why; ``matches`` and ``match_reason`` the same for the matches
    (None and None without match play); ``records``: the variant's records they stand for."""

    base: dict
    length: str
    skip_ends: tuple[str, ...]
    sums: dict[str, tuple[str, ...]]
    deals: DealPairs | None
    reason: str | None
    records: int
    match_sums: dict[str, tuple[str, ...]] = field(default_factory=dict)
    matches: MatchPairs | None = None
    match_reason: str | None = None

    def merge(self, other: PairedCounts) -> PairedCounts:
        """Both together (disjoint games of the same two runs): counts added; a range whose
        deals (matches) did not pair leaves them all unpaired, with the first reason found."""
        if self.settings != other.settings:
            raise ValueError("paired counts of different settings cannot be merged")
        reason = self.reason or other.reason
        match_reason = self.match_reason or other.match_reason
        matches = None
        if self.matches is not None and other.matches is not None and not match_reason:
            matches = self.matches.merge(other.matches)
        return replace(
            self,
            deals=None if reason else self.deals.merge(other.deals),
            reason=reason,
            records=self.records + other.records,
            matches=matches,
            match_reason=match_reason,
        )

    @property
    def settings(self) -> tuple:
        """What was counted, against which base: equal for counts that may be merged."""
        return (json.dumps(self.base, sort_keys=True), *self.counted)

    @property
    def counted(self) -> tuple:
        """What was counted: ``(length, skip_ends, sums, match_sums)`` in a comparable form."""
        return counted_figures(self.length, self.skip_ends, self.sums, self.match_sums)

    def counted_against(self, meta: Mapping) -> bool:
        """Whether these counts are against the run whose ``run.json`` is ``meta``."""
        found = identity(meta)
        return all(found.get(key) == self.base.get(key) for key in IDENTITY)

    # ---- files -----------------------------------------------------------------------

    def to_table(self) -> pa.Table:
        """One row per (figure, value), ``count`` its count: ``figure`` ``first`` (``value``
        the cell 2 × base won + variant won of the (2, 2) table), ``winner_changes``
        (``value`` 1, ``count`` the pairs whose winner differs), ``length`` and
        ``sum:<name>`` (histograms of the deals' paired differences), ``match`` and
        ``match_sum:<name>`` (of the matches'); the settings ride in the file's metadata."""
        items = []
        if self.deals is not None:
            items.append(("first", np.arange(4), self.deals.first.ravel()))
            items.append(("length", self.deals.length.values, self.deals.length.counts))
            if self.deals.winner_changes is not None:
                items.append(("winner_changes", [1], [self.deals.winner_changes]))
            items += [(f"sum:{k}", d.values, d.counts) for k, d in self.deals.sums.items()]
        if self.matches is not None:
            items.append(("match", self.matches.shares.values, self.matches.shares.counts))
            items += [(f"match_sum:{k}", d.values, d.counts) for k, d in self.matches.sums.items()]
        figures = [figure for figure, values, _ in items for _ in range(len(values))]
        table = pa.table(
            {
                "figure": pa.array(figures, pa.string()),
                "value": _int64([values for _, values, _ in items]),
                "count": _int64([counts for _, _, counts in items]),
            }
        )
        extra = {
            "base": self.base,
            "length": self.length,
            "skip_ends": list(self.skip_ends),
            "sums": {name: list(columns) for name, columns in self.sums.items()},
            "pairs": None if self.deals is None else self.deals.n,
            "reason": self.reason,
            "records": self.records,
            "match_sums": {name: list(columns) for name, columns in self.match_sums.items()},
            "match_scale": None if self.matches is None else self.matches.scale,
            "match_reason": self.match_reason,
        }
        return table.replace_schema_metadata({_META: json.dumps(extra).encode()})

    def to_bytes(self) -> bytes:
        """The Parquet file (zstd) of :meth:`to_table`."""
        return parquet_file(self.to_table())

    @classmethod
    def from_table(cls, table: pa.Table) -> PairedCounts:
        extra = json.loads(table.schema.metadata[_META])
        sums = {name: tuple(columns) for name, columns in extra["sums"].items()}
        match_sums = {name: tuple(columns) for name, columns in extra["match_sums"].items()}
        figure = np.asarray(table.column("figure").to_pylist(), dtype=object)
        value = table.column("value").to_numpy()
        count = table.column("count").to_numpy()

        def dist(name: str) -> Distribution:
            rows = figure == name
            return Distribution.from_counts(value[rows], count[rows])

        deals = matches = None
        if extra["pairs"] is not None:
            first = np.zeros(4, np.int64)
            rows = figure == "first"
            first[value[rows]] = count[rows]
            changes = count[figure == "winner_changes"]
            deals = DealPairs(
                int(extra["pairs"]),
                first.reshape(2, 2),
                dist("length"),
                {name: dist(f"sum:{name}") for name in sums},
                int(changes.sum()) if changes.size else None,
            )
        if extra["match_scale"] is not None:
            matches = MatchPairs.of_shares(
                dist("match"),
                int(extra["match_scale"]),
                {name: dist(f"match_sum:{name}") for name in match_sums},
            )
        return cls(
            extra["base"],
            extra["length"],
            tuple(extra["skip_ends"]),
            sums,
            deals,
            extra["reason"],
            int(extra["records"]),
            match_sums,
            matches,
            extra["match_reason"],
        )

    @classmethod
    def from_bytes(cls, data: bytes) -> PairedCounts:
        return cls.from_table(pq.read_table(pa.BufferReader(data)))


def _int64(arrays: list) -> pa.Array:
    if not arrays:
        return pa.array([], pa.int64())
    return pa.array(np.concatenate([np.asarray(a, np.int64) for a in arrays]), pa.int64())


def counted_figures(length, skip_ends, sums, match_sums) -> tuple:
    """What paired counts count (:attr:`PairedCounts.counted`), as a comparison asks for
    it: the length column, the end reasons left out, and the sums of the deals and of the
    matches."""

    def frozen(named: Mapping) -> tuple:
        return tuple((name, tuple(columns)) for name, columns in dict(named).items())

    return (length, tuple(skip_ends), frozen(sums), frozen(match_sums))


def count_pairs(base, variant, base_meta: Mapping, variant_meta: Mapping) -> PairedCounts | None:
    """The paired counts of one range of games of a variant against its base, from both
    runs' records of that range in memory (:class:`simulate.games.spec.Chunk`: ``games``,
    and ``matches`` in match play); ``base_meta`` and ``variant_meta`` are the runs'
    ``run.json`` (``Request.meta()``). The same figures as a comparison of the two runs
    counts (:func:`analysis.comparisons.variants.comparison_table`). None when the two
    runs do not deal alike (:func:`~analysis.statistics.paired.deal_obstacle`): then there
    is nothing to pair."""
    if deal_obstacle(base_meta, variant_meta) is not None:
        return None
    spec, players = game_spec(base_meta), int(base_meta["players"])
    columns = tuple(base.games.schema.names)
    length, skip_ends = spec.length.name, tuple(spec.unended)
    sums = deal_sums(players, columns)
    keys = pair_keys(base_meta)
    leads = tuple(_lead(meta, columns) for meta in (base_meta, variant_meta))
    try:
        deals = count_deal_pairs(
            *(
                chunk.games.select(pair_columns(keys, length, lead, skip_ends, sums)).to_batches()
                for chunk, lead in ((base, leads[0]), (variant, leads[1]))
            ),
            keys=keys,
            length=length,
            leads=leads,
            players=players,
            skip_ends=skip_ends,
            sums=sums,
        )
        reason = None
    except Unpaired as exc:
        deals, reason = None, str(exc)
    matches = match_reason = None
    named = {}
    if base.matches is not None and variant.matches is not None:
        named = match_sums(players)
        try:
            matches = count_match_pairs(
                *(
                    chunk.matches.select(match_columns(named)).to_batches()
                    for chunk in (base, variant)
                ),
                players=players,
                sums=named,
            )
        except Unpaired as exc:
            match_reason = str(exc)
    return PairedCounts(
        identity(base_meta),
        length,
        skip_ends,
        sums,
        deals,
        reason,
        variant.games.num_rows,
        named,
        matches,
        match_reason,
    )


def _lead(meta: Mapping, columns: Sequence[str]) -> str | None:
    return lead_column(SimpleNamespace(meta=meta, columns=columns))
