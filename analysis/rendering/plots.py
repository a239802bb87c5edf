"""Charts of a run, one function per chart, each returning a matplotlib Figure.

Figures are built with :class:`matplotlib.figure.Figure` directly (no pyplot state).
They are drawn in black and greys with hatching, markers and line styles so that they
read the same when printed in grayscale.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import PercentFormatter, StrMethodFormatter

from analysis.rendering.words import fmt_num
from simulate.core.measures import NEGLIGIBLE_SHARE
from simulate.runs.folder.distribution import Distribution

#: Share of games the histograms show; the longest 0.1% would squash the rest.
_HIST_QUANTILE = 99.9
_HIST_MAX_BINS = 80


#: Half the span, as a fraction of 1, that an axis of win shares shows at least: twice the
#: negligible threshold (half a point), so that a difference a comparison calls negligible
#: never fills a chart.
SHARE_HALF_SPAN = 2 * NEGLIGIBLE_SHARE / 100


def keep_share_span(ax, centre: float, *, axis: str = "y", scale: float = 1.0) -> None:
    """Widen ``ax``'s ``axis`` (``x`` or ``y``, a win share or a difference of shares, in
    units of ``scale``: 1 for fractions, 100 for points) to span at least ``centre`` ±
    :data:`SHARE_HALF_SPAN`. Call it once everything is drawn."""
    half = SHARE_HALF_SPAN * scale
    get, put = (ax.get_ylim, ax.set_ylim) if axis == "y" else (ax.get_xlim, ax.set_xlim)
    lo, hi = get()
    put(min(lo, centre - half), max(hi, centre + half))


def new_figure(title: str, width: float, height: float) -> Figure:
    """An empty figure of ``width`` × ``height`` inches with ``title`` wrapped on top."""
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


def no_data(ax, what: str) -> None:
    """Write "no <what>" in the middle of an empty panel."""
    ax.text(0.5, 0.5, f"no {what}", ha="center", va="center", transform=ax.transAxes)


def length_histogram(cards: Distribution, tricks: Distribution, title: str) -> Figure:
    """Histograms of game length: cards played (left panel) and tricks (right panel), from
    their distributions over the games.

    Bins are whole numbers of cards (or tricks) wide; the x axis stops at the 99.9th
    percentile and its label counts the games beyond. Dashed and dotted lines mark the mean
    and the median.
    """
    return histograms([(cards, "cards played per deal"), (tricks, "tricks per deal")], title)


_HATCHES = (None, "///", "...", "xx")


def histograms(panels: Sequence[tuple[Distribution, str]], title: str) -> Figure:
    """One histogram panel per ``(distribution, xlabel)`` in ``panels``, side by side, as in
    :func:`length_histogram` (whole-number bins, x axis to the 99.9th percentile, mean and
    median marked); each panel has its own hatching."""
    fig = new_figure(title, 10 if len(panels) <= 2 else 4.2 * len(panels), 4.3)
    axes = np.atleast_1d(fig.subplots(1, len(panels)))
    for i, (ax, (dist, xlabel)) in enumerate(zip(axes, panels, strict=True)):
        _histogram_panel(ax, dist, xlabel, hatch=_HATCHES[i % len(_HATCHES)])
    return fig


def _histogram_panel(ax, dist: Distribution, xlabel: str, hatch: str | None) -> None:
    ax.set_ylabel("deals")
    ax.set_xlabel(xlabel)
    if dist.n == 0:
        no_data(ax, "finished deals")
        return
    low = int(dist.min())
    high = max(low, math.ceil(float(dist.percentiles(_HIST_QUANTILE))))
    width = max(1, math.ceil((high - low + 1) / _HIST_MAX_BINS))
    edges = np.arange(low, high + width + 1, width) - 0.5
    ax.hist(
        dist.values,
        bins=edges,
        weights=dist.counts,
        color="0.8",
        edgecolor="black",
        linewidth=0.5,
        hatch=hatch,
    )
    mean, median = dist.mean(), dist.median()
    ax.axvline(mean, color="black", linestyle="--", linewidth=1.2, label=f"mean {fmt_num(mean)}")
    ax.axvline(
        median, color="black", linestyle=":", linewidth=1.5, label=f"median {fmt_num(median)}"
    )
    beyond = dist.count_above(edges[-1])
    if beyond:
        ax.set_xlabel(f"{xlabel} ({beyond:,} longer not shown)")
    ax.yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    # Above the axes, where it can hide no bar.
    ax.legend(fontsize=8, loc="lower right", bbox_to_anchor=(1, 1), ncols=2, frameon=False)


def survival_chart(x: np.ndarray, s: np.ndarray, title: str, unit: str = "cards") -> Figure:
    """Survival curve P(length > x) against x (in ``unit``: cards played, turns …), as from
    :meth:`simulate.runs.folder.distribution.Distribution.survival`, on a logarithmic y axis (so the
    rare very long deals stay visible)."""
    fig = new_figure(title, 8, 4.5)
    ax = fig.subplots()
    ax.set_xlabel("x (cards played)" if unit == "cards" else f"x ({unit})")
    ax.set_ylabel(f"P(deal lasts more than x {unit})")
    steps = survival_steps(x, s)
    if steps is None:
        no_data(ax, "deal longer than another")
        return fig
    ax.step(*steps, where="post", color="black", linewidth=1.2)
    ax.set_yscale("log")
    ax.set_xlim(left=0)
    ax.grid(True, which="major", color="0.85", linewidth=0.6)
    return fig


def survival_steps(x: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The points of a survival curve's steps (``where="post"``) as drawn on a log axis,
    which cannot show the final 0: the points with ``s > 0``, then the last of them carried
    on to the longest game, so that the curve reaches it. None when no game is longer than
    another (nothing to draw)."""
    keep = s > 0
    if not keep.any():
        return None
    xs, ys = x[keep], s[keep]
    if x.size and x[-1] > xs[-1]:
        xs, ys = np.append(xs, x[-1]), np.append(ys, ys[-1])
    return xs, ys


