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

The counting itself, and the pairs' counts (:class:`~simulate.runs.folder.paired.DealPairs`,
:class:`~simulate.runs.folder.paired.MatchPairs`), are the run layer's
(:mod:`simulate.runs.folder.paired`): they take any two streams of record batches in step, the
files of two runs read here, or the records of one chunk range of two runs still in
memory, as an aggregate-only study counts them while it plays; the pairs such a study
keeps in its variants' folders are what :func:`pair_runs` gives for aggregate-only runs,
which hold no single deals to read (:mod:`analysis.paired_counts`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pyarrow as pa

from analysis.errors import ReportError
from analysis.load import BATCH_ROWS, RunFolder
from analysis.rendering.words import fmt_int
from analysis.reports.matches import has_matches
from simulate.runs.folder.batch import lead_column
from simulate.runs.folder.paired import (
    DealPairs,
    MatchPairs,
    Unpaired,
    count_deal_pairs,
    count_match_pairs,
    deal_obstacle,
    match_columns,
    pair_columns,
    pair_keys,
)


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


def _wanted(run: RunFolder, columns: Sequence[str | None]) -> list[str]:
    names = list(dict.fromkeys(c for c in columns if c is not None))
    missing = [c for c in names if c not in run.columns]
    if missing:
        raise ReportError(f"{run.games_path}: missing columns {', '.join(missing)}")
    return names
