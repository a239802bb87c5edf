"""No chart makes a difference below the negligible threshold look large: a win-share axis
spans at least the fair share ± twice the threshold (or the forest plot marks the threshold
band), and the explore chart draws every candidate's intervals with legible pick labels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection
from matplotlib.text import Text

from analysis.comparisons import charts
from analysis.exploration import explore_chart
from analysis.rendering import plots
from analysis.statistics.stats import win_share_table
from simulate.core.measures import NEGLIGIBLE_SHARE

#: The least span of a share axis: the fair share ± twice the threshold, as a fraction.
SPAN = 2 * 2 * NEGLIGIBLE_SHARE / 100

#: Four seats within 0.2 points of a quarter, over a million deals: tight intervals.
NEAR_FAIR = np.array([250_800, 249_500, 249_900, 249_800, 0])


def spans(limits: tuple[float, float], centre: float, half: float) -> bool:
    return limits[0] <= centre - half + 1e-12 and limits[1] >= centre + half - 1e-12


def test_win_share_charts_keep_the_threshold_in_proportion():
    table = win_share_table(NEAR_FAIR)
    fig = plots.win_share_chart(table, "near fair")
    assert spans(fig.axes[0].get_ylim(), 0.25, SPAN / 2)
    fig = charts.variants_win_share_chart([("a", table), ("b", table)], "two")
    assert spans(fig.axes[0].get_ylim(), 0.25, SPAN / 2)
    convergence = pd.DataFrame(
        {"games": [1000, 10_000, 1_000_000], "share": [0.251, 0.2505, 0.2508],
         "lo": [0.2505, 0.2503, 0.2507], "hi": [0.2515, 0.2507, 0.2509],
         "mean": [30.0, 30.0, 30.0], "mean_lo": [29.9, 29.95, 29.99],
         "mean_hi": [30.1, 30.05, 30.01]}
    )  # fmt: skip
    fig = plots.convergence_chart(convergence, "converging", "first seat", "turns", 4)
    assert spans(fig.axes[0].get_ylim(), 0.25, SPAN / 2)
    advantage = [("a", np.array([3, 4]), *(np.array([0.1, 0.2]) + d for d in (0, -0.05, 0.05)))]
    fig = charts.players_chart(advantage, "points", "pts", reference=0.0, share_scale=100)
    assert spans(fig.axes[0].get_ylim(), 0.0, 100 * SPAN / 2)
    # a wide axis is left as it is
    wide = win_share_table(np.array([400_000, 200_000, 200_000, 200_000, 0]))
    low, high = plots.win_share_chart(wide, "wide").axes[0].get_ylim()
    assert low < 0.2 and high > 0.4


def test_the_forest_plot_marks_the_negligible_band():
    table = pd.DataFrame(
        {"is_base": [False], "variant": ["b"], "base": ["a"], "first_diff": [0.001],
         "first_diff_lo": [0.0005], "first_diff_hi": [0.0015], "first_significant": [True],
         "first_analysis": ["paired"]}
    )  # fmt: skip
    fig = charts.forest_chart(table, "tiny", "turns")
    ax = fig.axes[0]
    assert spans(ax.get_xlim(), 0.0, 100 * SPAN / 2)
    bands = [p for p in ax.patches if p.get_width() == pytest.approx(2 * NEGLIGIBLE_SHARE)]
    assert len(bands) == 1 and bands[0].get_x() == pytest.approx(-NEGLIGIBLE_SHARE)


def explore_views(points: int, picks: int) -> tuple[pd.DataFrame, dict]:
    """An explore table of ``points`` rule sets on two share aims, the first ``picks``
    confirmed and picked, all within a point of each other."""
    rng = np.random.default_rng(1)
    spread = 0.01 + rng.random(points) * 0.002
    turns = 26 + rng.random(points) * 0.05
    table = pd.DataFrame(
        {"hand_size": range(points), "games": 1000, "seat_spread": spread,
         "seat_spread_lo": spread - 0.01, "seat_spread_hi": spread + 0.01, "turns": turns,
         "turns_lo": turns - 0.3, "turns_hi": turns + 0.3,
         "confirmed": [i < picks for i in range(points)], "base": [i == 0 for i in range(points)],
         "pick": pd.array([i + 1 if i < picks else None for i in range(points)], "Int64"),
         "front": [i < picks for i in range(points)], "rounds": 1,
         "dropped": pd.array([None] * points, "Int64")}
    )  # fmt: skip
    meta = {
        "title": "close together",
        "aims": [{"measure": "seat_spread", "goal": "target", "target": 0.0},
                 {"measure": "turns", "goal": "target", "target": 26.0}],
        "confirmed": [],
    }  # fmt: skip
    return table, meta


def test_the_explore_chart_draws_every_interval_and_legible_labels():
    table, meta = explore_views(40, 6)
    fig = explore_chart(table, meta["aims"], meta)
    ax = fig.axes[0]
    segments = sum(len(c.get_segments()) for c in ax.collections if isinstance(c, LineCollection))
    assert segments >= 2 * len(table)  # a horizontal and a vertical bar per rule set
    assert spans(ax.get_xlim(), np.mean(ax.get_xlim()), 100 * SPAN / 2)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    labels = [t for t in ax.texts if t.get_text().isdigit()]
    assert sorted(int(t.get_text()) for t in labels) == list(range(1, 7))
    boxes = [Text.get_window_extent(t, renderer) for t in labels]  # the text, not its line
    for i, one in enumerate(boxes):
        for other in boxes[i + 1 :]:
            assert not one.overlaps(other), "two pick labels overlap"
