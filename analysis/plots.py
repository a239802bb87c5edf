"""Charts of a run, one function per chart, each returning a matplotlib Figure.

Figures are built with :class:`matplotlib.figure.Figure` directly (no pyplot state).
They are drawn in black and greys with hatching, markers and line styles so that they
read the same when printed in grayscale.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter, StrMethodFormatter

from analysis.describe import fmt_num

#: Share of games the histograms show; the longest 0.1% would squash the rest.
_HIST_QUANTILE = 99.9
_HIST_MAX_BINS = 80


def _new_figure(title: str, width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    fig.suptitle(_wrap_title(title, round(width * 10)), fontsize=11)
    return fig


def _wrap_title(title: str, width: int) -> str:
    """Break a "a · b · c" title into lines of about ``width`` characters, between parts."""
    lines = [""]
    for part in title.split(" · "):
        if lines[-1] and len(lines[-1]) + 3 + len(part) > width:
            lines.append(part)
        else:
            lines[-1] = f"{lines[-1]} · {part}" if lines[-1] else part
    return "\n".join(lines)


def _no_data(ax, what: str) -> None:
    ax.text(0.5, 0.5, f"no {what}", ha="center", va="center", transform=ax.transAxes)


def length_histogram(cards: pd.Series, tricks: pd.Series, title: str) -> Figure:
    """Histograms of game length: cards played (left panel) and tricks (right panel).

    ``cards`` and ``tricks`` hold one integer per game. Bins are whole numbers of cards
    (or tricks) wide; the x axis stops at the 99.9th percentile and its label counts the
    games beyond. Dashed and dotted lines mark the mean and the median.
    """
    return histograms([(cards, "cards played per deal"), (tricks, "tricks per deal")], title)


_HATCHES = (None, "///", "...", "xx")


def histograms(panels, title: str) -> Figure:
    """One histogram panel per ``(values, xlabel)`` in ``panels``, side by side, as in
    :func:`length_histogram` (whole-number bins, x axis to the 99.9th percentile, mean and
    median marked); each panel has its own hatching."""
    fig = _new_figure(title, 10 if len(panels) <= 2 else 4.2 * len(panels), 4.3)
    axes = np.atleast_1d(fig.subplots(1, len(panels)))
    for i, (ax, (values, xlabel)) in enumerate(zip(axes, panels, strict=True)):
        _histogram_panel(ax, np.asarray(values), xlabel, hatch=_HATCHES[i % len(_HATCHES)])
    return fig


def _histogram_panel(ax, values: np.ndarray, xlabel: str, hatch: str | None) -> None:
    ax.set_ylabel("deals")
    ax.set_xlabel(xlabel)
    if values.size == 0:
        _no_data(ax, "finished deals")
        return
    low = int(values.min())
    high = max(low, math.ceil(np.percentile(values, _HIST_QUANTILE)))
    width = max(1, math.ceil((high - low + 1) / _HIST_MAX_BINS))
    edges = np.arange(low, high + width + 1, width) - 0.5
    ax.hist(values, bins=edges, color="0.8", edgecolor="black", linewidth=0.5, hatch=hatch)
    mean, median = values.mean(), np.median(values)
    ax.axvline(mean, color="black", linestyle="--", linewidth=1.2, label=f"mean {fmt_num(mean)}")
    ax.axvline(
        median, color="black", linestyle=":", linewidth=1.5, label=f"median {fmt_num(median)}"
    )
    beyond = int(np.count_nonzero(values > edges[-1]))
    if beyond:
        ax.set_xlabel(f"{xlabel} ({beyond:,} longer not shown)")
    ax.yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    # Above the axes, where it can hide no bar.
    ax.legend(fontsize=8, loc="lower right", bbox_to_anchor=(1, 1), ncols=2, frameon=False)


def survival_chart(x: np.ndarray, s: np.ndarray, title: str) -> Figure:
    """Survival curve P(length > x) against x cards, as from :func:`analysis.stats.survival`,
    on a logarithmic y axis (so the rare very long deals stay visible)."""
    fig = _new_figure(title, 8, 4.5)
    ax = fig.subplots()
    ax.set_xlabel("x (cards played)")
    ax.set_ylabel("P(deal lasts more than x cards)")
    keep = s > 0  # a log axis cannot show the final 0
    if not keep.any():
        _no_data(ax, "deal longer than another")
        return fig
    ax.step(x[keep], s[keep], where="post", color="black", linewidth=1.2)
    ax.set_yscale("log")
    ax.set_xlim(left=0)
    ax.grid(True, which="major", color="0.85", linewidth=0.6)
    return fig


def win_share_chart(shares: pd.DataFrame, title: str) -> Figure:
    """Win share per seat with Wilson error bars and a dashed line at the equal share 1/n.

    ``shares`` is the table from :func:`analysis.stats.win_shares`; its "no winner" row is
    left out of the chart. Each point is labelled with its percentage.
    """
    seats = shares[shares["seat"] >= 0]
    players = len(seats)
    fig = _new_figure(title, 7, 4.5)
    ax = fig.subplots()
    x = seats["seat"].to_numpy()
    y = seats["share"].to_numpy()
    yerr = np.vstack([y - seats["lo"].to_numpy(), seats["hi"].to_numpy() - y])
    ax.errorbar(
        x,
        y,
        yerr=yerr,
        fmt="o",
        color="black",
        markersize=7,
        capsize=6,
        elinewidth=1.5,
        label="win share, 95% Wilson interval",
    )
    ax.axhline(
        1 / players,
        color="0.4",
        linestyle="--",
        linewidth=1.2,
        label=f"equal share 1/{players} = {100 / players:.1f}%",
    )
    for seat, share, hi in zip(x, y, seats["hi"], strict=True):
        ax.annotate(
            f"{100 * share:.2f}%",
            (seat, hi),
            xytext=(0, 6),
            textcoords="offset points",
            ha="center",
            fontsize=9,
        )
    ax.set_xticks(x, [f"seat {s}" + ("\n(leads)" if s == 0 else "") for s in x])
    ax.set_xlim(-0.6, players - 0.4)
    ax.margins(y=0.25)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_ylabel("share of all deals won")
    ax.grid(True, axis="y", color="0.85", linewidth=0.6)
    ax.legend(fontsize=8, loc="lower right", bbox_to_anchor=(1, 1), ncols=2, frameon=False)
    return fig


def score_chart(scores: pd.DataFrame, title: str, ylabel: str = "score") -> Figure:
    """Distribution of each seat's score: one box per column of ``scores`` (a column per
    seat, a row per game; its name labels the box) showing quartiles and the 10th-90th
    percentile whiskers, with the mean as a white diamond. Black and white only."""
    fig = _new_figure(title, max(6, 1.3 * scores.shape[1] + 3), 4.5)
    ax = fig.subplots()
    data = [np.asarray(scores[c], dtype=float) for c in scores.columns]
    if not scores.shape[0]:
        _no_data(ax, "games")
        return fig
    ax.boxplot(
        data,
        whis=(10, 90),
        showfliers=False,
        patch_artist=True,
        widths=0.55,
        boxprops={"facecolor": "0.85", "edgecolor": "black", "hatch": "//"},
        medianprops={"color": "black", "linewidth": 2},
        whiskerprops={"color": "black"},
        capprops={"color": "black"},
    )
    means = [d.mean() for d in data]
    positions = np.arange(1, len(data) + 1)
    ax.plot(
        positions,
        means,
        linestyle="none",
        marker="D",
        markerfacecolor="white",
        markeredgecolor="black",
        markersize=7,
        label="mean",
    )
    ax.plot([], [], color="black", linewidth=2, label="median")
    ax.plot([], [], color="black", linewidth=1, label="box: quartiles; whiskers: 10th–90th pct")
    ax.set_xticks(positions, [str(c) for c in scores.columns])
    ax.set_ylabel(ylabel)
    ax.yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    ax.grid(True, axis="y", color="0.85", linewidth=0.6)
    ax.legend(fontsize=8, loc="lower right", bbox_to_anchor=(1, 1), ncols=3, frameon=False)
    return fig
