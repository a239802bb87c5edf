"""Beggar-My-Neighbour's report: game length in cards and tricks, win share by seat, end
reasons, convergence, the longest deals and the deals that never end (cycles), each deal
written out so that ``cardsim play`` can replay it.

Its spec names :func:`build_beggar_report` (``GameSpec.report_path``); the dispatcher in
:mod:`analysis.reports` loads it from there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from analysis.load import RunFolder, scan
from analysis.rendering import plots
from analysis.rendering.document import Block, Chart, Heading, Paragraph, Table
from analysis.rendering.words import (
    all_count_text,
    chart_title,
    fmt_int,
    fmt_num,
    fmt_pct,
    fmt_quantity,
    fmt_range,
    fmt_share_lead,
    fmt_wilson,
    game_name,
    is_default_rule,
    non_default_rules,
    players_adjective,
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
from analysis.statistics.tally import (
    FirstRows,
    LabelCounts,
    Longest,
    Values,
    WinCounts,
    where_in,
    where_not,
)
from simulate.games.beggar.spec import END_MEANINGS as BEGGAR_END_MEANINGS

#: Longest list of cycle games printed; beyond it the report gives the count only.
MAX_CYCLES_LISTED = 1000


_COURT_ORDER = "JQKA"


def rule_text(name: str, value: Any) -> str:
    """One Beggar-My-Neighbour rule in words, e.g. ``"penalties J1 Q2 K3 A4"`` or
    ``"time limit 5,000 cards"``."""
    if name == "penalties" and isinstance(value, dict):
        known = [c for c in _COURT_ORDER if c in value]
        order = known + sorted(set(value) - set(known))
        return "penalties " + " ".join(f"{card}{value[card]}" for card in order)
    if name == "time_limit":
        return "no time limit" if value is None else f"time limit {count_text(value, 'card')}"
    words = name.replace("_", " ")
    return f"no {words}" if value is None else f"{words} {value}"


def build_beggar_report(run: RunFolder, top: int = 10) -> tuple[list[Block], dict[str, Figure]]:
    """Beggar-My-Neighbour's report: length in cards and tricks, the never-ending deals."""
    meta, players = run.meta, run.players
    ended = where_not("end", ["cycle"])
    wins, ends, cards, tricks, longest, cycles, convergence = scan(
        run,
        lambda: [
            WinCounts(players),
            LabelCounts("end"),
            Values("cards", ended, needs=("end",)),
            Values("tricks", ended, needs=("end",)),
            Longest(top, "cards", ("tricks", "winner", "end"), ended, needs=("end",)),
            FirstRows(
                MAX_CYCLES_LISTED,
                ("cards", "tricks", "cycle_cards", "cycle_tricks"),
                where_in("end", ["cycle"]),
                needs=("end",),
            ),
            Convergence(run.rows, players, "cards", ended, needs=("end",)),
        ],
    )
    n = wins.n
    summaries = {"cards": length_summary(cards.dist), "tricks": length_summary(tricks.dist)}
    intervals = {"cards": mean_interval(cards.dist), "tricks": mean_interval(tricks.dist)}
    shares = win_share_table(wins.seats)
    reasons = end_reason_table(ends.counts, run.spec.end_reasons)
    title = chart_title(meta, n)
    deal, replayable = _deal_text(meta)
    table = convergence.table()

    figures = {
        "length_histogram": plots.length_histogram(cards.dist, tricks.dist, title),
        "survival": plots.survival_chart(*cards.dist.survival(), title),
        "win_share": plots.win_share_chart(shares, title),
        "convergence": plots.convergence_chart(table, title, "first seat", "cards", players),
    }
    blocks: list[Block] = [
        Heading(title, 1),
        Paragraph(_summary(meta, n, summaries["cards"], intervals["cards"], shares, reasons)),
        *_run_details(meta, n),
        *_length_section(summaries, intervals, cycles.count),
        *_win_section(shares, players, n),
        *_end_section(reasons),
        *convergence_section(
            table,
            "first seat",
            "cards",
            "The length covers the deals that ended. " if cycles.count else "",
        ),
        *_longest_section(longest.rows, deal, replayable),
        *_cycle_section(cycles.rows, cycles.count, deal, replayable),
    ]
    return blocks, figures


def _summary(
    meta: dict,
    n: int,
    cards: dict,
    interval: tuple[float, float],
    shares: pd.DataFrame,
    reasons: pd.DataFrame,
) -> str:
    players = int(meta["players"])
    changed = non_default_rules(meta)
    rules = ", ".join(changed) if changed else "default rules"
    first = shares.iloc[0]
    text = (
        f"In {players_adjective(players)} {game_name(meta['game'])} ({rules}; "
        f"{count_text(n, 'deal')}), the first seat wins "
        f"{fmt_share_lead(first['share'], first['lo'], first['hi'])} of deals "
        f"(95% Wilson interval {fmt_wilson(first['lo'], first['hi'])}, against an equal share of "
        f"{fmt_pct(1 / players)}); "
    )
    n_cycles = int(reasons.loc["cycle", "count"])
    lasted = (
        f"last {fmt_quantity(cards['mean'], 'card')} on average (95% CI {fmt_range(*interval)}; "
        f"median {fmt_num(cards['median'])})"
    )
    n_limit = int(reasons.loc["time_limit", "count"])
    if n_cycles == n:
        text += "no deal ended: every one was caught in a cycle"
    elif n_cycles:
        text += f"the deals that end {lasted}; {_count(n_cycles, 'deal')} never ended, "
        text += "caught in a cycle"
    else:
        text += f"deals {lasted}" + ("" if n_limit else "; every deal ended")
    if n_limit:
        text += f"; {_count(n_limit, 'deal')} stopped at the time limit"
    return text + "." + incomplete_text(meta, n)


