"""Paired counts kept by an aggregate-only study (``cardsim sweep --records none``), read
back for a comparison.

An aggregate-only run keeps no single deals, so two such runs cannot be read in step as
:func:`analysis.statistics.paired.pair_runs` reads two runs' files. A study with
``--records none`` plays the variants of each range of games together
(:mod:`simulate.runs.paired_runs`) and counts what a paired comparison needs of each variant
against the base while the records are in memory (the run layer's
:func:`simulate.runs.folder.paired.count_pairs`, the same counting over the same columns as a
comparison of the two runs' files). They are kept in the variant's folder under its
manifest; :func:`read_paired` reads them, and :func:`kept_pairing` gives them to a
comparison.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pyarrow as pa

from analysis.errors import ReportError
from analysis.statistics.paired import (
    Pairing,
    obstacle,
    pair_runs,
)
from simulate.runs.folder.paired import PAIRED_KIND, PairedCounts, counted_figures

NOT_KEPT = (
    "aggregate-only runs (--records none) keep no single deals, and these two were not "
    "played together in one study, which keeps their paired counts"
)
"""Why two aggregate-only runs are compared as independent samples (no paired counts)."""


def read_paired(run) -> PairedCounts | None:
    """The paired counts kept in an aggregate-only run folder (a
    :class:`analysis.load.RunFolder`), merged over its chunks; None when it keeps none
    (a run not played as a study's variant, or the study's base). A file whose bytes are
    not those written is a :class:`ReportError`."""
    from simulate.runs.folder import manifest as mf
    from simulate.runs.folder.records import damaged, record_files

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
    asked = counted_figures(length, skip_ends, sums, match_sums if matched else {})
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
