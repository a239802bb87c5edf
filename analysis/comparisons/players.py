"""A study across player counts: each headline measure by player count and variant.

``cardsim sweep`` compares the variants within each player count (``compare-<N>p/``); when
a study has several counts it also writes, at the study folder's top, this report:
``report.html``, ``report.md``, ``charts/`` and :data:`PLAYERS_CSV`, one table and one chart
per measure (rows: variants, columns: player counts), each figure with its 95% interval.
Its numbers are read from the per-count ``comparison.csv`` files, so the two always agree;
the differences and their tests stay in the per-count reports, whose verdicts it repeats.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from analysis.comparisons import charts
from analysis.errors import ReportError
from analysis.rendering.document import Block, Chart, Heading, Paragraph, Table
from analysis.rendering.output import chart_dpi, chart_formats, write_document
from analysis.rendering.words import fmt_range, fmt_signed, pct_digits

#: The table of this report, one row per variant and player count.
PLAYERS_CSV = "players.csv"
COMPARISON_CSV = "comparison.csv"


@dataclass(frozen=True)
class Measure:
    """A measure of the report: its ``name`` (chart and CSV), the comparison table's
    ``column`` and interval columns ``lo``, ``hi``, its ``title``, how its values read
    (``kind``: ``points`` for a difference of shares, ``spread`` for one that is never
    negative, ``share``, ``mean``), its
    ``definition`` and its chart's ``ylabel`` (in both, ``{unit}`` is the length's unit)."""

    name: str
    column: str
    lo: str
    hi: str
    title: str
    kind: str
    definition: str
    ylabel: str


MEASURES = (
    Measure(
        "advantage",
        "advantage",
        "advantage_lo",
        "advantage_hi",
        "First seat's advantage",
        "points",
        "the first seat's win share minus 1/n at n players (0 is fair at every count), "
        "with the 95% Wilson interval of the share",
        "first seat's share minus 1/n (percentage points)",
    ),
    Measure(
        "decisive",
        "decisive",
        "decisive_lo",
        "decisive_hi",
        "Decisive deals",
        "share",
        "the share of deals with a winner, with its 95% Wilson interval",
        "share of deals with a winner",
    ),
    Measure(
        "length",
        "mean_length",
        "mean_lo",
        "mean_hi",
        "Mean length",
        "mean",
        "the mean length of a deal in {unit} (over the deals that end), with its 95% "
        "bootstrap interval",
        "mean {unit} per deal",
    ),
    Measure(
        "score",
        "mean_score",
        "mean_score_lo",
        "mean_score_hi",
        "Mean score",
        "mean",
        "the mean score per seat and deal (every seat's score summed per deal, over the "
        "players), with its 95% bootstrap interval",
        "points per seat and deal",
    ),
    Measure(
        "match",
        "match_share",
        "match_lo",
        "match_hi",
        "Seat 0's match wins",
        "share",
        "seat 0's share of the match wins (it leads the first deal of each match), with "
        "its 95% Wilson interval",
        "seat 0's share of the match wins",
    ),
    # The balance measures (analysis.balance) that the ones above do not already give.
    Measure(
        "seat_spread",
        "seat_spread",
        "seat_spread_lo",
        "seat_spread_hi",
        "Seat spread",
        "spread",
        "the largest minus the smallest seat's win share (of the matches, in match play), "
        "with a conservative 95% interval",
        "largest minus smallest seat's share (percentage points)",
    ),
    Measure(
        "turns_p90",
        "turns_p90",
        "turns_p90_lo",
        "turns_p90_hi",
        "Long deals",
        "mean",
        "the 90th percentile of a deal's length in turns (tricks, for Beggar-My-Neighbour), "
        "with its 95% distribution-free interval",
        "90th percentile of the length",
    ),
    Measure(
        "lead_changes",
        "lead_changes",
        "lead_changes_lo",
        "lead_changes_hi",
        "Lead changes",
        "mean",
        "times per deal the lead passed to another seat, with its 95% interval",
        "lead changes per deal",
    ),
    Measure(
        "comebacks",
        "comebacks",
        "comebacks_lo",
        "comebacks_hi",
        "Comebacks",
        "share",
        "the share of deals whose winner trailed the leader by 3 cards or more, with its 95% "
        "Wilson interval",
        "share of deals won from behind",
    ),
    Measure(
        "skill",
        "skill",
        "skill_lo",
        "skill_hi",
        "Skill",
        "points",
        "the win share of one seat of a skilled strategy against random opponents, rotated "
        "over the seats on the same deals, minus 1/n (where the study plays skill games), "
        "with its 95% interval",
        "skilled seat's share minus 1/n (percentage points)",
    ),
)

#: The columns of :data:`PLAYERS_CSV` besides the measures'.
_KEYS = ("players", "variant", "base", "is_base", "games", "length_unit")


def players_table(comparison_dirs: Sequence[str | Path]) -> pd.DataFrame:
    """The per-count ``comparison.csv`` of each folder of ``comparison_dirs``, reduced to
    the measures of :data:`MEASURES` that they hold (value, ``_lo``, ``_hi``, named as there)
    and concatenated: one row per player count and variant, counts in the order given.
    Raises :class:`ReportError` naming a folder without a readable table."""
    tables = []
    for folder in map(Path, comparison_dirs):
        path = folder / COMPARISON_CSV
        try:
            tables.append(pd.read_csv(path))
        except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
            raise ReportError(f"{path}: cannot read the comparison table: {exc}") from None
    table = pd.concat(tables, ignore_index=True)
    columns = [c for c in _KEYS if c in table]
    for measure in _present(table):
        columns += [measure.column, measure.lo, measure.hi]
    return table[list(dict.fromkeys(columns))]


def _present(table: pd.DataFrame) -> list[Measure]:
    return [
        m
        for m in MEASURES
        if all(c in table for c in (m.column, m.lo, m.hi)) and table[m.column].notna().any()
    ]


def write_players_report(
    out_dir: str | Path,
    comparison_dirs: Sequence[str | Path],
    *,
    title: str | None = None,
    dpi: int | str | None = None,
    formats: str | Sequence[str] | None = None,
) -> tuple[Path, Path]:
    """Write the report across player counts into ``out_dir``: ``report.html``,
    ``report.md``, ``charts/players_<measure>.*`` and :data:`PLAYERS_CSV`
    (:func:`players_table`), from the comparisons in ``comparison_dirs`` (one folder per
    player count, each holding ``comparison.csv``, linked from the report). ``title``
    heads it; ``dpi`` and ``formats`` as :func:`analysis.rendering.output.write_document`
    takes them. Returns ``(html_path, markdown_path)``."""
    dpi, formats = chart_dpi(dpi), chart_formats(formats)
    out = Path(out_dir)
    folders = [Path(d) for d in comparison_dirs]
    table = players_table(folders)
    verdicts = _verdicts(folders)
    blocks, figures = build_players_report(table, verdicts, folders, out, title)
    csv = table.to_csv(index=False, float_format="%.10g").encode("utf-8")
    return write_document(
        out,
        blocks,
        figures,
        title or "cardsim study across player counts",
        {PLAYERS_CSV: csv},
        dpi=dpi,
        formats=formats,
    )


def _verdicts(folders: list[Path]) -> pd.DataFrame:
    """The verdict of each variant at each player count, from the comparison tables."""
    tables = [pd.read_csv(folder / COMPARISON_CSV) for folder in folders]
    table = pd.concat(tables, ignore_index=True)
    if "verdict" not in table:
        return table.iloc[0:0]
    return table[~table["is_base"].astype(bool)][["players", "variant", "base", "verdict"]]


def build_players_report(
    table: pd.DataFrame,
    verdicts: pd.DataFrame,
    folders: list[Path],
    out: Path,
    title: str | None,
) -> tuple[list[Block], dict[str, Figure]]:
    """The blocks and charts of the report across player counts (see
    :func:`write_players_report`)."""
    counts = list(dict.fromkeys(int(p) for p in table["players"]))
    unit = str(table["length_unit"].dropna().iloc[0]) if "length_unit" in table else ""
    variants = list(dict.fromkeys(table["variant"]))
    links = ", ".join(
        f"{count} players: `{_relative(folder / 'report.md', out)}`"
        for count, folder in zip(counts, folders, strict=False)
    )
    counts_text = ", ".join(map(str, counts[:-1])) + f" and {counts[-1]}"
    blocks: list[Block] = [
        Heading(f"{title or 'Study'} · across player counts", 1),
        Paragraph(
            f"The study's {len(variants)} variants at {counts_text} players side by side: "
            "each headline measure with its 95% interval, by variant (rows) and player count "
            "(columns), as the comparison at each player count gives it. Each count's "
            "variants are compared with its base there, on the same deals, with the "
            f"differences and their tests ({links})."
        ),
    ]
    if not verdicts.empty:
        blocks.append(Heading("Verdicts"))
        for _, row in verdicts.iterrows():
            blocks.append(
                Paragraph(
                    f"{int(row['players'])} players, {row['variant']} against {row['base']}: "
                    f"{row['verdict']}."
                )
            )
    figures: dict[str, Figure] = {}
    for measure in _present(table):
        definition = measure.definition.format(unit=unit)
        blocks += [
            Heading(measure.title),
            Paragraph(f"{measure.title}: {definition}."),
            _measure_table(table, measure, variants, counts),
            Chart(
                f"players_{measure.name}",
                f"{measure.title} by player count and variant, with 95% intervals",
            ),
        ]
        figures[f"players_{measure.name}"] = _measure_chart(
            table, measure, variants, title or "Study", unit
        )
    return blocks, figures


def _relative(path: Path, start: Path) -> str:
    try:
        return Path(os.path.relpath(path, start)).as_posix()
    except ValueError:  # another drive
        return str(path)


def _measure_table(
    table: pd.DataFrame, measure: Measure, variants: list[str], counts: list[int]
) -> Table:
    rows = []
    bases = set(table.loc[table["is_base"].astype(bool), "variant"])
    for variant in variants:
        cells = []
        for count in counts:
            found = table[(table["variant"] == variant) & (table["players"] == count)]
            cells.append("–" if found.empty else _cell(found.iloc[0], measure))
        rows.append([variant + (" (base)" if variant in bases else ""), *cells])
    return Table(["variant", *(f"{c} players" for c in counts)], rows, "l" + "r" * len(counts))


def _cell(row: pd.Series, measure: Measure) -> str:
    """A value with its interval: ``+0.3 pts (-0.1 to +0.7)``, ``99.2% (99.1–99.3%)``,
    ``28.99 (28.95–29.03)``."""
    value, lo, hi = (float(row[c]) for c in (measure.column, measure.lo, measure.hi))
    if math.isnan(value):
        return "–"
    if measure.kind == "points":
        digits = pct_digits(lo, hi)
        signed = [fmt_signed(100 * v, digits) for v in (value, lo, hi)]
        return f"{signed[0]} pts ({signed[1]} to {signed[2]})"
    if measure.kind == "spread":
        digits = pct_digits(lo, hi)
        return f"{100 * value:.{digits}f} pts ({100 * lo:.{digits}f}–{100 * hi:.{digits}f})"
    if measure.kind == "share":
        digits = pct_digits(lo, hi)
        return f"{100 * value:.{digits}f}% ({100 * lo:.{digits}f}–{100 * hi:.{digits}f}%)"
    half = (hi - lo) / 2
    digits = 1 if not half > 0 else max(1, min(4, -math.floor(math.log10(half))))
    return f"{value:,.{digits}f} ({fmt_range(lo, hi, digits)})"


#: The measures made of win shares, whose axis spans at least two negligible thresholds
#: either side (:func:`analysis.rendering.plots.keep_share_span`).
_WIN_SHARES = ("advantage", "match", "seat_spread")


def _measure_chart(
    table: pd.DataFrame, measure: Measure, variants: list[str], title: str, unit: str
) -> Figure:
    scale = 100 if measure.kind in ("points", "spread") else 1
    series = []
    for variant in variants:
        rows = table[table["variant"] == variant].dropna(subset=[measure.column])
        series.append(
            (
                variant,
                rows["players"].to_numpy(),
                *(
                    rows[c].to_numpy(float) * scale
                    for c in (measure.column, measure.lo, measure.hi)
                ),
            )
        )
    return charts.players_chart(
        series,
        f"{title} · {measure.title.lower()} by player count",
        measure.ylabel.format(unit=unit),
        share=measure.kind == "share",
        reference=0.0 if measure.kind == "points" else None,
        share_scale=scale if measure.name in _WIN_SHARES else None,
    )
