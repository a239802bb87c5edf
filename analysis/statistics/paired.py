"""Paired comparisons under common random numbers: whether two runs played the same deals,
and the counts a paired analysis needs, read from both runs in step.

Game i of a run is played from the random stream (seed, i), and in match play deal k of
match m from (seed, m, k). Two runs with the same seed and player count, in which each deal
takes the same number of cards from the same number of decks (shedding games: ``decks`` and
``hand_size`` resolved for the player count; Beggar-My-Neighbour always deals one deck),
therefore start each game from the same deal: game i of one and game i of the other form a
pair, and the differences between the pairs come from the rules rather than from the deal.

The two ``games.parquet`` files are read side by side, row group by row group, in batches
of at most :data:`analysis.load.BATCH_ROWS` games cut to equal lengths, so memory stays
near two batches whatever the size of the runs and however they were chunked. Games are
paired by position, and each batch checks that the pair has the same index (``game``, or
``match`` and ``deal`` in match play); where they differ (runs of different lengths,
interrupted runs, matches with different numbers of deals) the runs are not paired and the
reason is given. In match play, the matches are paired by ``match`` the same way
(``matches.parquet``).

The counting itself (:func:`count_deal_pairs`) takes any two streams of record batches in
step: the files of two runs, or the records of one chunk range of two runs still in memory,
as an aggregate-only study counts them while it plays (:mod:`analysis.paired_counts`); the
pairs such a study keeps in its variants' folders are what :func:`pair_runs` gives for
aggregate-only runs, which hold no single deals to read.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from analysis.errors import ReportError
from analysis.load import BATCH_ROWS, Batch, RunFolder, game_spec
from analysis.rendering.words import fmt_int
from analysis.reports.matches import has_matches
from analysis.statistics.tally import lead_column, leaders
from simulate.folder.distribution import Distribution


@dataclass(frozen=True)
class DealPairs:
    """The deals of two runs paired by index: ``n`` pairs; ``first`` (2, 2) int64 with
    ``first[i, j]`` the pairs in which the deal's first seat (the seat that led it) won (1)
    or not (0) in the base run (i) and in the variant (j); ``length`` the distribution of
    the variant's length minus the base's (the length column given to :func:`pair_runs`),
    over the pairs in which both deals count; ``sums`` for each name of the ``sums`` given
    to :func:`pair_runs`, the distribution of the variant's sum of those columns minus the
    base's, over every pair."""

    n: int
    first: np.ndarray
    length: Distribution
    sums: dict[str, Distribution] = field(default_factory=dict)

    def merge(self, other: DealPairs) -> DealPairs:
        """The pairs of both (disjoint sets of deals of the same two runs): counts added,
        so the result does not depend on the order of merging."""
        empty = Distribution.empty()
        return DealPairs(
            self.n + other.n,
            self.first + other.first,
            self.length + other.length,
            {
                name: self.sums.get(name, empty) + other.sums.get(name, empty)
                for name in dict.fromkeys([*self.sums, *other.sums])
            },
        )

    def reversed(self) -> DealPairs:
        """The same pairs with the roles of the runs swapped (the variant as the base):
        ``first`` transposed, every difference negated."""
        return DealPairs(
            self.n,
            self.first.T.copy(),
            _negated(self.length),
            {name: _negated(dist) for name, dist in self.sums.items()},
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


@dataclass(frozen=True)
class Pairing:
    """What could be paired between a base run and a variant: ``deals`` (None when the
    deals are not paired, ``deals_reason`` then saying why) and ``matches`` (None when the
    runs do not both play matches, or they are not paired: ``matches_reason`` then says
    why; None when the runs play single deals)."""

    deals: DealPairs | None
    deals_reason: str | None
    matches: MatchPairs | None = None
    matches_reason: str | None = None


def obstacle(base: RunFolder, variant: RunFolder) -> str | None:
    """Why the games of ``variant`` are not dealt as those of ``base`` by their
    ``run.json`` (different seeds, player counts, decks or hand sizes, one plays matches
    and the other single deals); None when they are."""
    return deal_obstacle(base.meta, variant.meta)


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


def pair_runs(
    base: RunFolder,
    variant: RunFolder,
    length: str,
    skip_ends: Sequence[str] = (),
    batch_size: int | None = None,
    *,
    sums: Mapping[str, Sequence[str]] | None = None,
    match_sums: Mapping[str, Sequence[str]] | None = None,
) -> Pairing:
    """Pair the deals (and matches) of ``base`` and ``variant`` when they share their deals
    (:func:`obstacle`) and hold the same game indices; ``length`` is the integer column whose
    paired differences are counted, over the pairs in which neither deal ended with a reason
    in ``skip_ends``. ``sums`` (name → integer columns of the games) and ``match_sums``
    (name → integer columns of ``matches.parquet``) add the paired differences of each
    row's sum of those columns, over every pair (:attr:`DealPairs.sums`,
    :attr:`MatchPairs.sums`). Reads both runs in step, ``batch_size`` games at a time
    (default :data:`analysis.load.BATCH_ROWS`); raises :class:`ReportError` when a file is
    unreadable, or for an aggregate-only run (which
    :func:`analysis.paired_counts.pair_folders` pairs from the counts it keeps)."""
    reason = obstacle(base, variant)
    if reason is not None:
        matched = has_matches(base) and has_matches(variant)
        return Pairing(None, reason, None, reason if matched else None)
    if base.aggregates is not None or variant.aggregates is not None:
        raise ReportError(
            f"{base.path if base.aggregates is not None else variant.path} is an "
            "aggregate-only run, whose records are not kept: pair it with "
            "analysis.paired_counts.pair_folders"
        )
    size = batch_size or BATCH_ROWS
    deals, deals_reason = _pair_deals(
        base, variant, length, tuple(skip_ends), size, dict(sums or {})
    )
    matches, matches_reason = None, None
    if has_matches(base) and has_matches(variant):
        matches, matches_reason = _pair_matches(base, variant, size, dict(match_sums or {}))
    return Pairing(deals, deals_reason, matches, matches_reason)


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


def _pair_deals(
    base: RunFolder,
    variant: RunFolder,
    length: str,
    skip_ends: tuple[str, ...],
    size: int,
    sums: dict[str, Sequence[str]],
) -> tuple[DealPairs | None, str | None]:
    if base.rows != variant.rows:
        return None, (
            f"the runs hold different numbers of deals ({fmt_int(base.rows)} and "
            f"{fmt_int(variant.rows)})"
        )
    keys = pair_keys(base.meta)
    if not all(k in run.columns for k in keys for run in (base, variant)):
        return None, f"a run's games do not record {' and '.join(keys)}"
    leads = (lead_column(base), lead_column(variant))
    try:
        streams = [
            run.records("games").batches(
                _wanted(run, pair_columns(keys, length, lead, skip_ends, sums)), size
            )
            for run, lead in ((base, leads[0]), (variant, leads[1]))
        ]
        deals = count_deal_pairs(
            *streams,
            keys=keys,
            length=length,
            leads=leads,
            players=base.players,
            skip_ends=skip_ends,
            sums=sums,
        )
    except Unpaired as exc:
        return None, str(exc)
    except (pa.ArrowException, OSError) as exc:
        raise ReportError(
            f"{base.path} and {variant.path}: unreadable Parquet file: {exc}"
        ) from exc
    return deals, None


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
    the same ``keys``; ``leads`` is each run's :func:`~analysis.statistics.tally.lead_column`.
    See :func:`pair_runs` for ``length``, ``skip_ends`` and ``sums``. Raises
    :class:`Unpaired` when the streams do not hold the same deals at the same positions."""
    sums = dict(sums or {})
    first = np.zeros(4, np.int64)
    differences = Distribution.empty()
    summed = {name: Distribution.empty() for name in sums}
    n = 0
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
        keep = np.ones(len(won_b), bool)
        if skip_ends:
            keep = ~_ends_in(left, skip_ends) & ~_ends_in(right, skip_ends)
        step = np.subtract(v[length][keep], b[length][keep], dtype=np.int64)
        differences = differences + Distribution.of(step)
        summed = _add_sums(summed, sums, b, v)
        n += len(won_b)
    return DealPairs(n, first.reshape(2, 2), differences, summed)


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


def _pair_matches(
    base: RunFolder, variant: RunFolder, size: int, sums: dict[str, Sequence[str]]
) -> tuple[MatchPairs | None, str | None]:
    files = (base.records("matches"), variant.records("matches"))
    paths = tuple(f.path for f in files)
    try:
        rows = [f.metadata()[0] for f in files]
        if rows[0] != rows[1]:
            return None, (
                f"the runs hold different numbers of matches "
                f"({fmt_int(rows[0])} and {fmt_int(rows[1])})"
            )
        streams = [f.batches(match_columns(sums), size) for f in files]
        return count_match_pairs(*streams, players=base.players, sums=sums), None
    except Unpaired as exc:
        return None, str(exc)
    except (pa.ArrowException, OSError, KeyError) as exc:
        raise ReportError(f"{paths[0]} and {paths[1]}: unreadable matches: {exc}") from exc


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


def _wanted(run: RunFolder, columns: Sequence[str | None]) -> list[str]:
    names = list(dict.fromkeys(c for c in columns if c is not None))
    missing = [c for c in names if c not in run.columns]
    if missing:
        raise ReportError(f"{run.games_path}: missing columns {', '.join(missing)}")
    return names


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
