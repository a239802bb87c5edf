"""The generic report, built from a game's spec alone: summary, run details, game length,
win share by seat, end reasons and convergence.

A game whose spec names no report of its own (``GameSpec.report_path``) gets this one; the
built-in families build theirs with the same pieces and add their own sections.
"""

from __future__ import annotations

from matplotlib.figure import Figure

from analysis.load import RunFolder, scan
from analysis.rendering import plots
from analysis.rendering.document import Block, Chart, Heading, Paragraph
from analysis.rendering.words import (
    all_count_text,
    chart_title,
    fmt_pct,
    fmt_quantity,
    fmt_range,
    fmt_share_lead,
    fmt_wilson,
    game_name,
    is_default_rule,
    knob_text,
    players_adjective,
    rules_label,
    singular,
)
from analysis.reports.common import (
    BOOTSTRAP_NOTE,
    convergence_section,
    count_text,
    end_table,
    incomplete_text,
    length_table,
    run_details,
    win_table,
)
from analysis.statistics.bootstrap import mean_interval
from analysis.statistics.convergence import Convergence
from analysis.statistics.stats import end_reason_table, length_summary, win_share_table
from analysis.statistics.tally import LabelCounts, Values, WinCounts, where_not


def build_generic_report(run: RunFolder, top: int = 10) -> tuple[list[Block], dict[str, Figure]]:
    """The report's blocks and charts from one pass over the games (``top`` is unused: a
    game of its own lists its longest games)."""
    spec, meta, players = run.spec, run.meta, run.players
    length, unit = spec.length.name, spec.length.unit
    ended = where_not("end", list(spec.unended)) if spec.unended else None
    needs = ("end",) if spec.unended else ()
    wins, ends, lengths, convergence = scan(
        run,
        lambda: [
            WinCounts(players),
            LabelCounts("end"),
            Values(length, ended, needs=needs),
            Convergence(run.rows, players, length, ended, needs=needs),
        ],
    )
    n = wins.n
    summary, interval = length_summary(lengths.dist), mean_interval(lengths.dist)
    shares = win_share_table(wins.seats)
    reasons = end_reason_table(ends.counts, spec.end_reasons)
    title = chart_title(meta, n)
    table = convergence.table()
    first = shares.iloc[0]
    text = (
        f"In {players_adjective(players)} {game_name(meta['game'])} ({rules_label(meta)}; "
        f"{count_text(n, 'game')}), the first seat wins "
        f"{fmt_share_lead(first['share'], first['lo'], first['hi'])} of games (95% Wilson "
        f"interval {fmt_wilson(first['lo'], first['hi'])}, against an equal share of "
        f"{fmt_pct(1 / players)}); games last {fmt_quantity(summary['mean'], singular(unit))} "
        "on average "
        f"(95% CI {fmt_range(*interval)})." + incomplete_text(meta, n)
    )
    rule_rows = [
        [
            f"rule: {name}",
            f"{knob_text(value)} "
            f"({'default' if is_default_rule(meta['game'], name, value) else 'changed'})",
        ]
        for name, value in meta["rules"].items()
    ]
    figures = {
        "length_histogram": plots.histograms([(lengths.dist, unit)], title),
        "survival": plots.survival_chart(*lengths.dist.survival(), title, unit),
        "win_share": plots.win_share_chart(shares, title, "games"),
        "convergence": plots.convergence_chart(table, title, "first seat", unit, players),
    }
    blocks: list[Block] = [
        Heading(title, 1),
        Paragraph(text),
        *run_details(meta, n, rule_rows),
        Heading("Game length"),
        Paragraph(f"{spec.length.meaning[:1].upper()}{spec.length.meaning[1:]}. {BOOTSTRAP_NOTE}"),
        length_table([(unit, summary)], [interval]),
        Chart("length_histogram", f"Histogram of game length in {unit}"),
        Chart("survival", f"Survival curve: share of games longer than x {unit}, log scale"),
        Heading("Win share by seat"),
        Paragraph(
            f"Shares are of {all_count_text(n, 'game')}; with equal chances each seat would "
            f"win {fmt_pct(1 / players)}. Intervals are 95% Wilson score intervals."
        ),
        win_table(shares),
        Chart("win_share", "Win share by seat with 95% Wilson intervals and the equal share"),
        Heading("End reasons"),
        end_table(reasons, spec.end_meanings),
        *convergence_section(table, "first seat", unit),
    ]
    return blocks, figures
