"""Charts of a comparison of runs, each returning a matplotlib Figure: the forest plot of
the differences from the base, the variants' win shares, their survival curves. They draw
what :mod:`analysis.comparisons.variants` computes, for :mod:`analysis.comparisons.report`;
the charts of a single run are in :mod:`analysis.rendering.plots`.

As there, series are told apart by marker, fill and line style as well as by grey level,
so that the charts read the same in grayscale.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from analysis.rendering.plots import new_figure, no_data
from analysis.statistics.distribution import Distribution

_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")
_LINES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)))
_GREYS = ("0", "0.35", "0.55", "0.2", "0.45", "0.65")
#: Longest variant name shown on a chart; longer ones keep their end after an ellipsis.
_NAME_CHARS = 28


def short_name(name: str, limit: int = _NAME_CHARS) -> str:
    """``name``, or its last ``limit − 1`` characters after "…" when longer."""
    return name if len(name) <= limit else "…" + name[-(limit - 1) :]


def forest_chart(table: pd.DataFrame, title: str, length_unit: str) -> Figure:
    """Forest plot of each variant's differences to its base: left, the first seat's win
    share in percentage points; right, the mean length (in ``length_unit``); each with the
    95% interval of the analysis used (Newcombe's interval and a bootstrap one for
    independent samples, Newcombe's paired interval and a t interval for paired ones, the
    variant's label then saying "paired"). One row per non-base variant of ``table``
    (:func:`analysis.comparisons.variants.comparison_table`, one player count); filled markers are
    differences significant after Holm's correction, open ones are not."""
    rows = table[~table["is_base"]]
    fig = new_figure(title, 10, max(2.8, 0.55 * len(rows) + 2.2))
    axes = fig.subplots(1, 2, sharey=True)
    panels = (
        (axes[0], "first", 100, "first seat's win share, difference (pts)"),
        (axes[1], "length", 1, f"mean length, difference ({length_unit})"),
    )
    y = np.arange(len(rows))[::-1]
    for ax, key, scale, xlabel in panels:
        ax.axvline(0, color="0.4", linestyle="--", linewidth=1)
        for yi, row in zip(y, rows.itertuples(), strict=True):
            mid = getattr(row, f"{key}_diff") * scale
            lo = getattr(row, f"{key}_diff_lo") * scale
            hi = getattr(row, f"{key}_diff_hi") * scale
            significant = bool(getattr(row, f"{key}_significant"))
            ax.errorbar(
                [mid],
                [yi],
                xerr=[[mid - lo], [hi - mid]],
                fmt="o",
                color="black",
                markerfacecolor="black" if significant else "white",
                markersize=7,
                capsize=4,
            )
        ax.set_xlabel(xlabel)
        ax.grid(True, axis="x", color="0.85", linewidth=0.6)
    labels = [
        f"{short_name(row.variant)}\nvs {short_name(row.base)}"
        + (" (paired)" if getattr(row, "first_analysis", None) == "paired" else "")
        for row in rows.itertuples()
    ]
    axes[0].set_yticks(y, labels)
    axes[0].set_ylim(-0.7, len(rows) - 0.3)
    axes[1].plot([], [], "o", color="black", label="significant (Holm, 5%)")
    axes[1].plot([], [], "o", color="black", markerfacecolor="white", label="not significant")
    axes[1].legend(fontsize=8, loc="lower right", bbox_to_anchor=(1, 1), ncols=2, frameon=False)
    return fig


def variants_win_share_chart(
    shares: Sequence[tuple[str, pd.DataFrame]], title: str, position: bool = False
) -> Figure:
    """Win share by seat for each variant side by side, with 95% Wilson error bars: one
    ``(name, table)`` per variant, the table from :func:`analysis.statistics.stats.win_share_table`
    (its "no winner" row left out). Each variant has its own marker, fill and offset; the
    dashed line is the equal share. With ``position`` the x axis is the seat relative to
    the deal's leader."""
    fig = new_figure(title, 8, 4.5)
    ax = fig.subplots()
    width = 0.7
    count = len(shares)
    players = 0
    for i, (name, table) in enumerate(shares):
        seats = table[table["seat"] >= 0]
        players = len(seats)
        x = seats["seat"].to_numpy() + (i - (count - 1) / 2) * width / max(count, 1)
        y = seats["share"].to_numpy()
        ax.errorbar(
            x,
            y,
            yerr=np.vstack([y - seats["lo"].to_numpy(), seats["hi"].to_numpy() - y]),
            fmt=_MARKERS[i % len(_MARKERS)],
            color=_GREYS[i % len(_GREYS)],
            markerfacecolor="white" if i % 2 else _GREYS[i % len(_GREYS)],
            markersize=6,
            capsize=3,
            label=short_name(name),
        )
    if players:
        ax.axhline(1 / players, color="0.5", linestyle="--", linewidth=1, label="equal share")
        ticks = [("leader" if position else "seat 0 (leads)")] + [
            (f"leader + {s}" if position else f"seat {s}") for s in range(1, players)
        ]
        ax.set_xticks(range(players), ticks)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_ylabel("share of all deals won")
    ax.grid(True, axis="y", color="0.85", linewidth=0.6)
    ax.legend(fontsize=8, loc="lower right", bbox_to_anchor=(1, 1), ncols=3, frameon=False)
    return fig


def survival_curves(lengths: Sequence[tuple[str, Distribution]], title: str, unit: str) -> Figure:
    """Survival curves P(length > x) of several variants on one log axis, one
    ``(name, distribution)`` each, told apart by line style and grey."""
    fig = new_figure(title, 8, 4.5)
    ax = fig.subplots()
    ax.set_xlabel(f"x ({unit})")
    ax.set_ylabel(f"P(deal lasts more than x {unit})")
    drawn = False
    for i, (name, dist) in enumerate(lengths):
        x, s = dist.survival()
        keep = s > 0
        if not keep.any():
            continue
        ax.step(
            x[keep],
            s[keep],
            where="post",
            color=_GREYS[i % len(_GREYS)],
            linestyle=_LINES[i % len(_LINES)],
            linewidth=1.4,
            label=short_name(name),
        )
        drawn = True
    if not drawn:
        no_data(ax, "deal longer than another")
        return fig
    ax.set_yscale("log")
    ax.set_xlim(left=0)
    ax.grid(True, which="major", color="0.85", linewidth=0.6)
    ax.legend(fontsize=8, frameon=False)
    return fig