def _run_details(meta: dict, n_games: int) -> list[Block]:
    rule_rows = []
    for name, value in meta["rules"].items():
        tag = "default" if is_default_rule(meta["game"], name, value) else "changed"
        rule_rows.append([f"rule: {name}", f"{rule_text(name, value)} ({tag})"])
    return run_details(meta, n_games, rule_rows)


def _length_section(
    summaries: dict[str, dict], intervals: dict[str, tuple[float, float]], n_cycles: int
) -> list[Block]:
    scope = (
        f"Lengths are of the deals that ended; the {_count(n_cycles, 'cycle deal')} "
        f"{'never ends and is' if n_cycles == 1 else 'never end and are'} left out. "
        if n_cycles
        else ""
    )
    return [
        Heading("Game length"),
        Paragraph(
            f"{scope}Length in cards is the number of cards played; in tricks, the number "
            "of piles taken (the final pile included). Percentiles are interpolated. "
            f"{BOOTSTRAP_NOTE}"
        ),
        length_table(list(summaries.items()), list(intervals.values())),
        Chart("length_histogram", "Histograms of game length in cards and in tricks"),
        Paragraph(
            "The survival curve gives the share of deals lasting more than x cards; "
            "its log scale shows the rare very long deals."
        ),
        Chart("survival", "Survival curve: share of deals longer than x cards, log scale"),
    ]


def _win_section(shares: pd.DataFrame, players: int, n_games: int) -> list[Block]:
    return [
        Heading("Win share by seat"),
        Paragraph(
            f"Shares are of {all_count_text(n_games, 'deal')}, so deals without a winner count "
            f"against every seat; with equal chances each seat would win "
            f"{fmt_pct(1 / players)}. Seat 0 plays first. Intervals are 95% Wilson "
            "score intervals."
        ),
        win_table(shares),
        Chart("win_share", "Win share by seat with 95% Wilson intervals and the equal share"),
    ]


def _end_section(reasons: pd.DataFrame) -> list[Block]:
    return [Heading("End reasons"), end_table(reasons, BEGGAR_END_MEANINGS)]


def _longest_section(
    longest: pd.DataFrame, deal: Callable[[int], str], replayable: bool
) -> list[Block]:
    if longest.empty:
        return [Heading("Longest deals"), Paragraph("No deal ended.")]
    rows = [
        [str(g.game), fmt_int(g.cards), fmt_int(g.tricks), _winner(g.winner), g.end, deal(g.game)]
        for g in longest.itertuples()
    ]
    return [
        Heading("Longest deals"),
        Paragraph(
            f"The {_count(len(rows), 'longest deal')} by cards played, among deals "
            f"that ended. {_replay_hint(replayable)}"
        ),
        Table(["game", "cards", "tricks", "winner", "end", "deal"], rows, "rrrlll", frozenset({5})),
    ]


def _cycle_section(
    listed: pd.DataFrame, n_cycles: int, deal: Callable[[int], str], replayable: bool
) -> list[Block]:
    blocks: list[Block] = [Heading("Cycles")]
    if not n_cycles:
        return [*blocks, Paragraph("No deal cycled: every deal ended.")]
    shown = f"; the first {fmt_int(len(listed))} are listed" if len(listed) < n_cycles else ""
    blocks.append(
        Paragraph(
            f"{_count(n_cycles, 'deal')} never ended{shown}. Cards and tricks count play up to "
            "the trick after which the state first repeats; the cycle columns give the length "
            f"of the loop. {_replay_hint(replayable)}"
        )
    )
    rows = [
        [
            str(g.game),
            fmt_int(g.cards),
            fmt_int(g.tricks),
            fmt_int(g.cycle_cards),
            fmt_int(g.cycle_tricks),
            deal(g.game),
        ]
        for g in listed.itertuples()
    ]
    columns = ["game", "cards", "tricks", "cycle cards", "cycle tricks", "deal"]
    return [*blocks, Table(columns, rows, "rrrrrl", frozenset({5}))]


def _deal_text(meta: dict) -> tuple[Callable[[int], str], bool]:
    """Game index → deal string (``--J-A.../-K--...``), and True; or, when the deal cannot
    be reconstructed here, game index → "seed S, game i" reference, and False."""
    seed = meta.get("seed")
    if meta["game"] == "beggar-my-neighbour" and seed is not None:
        try:
            # Imported here: the deal module belongs to the simulation package.
            from simulate.games.beggar.deal import deal_string
        except ImportError:
            pass
        else:
            players = int(meta["players"])
            return (lambda game: deal_string(int(seed), int(game), players)), True
    prefix = "" if seed is None else f"seed {seed}, "
    return (lambda game: f"{prefix}game {game}"), False


def _replay_hint(replayable: bool) -> str:
    if replayable:
        return 'Replay a deal with `cardsim play beggar-my-neighbour --deal "DEAL"`.'
    return "Deals are identified by the run's seed and the game index."


def _winner(seat: int) -> str:
    return "none" if seat < 0 else f"seat {seat}"


_count = count_text
