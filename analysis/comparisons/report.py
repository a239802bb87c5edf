"""The report of a comparison of runs (a study, or ``cardsim compare DIR DIR ...``):
``report.html``, ``report.md``, ``charts/`` and ``comparison.csv`` in one folder.

This module writes the report: its words, tables and layout. The numbers it shows come
from :mod:`analysis.comparisons.variants`, its charts from :mod:`analysis.comparisons.charts`.

Runs are compared with a base variant: they must be of one game family (Beggar-My-
Neighbour, or the shedding games); runs with different numbers of players are compared
within each player count, each count against its own base (the ``base`` run where it has
that count, else its first run). The statistics are those of :mod:`analysis.comparisons.variants`;
the report opens with the verdict in plain words of :mod:`analysis.comparisons.verdict`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from analysis.comparisons import charts
from analysis.comparisons.settings import setting_cells
from analysis.comparisons.variants import (
    ALPHA,
    INDEPENDENT,
    PAIRED,
    TESTS,
    Variant,
    comparison_table,
    pairs_matches,
    summarize,
    table_tests,
)
from analysis.comparisons.verdict import Thresholds, add_verdicts, thresholds, verdict_blocks
from analysis.errors import ReportError
from analysis.load import open_run
from analysis.rendering.document import Block, Chart, Heading, Paragraph, Table
from analysis.rendering.output import chart_dpi, chart_formats, write_document
from analysis.rendering.words import (
    fmt_int,
    fmt_num,
    fmt_p,
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
from simulate.runs.folder.batch import lead_column

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
    negligible_share: float | str | None = None,
    negligible_change: float | str | None = None,
) -> tuple[Path, Path]:
    """Compare the runs in ``run_dirs`` and write ``report.html``, ``report.md``,
    ``charts/*.png|svg|pdf`` and ``comparison.csv`` (the side-by-side table, one row per run)
    into ``out_dir`` (created if missing; each file written under a temporary name and
    renamed). ``names`` label the runs (default: the folders' names), ``base`` is the
    index of the base variant, ``title`` the report's heading (default: made from the
    game and players). The charts are written as PNG at ``dpi`` (default 200) and in each
    of ``formats`` (default png, svg, pdf), both checked first
    (:func:`analysis.rendering.output.write_document`). ``negligible_share`` (percentage
    points of a share, default 0.5) and ``negligible_change`` (percent of a mean, default
    2) are the verdict's practical thresholds (:mod:`analysis.comparisons.verdict`),
    checked first too. Returns ``(html_path, markdown_path)``; raises :class:`ReportError`
    with a one-line message when the runs cannot be read or compared."""
    dpi, formats = chart_dpi(dpi), chart_formats(formats)
    limits = thresholds(negligible_share, negligible_change)
    variants, bases, table = compare_runs(run_dirs, names, base, limits=limits)
    blocks, figures = build_comparison(variants, bases, table, title)
    out = Path(out_dir)
    csv = table.to_csv(index=False, float_format="%.10g").encode("utf-8")
    page_title = title or "cardsim comparison"
    return write_document(
        out, blocks, figures, page_title, {"comparison.csv": csv}, dpi=dpi, formats=formats
    )


def compare_runs(
    run_dirs: Sequence[str | Path],
    names: Sequence[str] | None = None,
    base: int = 0,
    *,
    limits: Thresholds | None = None,
) -> tuple[list[Variant], dict[int, int], pd.DataFrame]:
    """The runs read and compared, nothing written: ``(variants, bases, table)``, the
    table being :func:`analysis.comparisons.variants.comparison_table`'s with the verdict's
    columns (:func:`analysis.comparisons.verdict.add_verdicts`, at ``limits``, default
    0.5 points and 2%), as ``comparison.csv`` holds it. ``names`` and ``base`` as
    :func:`write_comparison` takes them; raises :class:`ReportError` as it does."""
    variants, bases = _variants(run_dirs, names, base)
    table = add_verdicts(comparison_table(variants, bases), limits or Thresholds())
    return variants, bases, table


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
    variants: list[Variant],
    bases: dict[int, int],
    table: pd.DataFrame,
    title: str | None,
) -> tuple[list[Block], dict[str, Figure]]:
    """The comparison report's blocks and charts (chart name → Figure): the verdict (when
    the table has its columns, as :func:`compare_runs` gives it), a summary, the variants,
    then per player count the side-by-side table, the differences with their tests, and
    the charts; then the methods."""
    games = " / ".join(dict.fromkeys(game_name(v.run.meta["game"]) for v in variants))
    counts = sorted(bases)
    players_text = " and ".join(f"{p}" for p in counts) + " players"
    heading = title or f"Comparison · {games} · {players_text} · {len(variants)} runs"
    blocks: list[Block] = [Heading(heading, 1)]
    if "verdict" in table:
        blocks += verdict_blocks(table)
        blocks.append(Heading("Summary"))
    figures: dict[str, Figure] = {}
    for players in counts:
        blocks.append(Paragraph(_summary(variants, table, players)))
    blocks += _variants_section(variants, bases)
    for players in counts:
        group_blocks, group_figures = _group_section(variants, table, players, len(counts) > 1)
        blocks += group_blocks
        figures |= group_figures
    blocks += _balance_blocks(variants, counts)
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


def _mean_unit(key: str, unit: str) -> str | None:
    """The unit of the difference ``key`` when it is one of means (``unit``: the length's),
    else None (a share)."""
    if key == "length":
        return unit
    if key == "deals":
        return "deals"
    if key.startswith(("score", "total_")):
        return "points"
    return None


def _difference(row, key: str, unit: str) -> tuple[str, str]:
    """The difference ``key`` of ``row`` and its interval as text, with decimals that show
    the interval's half-width: ``("+0.31 pts", "+0.12 pts to +0.50 pts")`` for shares,
    ``("-0.31 turns", "-0.36 to -0.26")`` for lengths (and scores, deals per match, match
    totals, each in its unit)."""
    diff = getattr(row, f"{key}_diff")
    lo, hi = getattr(row, f"{key}_diff_lo"), getattr(row, f"{key}_diff_hi")
    mean_unit = _mean_unit(key, unit)
    if mean_unit is not None:
        digits = _half_digits((hi - lo) / 2)
        diff_text, lo_text, hi_text = (fmt_signed(v, digits) for v in (diff, lo, hi))
        return f"{diff_text} {mean_unit}", f"{lo_text} to {hi_text}"
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
    """The variants table: each run's folder, game, players, rules, deals, seed (marked
    "unpaired" where it is not its base's) and status; then its strategies, seating, records
    kept and version wherever two runs differ in them
    (:func:`analysis.comparisons.settings.setting_cells`)."""
    base_names = {variants[i].name for i in bases.values()}
    settings = [setting_cells(v.run.meta, v.run.spec) for v in variants]
    shown = [k for k in settings[0] if len({cells[k] for cells in settings}) > 1]
    rows = []
    for v, cells in zip(variants, settings, strict=True):
        meta = v.run.meta
        base = variants[bases[v.players]]
        seed = str(meta.get("seed", "–"))
        if v is not base and meta.get("seed") != base.run.meta.get("seed"):
            seed += " (unpaired)"
        rows.append(
            [
                v.name + (" (base)" if v.name in base_names else ""),
                str(v.run.path),
                game_name(meta["game"]),
                str(v.players),
                rules_label(meta),
                fmt_int(v.n),
                seed,
                meta.get("status", "complete"),
                *(cells[k] for k in shown),
            ]
        )
    return [
        Heading("Variants"),
        Table(
            ["variant", "folder", "game", "players", "rules", "deals", "seed", "status", *shown],
            rows,
            "lllrlrrl" + "l" * len(shown),
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


def _mean_ci(row: pd.Series, column: str) -> list[str]:
    """A mean and its 95% interval as two cells, the mean with the interval's decimals."""
    mean, lo, hi = row.get(column, math.nan), row.get(f"{column}_lo"), row.get(f"{column}_hi")
    if mean is None or math.isnan(mean):
        return ["–", "–"]
    digits = _half_digits((hi - lo) / 2) if hi > lo else 1
    return [f"{mean:,.{digits}f}", fmt_range(lo, hi, digits)]


def _score_blocks(rows: pd.DataFrame, players: int) -> list[Block]:
    columns = [f"mean_score_{s}" for s in range(players)]
    if not all(c in rows and rows[c].notna().all() for c in columns):
        return []
    pooled = ["mean_score"] if "mean_score" in rows and rows["mean_score"].notna().all() else []
    table = [
        [row["variant"], *(cell for c in [*pooled, *columns] for cell in _mean_ci(row, c))]
        for _, row in rows.iterrows()
    ]
    header = [*(["per seat"] if pooled else []), *(f"seat {s}" for s in range(players))]
    return [
        Paragraph(
            "Mean score per deal (each run's `scoring`): per seat (every seat's score summed "
            "per deal, over the players) and by seat, with 95% bootstrap intervals:"
        ),
        Table(
            ["variant", *(h for name in header for h in (name, "95% CI"))],
            table,
            "l" + "r" * 2 * len(header),
        ),
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
    totals = [c for c in rows.columns if c.startswith("mean_total_") and c[11:].isdigit()]
    means = ["mean_deals", *totals]
    mean_rows = [
        [row["variant"], *(cell for c in means for cell in _mean_ci(row, c))]
        for _, row in rows.iterrows()
    ]
    header = ["deals per match", *(f"seat {c[11:]}'s total" for c in totals)]
    return [
        Paragraph(
            "Seat 0's share of the match wins (it leads the first deal of each match; tied "
            "winners share a win), with 95% Wilson intervals:"
        ),
        Table(["variant", "matches", "seat 0's match wins", "95% CI"], table, "lrrr"),
        Paragraph(
            "Deals per match and each seat's mean match total (the sum of its deal scores), "
            "with 95% bootstrap intervals:"
        ),
        Table(
            ["variant", *(h for name in header for h in (name, "95% CI"))],
            mean_rows,
            "l" + "r" * 2 * len(header),
        ),
    ]


def _balance_blocks(variants: list[Variant], counts: list[int]) -> list[Block]:
    """The "Balance" section: each variant's balance measures (as its run's report gives
    them, :mod:`analysis.balance`) with their 95% intervals, a table per player count
    (rows: measures, columns: variants), then the measures' definitions once."""
    measured = [v for v in variants if v.balance is not None]
    if not measured:
        return []
    from analysis.reports.balance import measure_cells

    text = (
        "The designer's balance measures of each variant, as each run's own report gives "
        "them, with their 95% intervals (`comparison.csv` holds them as `<measure>`, "
        "`<measure>_lo` and `<measure>_hi`)."
    )
    if any(v.balance.match_play for v in measured):
        text += (
            " In match play the win shares (first seat's advantage, seat spread) are of the "
            "matches; the other measures are per deal."
        )
    blocks: list[Block] = [Heading("Balance"), Paragraph(text)]
    definitions: dict[str, str] = {}
    for players in counts:
        members = [v for v in measured if v.players == players]
        if not members:
            continue
        cells = {
            v.name: {row[0]: f"{row[1]} ({row[2]})" for row in _cells(v, measure_cells)}
            for v in members
        }
        names = list(dict.fromkeys(m for v in members for m in v.balance.table.index))
        for v in members:
            definitions |= dict(v.balance.table["definition"])
        if len(counts) > 1:
            blocks.append(Paragraph(f"{players_adjective(players).capitalize()} runs:"))
        blocks.append(
            Table(
                ["measure", *(v.name for v in members)],
                [[name, *(cells[v.name].get(name, "–") for v in members)] for name in names],
                "l" + "r" * len(members),
                frozenset({0}),
            )
        )
        blocks.append(Paragraph(_skill_words(members)))
    blocks.append(
        Table(
            ["measure", "definition"],
            [[name, text] for name, text in definitions.items()],
            "ll",
            frozenset({0}),
        )
    )
    return blocks


def _cells(variant: Variant, measure_cells) -> list[list[str]]:
    return measure_cells(variant.balance.table, variant.balance.length)


def _skill_words(members: list[Variant]) -> str:
    """Where each variant's skill comes from, in one sentence."""
    if not any(v.balance.takes_strategies for v in members):
        return "Skill is 0 by definition: the game has no choices to make."
    parts = []
    for v in members:
        balance = v.balance
        if balance.skill is not None:
            parts.append(f"{v.name}: `{balance.skill}` against `random`")
        elif balance.skill_note:
            parts.append(f"{v.name}: not measured ({balance.skill_note.rstrip('.')})")
        else:
            parts.append(f"{v.name}: not measured (no skill games in its folder)")
    return (
        "Skill is the win share of one seat of a skilled strategy against random opponents, "
        "rotated over the seats on the run's deals, minus 1/n (the run folder's `skill/` "
        f"games): {'; '.join(parts)}."
    )


#: How each difference was computed, as the report says it.
ANALYSIS_WORDS = {
    PAIRED: "paired: the same deals in both runs",
    "paired_match": "paired: the same matches in both runs",
    INDEPENDENT: "independent samples",
}


def _analysis_text(row, key: str) -> str:
    if getattr(row, f"{key}_analysis") != PAIRED:
        return ANALYSIS_WORDS[INDEPENDENT]
    return ANALYSIS_WORDS["paired_match" if pairs_matches(key) else PAIRED]


def _difference_blocks(others: pd.DataFrame, unit: str, tag: str) -> list[Block]:
    rows = []
    tests = table_tests(others)
    for row in others.itertuples():
        for key, figure, _, _ in tests:
            if key not in ("first", "seats", "length", "ends") and math.isnan(
                getattr(row, f"{key}_p", math.nan)
            ):
                continue  # not compared in these runs (no match play, no scores)
            diff, ci = _difference(row, key, unit) if key not in ("seats", "ends") else ("", "")
            significant = getattr(row, f"{key}_significant")
            rows.append(
                [
                    f"{row.variant} vs {row.base}",
                    figure,
                    diff,
                    ci,
                    _analysis_text(row, key),
                    getattr(row, f"{key}_test"),
                    fmt_p(getattr(row, f"{key}_p")),
                    fmt_p(getattr(row, f"{key}_p_holm")),
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


#: The tests of scores and matches whose half-widths :func:`_pairing_text` gives (not each
#: seat's).
_POOLED_TESTS = (
    ("score", "mean score per seat", None, None),
    ("deals", "deals per match", None, None),
)


def _pairing_text(row, unit: str) -> str:
    """What pairing did for one variant: the half-widths of its paired intervals against
    those of independent samples, or why the runs were compared as independent samples."""
    names = f"{row.variant} and {row.base}"
    if row.first_analysis != PAIRED and getattr(row, "match_analysis", None) != PAIRED:
        return f"{names} are compared as independent samples: {row.pairing_note}."
    parts = []
    for key, figure, _, _ in [*TESTS, *_POOLED_TESTS]:
        if getattr(row, f"{key}_analysis", None) != PAIRED:
            continue
        half = (getattr(row, f"{key}_diff_hi") - getattr(row, f"{key}_diff_lo")) / 2
        half_ind = (getattr(row, f"{key}_ind_hi") - getattr(row, f"{key}_ind_lo")) / 2
        mean_unit = _mean_unit(key, unit)
        if mean_unit is not None:
            digits = _half_digits(half)
            widths = f"±{half:,.{digits}f} {mean_unit} against ±{half_ind:,.{digits}f}"
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


def _methods(variants: list[Variant], table: pd.DataFrame) -> list[Block]:
    tests = int(table[[f"{key}_p_holm" for key, *_ in table_tests(table)]].notna().to_numpy().sum())
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
    if paired.any() and any(v.run.aggregates is not None for v in variants):
        pairing += (
            " Aggregate-only runs (--records none) keep no single deals: their pairs were "
            "counted as the study played the variants of each range of games together, and "
            "kept in each variant's folder (`paired/`); they are the counts that both runs' "
            "records would give."
        )
    means = [
        what
        for column, what in (
            ("score_p", "the mean score per seat and deal and each seat's mean score"),
            ("deals_p", "the deals per match"),
            ("total_0_p", "each seat's mean match total"),
        )
        if column in table and table[column].notna().any()
    ]
    means_text = (
        f" {_join(means).capitalize()} are compared like the mean length: each mean with "
        "its bootstrap interval; as independent samples the difference with a bootstrap "
        "interval and the Mann-Whitney U test, and where the deals (for match figures, the "
        "matches, paired by index) are shared, the t interval of the mean paired "
        "difference and the Wilcoxon signed-rank test."
        + (
            " Deals per match are compared only where the matches vary in length."
            if "match_p" in table and table["match_p"].notna().any()
            else ""
        )
        if means
        else ""
    )
    return [
        Heading("Methods"),
        Paragraph(
            "Win shares are of all deals with 95% Wilson score intervals. The shares of all "
            "seats (no winner included; seats counted in playing order from the deal's "
            "leader) and the end reasons are compared with the base by chi-squared tests "
            "of homogeneity (no continuity correction). The change of the seat spread (the "
            "largest minus the smallest seat's share) has a 95% percentile bootstrap "
            "interval, each run's deals resampled from its win counts, outside the family "
            "below. "
            f"{independent}{pairing}{unpaired}{means_text} The {tests} tests form one "
            "family, adjusted "
            "by Holm's step-down method so that the chance of any false positive among them "
            f"stays under {ALPHA:.0%}, each with the p-value of the analysis used."
        ),
    ]


def _join(parts: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + f" and {parts[-1]}"
