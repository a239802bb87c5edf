"""The report of a run folder: ``report.html`` (self-contained) and ``report.md`` + ``charts/``."""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from pathlib import Path

import pandas as pd
from matplotlib import rc_context
from matplotlib.figure import Figure

from analysis import plots
from analysis.describe import (
    chart_title,
    fmt_ci,
    fmt_int,
    fmt_pct,
    game_name,
    is_default_rule,
    non_default_rules,
    players_adjective,
    rule_text,
)
from analysis.document import Block, Chart, Heading, Paragraph, Table, to_html, to_markdown
from analysis.errors import ReportError
from analysis.load import Run, family, load_run
from analysis.sections import (
    count_text,
    end_table,
    incomplete_text,
    length_table,
    run_details,
    win_table,
)
from analysis.shedding import build_shedding_report
from analysis.stats import end_reasons, length_summary, survival, win_shares

#: Longest list of cycle games printed; beyond it the report gives the count only.
MAX_CYCLES_LISTED = 1000

END_MEANINGS = {
    "out": "every seat but one ran out of cards",
    "cycle": "the deal came back to an earlier state, so it would loop forever",
    "time_limit": "stopped at the time limit; the seat holding most cards wins",
}


def write_report(run_dir: str | Path, top: int = 10) -> tuple[Path, Path]:
    """Write ``report.html``, ``report.md`` and ``charts/*.png|svg`` into the run folder
    (Beggar-My-Neighbour or a shedding game).

    ``top`` is how many of the longest deals to list. Every file is written under a
    temporary name and renamed into place. Returns ``(html_path, markdown_path)``.
    Raises :class:`ReportError` when the folder cannot be read or written.
    """
    run = load_run(run_dir)
    blocks, figures = build_report(run, top)
    png = {name: _render(fig, "png") for name, fig in figures.items()}
    charts_dir = run.path / "charts"
    html_path, md_path = run.path / "report.html", run.path / "report.md"
    try:
        charts_dir.mkdir(exist_ok=True)
        for name, fig in figures.items():
            _write_atomic(charts_dir / f"{name}.png", png[name])
            _write_atomic(charts_dir / f"{name}.svg", _render(fig, "svg"))
        _write_atomic(md_path, to_markdown(blocks).encode("utf-8"))
        page = to_html(blocks, f"{game_name(run.meta['game'])} report", png)
        _write_atomic(html_path, page.encode("utf-8"))
    except OSError as exc:
        raise ReportError(
            f"{exc.filename or run.path}: cannot write report: {exc.strerror}"
        ) from exc
    return html_path, md_path


def build_report(run: Run, top: int = 10) -> tuple[list[Block], dict[str, Figure]]:
    """The report's blocks and its charts (chart name → Figure), from one pass of statistics:
    Beggar-My-Neighbour's, or a shedding game's (:func:`analysis.shedding.build_shedding_report`)."""
    if family(run.meta["game"]) == "shedding":
        return build_shedding_report(run, top)
    games, meta = run.games, run.meta
    ended = games[games["end"] != "cycle"]
    cycles = games[games["end"] == "cycle"]
    cards, tricks = length_summary(ended["cards"]), length_summary(ended["tricks"])
    shares = win_shares(games, run.players)
    reasons = end_reasons(games)
    title = chart_title(meta, len(games))
    deal, replayable = _deal_text(meta)

    figures = {
        "length_histogram": plots.length_histogram(ended["cards"], ended["tricks"], title),
        "survival": plots.survival_chart(*survival(ended["cards"]), title),
        "win_share": plots.win_share_chart(shares, title),
    }
    blocks: list[Block] = [
        Heading(title, 1),
        Paragraph(_summary(run, cards, shares, reasons)),
        *_run_details(meta, len(games)),
        *_length_section(cards, tricks, len(cycles)),
        *_win_section(shares, run.players, len(games)),
        *_end_section(reasons),
        *_longest_section(ended, top, deal, replayable),
        *_cycle_section(cycles, deal, replayable),
    ]
    return blocks, figures