def win_share_chart(shares: pd.DataFrame, title: str, unit: str = "deals") -> Figure:
    """Win share per seat with Wilson error bars and a dashed line at the equal share 1/n.

    ``shares`` is the table from :func:`analysis.statistics.stats.win_share_table`; its "no winner"
    row is left out of the chart. Each point is labelled with its percentage. ``unit``
    names what was won (``deals``, ``matches``).
    """
    seats = shares[shares["seat"] >= 0]
    players = len(seats)
    fig = new_figure(title, 7, 4.5)
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
    keep_share_span(ax, 1 / players)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_ylabel(f"share of all {unit} won")
    ax.grid(True, axis="y", color="0.85", linewidth=0.6)
    ax.legend(fontsize=8, loc="lower right", bbox_to_anchor=(1, 1), ncols=2, frameon=False)
    return fig


def score_chart(scores: Mapping[str, Distribution], title: str, ylabel: str = "score") -> Figure:
    """Distribution of each seat's score: one box per entry of ``scores`` (label → the
    distribution of that seat's score over the games) showing quartiles and the
    10th-90th percentile whiskers, with the mean as a white diamond. Black and white only."""
    fig = new_figure(title, max(6, 1.3 * len(scores) + 3), 4.5)
    ax = fig.subplots()
    if not scores or not all(d.n for d in scores.values()):
        no_data(ax, "games")
        return fig
    boxes = [{**dist.box_stats((10, 90)), "label": label} for label, dist in scores.items()]
    ax.bxp(
        boxes,
        showfliers=False,
        showmeans=True,
        patch_artist=True,
        widths=0.55,
        boxprops={"facecolor": "0.85", "edgecolor": "black", "hatch": "//"},
        medianprops={"color": "black", "linewidth": 2},
        whiskerprops={"color": "black"},
        capprops={"color": "black"},
        meanprops={
            "marker": "D",
            "markerfacecolor": "white",
            "markeredgecolor": "black",
            "markersize": 7,
        },
    )
    ax.plot(
        [],
        [],
        linestyle="none",
        marker="D",
        markerfacecolor="white",
        markeredgecolor="black",
        markersize=7,
        label="mean",
    )
    ax.plot([], [], color="black", linewidth=2, label="median")
    ax.plot([], [], color="black", linewidth=1, label="box: quartiles; whiskers: 10th–90th pct")
    ax.set_ylabel(ylabel)
    ax.yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    ax.grid(True, axis="y", color="0.85", linewidth=0.6)
    ax.legend(fontsize=8, loc="lower right", bbox_to_anchor=(1, 1), ncols=3, frameon=False)
    return fig


def convergence_chart(
    table: pd.DataFrame, title: str, first_label: str, length_label: str, players: int
) -> Figure:
    """The headline estimates against games played, on a log axis: left, the first seat's
    win share with its 95% Wilson band and the equal share 1/``players`` dashed; right, the
    mean length with its 95% band. ``table`` is :meth:`analysis.statistics.convergence.Convergence.table`.
    """
    fig = new_figure(title, 10, 4.3)
    left, right = fig.subplots(1, 2)
    games = table["games"].to_numpy()
    panels = (
        (left, "share", "lo", "hi", "o", f"{first_label} win share"),
        (right, "mean", "mean_lo", "mean_hi", "s", f"mean {length_label}"),
    )
    for ax, mid, lo, hi, marker, label in panels:
        ax.fill_between(
            games,
            table[lo],
            table[hi],
            color="0.85",
            linewidth=0,
            label="95% interval",
        )
        ax.plot(games, table[mid], color="black", marker=marker, markersize=4, label=label)
        ax.axhline(
            table[mid].iloc[-1], color="black", linestyle=":", linewidth=1, label="whole run"
        )
        ax.set_xscale("log")
        ax.set_xlabel("deals played (log scale)")
        ax.grid(True, which="major", color="0.85", linewidth=0.6)
    left.axhline(
        1 / players,
        color="0.4",
        linestyle="--",
        linewidth=1.2,
        label=f"equal share {100 / players:.1f}%",
    )
    keep_share_span(left, 1 / players)
    left.yaxis.set_major_formatter(PercentFormatter(1.0))
    left.set_ylabel(f"{first_label} win share")
    right.set_ylabel(f"mean {length_label}")
    for ax in (left, right):
        ax.legend(fontsize=8, loc="lower right", bbox_to_anchor=(1, 1), ncols=2, frameon=False)
    return fig


