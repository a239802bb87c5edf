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
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from analysis.errors import ReportError
from analysis.load import BATCH_ROWS, Batch, RunFolder
from analysis.rendering.words import fmt_int
from analysis.reports.matches import has_matches
from analysis.statistics.distribution import Distribution
from analysis.statistics.tally import lead_column, leaders


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


@dataclass(frozen=True)
class MatchPairs:
    """The matches of two runs paired by ``match``: ``n`` pairs, and of the differences d
    (seat 0's share of the match win in the variant minus in the base) ``total`` = Σd and
    ``squares`` = Σd²; ``sums`` for each name of the ``match_sums`` given to
    :func:`pair_runs`, the distribution of the variant's sum of those columns of
    ``matches.parquet`` minus the base's."""

    n: int
    total: float
    squares: float
    sums: dict[str, Distribution] = field(default_factory=dict)

    def mean(self) -> float:
        return self.total / self.n if self.n else float("nan")

    def var(self) -> float:
        """Sample variance of the differences (divisor n − 1); NaN below two matches."""
        if self.n < 2:
            return float("nan")
        return max(0.0, (self.squares - self.total**2 / self.n) / (self.n - 1))


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
    seeds = (base.meta.get("seed"), variant.meta.get("seed"))
    if None in seeds:
        return "a run does not record its seed"
    if seeds[0] != seeds[1]:
        return f"the seeds differ ({seeds[0]} and {seeds[1]})"
    if base.players != variant.players:
        return f"the player counts differ ({base.players} and {variant.players})"
    pair = (base, variant)
    if base.spec is not variant.spec:
        return "the runs are of different games"
    if (base.meta.get("unit") == "match") != (variant.meta.get("unit") == "match"):
        return "one run plays matches, the other single deals"
    try:
        shapes = [run.spec.deal_shape(run.meta.get("rules", {}), run.players) for run in pair]
    except ValueError as exc:
        return f"a run does not record {exc}"
    if shapes[0] != shapes[1]:
        return f"the deals differ ({shapes[0]} against {shapes[1]})"
    return None


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
    unreadable."""
    reason = obstacle(base, variant)
    if reason is not None:
        matched = has_matches(base) and has_matches(variant)
        return Pairing(None, reason, None, reason if matched else None)
    size = batch_size or BATCH_ROWS
    deals, deals_reason = _pair_deals(
        base, variant, length, tuple(skip_ends), size, dict(sums or {})
    )
    matches, matches_reason = None, None
    if has_matches(base) and has_matches(variant):
        matches, matches_reason = _pair_matches(base, variant, size, dict(match_sums or {}))
    return Pairing(deals, deals_reason, matches, matches_reason)


class _Unpaired(Exception):
    """The two files do not hold the same games at the same positions."""


def in_step(
    left: Iterator[pa.RecordBatch], right: Iterator[pa.RecordBatch]
) -> Iterator[tuple[pa.RecordBatch, pa.RecordBatch]]:
    """Two streams of record batches cut into pairs of slices of equal length, in order
    (no copy: slices share the batches' buffers). Raises ``_Unpaired`` when one stream
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
                raise _Unpaired("the runs hold different numbers of rows")
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
    match_play = base.meta.get("unit") == "match"
    keys = ("match", "deal") if match_play else ("game",)
    if not all(k in run.columns for k in keys for run in (base, variant)):
        return None, f"a run's games do not record {' and '.join(keys)}"
    leads = (lead_column(base), lead_column(variant))
    first = np.zeros(4, np.int64)
    differences = Distribution.empty()
    summed = {name: Distribution.empty() for name in sums}
    extra = [column for columns in sums.values() for column in columns]
    n = 0
    try:
        streams = [
            run.records("games").batches(
                _wanted(
                    run,
                    [*keys, "winner", length, lead, *(["end"] if skip_ends else []), *extra],
                ),
                size,
            )
            for run, lead in ((base, leads[0]), (variant, leads[1]))
        ]
        for left, right in in_step(*streams):
            b, v = _arrays(left), _arrays(right)
            for key in keys:
                if not np.array_equal(b[key], v[key]):
                    at = int(np.argmax(b[key] != v[key]))
                    where = ", ".join(f"{k} {int(b[k][at])}" for k in keys)
                    raise _Unpaired(f"the runs hold different deals (at {where})")
            won_b = b["winner"] == leaders(Batch(0, b), leads[0], base.players)
            won_v = v["winner"] == leaders(Batch(0, v), leads[1], variant.players)
            cell = 2 * won_b.astype(np.int64) + won_v
            first += np.bincount(cell, minlength=4)
            keep = np.ones(len(won_b), bool)
            if skip_ends:
                keep = ~_ends_in(left, skip_ends) & ~_ends_in(right, skip_ends)
            step = np.subtract(v[length][keep], b[length][keep], dtype=np.int64)
            differences = differences + Distribution.of(step)
            summed = _add_sums(summed, sums, b, v)
            n += len(won_b)
    except _Unpaired as exc:
        return None, str(exc)
    except (pa.ArrowException, OSError) as exc:
        raise ReportError(
            f"{base.path} and {variant.path}: unreadable Parquet file: {exc}"
        ) from exc
    return DealPairs(n, first.reshape(2, 2), differences, summed), None


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
    n, total, squares = 0, 0.0, 0.0
    summed = {name: Distribution.empty() for name in sums}
    extra = list(dict.fromkeys(c for columns in sums.values() for c in columns))
    try:
        rows = [f.metadata()[0] for f in files]
        if rows[0] != rows[1]:
            return None, (
                f"the runs hold different numbers of matches "
                f"({fmt_int(rows[0])} and {fmt_int(rows[1])})"
            )
        streams = [f.batches(["match", "share_0", *extra], size) for f in files]
        for left, right in in_step(*streams):
            b, v = _arrays(left), _arrays(right)
            if not np.array_equal(b["match"], v["match"]):
                at = int(np.argmax(b["match"] != v["match"]))
                raise _Unpaired(f"the runs hold different matches (at match {b['match'][at]})")
            d = v["share_0"].astype(float) - b["share_0"].astype(float)
            n += d.size
            total += float(d.sum())
            squares += float(np.dot(d, d))
            summed = _add_sums(summed, sums, b, v)
    except _Unpaired as exc:
        return None, str(exc)
    except (pa.ArrowException, OSError, KeyError) as exc:
        raise ReportError(f"{paths[0]} and {paths[1]}: unreadable matches: {exc}") from exc
    return MatchPairs(n, total, squares, summed), None


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
