"""The "Win chances" section of a traced run's report (``--trace``): the average course
of the chance of winning of the seat that finished first, second, …, through the game,
and the course of two games, the longest and the most dramatic (:mod:`analysis.chances`).
"""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from analysis.chances import course_by_finish, game_chances, one_game
from analysis.load import RunFolder
from analysis.rendering import plots
from analysis.rendering.document import Block, Chart, Heading, Paragraph
from analysis.rendering.words import count_text, fmt_int, fmt_num, fmt_pct

__all__ = ["read_trace", "trace_section"]


def read_trace(run: RunFolder) -> pd.DataFrame | None:
    """The run's trace (None when the run traced no game)."""
    return run.some_games("trace", "trace")


def trace_section(run: RunFolder) -> tuple[list[Block], dict[str, Figure]]:
    """The section and its charts (nothing for an untraced run)."""
    trace = read_trace(run)
    if trace is None:
        return [], {}
    rollouts = int(run.meta["rollouts"])
    games = game_chances(trace, rollouts=rollouts)
    keys = ["game", "rotation"] if "rotation" in trace.columns else ["game"]
    traced = len(trace[keys].drop_duplicates())
    blocks: list[Block] = [
        Heading("Win chances through the game"),
        Paragraph(
            f"Each seat's chance of winning after the deal and after every turn of the run's "
            f"first {count_text(traced, 'deal' if 'match' in trace.columns else 'game')}, "
            f"each estimated from {fmt_int(rollouts)} "
            "rollouts from states a spectator cannot tell from the game's (the hidden cards "
            f"dealt again), played on by the run's strategies (`trace/`). "
            f"{fmt_int(len(games))} of them had a winner."
        ),
    ]
    if games.empty:
        return blocks, {}
    course = course_by_finish(trace, rollouts=rollouts)
    figures = {"trace_course": _course_chart(course)}
    blocks.append(
        Chart(
            "trace_course",
            "Mean chance of winning through the game of the seat that finished first (the "
            "winner), second, … (the others ranked by their chance just before the end)",
        )
    )
    longest = games.loc[games["turns"].idxmax()]
    dramatic = games.loc[games["drama"].idxmax()]
    picks = {
        f"the longest ({fmt_int(longest.turns)} turns)": longest,
        f"the most dramatic (drama {fmt_num(100 * dramatic.drama)} pts)": dramatic,
    }
    courses = {
        words: one_game(trace, rollouts=rollouts, key=tuple(row[k] for k in keys))
        for words, row in picks.items()
    }
    figures["trace_games"] = _games_chart(courses, picks)
    blocks.append(
        Chart(
            "trace_games",
            "Each seat's chance of winning, turn by turn, in two traced games (the winner's "
            "line solid)",
        )
    )
    blocks.append(
        Paragraph(
            f"The eventual winner held the highest chance at {fmt_pct(games['security'].mean())} "
            "of the turns on average; the section Balance gives every chance measure with "
            "its interval."
        )
    )
    return blocks, figures


def _course_chart(course: pd.DataFrame) -> Figure:
    fig = plots.new_figure("Chance of winning through the game · traced games", 7.0, 3.6)
    ax = fig.add_subplot()
    for rank, part in course.groupby("rank"):
        label = "finished first (winner)" if rank == 1 else f"finished {_ordinal(int(rank))}"
        ax.plot(part["share"], part["chance"], marker=".", label=label)
    ax.set_xlabel("share of the game played")
    ax.set_ylabel("mean chance of winning")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.legend(loc="upper left")
    return fig


def _games_chart(courses: dict[str, pd.DataFrame], picks: dict) -> Figure:
    fig = plots.new_figure("Two traced games, turn by turn", 7.0, 3.4)
    axes = fig.subplots(1, len(courses), sharey=True)
    for ax, (words, course) in zip(axes, courses.items(), strict=True):
        row = picks[words]
        for seat in course.columns:
            style = "-" if seat == row.winner else "--"
            ax.plot(course.index, course[seat], style, label=f"seat {seat}")
        ax.set_title(f"game {fmt_int(row.game)}: {words}", fontsize=9)
        ax.set_xlabel("turn")
        ax.set_ylim(0, 1)
    axes[0].set_ylabel("chance of winning")
    axes[0].legend(loc="upper left", fontsize=8)
    return fig


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"
