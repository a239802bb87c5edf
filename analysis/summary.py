"""``summary.csv``: a run's headline figures as plain numbers, one row per figure.

The report of a run (:func:`analysis.reports.write_report`) writes ``summary.csv`` beside
``report.html``: the figures its words and tables give, for a program to read rather than a
person. Columns:

- ``measure``: what the row holds (the names below);
- ``value``: the figure (shares as fractions of 1);
- ``lo``, ``hi``: its 95% interval where the report gives one (Wilson score intervals for
  shares, the percentile bootstrap for mean lengths), else empty;
- ``unit``: ``share``, ``deals``, ``matches``, or the unit of the column (``cards``,
  ``turns``, ``points``…);
- ``n``: the games (deals; matches for match figures) the figure is computed over.

The measures, for any game (``<i>`` a seat, ``<col>`` a column of the records):

- ``deals``: deals recorded; ``matches`` in match play;
- ``first_seat_win_share``: the first seat's share of the deals won (the seat that led
  each deal where the records say which did, as the report counts it), and
  ``first_seat_advantage``: that share minus ``1/players``;
- ``win_share_seat_<i>`` and ``no_winner_share``; where the lead moves from deal to deal,
  ``win_share_position_<k>`` (``k`` seats after the deal's leader); where the seats play
  different strategies, ``win_share_strategy_<name>``;
- ``end_<reason>_share`` for every end reason of the game;
- for the game's length (its spec's, and the report's other lengths where the records
  have them: ``cards``, ``tricks``, ``turns``, ``plays``, ``draws``, ``passes``,
  ``wilds``, ``reshuffles``), over the games that ended: ``mean_<col>`` (with its
  bootstrap interval), ``median_<col>``, ``p10_<col>``, ``p90_<col>``, ``p99_<col>``,
  ``max_<col>``;
- for each per-seat count (``cards_left_<i>``, ``points_<i>``, ``score_<i>``,
  ``cards_held_<i>``…): ``mean_<col>``, ``p10_<col>``, ``median_<col>``, ``p90_<col>``;
- in match play: ``match_win_share_seat_<i>`` (tied winners' fractions summed),
  ``mean_deals_per_match``, ``median_deals_per_match``, and ``mean_match_total_<i>``,
  ``p10_…``, ``median_…``, ``p90_match_total_<i>``.

Every number is computed as the report computes it (the same accumulators, intervals and
bootstrap seed), in one pass over the records of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.load import RunFolder, open_run, scan
from analysis.statistics.bootstrap import mean_interval
from analysis.statistics.stats import (
    end_reason_table,
    first_seat_advantage,
    length_summary,
    strategy_shares,
    value_summary,
    wilson_interval,
    win_share_table,
)
from analysis.statistics.tally import LabelCounts, Values, WinCounts, where_not
from simulate.runs.folder.batch import lead_column

SUMMARY_FILE = "summary.csv"
COLUMNS = ("measure", "value", "lo", "hi", "unit", "n")

#: The lengths a report's length table gives, where the records have them (the game's own
#: headline length, its spec's ``length``, always comes first).
LENGTH_COLUMNS = ("cards", "tricks", "turns", "plays", "draws", "passes", "wilds", "reshuffles")

#: The statistics of a length: (summary key of ``length_summary``, measure prefix).
LENGTH_STATS = (
    ("median", "median"),
    ("p10", "p10"),
    ("p90", "p90"),
    ("p99", "p99"),
    ("max", "max"),
)
#: The statistics of a per-seat count: (``value_summary`` key, measure prefix).
SEAT_STATS = (("mean", "mean"), ("p10", "p10"), ("median", "median"), ("p90", "p90"))

_NAN = float("nan")
_COUNT_TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
_NOT_COUNTS = ("", "index", "seat")


def summary_table(run: RunFolder | str | Path) -> pd.DataFrame:
    """The headline figures of ``run`` (a run folder, opened or not), one row per figure,
    with the columns :data:`COLUMNS` (see the module), from one pass over its records."""
    if not isinstance(run, RunFolder):
        run = open_run(run)
    figures = _Figures(run)
    return figures.table(scan(run, figures.accumulators))


def summary_along(run: RunFolder) -> Callable[[], pd.DataFrame]:
    """Count the summary's figures in the next pass over ``run``'s records (the report's:
    :meth:`analysis.load.RunFolder.ride`); returns the function that gives the table once
    that pass is done (it reads the records itself if no pass came)."""
    figures = _Figures(run)
    rider = run.ride(figures.accumulators)

    def table() -> pd.DataFrame:
        found = rider.accumulators if rider.done else scan(run, figures.accumulators)
        return figures.table(found)

    return table


class _Figures:
    """What the summary of one run counts (:meth:`accumulators`) and how it turns the
    counts into rows (:meth:`table`), as the report does."""

    def __init__(self, run: RunFolder):
        self.run = run
        spec, players = run.spec, run.players
        rules = run.meta.get("rules", {})
        self.lead = lead_column(run)
        self.rotated = "rotation" in run.columns
        self.rotating = "deal" in run.columns or rules.get("first_seat", "seat0") != "seat0"
        self.ended = where_not("end", list(spec.unended)) if spec.unended else None
        self.needs = ("end",) if spec.unended else ()
        self.units = {
            name: column.unit for column in spec.columns for name in column.names(players)
        }
        self.units[spec.length.name] = spec.length.unit
        self.lengths = [
            c for c in dict.fromkeys([spec.length.name, *LENGTH_COLUMNS]) if c in run.columns
        ]
        self.per_seat = [
            name
            for column in spec.columns
            if "<i>" in column.name
            and column.type in _COUNT_TYPES
            and column.unit not in _NOT_COUNTS
            for name in column.names(players)
            if name in run.columns
        ]

    def accumulators(self) -> list:
        players = self.run.players
        return [
            WinCounts(players, self.lead),
            WinCounts(players, "rotation" if self.rotated else None),
            LabelCounts("end"),
            *(Values(c, self.ended, needs=self.needs) for c in self.lengths),
            *(Values(c) for c in self.per_seat),
        ]

    def table(self, accumulators: list) -> pd.DataFrame:
        # Imported here: analysis.reports imports this module to write summary.csv.
        from analysis.reports.matches import has_matches, read_matches

        run, spec, players = self.run, self.run.spec, self.run.players
        wins, by_base_seat, ends, *dists = accumulators
        n = wins.n
        rows: list[dict] = [_row("deals", n, unit="deals", n=n)]
        matches = read_matches(run) if has_matches(run) else None
        if matches is not None:
            rows.append(_row("matches", matches.n, unit="matches", n=matches.n))

        shares = win_share_table(wins.seats)
        positions = win_share_table(wins.positions) if self.lead else None
        first = positions if positions is not None else shares
        rows.append(_share("first_seat_win_share", first.iloc[0], n))
        advantage = first_seat_advantage(first, players)
        rows.append(
            _row(
                "first_seat_advantage",
                advantage["diff"],
                advantage["lo"],
                advantage["hi"],
                "share",
                n,
            )
        )
        for row in shares.itertuples():
            name = "no_winner_share" if row.seat < 0 else f"win_share_seat_{row.seat}"
            rows.append(_share(name, row._asdict(), n))
        if positions is not None and self.rotating:
            for row in positions[positions["seat"] >= 0].itertuples():
                rows.append(_share(f"win_share_position_{row.seat}", row._asdict(), n))
        strategies = _strategies(run)
        if len(set(strategies)) > 1:
            strategy_wins = by_base_seat.positions if self.rotated else wins.seats
            for row in strategy_shares(strategy_wins, strategies).itertuples():
                rows.append(_share(f"win_share_strategy_{row.strategy}", row._asdict(), n))

        reasons = end_reason_table(ends.counts, spec.end_reasons)
        total = int(reasons["count"].sum())
        for reason, row in reasons.iterrows():
            lo, hi = wilson_interval(int(row["count"]), total)
            rows.append(_row(f"end_{reason}_share", row["share"], lo, hi, "share", total))

        for column, values in zip(self.lengths, dists[: len(self.lengths)], strict=True):
            dist, unit = values.dist, self.units.get(column, "")
            summary = length_summary(dist)
            lo, hi = mean_interval(dist)
            rows.append(_row(f"mean_{column}", summary["mean"], lo, hi, unit, dist.n))
            for key, prefix in LENGTH_STATS:
                rows.append(_row(f"{prefix}_{column}", summary[key], unit=unit, n=dist.n))
        for column, values in zip(self.per_seat, dists[len(self.lengths) :], strict=True):
            summary, unit = value_summary(values.dist), self.units[column]
            for key, prefix in SEAT_STATS:
                rows.append(_row(f"{prefix}_{column}", summary[key], unit=unit, n=values.dist.n))

        if matches is not None:
            rows += _match_rows(matches, _match_unit(spec, "total_<i>"))
        table = pd.DataFrame(rows, columns=list(COLUMNS))
        table["n"] = table["n"].astype(np.int64)
        return table


def _match_rows(matches, total_unit: str) -> list[dict]:
    m = matches.n
    rows = [
        _share(f"match_win_share_seat_{row.seat}", row._asdict(), m)
        for row in matches.share_table().iloc[:-1].itertuples()
    ]
    deals = value_summary(matches.deals)
    rows.append(_row("mean_deals_per_match", deals["mean"], unit="deals", n=m))
    rows.append(_row("median_deals_per_match", deals["median"], unit="deals", n=m))
    for seat, dist in enumerate(matches.totals):
        summary = value_summary(dist)
        for key, prefix in SEAT_STATS:
            rows.append(_row(f"{prefix}_match_total_{seat}", summary[key], unit=total_unit, n=m))
    return rows


def _row(
    measure: str, value: float, lo: float = _NAN, hi: float = _NAN, unit: str = "", n: int = 0
) -> dict:
    return {
        "measure": measure,
        "value": float(value),
        "lo": float(lo),
        "hi": float(hi),
        "unit": unit,
        "n": int(n),
    }


def _share(measure: str, row, n: int) -> dict:
    """A share with its interval, from a row of a win-share table (a mapping)."""
    return _row(measure, row["share"], row["lo"], row["hi"], "share", n)


def _match_unit(spec, name: str) -> str:
    return next((c.unit for c in spec.match_columns if c.name == name), "")


def _strategies(run: RunFolder) -> list[str]:
    """Each seat's strategy: from ``run.json`` when it lists one per seat, else from the
    ``strategy_<i>`` columns of the first game; ``[]`` when neither says."""
    listed = run.meta.get("strategies")
    if isinstance(listed, list) and len(listed) == run.players:
        return [str(s) for s in listed]
    columns = [f"strategy_{seat}" for seat in range(run.players)]
    if not all(c in run.columns for c in columns):
        return []
    row = next(run.records("games").batches(columns, 1)).to_pylist()[0]
    return [str(row[c]) for c in columns]


def summary_csv(table: pd.DataFrame) -> bytes:
    """``table`` (from :func:`summary_table`) as CSV bytes: floats written in full (they
    read back equal), an interval that does not apply left empty."""
    return table.to_csv(index=False).encode("utf-8")


def read_summary(path: str | Path) -> pd.DataFrame:
    """A ``summary.csv`` (a file, or a run folder holding one) as a DataFrame."""
    path = Path(path)
    if path.is_dir():
        path = path / SUMMARY_FILE
    empty = {column: [""] for column in ("value", "lo", "hi")}
    return pd.read_csv(path, keep_default_na=False, na_values=empty)
