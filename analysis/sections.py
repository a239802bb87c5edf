"""Report pieces shared by every game's report: run details, length, win-share and
end-reason tables, counts in words."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from analysis.describe import fmt_ci, fmt_int, fmt_num, fmt_pct, game_name
from analysis.document import Block, Heading, Table

#: The columns of a length table: (key of :func:`analysis.stats.length_summary`, label).
LENGTH_MEASURES = (
    ("mean", "mean"),
    ("median", "median"),
    ("p10", "10th pct"),
    ("p90", "90th pct"),
    ("p99", "99th pct"),
    ("max", "longest"),
)


def count_text(n: int, noun: str) -> str:
    """``"1 deal"``, ``"1,200 deals"``."""
    return f"{fmt_int(n)} {noun}{'' if n == 1 else 's'}"


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
    """A sentence saying the run is incomplete, or ``""`` when it is complete."""
    completed, requested = meta.get("completed_games", n_games), meta.get("games", n_games)
    if meta.get("status", "complete") != "complete" or completed != requested:
        return (
            f" The run is incomplete ({meta.get('status', 'unknown status')}): "
            f"{fmt_int(completed)} of {fmt_int(requested)} deals were played."
        )
    return ""


def length_table(summaries: Sequence[tuple[str, Mapping[str, float]]]) -> Table:
    """One row per ``(unit, summary)``, the summary from :func:`analysis.stats.length_summary`."""
    rows = [
        [unit, *(fmt_num(summary[key]) for key, _ in LENGTH_MEASURES)]
        for unit, summary in summaries
    ]
    return Table(["", *(label for _, label in LENGTH_MEASURES)], rows, "l" + "r" * 6)


def win_table(shares: pd.DataFrame) -> Table:
    """Seat, wins, share and 95% CI per row of :func:`analysis.stats.win_shares`."""
    rows = [
        [row.label, fmt_int(row.wins), fmt_pct(row.share, 2), fmt_ci(row.lo, row.hi, 2)]
        for row in shares.itertuples()
    ]
    return Table(["seat", "wins", "share", "95% CI"], rows, "lrrr")


def end_table(reasons: pd.DataFrame, meanings: Mapping[str, str]) -> Table:
    """End reason (as code), its meaning, deals and share per row of
    :func:`analysis.stats.end_reasons`."""
    rows = [
        [reason, meanings.get(reason, ""), fmt_int(row["count"]), fmt_pct(row["share"], 2)]
        for reason, row in reasons.iterrows()
    ]
    return Table(["end", "meaning", "deals", "share"], rows, "llrr", frozenset({0}))
