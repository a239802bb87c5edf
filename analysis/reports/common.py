"""Report pieces shared by every game's report (the generic one and each family's): run
details, length, win-share and end-reason tables, the convergence section, counts in words."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from analysis.rendering.document import Block, Chart, Heading, Paragraph, Table
from analysis.rendering.words import (
    count_text,
    fmt_ci,
    fmt_int,
    fmt_num,
    fmt_pct,
    fmt_range,
    game_name,
)

#: The columns of a length table: (key of :func:`analysis.statistics.stats.length_summary`, label).
LENGTH_MEASURES = (
    ("mean", "mean"),
    ("median", "median"),
    ("p10", "10th pct"),
    ("p90", "90th pct"),
    ("p99", "99th pct"),
    ("max", "longest"),
)


#: How the mean's interval in the length tables is computed, for the reports' text.
BOOTSTRAP_NOTE = (
    "The mean's 95% interval is a percentile bootstrap (2,000 resamples of the games, drawn "
    "as multinomial counts per value, numpy Generator seed 20241130)."
)


def run_details(
    meta: dict, n_games: int, rule_rows: Sequence[Sequence[str]], extra: Sequence = ()
) -> list[Block]:
    """The "Run details" heading and table: game, players, seed, deals, status, then
    ``extra`` rows, the ``rule_rows``, threads, elapsed time, creation time, versions."""
    rows = [
        ["game", f"{game_name(meta['game'])} ({meta['game']})"],
        ["players", str(meta["players"])],
    ]
    if "seed" in meta:
        rows.append(["seed", str(meta["seed"])])
    requested = meta.get("games", n_games)
    if meta.get("unit") == "match":
        completed = meta.get("completed_games", requested)
        rows.append(["matches", f"{fmt_int(completed)} recorded of {fmt_int(requested)} requested"])
        rows.append(["deals", f"{fmt_int(n_games)} recorded"])
    else:
        rows.append(["deals", f"{fmt_int(n_games)} recorded of {fmt_int(requested)} requested"])
    if "status" in meta:
        rows.append(["status", str(meta["status"])])
    rows.extend(list(row) for row in extra)
    rows.extend(list(row) for row in rule_rows)
    if "threads" in meta:
        rows.append(["threads", str(meta["threads"])])
    if meta.get("elapsed_s"):
        rate = n_games / meta["elapsed_s"]
        rows.append(["elapsed", f"{meta['elapsed_s']:,.2f} s ({rate:,.0f} deals/s)"])
    if "created" in meta:
        rows.append(["created", str(meta["created"])])
    for package, version in meta.get("versions", {}).items():
        rows.append([f"version: {package}", str(version)])
    return [Heading("Run details"), Table(["field", "value"], rows, "ll")]


def incomplete_text(meta: dict, n_games: int) -> str:
    """A sentence saying the run is incomplete, or ``""`` when it is complete. ``n_games``
    is the number of deals recorded; in match play (``"unit": "match"``) ``games`` and
    ``completed_games`` of ``run.json`` count matches."""
    unit = "match" if meta.get("unit") == "match" else "deal"
    requested = meta.get("games", n_games)
    completed = meta.get("completed_games", n_games if unit == "deal" else requested)
    if meta.get("status", "complete") != "complete" or completed != requested:
        return (
            f" The run is incomplete ({meta.get('status', 'unknown status')}): "
            f"{fmt_int(completed)} of {count_text(requested, unit)} "
            f"{'was' if completed == 1 else 'were'} played."
        )
    return ""


def length_table(
    summaries: Sequence[tuple[str, Mapping[str, float]]],
    intervals: Sequence[tuple[float, float]] | None = None,
) -> Table:
    """One row per ``(unit, summary)``, the summary from :func:`analysis.statistics.stats.length_summary`;
    with ``intervals`` (one ``(lo, hi)`` per row) a column gives the mean's 95% interval."""
    rows = []
    for i, (unit, summary) in enumerate(summaries):
        cells = [fmt_num(summary[key]) for key, _ in LENGTH_MEASURES]
        if intervals is not None:
            cells.insert(1, fmt_range(*intervals[i]))
        rows.append([unit, *cells])
    labels = [label for _, label in LENGTH_MEASURES]
    if intervals is not None:
        labels.insert(1, "mean 95% CI")
    return Table(["", *labels], rows, "l" + "r" * len(labels))


def win_table(shares: pd.DataFrame, first: str = "seat") -> Table:
    """Seat (or ``first``), wins, share and 95% CI per row of
    :func:`analysis.statistics.stats.win_share_table`; wins print with a decimal when fractional
    (shared match wins)."""
    rows = [
        [row.label, fmt_num(row.wins), fmt_pct(row.share, 2), fmt_ci(row.lo, row.hi, 2)]
        for row in shares.itertuples()
    ]
    return Table([first, "wins", "share", "95% CI"], rows, "lrrr")


def end_table(reasons: pd.DataFrame, meanings: Mapping[str, str]) -> Table:
    """End reason (as code), its meaning, deals and share per row of
    :func:`analysis.statistics.stats.end_reasons`."""
    rows = [
        [reason, meanings.get(reason, ""), fmt_int(row["count"]), fmt_pct(row["share"], 2)]
        for reason, row in reasons.iterrows()
    ]
    return Table(["end", "meaning", "deals", "share"], rows, "llrr", frozenset({0}))


def convergence_section(
    table: pd.DataFrame, first_label: str, length_label: str, length_scope: str = ""
) -> list[Block]:
    """The "Convergence" heading, its table (one row per prefix of
    :meth:`analysis.statistics.convergence.Convergence.table`) and its chart (named ``convergence``).
    ``first_label`` names the seat ("first seat"), ``length_label`` the length's unit
    ("cards"), ``length_scope`` says which games the length covers, as a sentence."""
    rows = [
        [
            fmt_int(row.games),
            fmt_pct(row.share, 2),
            fmt_ci(row.lo, row.hi, 2),
            fmt_num(row.mean, 2),
            fmt_range(row.mean_lo, row.mean_hi, 2),
        ]
        for row in table.itertuples()
    ]
    return [
        Heading("Convergence"),
        Paragraph(
            f"The headline estimates after the first deals of the run (in the order played), "
            f"at 1, 2 and 5 deals per power of ten and at the end: the {first_label}'s win "
            f"share with its 95% Wilson interval, and the mean {length_label} with a 95% "
            f"normal interval (mean ± 1.96 standard errors). {length_scope}Intervals that "
            "keep narrowing around a steady value show the run is long enough for the "
            "precision it reports."
        ),
        Table(
            ["deals", f"{first_label} share", "95% CI", f"mean {length_label}", "95% CI"],
            rows,
            "rrrrr",
        ),
        Chart(
            "convergence",
            f"The {first_label}'s win share and the mean {length_label} against deals played, "
            "with 95% bands, log scale",
        ),
    ]
