"""The report of a comparison of runs (a study, or ``cardsim compare DIR DIR ...``):
``report.html``, ``report.md``, ``charts/`` and ``comparison.csv`` in one folder.

This module writes the report: its words, tables and layout. The numbers it shows come
from :mod:`analysis.comparisons.variants`, its charts from :mod:`analysis.comparisons.charts`.

Runs are compared with a base variant: they must be of one game family (Beggar-My-
Neighbour, or the shedding games); runs with different numbers of players are compared
within each player count, each count against its own base (the ``base`` run where it has
that count, else its first run). The statistics are those of :mod:`analysis.comparisons.variants`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from analysis.comparisons import charts
from analysis.comparisons.variants import (
    ALPHA,
    INDEPENDENT,
    PAIRED,
    TESTS,
    Variant,
    comparison_table,
    summarize,
)
from analysis.errors import ReportError
from analysis.load import open_run
from analysis.rendering.document import Block, Chart, Heading, Paragraph, Table
from analysis.rendering.output import chart_dpi, chart_formats, write_document
from analysis.rendering.words import (
    fmt_int,
    fmt_num,
    fmt_pct,
    fmt_points,
    fmt_quantity,
    fmt_range,
    fmt_share_pm,
    fmt_signed,
    fmt_wilson,
    game_name,
    players_adjective,
    rules_label,
    singular,
)
from analysis.reports.common import BOOTSTRAP_NOTE, count_text
from analysis.statistics.stats import win_share_table
from analysis.statistics.tally import lead_column

#: Longest rules text put in a chart title; beyond it the title points to the table.
_TITLE_RULES_CHARS = 140


def write_comparison(
    run_dirs: Sequence[str | Path],
    out_dir: str | Path,
    names: Sequence[str] | None = None,
    base: int = 0,
    title: str | None = None,
    *,
    dpi: int | None = None,
    formats: str | Sequence[str] | None = None,
) -> tuple[Path, Path]:
    """Compare the runs in ``run_dirs`` and write ``report.html``, ``report.md``,
    ``charts/*.png|svg|pdf`` and ``comparison.csv`` (the side-by-side table, one row per run)
    into ``out_dir`` (created if missing; each file written under a temporary name and
    renamed). ``names`` label the runs (default: the folders' names), ``base`` is the
    index of the base variant, ``title`` the report's heading (default: made from the
    game and players). The charts are written as PNG at ``dpi`` (default 200) and in each
    of ``formats`` (default png, svg, pdf), both checked first
    (:func:`analysis.rendering.output.write_document`). Returns ``(html_path,
    markdown_path)``; raises :class:`ReportError` with a one-line message when the runs
    cannot be read or compared."""
    dpi, formats = chart_dpi(dpi), chart_formats(formats)
    variants, bases = _variants(run_dirs, names, base)
    table = comparison_table(variants, bases)
    blocks, figures = build_comparison(variants, bases, table, title)
    out = Path(out_dir)
    csv = table.to_csv(index=False, float_format="%.10g").encode("utf-8")
    page_title = title or "cardsim comparison"
    return write_document(
        out, blocks, figures, page_title, {"comparison.csv": csv}, dpi=dpi, formats=formats
    )


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
        if run.spec is not runs[base].spec:
            raise ReportError(
                f"{run.path}: {game_name(run.meta['game'])} cannot be compared with "
                f"{runs[base].path} ({game_name(runs[base].meta['game'])}); compare runs of "
                "one game (its presets may differ)"
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
        f"{fmt_quantity(base['mean_length'], singular(unit))} on average (95% CI "
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
        first_diff, first_ci = _difference(row, "first", unit)
        length_diff, length_ci = _difference(row, "length", unit)
        text += (
            f" Under {row.variant} ({rules_label(variant.run.meta)}) the first seat wins "
            f"{fmt_share_pm(row.first_share, row.first_lo, row.first_hi)} "
            f"({first_diff}, {_ci_words(row, 'first')} {first_ci}; "
            f"{_verdict(row.first_p_holm)}) and deals last "
            f"{fmt_quantity(row.mean_length, singular(unit))} ({length_diff}, "
            f"{_ci_words(row, 'length')} "
            f"{length_ci}; {_verdict(row.length_p_holm)})"
        )
        if not math.isnan(getattr(row, "match_p", math.nan)):
            match_diff, match_ci = _difference(row, "match", unit)
            text += (
                f"; seat 0 wins {fmt_share_pm(row.match_share, row.match_lo, row.match_hi)} of "
                f"the matches ({match_diff}, {_ci_words(row, 'match')} {match_ci}; "
                f"{_verdict(row.match_p_holm)})"
            )
        text += "."
    return text


def _ci_words(row, key: str) -> str:
    """The words before an interval: "paired 95% CI" for paired samples, else "95% CI"."""
    return "paired 95% CI" if getattr(row, f"{key}_analysis", None) == PAIRED else "95% CI"


def _half_digits(half: float) -> int:
    """Decimals that show a half-width to one significant digit: 1 to 4."""
    return 1 if not half > 0 else max(1, min(4, -math.floor(math.log10(half))))


def _difference(row, key: str, unit: str) -> tuple[str, str]:
    """The difference ``key`` of ``row`` and its interval as text, with decimals that show
    the interval's half-width: ``("+0.31 pts", "+0.12 pts to +0.50 pts")`` for shares,
    ``("-0.31 turns", "-0.36 to -0.26")`` for lengths."""
    diff = getattr(row, f"{key}_diff")
    lo, hi = getattr(row, f"{key}_diff_lo"), getattr(row, f"{key}_diff_hi")
    if key == "length":
        digits = _half_digits((hi - lo) / 2)
        diff_text, lo_text, hi_text = (fmt_signed(v, digits) for v in (diff, lo, hi))
        return f"{diff_text} {unit}", f"{lo_text} to {hi_text}"
    digits = _half_digits(100 * (hi - lo) / 2)
    return fmt_points(diff, digits), f"{fmt_points(lo, digits)} to {fmt_points(hi, digits)}"


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
        f"{count_text(ns[0], 'deal')} each"
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
        f"forest{tag}": charts.forest_chart(rows, title, unit),
        f"win_share{tag}": charts.variants_win_share_chart(
            [(v.name, win_share_table(v.first)) for v in members], title, position
        ),
        f"survival{tag}": charts.survival_curves(
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
        *_coincide_blocks(members),
        Chart(f"survival{tag}", f"Survival curves of the length in {unit}, log scale"),
    ]
    return blocks, figures


def _coincide_blocks(members: list[Variant]) -> list[Block]:
    """A note naming the survival curves that coincide on the chart, drawn as one line."""
    groups = charts.coinciding_curves([(v.name, v.length) for v in members])
    if not groups:
        return []
    notes = "; ".join(charts.coincide_text(group) for group in groups)
    drawn = "they are drawn as one line" if len(groups) == 1 else "each group is one line"
    return [
        Paragraph(
            f"Survival curves: {notes} on the chart (within a line's width at every "
            f"length), so {drawn}; their differences are in the tables above."
        )
    ]


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


#: How each difference was computed, as the report says it.
ANALYSIS_WORDS = {
    PAIRED: "paired: the same deals in both runs",
    "paired_match": "paired: the same matches in both runs",
    INDEPENDENT: "independent samples",
}


def _analysis_text(row, key: str) -> str:
    if getattr(row, f"{key}_analysis") != PAIRED:
        return ANALYSIS_WORDS[INDEPENDENT]
    return ANALYSIS_WORDS["paired_match" if key == "match" else PAIRED]


def _difference_blocks(others: pd.DataFrame, unit: str, tag: str) -> list[Block]:
    rows = []
    for row in others.itertuples():
        for key, figure, _, _ in TESTS:
            if key == "match" and math.isnan(getattr(row, "match_p", math.nan)):
                continue  # not match runs
            diff, ci = (
                _difference(row, key, unit) if key in ("first", "length", "match") else ("", "")
            )
            significant = getattr(row, f"{key}_significant")
            rows.append(
                [
                    f"{row.variant} vs {row.base}",
                    figure,
                    diff,
                    ci,
                    _analysis_text(row, key),
                    getattr(row, f"{key}_test"),
                    _p_text(getattr(row, f"{key}_p")),
                    _p_text(getattr(row, f"{key}_p_holm")),
                    "–" if significant is None else ("yes" if significant else "no"),
                ]
            )
    header = ["variants", "figure", "difference", "95% CI", "analysis", "test", "p", "Holm p"]
    return [
        Paragraph(
            "Differences to the base (variant minus base) with 95% intervals, the analysis "
            "(paired where the variant played the base's deals, see Methods), the test of "
            "each, its p-value and the p-value adjusted by Holm's method over every test "
            f"of this comparison; significant means adjusted p < {ALPHA:g}."
        ),
        Table([*header, "significant"], rows, "llllllrrl"),
        *(Paragraph(_pairing_text(row, unit)) for row in others.itertuples()),
        Chart(
            f"forest{tag}",
            "Forest plot: differences to the base with 95% intervals (paired ones marked); "
            "filled markers are significant after Holm's correction",
        ),
    ]


def _pairing_text(row, unit: str) -> str:
    """What pairing did for one variant: the half-widths of its paired intervals against
    those of independent samples, or why the runs were compared as independent samples."""
    names = f"{row.variant} and {row.base}"
    if row.first_analysis != PAIRED and getattr(row, "match_analysis", None) != PAIRED:
        return f"{names} are compared as independent samples: {row.pairing_note}."
    parts = []
    for key, figure, _, _ in TESTS:
        if getattr(row, f"{key}_analysis", None) != PAIRED:
            continue
        half = (getattr(row, f"{key}_diff_hi") - getattr(row, f"{key}_diff_lo")) / 2
        half_ind = (getattr(row, f"{key}_ind_hi") - getattr(row, f"{key}_ind_lo")) / 2
        if key == "length":
            digits = _half_digits(half)
            widths = f"±{half:,.{digits}f} {unit} against ±{half_ind:,.{digits}f}"
        else:
            digits = _half_digits(100 * half)
            widths = f"±{100 * half:.{digits}f} pts against ±{100 * half_ind:.{digits}f} pts"
        parts.append(f"{figure} {widths}")
    counts = []
    if row.first_analysis == PAIRED:
        counts.append(count_text(int(row.pairs), "pair") + " of deals")
    if getattr(row, "match_analysis", None) == PAIRED:
        pairs = int(row.match_pairs)
        # "1,000 pairs of deals, 250 of matches", or "250 pairs of matches" alone.
        counts.append((fmt_int(pairs) if counts else count_text(pairs, "pair")) + " of matches")
    text = (
        f"Half-widths of the 95% intervals of {row.variant} against {row.base}, paired "
        f"({', '.join(counts)}) against independent samples: {'; '.join(parts)}."
    )
    if row.first_analysis != PAIRED:
        text += f" The deals are compared as independent samples: {row.pairing_note}."
    return text


def _p_text(p: float) -> str:
    if p is None or math.isnan(p):
        return "–"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def _methods(variants: list[Variant], table: pd.DataFrame) -> list[Block]:
    tests = int(table[[f"{key}_p_holm" for key, *_ in TESTS]].notna().to_numpy().sum())
    others = table[~table["is_base"]]
    paired = others.get("first_analysis", pd.Series(dtype=object)).eq(PAIRED)
    paired_matches = others.get("match_analysis", pd.Series(dtype=object)).eq(PAIRED)
    matches = (
        " Seat 0's match win share (ties counting their fraction) is compared like the "
        "first seat's share."
        if "match_p" in table and table["match_p"].notna().any()
        else ""
    )
    independent = (
        "Independent samples: the first seat's share is compared with the base by a pooled "
        "two-proportion z-test, its difference given with Newcombe's hybrid score interval; "
        "mean lengths by the Mann-Whitney U test (normal approximation with tie and "
        "continuity corrections, computed exactly from the counts per length, so every game "
        "counts however large the run), their difference given with a bootstrap interval. "
        f"{BOOTSTRAP_NOTE}{matches}"
    )
    pairing = (
        " Paired samples (common random numbers): game i of a run is played from the random "
        "stream (seed, i), deal k of match m from (seed, m, k), so a variant with its base's "
        "seed, player count, decks and hand size starts each deal from the same cards as the "
        "base, and the two runs' deals form pairs, matched by their index (game, or match and "
        "deal) and read from both files in step. Where a variant and its base have the same "
        "deals, the first seat's share is compared by McNemar's test (asymptotic, without "
        "continuity correction, on the pairs that one run's first seat won and the other's "
        "lost), its difference given with Newcombe's square-and-add interval for paired data "
        "(his method 10, the Wilson intervals of both shares combined with the pairs' "
        "continuity-corrected phi correlation); the mean length by the mean of the paired "
        "differences with its t interval and the Wilcoxon signed-rank test (zero differences "
        "dropped, mid-ranks for ties, normal approximation, computed exactly from the counts "
        "per difference)"
        + (", over the pairs in which both deals end" if variants[0].run.spec.unended else "")
        + (
            "; seat 0's match win share, over the matches paired by index, by the paired "
            "t-test and its interval"
            if paired_matches.any()
            else ""
        )
        + ". Pairing removes the luck of the deal from the differences, so the intervals are "
        "narrower than those of independent samples (both are given below each comparison). "
        "The shares of all seats and the end reasons are still tested as independent "
        "samples, which is conservative for paired runs."
        if paired.any() or paired_matches.any()
        else ""
    )
    unpaired = (
        " Comparisons whose runs do not hold the same deals (each says why) are of "
        "independent samples."
        if len(paired) and not paired.all()
        else ""
    )
    return [
        Heading("Methods"),
        Paragraph(
            "Win shares are of all deals with 95% Wilson score intervals. The shares of all "
            "seats (no winner included) and the end reasons are compared with the base by "
            "chi-squared tests of homogeneity (no continuity correction). "
            f"{independent}{pairing}{unpaired} The {tests} tests form one family, adjusted "
            "by Holm's step-down method so that the chance of any false positive among them "
            f"stays under {ALPHA:.0%}, each with the p-value of the analysis used."
        ),
    ]