#: The heatmap's diverging colour map: red below the fair share, blue above, white at it.
HEATMAP_CMAP = "RdBu"
#: Hatching of the heatmap's cells below the fair share (and of that part of its colour
#: bar), so that the two sides differ in grayscale too, where both ends of the map are dark.
BELOW_FAIR_HATCH = ".."


def tournament_heatmap(
    matrix: pd.DataFrame, lo: pd.DataFrame, hi: pd.DataFrame, title: str, players: int = 2
) -> Figure:
    """Head-to-head results of strategies as a heatmap: ``matrix.loc[a, b]`` is the win
    share of row strategy ``a`` (one seat) against column strategy ``b`` (the other
    ``players - 1`` seats), a fraction; ``lo`` and ``hi`` its 95% interval, all three with
    the same strategy names as index and columns.

    The colour scale diverges from the fair share ``1/players`` (white; a
    :class:`~matplotlib.colors.TwoSlopeNorm` centred there): blue above, red below, as deep
    on both sides for the same distance, the fair share marked on the colour bar. Cells
    below it are also dotted, as is that part of the bar, so that the chart reads in
    grayscale. Each cell is printed with its share and interval (white on deep cells); a
    missing (NaN) cell, such as a strategy against itself, is hatched and left empty."""
    if not (matrix.index.equals(lo.index) and matrix.index.equals(hi.index)) or not (
        matrix.columns.equals(lo.columns) and matrix.columns.equals(hi.columns)
    ):
        raise ValueError("matrix, lo and hi must have the same index and columns")
    if players < 2:
        raise ValueError(f"a tournament needs two or more players, got {players}")
    rows, cols = matrix.shape
    fair = 1 / players
    fig = new_figure(title, max(6, 1.5 * cols + 3), max(4, 0.9 * rows + 2))
    ax = fig.subplots()
    values = matrix.to_numpy(dtype=float)
    shown = np.ma.masked_invalid(values)
    finite = values[np.isfinite(values)]
    # Symmetric about the fair share where [0, 1] allows, at least ±1 point.
    reach = max(0.01, float(np.abs(finite - fair).max())) if finite.size else 0.5
    norm = TwoSlopeNorm(vcenter=fair, vmin=max(0.0, fair - reach), vmax=min(1.0, fair + reach))
    cmap = colormaps[HEATMAP_CMAP]
    image = ax.imshow(shown, cmap=cmap, norm=norm, aspect="auto")
    for i in range(rows):
        for j in range(cols):
            value = values[i, j]
            if not np.isfinite(value):
                ax.add_patch(
                    Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="xx", edgecolor="0.6")
                )
                continue
            if value < fair:
                ax.add_patch(
                    Rectangle(
                        (j - 0.5, i - 0.5),
                        1,
                        1,
                        fill=False,
                        hatch=BELOW_FAIR_HATCH,
                        edgecolor="0.5",
                        linewidth=0,
                    )
                )
            text = f"{100 * value:.1f}%\n{100 * lo.iat[i, j]:.1f}–{100 * hi.iat[i, j]:.1f}"
            fill = cmap(norm(value))
            r, g, b, _ = fill
            colour = "white" if 0.299 * r + 0.587 * g + 0.114 * b < 0.5 else "black"
            # On the cell's own colour, so that the dots stay off the text.
            box = {"facecolor": fill, "edgecolor": "none", "pad": 1.5}
            ax.text(j, i, text, ha="center", va="center", fontsize=8, color=colour, bbox=box)
    ax.set_xticks(range(cols), [str(c) for c in matrix.columns])
    ax.set_yticks(range(rows), [str(r) for r in matrix.index])
    ax.set_xlabel("against (column)")
    ax.set_ylabel("strategy (row)")
    bar = fig.colorbar(image, ax=ax, format=PercentFormatter(1.0))
    bar.set_label("win share of row against column")
    bar.ax.add_patch(
        Rectangle(
            (0, norm.vmin),
            1,
            fair - norm.vmin,
            transform=bar.ax.get_yaxis_transform(),
            fill=False,
            hatch=BELOW_FAIR_HATCH,
            edgecolor="0.5",
            linewidth=0,
        )
    )
    bar.ax.axhline(fair, color="black", linewidth=1.5)
    # The fair share as a labelled tick, the automatic ones too close to it dropped.
    ticks = [t for t in bar.get_ticks() if norm.vmin <= t <= norm.vmax]
    step = (norm.vmax - norm.vmin) / 12
    ticks = sorted([t for t in ticks if abs(t - fair) > step] + [fair])
    bar.set_ticks(ticks)
    bar.set_ticklabels(
        [
            f"fair share {100 * fair:.1f}% (1/{players})" if t == fair else f"{100 * t:.0f}%"
            for t in ticks
        ]
    )
    return fig
