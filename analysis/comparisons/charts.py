"""Charts of a comparison of runs, each returning a matplotlib Figure: the forest plot of
the differences from the base, the variants' win shares, their survival curves, and a
measure by player count (:mod:`analysis.comparisons.players`). They draw what
:mod:`analysis.comparisons.variants` computes, for :mod:`analysis.comparisons.report`;
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

from analysis.rendering.plots import keep_share_span, new_figure, no_data, survival_steps
from simulate.core.measures import NEGLIGIBLE_SHARE
from simulate.runs.folder.distribution import Distribution

_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")
_LINES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)))
_GREYS = ("0", "0.35", "0.55", "0.2", "0.45", "0.65")
#: Longest variant name shown on a chart; longer ones keep their end after an ellipsis.
_NAME_CHARS = 28


def short_name(name: str, limit: int = _NAME_CHARS) -> str:
    """``name``, or its last ``limit − 1`` characters after "…" when longer."""
    return name if len(name) <= limit else "…" + name[-(limit - 1) :]


#: The forest plot's figures: (column prefix, scale, x label); ``{unit}`` is the length's.
_FOREST_FIGURES = (
    ("first", 100, "first seat's win share: difference (percentage points)"),
    ("length", 1, "mean length: difference ({unit})"),
    ("match", 100, "seat 0's match win share: difference (percentage points)"),
    ("score", 1, "mean score per seat and deal: difference (points)"),
)


def forest_chart(table: pd.DataFrame, title: str, length_unit: str) -> Figure:
    """Forest plot of each variant's differences to its base, one panel per figure, one
    above the other, each on its own x scale in its own unit: the first seat's win share
    (percentage points), the mean length (``length_unit``), in match play seat 0's
    match win share (points) and, with scores, the mean score per seat and deal; each with the 95% interval of the analysis used (Newcombe's
    interval and a bootstrap one for independent samples, Newcombe's paired interval and a
    t interval for paired ones, the variant's label then saying "paired"). One row per
    non-base variant of ``table`` (:func:`analysis.comparisons.variants.comparison_table`,
    one player count) in each panel; filled markers are differences significant after
    Holm's correction, open ones are not."""
    rows = table[~table["is_base"]]
    figures = [
        (key, scale, xlabel.format(unit=length_unit))
        for key, scale, xlabel in _FOREST_FIGURES
        if f"{key}_diff" in rows and rows[f"{key}_diff"].notna().any()
    ]
    panel = 0.5 * len(rows) + 1.1
    fig = new_figure(title, 9, max(2.8, panel * len(figures) + 1.2))
    if not figures:
        no_data(fig.subplots(), "differences")
        return fig
    axes = np.atleast_1d(fig.subplots(len(figures), 1, squeeze=False)[:, 0])
    y = np.arange(len(rows))[::-1]
    for ax, (key, scale, xlabel) in zip(axes, figures, strict=True):
        ax.axvline(0, color="0.4", linestyle="--", linewidth=1)
        for yi, row in zip(y, rows.itertuples(), strict=True):
            mid = getattr(row, f"{key}_diff") * scale
            if not np.isfinite(mid):
                ax.text(
                    0.5,
                    yi,
                    "not compared",
                    transform=ax.get_yaxis_transform(),
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="0.4",
                )
                continue
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
        labels = [
            f"{short_name(row.variant)}\nvs {short_name(row.base)}"
            + (" (paired)" if getattr(row, f"{key}_analysis", None) == "paired" else "")
            for row in rows.itertuples()
        ]
        ax.set_yticks(y, labels)
        ax.set_ylim(-0.7, len(rows) - 0.3)
        ax.set_xlabel(xlabel)
        ax.grid(True, axis="x", color="0.85", linewidth=0.6)
        # Room for the interval's caps, and zero always on the scale.
        ax.margins(x=0.08)
        if scale == 100:  # a difference of shares: the negligible band, and a wide enough axis
            ax.axvspan(-NEGLIGIBLE_SHARE, NEGLIGIBLE_SHARE, color="0.92", zorder=0)
            keep_share_span(ax, 0.0, axis="x", scale=100)
    if any(scale == 100 for _, scale, _ in figures):
        axes[0].fill_between([], [], color="0.92", label=f"negligible (±{NEGLIGIBLE_SHARE:g} pts)")
    axes[0].plot([], [], "o", color="black", label="significant (Holm, 5%)")
    axes[0].plot([], [], "o", color="black", markerfacecolor="white", label="not significant")
    axes[0].legend(fontsize=8, loc="lower right", bbox_to_anchor=(1, 1), ncols=2, frameon=False)
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
        keep_share_span(ax, 1 / players)
        ticks = [("leader" if position else "seat 0 (leads)")] + [
            (f"leader + {s}" if position else f"seat {s}") for s in range(1, players)
        ]
        ax.set_xticks(range(players), ticks)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_ylabel("share of all deals won")
    ax.grid(True, axis="y", color="0.85", linewidth=0.6)
    ax.legend(fontsize=8, loc="lower right", bbox_to_anchor=(1, 1), ncols=3, frameon=False)
    return fig


#: Two survival curves coincide when each stays within a line's width of the other on the
#: chart: at every x, its share is within this factor of the other's share at some x' no
#: further than :data:`COINCIDE_SHIFT` of the axis away.
COINCIDE_RATIO = 1.05
#: See :data:`COINCIDE_RATIO`: a share of the x axis (the longest game of the two).
COINCIDE_SHIFT = 0.005


def coinciding_curves(lengths: Sequence[tuple[str, Distribution]]) -> list[list[str]]:
    """The groups of names whose survival curves coincide (two or more names each, in the
    order given; see :data:`COINCIDE_RATIO`): their lines would lie one over the other."""
    groups: list[list[int]] = []
    for i in range(len(lengths)):
        for group in groups:
            if _coincide(lengths[group[0]][1], lengths[i][1]):
                group.append(i)
                break
        else:
            groups.append([i])
    return [[lengths[i][0] for i in group] for group in groups if len(group) > 1]


def _coincide(a: Distribution, b: Distribution) -> bool:
    if a.n == 0 or b.n == 0:
        return a.n == b.n
    shift = COINCIDE_SHIFT * max(a.max(), b.max(), 1)
    grid = np.union1d(a.values, b.values)
    return _within(a, b, grid, shift) and _within(b, a, grid, shift)


def _within(a: Distribution, b: Distribution, grid: np.ndarray, shift: float) -> bool:
    """Whether ``a``'s curve, where drawn (share > 0), lies between ``b``'s shifted
    ``shift`` right and left, each widened by :data:`COINCIDE_RATIO`."""
    sa = _survival_at(a, grid)
    drawn = np.flatnonzero(sa > 0)  # each a step of a, from grid[i] to grid[i + 1]
    start = grid[drawn]
    end = grid[np.minimum(drawn + 1, grid.size - 1)]
    # b's curves fall with x: the bounds are tightest at the step's two ends.
    low = _survival_at(b, start + shift) / COINCIDE_RATIO
    high = _survival_at(b, np.nextafter(end - shift, -np.inf)) * COINCIDE_RATIO
    return bool(np.all((low <= sa[drawn]) & (sa[drawn] <= high)))


def _survival_at(dist: Distribution, x: np.ndarray) -> np.ndarray:
    """P(value > x) at each of ``x``."""
    x_all, s = dist.survival()
    below = np.searchsorted(x_all, x, side="right")  # values <= x
    return np.where(below == 0, 1.0, s[np.maximum(below - 1, 0)])


def coincide_text(group: Sequence[str], short: bool = False) -> str:
    """The words for a group of coinciding curves: ``curves a and b coincide``, ``curves
    a, b and c coincide`` (with ``short``, long names cut as on the charts)."""
    names = [short_name(name) if short else name for name in group]
    listed = ", ".join(names[:-1]) + f" and {names[-1]}"
    return f"curves {listed} coincide"


def survival_curves(lengths: Sequence[tuple[str, Distribution]], title: str, unit: str) -> Figure:
    """Survival curves P(length > x) of several variants on one log axis, one
    ``(name, distribution)`` each, told apart by line style and grey, each reaching its
    longest game. Curves that coincide (:func:`coinciding_curves`) are drawn once, labelled
    with all their names, and a note on the chart says so ("curves a and b coincide")."""
    fig = new_figure(title, 8, 4.5)
    ax = fig.subplots()
    ax.set_xlabel(f"x ({unit})")
    ax.set_ylabel(f"P(deal lasts more than x {unit})")
    groups = coinciding_curves(lengths)
    hidden = {name for group in groups for name in group[1:]}
    together = {group[0]: group for group in groups}
    drawn = False
    for i, (name, dist) in enumerate(lengths):
        if name in hidden:
            continue
        steps = survival_steps(*dist.survival())
        if steps is None:
            continue
        label = " = ".join(short_name(n) for n in together.get(name, [name]))
        ax.step(
            *steps,
            where="post",
            color=_GREYS[i % len(_GREYS)],
            linestyle=_LINES[i % len(_LINES)],
            linewidth=1.4,
            label=label,
        )
        drawn = True
    if not drawn:
        no_data(ax, "deal longer than another")
        return fig
    ax.set_yscale("log")
    ax.set_xlim(left=0)
    ax.grid(True, which="major", color="0.85", linewidth=0.6)
    ax.legend(fontsize=8, frameon=False)
    if groups:
        note = "; ".join(coincide_text(group, short=True) for group in groups)
        ax.text(
            0.01,
            0.02,
            f"{note[0].upper()}{note[1:]}: drawn as one line.",
            transform=ax.transAxes,
            fontsize=8,
            ha="left",
            va="bottom",
            bbox={"facecolor": "white", "edgecolor": "0.6", "pad": 3},
        )
    return fig


def players_chart(
    series: Sequence[tuple[str, np.ndarray, np.ndarray, np.ndarray, np.ndarray]],
    title: str,
    ylabel: str,
    *,
    share: bool = False,
    reference: float | None = None,
    share_scale: float | None = None,
) -> Figure:
    """One measure by player count: one ``(name, players, value, lo, hi)`` per variant
    (arrays of equal length, the player counts whole numbers), drawn as a line with
    markers and 95% error bars, each variant with its own marker, line style, grey and a
    small offset so that the bars do not hide one another. With ``share`` the y axis is in
    percent of 1; ``reference`` draws a dashed line (zero advantage, say). ``share_scale``
    (1 for fractions, 100 for points), for a measure made of win shares, keeps the axis at
    least :data:`analysis.rendering.plots.SHARE_HALF_SPAN` either side of the reference
    (else of the middle of the values)."""
    fig = new_figure(title, 8, 4.5)
    ax = fig.subplots()
    counts = sorted({int(p) for _, players, *_ in series for p in players})
    if not counts:
        no_data(ax, "player count")
        return fig
    width = 0.25
    for i, (name, players, value, lo, hi) in enumerate(series):
        offset = (i - (len(series) - 1) / 2) * width / max(len(series), 1)
        x = np.asarray(players, float) + offset
        value, lo, hi = (np.asarray(a, float) for a in (value, lo, hi))
        ax.errorbar(
            x,
            value,
            yerr=np.vstack([np.maximum(value - lo, 0), np.maximum(hi - value, 0)]),
            fmt=_MARKERS[i % len(_MARKERS)],
            linestyle=_LINES[i % len(_LINES)],
            color=_GREYS[i % len(_GREYS)],
            markerfacecolor="white" if i % 2 else _GREYS[i % len(_GREYS)],
            markersize=6,
            capsize=3,
            label=short_name(name),
        )
    if reference is not None:
        ax.axhline(reference, color="0.5", linestyle="--", linewidth=1)
    if share_scale is not None:
        low, high = ax.get_ylim()
        centre = reference if reference is not None else (low + high) / 2
        keep_share_span(ax, centre, scale=share_scale)
    ax.set_xticks(counts, [f"{p} players" for p in counts])
    ax.set_xlim(counts[0] - 0.5, counts[-1] + 0.5)
    if share:
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_ylabel(ylabel)
    ax.grid(True, axis="y", color="0.85", linewidth=0.6)
    ax.legend(fontsize=8, loc="lower right", bbox_to_anchor=(1, 1), ncols=3, frameon=False)
    return fig
