"""The report of a comparison of runs (a study, or ``cardsim compare DIR DIR ...``):
``report.html``, ``report.md``, ``charts/`` and ``comparison.csv`` in one folder.

Runs are compared with a base variant: they must be of one game family (Beggar-My-
Neighbour, or the shedding games); runs with different numbers of players are compared
within each player count, each count against its own base (the ``base`` run where it has
that count, else its first run). The statistics are those of :mod:`analysis.comparison`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from analysis import compare_plots
from analysis.comparison import ALPHA, TESTS, Variant, comparison_table, summarize
from analysis.describe import (
    fmt_int,
    fmt_num,
    fmt_pct,
    fmt_points,
    fmt_range,
    fmt_share_pm,
    fmt_wilson,
    game_name,
    players_adjective,
    rules_label,
)
from analysis.document import Block, Chart, Heading, Paragraph, Table
from analysis.errors import ReportError
from analysis.load import open_run
from analysis.output import write_document
from analysis.sections import BOOTSTRAP_NOTE, count_text
from analysis.stats import win_share_table
from analysis.tally import lead_column

#: Longest rules text put in a chart title; beyond it the title points to the table.
_TITLE_RULES_CHARS = 140


def write_comparison(
    run_dirs: Sequence[str | Path],
    out_dir: str | Path,
    names: Sequence[str] | None = None,
    base: int = 0,
    title: str | None = None,
) -> tuple[Path, Path]:
    """Compare the runs in ``run_dirs`` and write ``report.html``, ``report.md``,
    ``charts/*.png|svg`` and ``comparison.csv`` (the side-by-side table, one row per run)
    into ``out_dir`` (created if missing; each file written under a temporary name and
    renamed). ``names`` label the runs (default: the folders' names), ``base`` is the
    index of the base variant, ``title`` the report's heading (default: made from the
    game and players). Returns ``(html_path, markdown_path)``; raises :class:`ReportError`
    with a one-line message when the runs cannot be read or compared."""
    variants, bases = _variants(run_dirs, names, base)
    table = comparison_table(variants, bases)
    blocks, figures = build_comparison(variants, bases, table, title)
    out = Path(out_dir)
    csv = table.to_csv(index=False, float_format="%.10g").encode("utf-8")
    page_title = title or "cardsim comparison"
    return write_document(out, blocks, figures, page_title, {"comparison.csv": csv})


def _variants(
    run_dirs: Sequence[str | Path], names: Sequence[str] | None, base: int
) -> tuple[list[Variant], dict[int, int]]:
    dirs = [Path(d) for d in run_dirs]
    if len(dirs) < 2:
        raise ReportError(f"a comparison needs at least two run folders, got {len(dirs)}")
    if names is None:
        names = [d.name for d in dirs]
        if len(set(names)) < len(names):
            names = [str(d) for d in dirs]
    names = [str(n) for n in names]
    if len(names) != len(dirs):
        raise ReportError(f"got {len(names)} names for {len(dirs)} run folders; give one per run")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ReportError(f"variant name {repeated[0]!r} is given twice; names must differ")
    if not 0 <= base < len(dirs):
        raise ReportError(f"base {base} is not a run index: use 0 to {len(dirs) - 1}")
    runs = [open_run(d) for d in dirs]
    for run in runs:
        if run.family != runs[base].family:
            raise ReportError(
                f"{run.path}: {game_name(run.meta['game'])} cannot be compared with "
                f"{runs[base].path} ({game_name(runs[base].meta['game'])}); compare runs of "
                "one game family (Beggar-My-Neighbour, or the shedding games)"
            )
    bases: dict[int, int] = {}
    for i, run in enumerate(runs):
        bases.setdefault(run.players, i)
    bases[runs[base].players] = base
    return [summarize(run, name) for run, name in zip(runs, names, strict=True)], bases


def build_comparison(
    variants: list[Variant], bases: dict[int, int], table: pd.DataFrame, title: str | None
) -> tuple[list[Block], dict[str, Figure]]:
    """The comparison report's blocks and charts (chart name → Figure): a summary, the
    variants, then per player count the side-by-side table, the differences with their
    tests, and the charts; then the methods."""
    games = " / ".join(dict.fromkeys(game_name(v.run.meta["game"]) for v in variants))
    counts = sorted(bases)
    players_text = " and ".join(f"{p}" for p in counts) + " players"
    heading = title or f"Comparison · {games} · {players_text} · {len(variants)} runs"
    blocks: list[Block] = [Heading(heading, 1)]
    figures: dict[str, Figure] = {}
    for players in counts:
        blocks.append(Paragraph(_summary(variants, table, players)))
    blocks += _variants_section(variants, bases)
    for players in counts:
        group_blocks, group_figures = _group_section(variants, table, players, len(counts) > 1)
        blocks += group_blocks
        figures |= group_figures
    blocks += _methods(variants, table)
    return blocks, figures


def _group(variants: list[Variant], table: pd.DataFrame, players: int):
    rows = table[table["players"] == players]
    members = [v for v in variants if v.players == players]
    return rows, members


def _summary(variants: list[Variant], table: pd.DataFrame, players: int) -> str:
    rows, members = _group(variants, table, players)
    base = rows[rows["is_base"]].iloc[0]
    base_variant = next(v for v in members if v.name == base["variant"])
    unit = base["length_unit"]
    game = game_name(base_variant.run.meta["game"])
    text = (
        f"In {players}-player {game} the first seat wins "
        f"{fmt_share_pm(base['first_share'], base['first_lo'], base['first_hi'])} of deals "
        f"under {base['variant']} ({rules_label(base_variant.run.meta)}; "
        f"{count_text(int(base['games']), 'deal')}), and deals last "
        f"{fmt_num(base['mean_length'])} {unit} on average (95% CI "
        f"{fmt_range(base['mean_lo'], base['mean_hi'])})"
    )
    if not math.isnan(base.get("match_share", math.nan)):
        text += (
            f"; seat 0 wins {fmt_share_pm(base['match_share'], base['match_lo'], base['match_hi'])}"
            " of the matches"
        )
    text += "."
    others = rows[~rows["is_base"]]
    if others.empty:
        return text + f" No other run has {players} players to compare with."
    for row, variant in zip(
        others.itertuples(), [v for v in members if v.name != base["variant"]], strict=True
    ):
        text += (
            f" Under {row.variant} ({rules_label(variant.run.meta)}) the first seat wins "
            f"{fmt_share_pm(row.first_share, row.first_lo, row.first_hi)} "
            f"({fmt_points(row.first_diff)}, 95% CI {fmt_points(row.first_diff_lo)} to "
            f"{fmt_points(row.first_diff_hi)}; {_verdict(row.first_p_holm)}) and deals last "
            f"{fmt_num(row.mean_length)} {unit} ({_signed(row.length_diff)} {unit}, 95% CI "
            f"{_signed(row.length_diff_lo)} to {_signed(row.length_diff_hi)}; "
            f"{_verdict(row.length_p_holm)})"
        )
        if not math.isnan(getattr(row, "match_p", math.nan)):
            text += (
                f"; seat 0 wins {fmt_share_pm(row.match_share, row.match_lo, row.match_hi)} of "
                f"the matches ({fmt_points(row.match_diff)}, 95% CI "
                f"{fmt_points(row.match_diff_lo)} to {fmt_points(row.match_diff_hi)}; "
                f"{_verdict(row.match_p_holm)})"
            )
        text += "."
    return text


def _signed(value: float) -> str:
    return "–" if math.isnan(value) else f"{value:+,.1f}"


def _verdict(p_holm: float) -> str:
    if math.isnan(p_holm):
        return "not tested"
    word = "significant" if p_holm < ALPHA else "not significant"
    return f"{word}, Holm-adjusted p {_fmt_p(p_holm)}"


def _fmt_p(p: float) -> str:
    """``= 0.012``, ``< 0.001``; an en dash for NaN."""
    if math.isnan(p):
        return "–"
    return "< 0.001" if p < 0.001 else f"= {p:.3f}"


def _variants_section(variants: list[Variant], bases: dict[int, int]) -> list[Block]:
    base_names = {variants[i].name for i in bases.values()}
    rows = []
    for v in variants:
        meta = v.run.meta
        status = meta.get("status", "complete")
        rows.append(
            [
                v.name + (" (base)" if v.name in base_names else ""),
                str(v.run.path),
                game_name(meta["game"]),
                str(v.players),
                rules_label(meta),
                fmt_int(v.n),
                str(meta.get("seed", "–")),
                status,
            ]
        )
    return [
        Heading("Variants"),
        Table(
            ["variant", "folder", "game", "players", "rules", "deals", "seed", "status"],
            rows,
            "lllrlrrl",
            frozenset({1}),
        ),
    ]


def _group_title(members: list[Variant], players: int) -> str:
    """Chart title: games, players, deals per variant and each variant's non-default rules."""
    games = " / ".join(dict.fromkeys(game_name(v.run.meta["game"]) for v in members))
    ns = sorted({v.n for v in members})
    deals = (
        f"{fmt_int(ns[0])} deals each"
        if len(ns) == 1
        else f"{fmt_int(ns[0])}–{fmt_int(ns[-1])} deals per variant"
    )
    rules = "; ".join(f"{v.name}: {rules_label(v.run.meta)}" for v in members)
    if len(rules) > _TITLE_RULES_CHARS:
        rules = "rules per variant in the report's table"
    return " · ".join([games, f"{players} players", deals, rules])


def _group_section(
    variants: list[Variant], table: pd.DataFrame, players: int, suffix: bool
) -> tuple[list[Block], dict[str, Figure]]:
    rows, members = _group(variants, table, players)
    tag = f"_{players}p"
    unit = rows["length_unit"].iloc[0]
    title = _group_title(members, players)
    position = any(lead_column(v.run) is not None for v in members)
    figures = {
        f"forest{tag}": compare_plots.forest_chart(rows, title, unit),
        f"win_share{tag}": compare_plots.variants_win_share_chart(
            [(v.name, win_share_table(v.first)) for v in members], title, position
        ),
        f"survival{tag}": compare_plots.survival_curves(
            [(v.name, v.length) for v in members], title, unit
        ),
    }
    if len(rows) < 2:
        del figures[f"forest{tag}"]
    heading = f"{players_adjective(players).capitalize()} runs" if suffix else "Results"
    side = [
        [
            row.variant + (" (base)" if row.is_base else ""),
            fmt_int(row.games),
            fmt_pct(row.first_share, 2),
            fmt_wilson(row.first_lo, row.first_hi),
            fmt_points(row.advantage),
            fmt_pct(row.no_winner_share, 2),
            fmt_num(row.mean_length, 2),
            fmt_range(row.mean_lo, row.mean_hi, 2),
            fmt_num(row.median_length),
        ]
        for row in rows.itertuples()
    ]
    reasons = [c for c in rows.columns if c.startswith("end_") and rows[c].notna().any()]
    end_rows = [
        [row["variant"], *(fmt_pct(row[c], 2) if not math.isnan(row[c]) else "–" for c in reasons)]
        for _, row in rows.iterrows()
    ]
    blocks: list[Block] = [
        Heading(heading),
        Paragraph(
            "Headline figures side by side. The first seat is "
            + (
                "the one that took the first turn of the deal (seat 0 unless the lead rotates "
                "in matches or is drawn)"
                if position
                else "seat 0"
            )
            + f"; its advantage is its share minus 1/{players}. Lengths are in {unit}"
            + (" over the deals that end" if unit == "cards" else "")
            + "; the mean's interval is a bootstrap one."
        ),
        Table(
            [
                "variant",
                "deals",
                "first seat",
                "95% CI",
                "advantage",
                "no winner",
                f"mean {unit}",
                "95% CI",
                "median",
            ],
            side,
            "lrrrrrrrr",
        ),
        Paragraph("End reasons, as shares of each run's deals:"),
        Table(["variant", *(c[4:] for c in reasons)], end_rows, "l" + "r" * len(reasons)),
        *_score_blocks(rows, players),
        *_match_blocks(rows),
    ]
    others = rows[~rows["is_base"]]
    if others.empty:
        blocks.append(Paragraph(f"No other run has {players} players: nothing to compare."))
    else:
        blocks += _difference_blocks(others, unit, tag)
    blocks += [
        Chart(
            f"win_share{tag}",
            "Win share by seat for every variant, with 95% Wilson intervals",
        ),
        Chart(f"survival{tag}", f"Survival curves of the length in {unit}, log scale"),
    ]
    return blocks, figures


def _score_blocks(rows: pd.DataFrame, players: int) -> list[Block]:
    columns = [f"mean_score_{s}" for s in range(players)]
    if not all(c in rows and rows[c].notna().all() for c in columns):
        return []
    table = [[row["variant"], *(fmt_num(row[c]) for c in columns)] for _, row in rows.iterrows()]
    return [
        Paragraph("Mean score per deal by seat (each run's `scoring`):"),
        Table(["variant", *(f"seat {s}" for s in range(players))], table, "l" + "r" * players),
    ]


def _match_blocks(rows: pd.DataFrame) -> list[Block]:
    if "match_share" not in rows or rows["match_share"].isna().all():
        return []
    table = [
        [
            row["variant"],
            "–" if math.isnan(row["match_share"]) else fmt_int(row["matches"]),
            fmt_pct(row["match_share"], 2),
            fmt_wilson(row["match_lo"], row["match_hi"]),
        ]
        for _, row in rows.iterrows()
    ]
    return [
        Paragraph(
            "Seat 0's share of the match wins (it leads the first deal of each match; tied "
            "winners share a win), with 95% Wilson intervals:"
        ),
        Table(["variant", "matches", "seat 0's match wins", "95% CI"], table, "lrrr"),
    ]


def _difference_blocks(others: pd.DataFrame, unit: str, tag: str) -> list[Block]:
    rows = []
    for row in others.itertuples():
        for key, figure, test in TESTS:
            if key == "match" and math.isnan(getattr(row, "match_p", math.nan)):
                continue  # not match runs
            if key in ("first", "match"):
                diff = fmt_points(getattr(row, f"{key}_diff"))
                ci = (
                    f"{fmt_points(getattr(row, f'{key}_diff_lo'))} to "
                    f"{fmt_points(getattr(row, f'{key}_diff_hi'))}"
                )
            elif key == "length":
                diff = f"{_signed(row.length_diff)} {unit}"
                ci = f"{_signed(row.length_diff_lo)} to {_signed(row.length_diff_hi)}"
            else:
                diff, ci = "", ""
            p_holm = getattr(row, f"{key}_p_holm")
            significant = getattr(row, f"{key}_significant")
            rows.append(
                [
                    f"{row.variant} vs {row.base}",
                    figure,
                    diff,
                    ci,
                    test,
                    _p_text(getattr(row, f"{key}_p")),
                    _p_text(p_holm),
                    "–" if significant is None else ("yes" if significant else "no"),
                ]
            )
    return [
        Paragraph(
            "Differences to the base (variant minus base) with 95% intervals, the test of "
            "each, its p-value and the p-value adjusted by Holm's method over every test "
            f"of this comparison; significant means adjusted p < {ALPHA:g}."
        ),
        Table(
            ["variants", "figure", "difference", "95% CI", "test", "p", "Holm p", "significant"],
            rows,
            "lllllrrl",
        ),
        Chart(
            f"forest{tag}",
            "Forest plot: differences to the base with 95% intervals; filled markers are "
            "significant after Holm's correction",
        ),
    ]


def _p_text(p: float) -> str:
    if p is None or math.isnan(p):
        return "–"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def _methods(variants: list[Variant], table: pd.DataFrame) -> list[Block]:
    tests = int(table[[f"{key}_p_holm" for key, _, _ in TESTS]].notna().to_numpy().sum())
    seeds = {v.run.meta.get("seed") for v in variants}
    shared = (
        " The runs share their seed, so game i of each is played from the same random stream "
        "(common random numbers): where the variants deal alike they start from the same "
        "deals. The tests and intervals treat the runs as independent samples, which is "
        "conservative for such positively correlated runs: the intervals are if anything "
        "too wide."
        if len(seeds) == 1 and None not in seeds
        else ""
    )
    matches = (
        " Seat 0's match win share (ties counting their fraction) is compared like the "
        "first seat's share."
        if "match_p" in table and table["match_p"].notna().any()
        else ""
    )
    return [
        Heading("Methods"),
        Paragraph(
            "Win shares are of all deals with 95% Wilson score intervals. The first seat's "
            "share is compared with the base by a pooled two-proportion z-test, its "
            "difference given with Newcombe's hybrid score interval; the shares of all seats "
            "(no winner included) and the end reasons by chi-squared tests of homogeneity "
            "(no continuity correction). Mean lengths are compared by the Mann-Whitney U test "
            "(normal approximation with tie and continuity corrections, computed exactly from "
            "the counts per length, so every game counts however large the run) and their "
            f"difference given with a bootstrap interval. {BOOTSTRAP_NOTE}{matches} The {tests} "
            "tests form one family, adjusted by Holm's step-down method so that the chance of "
            f"any false positive among them stays under {ALPHA:.0%}.{shared}"
        ),
    ]
