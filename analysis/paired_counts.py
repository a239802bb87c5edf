"""Paired counts kept by an aggregate-only study (``cardsim sweep --records none``).

An aggregate-only run keeps no single deals, so two such runs cannot be read in step as
:func:`analysis.statistics.paired.pair_runs` reads two runs' files. A study with
``--records none`` plays the variants of each range of games together
(:mod:`simulate.paired_runs`) and, while every variant's records of the range are still in
memory, counts what a paired comparison needs of each variant against the base:
:func:`count_pairs`, the same counting (:func:`~analysis.statistics.paired.count_deal_pairs`)
over the same columns as a comparison of the two runs' files, so the counts are equal to
those the files would give. They are kept in the variant's folder under its manifest
(record kind ``paired``, one file merged chunk by chunk, as ``aggregates`` are), with the
base they were counted against, and :func:`kept_pairing` gives them to a comparison.

A file is small and bounded, whatever the number of games: the (2, 2) table of first-seat
wins and the histograms of the deals' paired differences (length, and the scores where the
game has them), and in match play those of the matches' (seat 0's share of the match win,
counted in whole fractions, the deals per match and each seat's total).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import SimpleNamespace

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from analysis.errors import ReportError
from analysis.statistics.paired import (
    DealPairs,
    MatchPairs,
    Pairing,
    Unpaired,
    count_deal_pairs,
    count_match_pairs,
    deal_obstacle,
    deal_sums,
    match_columns,
    match_sums,
    obstacle,
    pair_columns,
    pair_keys,
    pair_runs,
)
from simulate.folder.aggregates import parquet_file
from simulate.folder.distribution import Distribution

PAIRED_KIND = "paired"
"""The manifest's record kind of a variant's paired counts against its study's base."""
IDENTITY = ("game", "players", "games", "seed", "rules", "strategies", "unit", "rotate_seats")
"""The keys of a run's ``run.json`` that decide its records: the base the counts were
counted against is recorded by these, and a comparison uses them only against that base."""
NOT_KEPT = (
    "aggregate-only runs (--records none) keep no single deals, and these two were not "
    "played together in one study, which keeps their paired counts"
)
"""Why two aggregate-only runs are compared as independent samples (no paired counts)."""
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
        return _counted(self.length, self.skip_ends, self.sums, self.match_sums)

    def counted_against(self, meta: Mapping) -> bool:
        """Whether these counts are against the run whose ``run.json`` is ``meta``."""
        found = identity(meta)
        return all(found.get(key) == self.base.get(key) for key in IDENTITY)

    # ---- files -----------------------------------------------------------------------

    def to_table(self) -> pa.Table:
        """One row per (figure, value), ``count`` its count: ``figure`` ``first`` (``value``
        the cell 2 × base won + variant won of the (2, 2) table), ``length`` and
        ``sum:<name>`` (histograms of the deals' paired differences), ``match`` and
        ``match_sum:<name>`` (of the matches'); the settings ride in the file's metadata."""
        items = []
        if self.deals is not None:
            items.append(("first", np.arange(4), self.deals.first.ravel()))
            items.append(("length", self.deals.length.values, self.deals.length.counts))
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
            deals = DealPairs(
                int(extra["pairs"]),
                first.reshape(2, 2),
                dist("length"),
                {name: dist(f"sum:{name}") for name in sums},
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


def _counted(length, skip_ends, sums, match_sums) -> tuple:
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
    from analysis.load import game_spec

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
    from analysis.statistics.tally import lead_column

    return lead_column(SimpleNamespace(meta=meta, columns=columns))


def read_paired(run) -> PairedCounts | None:
    """The paired counts kept in an aggregate-only run folder (a
    :class:`analysis.load.RunFolder`), merged over its chunks; None when it keeps none
    (a run not played as a study's variant, or the study's base). A file whose bytes are
    not those written is a :class:`ReportError`."""
    from simulate.folder import manifest as mf
    from simulate.folder.records import damaged, record_files

    files = record_files(run.path, run.meta, PAIRED_KIND)
    if not files:
        return None
    merged = None
    try:
        for path, part in files.files:
            data = path.read_bytes()
            if len(data) != part.bytes or mf.sha256_of(data) != part.sha256:
                raise damaged(run.path)
            found = PairedCounts.from_bytes(data)
            merged = found if merged is None else merged.merge(found)
    except (pa.ArrowException, OSError, ValueError, KeyError) as exc:
        raise ReportError(f"{run.path}: unreadable paired counts: {exc}") from exc
    return merged


def pair_folders(
    base,
    variant,
    length: str,
    skip_ends: Sequence[str] = (),
    *,
    sums: Mapping[str, Sequence[str]] | None = None,
    match_sums: Mapping[str, Sequence[str]] | None = None,
) -> Pairing:
    """The pairing of any two run folders: :func:`~analysis.statistics.paired.pair_runs`
    reads the records side by side; where one or both runs are aggregate-only, the paired
    counts they keep are used (:func:`kept_pairing`). Arguments as ``pair_runs`` takes
    them."""
    reason = obstacle(base, variant)
    if reason is None and (base.aggregates is not None or variant.aggregates is not None):
        return kept_pairing(
            base, variant, length, tuple(skip_ends), dict(sums or {}), dict(match_sums or {})
        )
    return pair_runs(base, variant, length, skip_ends, sums=sums, match_sums=match_sums)


def kept_pairing(
    base,
    variant,
    length: str,
    skip_ends: tuple[str, ...],
    sums: Mapping[str, Sequence[str]],
    match_sums: Mapping[str, Sequence[str]],
) -> Pairing:
    """:func:`~analysis.statistics.paired.pair_runs` for runs of which one or both are
    aggregate-only (:class:`analysis.load.RunFolder` with ``aggregates``) and deal alike:
    the paired counts one of them keeps against the other (the variant's against its base,
    or the base's against the variant, seen the other way round), when they cover every
    game of both and count what is asked; else a Pairing that says why the runs are
    compared as independent samples."""
    from analysis.rendering.words import fmt_int
    from analysis.reports.matches import has_matches

    matched = has_matches(base) and has_matches(variant)
    if base.rows != variant.rows:
        reason = (
            f"the runs hold different numbers of deals ({fmt_int(base.rows)} and "
            f"{fmt_int(variant.rows)})"
        )
        return Pairing(None, reason, None, reason if matched else None)
    asked = _counted(length, skip_ends, sums, match_sums if matched else {})
    for owner, other, turned in ((variant, base, False), (base, variant, True)):
        counts = read_paired(owner) if owner.aggregates is not None else None
        if counts is None or not counts.counted_against(other.meta):
            continue
        if counts.counted != asked:
            reason = "their paired counts were kept for other figures than this comparison's"
            return Pairing(None, reason, None, reason if matched else None)
        deals, reason = counts.deals, counts.reason
        if deals is not None and deals.n != base.rows:
            deals, reason = None, _cover(deals.n, base.rows, "deals")
        matches, match_reason = counts.matches, counts.match_reason
        if matched and matches is not None and matches.n != _matches_of(base):
            matches, match_reason = None, _cover(matches.n, _matches_of(base), "matches")
        if turned:
            deals = deals.reversed() if deals is not None else None
            matches = matches.reversed() if matches is not None else None
        return Pairing(deals, reason, matches, match_reason if matched else None)
    return Pairing(None, NOT_KEPT, None, NOT_KEPT if matched else None)


def _cover(pairs: int, held: int, what: str) -> str:
    from analysis.rendering.words import fmt_int

    return f"their paired counts hold {fmt_int(pairs)} pairs of {what}, the runs {fmt_int(held)}"


def _matches_of(run) -> int:
    """The matches a run holds (or, aggregate-only, stands for)."""
    return run.records("matches").metadata()[0]
