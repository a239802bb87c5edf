"""Match play: ``matches.parquet`` (one row per match) and its report section.

A run with ``match_deals`` or ``target_score`` has, beside ``games.parquet`` (which then
carries ``match`` and ``deal`` columns), ``matches.parquet`` with the columns ``match``
(int64), ``deals`` (int64, deals played), ``total_<i>`` (int64, seat i's match total, the
sum of its deal scores), ``share_<i>`` (float64, seat i's share of the match win: 1 for the
winner, 1/m each for m tied winners) and ``strategy_<i>``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa
from matplotlib.figure import Figure

from analysis.errors import ReportError
from simulate.runs.folder.batch import BATCH_ROWS

if TYPE_CHECKING:
    from analysis.load import RunFolder
from analysis.rendering import plots
from analysis.rendering.document import Block, Chart, Heading, Paragraph, Table
from analysis.rendering.words import (
    all_count_text,
    chart_title,
    fmt_int,
    fmt_num,
    fmt_pct,
    fmt_quantity,
    fmt_share_lead,
    fmt_wilson,
)
from analysis.reports.common import count_text, win_table
from analysis.statistics.stats import value_summary, wilson_interval
from simulate.runs.folder.distribution import Distribution

MATCHES_FILE = "matches.parquet"

#: How the match winner is chosen, per scoring rule.
BEST_TOTAL = {
    "penalty": "the lowest total wins",
    "winner_collects": "the highest total wins",
    "minus_hand": "the highest total wins",
}

#: Tolerance on each match's shares summing to 1.
_SHARE_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Matches:
    """The matches of a run: ``n`` matches; ``wins`` (players,) float64, each seat's summed
    share of the match wins; ``totals`` one :class:`Distribution` of match totals per seat;
    ``deals`` the distribution of deals per match."""

    n: int
    wins: np.ndarray
    totals: list[Distribution]
    deals: Distribution

    @property
    def players(self) -> int:
        return len(self.totals)

    def share_table(self, confidence: float = 0.95) -> pd.DataFrame:
        """As :func:`analysis.statistics.stats.win_share_table`, over matches: ``wins`` are summed
        shares (fractional when wins were shared; the Wilson interval takes them as counts),
        and the last row (no winner) is 0, a match always having a winner."""
        wins = np.append(self.wins, 0.0)
        lo, hi = wilson_interval(wins, self.n, confidence)
        return pd.DataFrame(
            {
                "seat": [*range(self.players), -1],
                "label": [*(f"seat {s}" for s in range(self.players)), "no winner"],
                "wins": wins,
                "share": wins / self.n,
                "lo": lo,
                "hi": hi,
            }
        )


def has_matches(run: RunFolder) -> bool:
    """Whether the run folder holds matches (match play)."""
    return bool(run.records("matches"))


def aggregated_matches(matches, players: int) -> Matches:
    """The matches of an aggregate-only run (its
    :class:`~simulate.runs.folder.aggregates.MatchAggregates`) as :func:`read_matches` reads
    them from ``matches.parquet``."""
    totals = [matches.dist(f"total_{seat}") for seat in range(players)]
    return Matches(
        n=matches.records, wins=matches.wins(players), totals=totals, deals=matches.dist("deals")
    )


def read_matches(run: RunFolder) -> Matches:
    """Read ``matches.parquet`` of ``run`` in batches (only the columns needed); raise
    :class:`ReportError` naming the file when it is unreadable, lacks a column, is empty, or
    a match's shares do not sum to 1."""
    if run.aggregates is not None:  # an aggregate-only run: its matches' statistics
        return aggregated_matches(run.aggregates.matches, run.players)
    files = run.records("matches")
    path = files.path
    players = run.players
    totals = [f"total_{s}" for s in range(players)]
    shares = [f"share_{s}" for s in range(players)]
    try:
        names = files.metadata()[1] if files else ()
        missing = [c for c in ("match", "deals", *totals, *shares) if c not in names]
        if missing:
            raise ReportError(f"{path}: missing columns {', '.join(missing)}")
        # Wins counted in parts of 1/lcm(1..players) (a share is 1/m): exact, so the same
        # however the matches are summed, an aggregate-only run's (simulate.runs.folder.aggregates) too.
        whole = math.lcm(*range(1, players + 1))
        n, parts = 0, np.zeros(players, np.int64)
        dists = [Distribution.empty() for _ in range(players)]
        deals = Distribution.empty()
        for batch in files.batches(["match", "deals", *totals, *shares], BATCH_ROWS):
            data = {c: batch.column(c).to_numpy(zero_copy_only=False) for c in batch.schema.names}
            share = np.stack([data[c] for c in shares], axis=1).astype(float)
            bad = np.abs(share.sum(axis=1) - 1) > _SHARE_TOLERANCE
            if bad.any():
                match = int(data["match"][np.argmax(bad)])
                raise ReportError(f"{path}: the shares of match {match} do not sum to 1")
            n += len(share)
            parts += np.rint(share * whole).astype(np.int64).sum(axis=0)
            dists = [d + Distribution.of(data[c]) for d, c in zip(dists, totals, strict=True)]
            deals += Distribution.of(data["deals"])
    except (pa.ArrowException, OSError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ReportError(f"{path}: unreadable Parquet file: {reason}") from exc
    if n == 0:
        raise ReportError(f"{path}: no matches recorded")
    wins = np.array([int(part) / whole for part in parts], np.float64)
    return Matches(n=n, wins=wins, totals=dists, deals=deals)


def matches_summary(matches: Matches, rules: dict | None = None) -> str:
    """One sentence on the matches for a report's summary. Matches of a fixed number of
    deals (``match_deals`` in ``rules``; without ``rules``, every match as long) are "N deals
    each"; matches played to a ``target_score`` vary in length, "x deals each on average"."""
    first = matches.share_table().iloc[0]
    return (
        f"Over {count_text(matches.n, 'match')} ({_deals_each(matches, rules)}), seat 0, "
        f"which leads the first deal, wins "
        f"{fmt_share_lead(first['share'], first['lo'], first['hi'])} of matches (95% Wilson "
        f"interval {fmt_wilson(first['lo'], first['hi'])}, against {fmt_pct(1 / matches.players)})."
    )


def _deals_each(matches: Matches, rules: dict | None) -> str:
    """``"4 deals each"`` for matches of a fixed length, else ``"2.5 deals each on
    average"``."""
    deals = matches.deals
    to_target = bool(rules.get("target_score")) if rules is not None else False
    if not to_target and deals.n and deals.min() == deals.max():
        return f"{count_text(int(deals.min()), 'deal')} each"
    return f"{fmt_quantity(deals.mean(), 'deal')} each on average"


def matches_section(matches: Matches, meta: dict) -> tuple[list[Block], dict[str, Figure]]:
    """The "Matches" heading, the match win shares by seat, the distribution of match totals
    and of deals per match, and their charts (``match_win_share``, ``match_totals``)."""
    rules = meta.get("rules", {})
    scoring = rules.get("scoring", "")
    title = chart_title(meta, matches.n, "matches")
    shares = matches.share_table()
    total_rows = []
    for seat, dist in enumerate(matches.totals):
        summary = value_summary(dist)
        total_rows.append(
            [
                f"seat {seat}",
                *(fmt_num(summary[k]) for k in ("mean", "p10", "median", "p90")),
                fmt_num(summary["min"]),
                fmt_num(summary["max"]),
            ]
        )
    deals = value_summary(matches.deals)
    if rules.get("match_deals"):
        length = f"Each match is {count_text(rules['match_deals'], 'deal')}"
    elif rules.get("target_score"):
        length = (
            f"A match goes on until a seat's total reaches {fmt_int(rules['target_score'])}: "
            f"{fmt_quantity(deals['mean'], 'deal')} on average (median "
            f"{fmt_num(deals['median'])}, longest {fmt_int(deals['max'])})"
        )
    else:
        length = f"Matches last {fmt_quantity(deals['mean'], 'deal')} on average"
    figures = {
        "match_win_share": plots.win_share_chart(shares, title, "matches"),
        "match_totals": plots.score_chart(
            {f"seat {s}": d for s, d in enumerate(matches.totals)}, title, "match total"
        ),
    }
    blocks: list[Block] = [
        Heading("Matches"),
        Paragraph(
            f"{length}; deal k of a match is led by seat k mod {matches.players}. A seat's "
            f"match total is the sum of its deal scores, and "
            f"{BEST_TOTAL.get(scoring, 'the best total wins')}; tied winners share the win "
            f"(m tied seats get 1/m each), so wins below are summed shares. Shares are of "
            f"{all_count_text(matches.n, 'match')}, with 95% Wilson intervals."
        ),
        win_table(shares.iloc[:-1]),
        Chart("match_win_share", "Match win share by seat with 95% Wilson intervals"),
        Paragraph("Match totals per seat:"),
        Table(
            ["seat", "mean", "10th pct", "median", "90th pct", "lowest", "highest"],
            total_rows,
            "lrrrrrr",
        ),
        Chart(
            "match_totals",
            "Match total by seat: box of quartiles, whiskers at the 10th and 90th "
            "percentiles, mean as a diamond",
        ),
    ]
    return blocks, figures