def _summary(run: Run, cards: dict, shares: pd.DataFrame, reasons: pd.DataFrame) -> str:
    meta, n, players = run.meta, len(run.games), run.players
    changed = non_default_rules(meta)
    rules = f" ({', '.join(changed)})" if changed else ""
    first = shares.iloc[0]
    equal = f", against an equal share of {fmt_pct(1 / players)}" if players > 2 else ""
    text = (
        f"In {fmt_int(n)} {players_adjective(players)} deals of {game_name(meta['game'])}{rules}, "
        f"the first seat won {fmt_pct(first['share'])} "
        f"(95% CI {fmt_ci(first['lo'], first['hi'])}){equal}; "
    )
    n_cycles = int(reasons.loc["cycle", "count"])
    lasted = f"lasted {cards['mean']:,.0f} cards on average (median {cards['median']:,.0f})"
    if n_cycles == n:
        text += "no deal ended: every one was caught in a cycle"
    elif n_cycles:
        text += f"the deals that ended {lasted}; {_count(n_cycles, 'deal')} never ended, "
        text += "caught in a cycle"
    else:
        text += f"games {lasted}; 0 deals never ended"
    n_limit = int(reasons.loc["time_limit", "count"])
    if n_limit:
        text += f"; {_count(n_limit, 'deal')} stopped at the time limit"
    return text + "." + incomplete_text(meta, n)


def _run_details(meta: dict, n_games: int) -> list[Block]:
    rule_rows = []
    for name, value in meta["rules"].items():
        tag = "default" if is_default_rule(meta["game"], name, value) else "changed"
        rule_rows.append([f"rule: {name}", f"{rule_text(name, value)} ({tag})"])
    return run_details(meta, n_games, rule_rows)


def _length_section(cards: dict, tricks: dict, n_cycles: int) -> list[Block]:
    scope = (
        f"Lengths are of the deals that ended; the {_count(n_cycles, 'cycle deal')} "
        "never end and are left out. "
        if n_cycles
        else ""
    )
    return [
        Heading("Game length"),
        Paragraph(
            f"{scope}Length in cards is the number of cards played; in tricks, the number "
            "of piles taken (the final pile included). Percentiles are interpolated."
        ),
        length_table((("cards", cards), ("tricks", tricks))),
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
            f"Shares are of all {fmt_int(n_games)} deals, so deals without a winner count "
            f"against every seat; with equal chances each seat would win "
            f"{fmt_pct(1 / players)}. Seat 0 plays first. Intervals are 95% Wilson "
            "score intervals."
        ),
        win_table(shares),
        Chart("win_share", "Win share by seat with 95% Wilson intervals and the equal share"),
    ]


def _end_section(reasons: pd.DataFrame) -> list[Block]:
    return [Heading("End reasons"), end_table(reasons, END_MEANINGS)]


def _longest_section(
    ended: pd.DataFrame, top: int, deal: Callable[[int], str], replayable: bool
) -> list[Block]:
    if ended.empty:
        return [Heading("Longest deals"), Paragraph("No deal ended.")]
    longest = ended.sort_values(["cards", "game"], ascending=[False, True]).head(top)
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
    cycles: pd.DataFrame, deal: Callable[[int], str], replayable: bool
) -> list[Block]:
    blocks: list[Block] = [Heading("Cycles")]
    if cycles.empty:
        return [*blocks, Paragraph("No deal cycled: every deal ended.")]
    listed = cycles.head(MAX_CYCLES_LISTED)
    shown = f"; the first {fmt_int(len(listed))} are listed" if len(listed) < len(cycles) else ""
    blocks.append(
        Paragraph(
            f"{_count(len(cycles), 'deal')} never ended{shown}. Cards and tricks count play up to "
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


def _render(fig: Figure, fmt: str) -> bytes:
    buf = io.BytesIO()
    # Fixed salt and no date make the SVG identical from one run to the next.
    with rc_context({"svg.hashsalt": "cardsim"}):
        fig.savefig(buf, format=fmt, dpi=110, metadata={"Date": None} if fmt == "svg" else None)
    return buf.getvalue()


def _write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same folder and a rename, so
    readers never see a half-written file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
