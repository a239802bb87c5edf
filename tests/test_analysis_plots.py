"""Charts: each is a Figure with its title, drawn so that series differ without colour."""

import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from analysis.comparisons import charts
from analysis.rendering import plots
from analysis.rendering.output import render
from analysis.statistics.convergence import Convergence
from analysis.statistics.stats import win_share_table
from simulate.runs.folder.distribution import Distribution

TITLE = "Pis Yedili · 4 players · 1,000 deals · stack_growth = double"
STRATEGIES = ["random", "first", "greedy"]


def is_grey(colour) -> bool:
    r, g, b, _ = to_rgba(colour)
    return r == g == b


def texts(fig: Figure) -> list[str]:
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def made_up_matrix():
    share = np.array([[np.nan, 0.62, 0.55], [0.38, np.nan, 0.47], [0.45, 0.53, np.nan]])
    frame = lambda v: pd.DataFrame(v, index=STRATEGIES, columns=STRATEGIES)  # noqa: E731
    return frame(share), frame(share - 0.03), frame(share + 0.03)


def test_tournament_heatmap_prints_every_cell_and_hatches_missing_ones():
    matrix, lo, hi = made_up_matrix()
    fig = plots.tournament_heatmap(matrix, lo, hi, "Head to head · 2 players · 10,000 deals")
    assert isinstance(fig, Figure)
    assert fig.get_suptitle().startswith("Head to head")
    cells = texts(fig)
    assert "62.0%\n59.0–65.0" in cells and "38.0%\n35.0–41.0" in cells
    assert len(cells) == 6
    heatmap = fig.axes[0]
    hatched = [p for p in heatmap.patches if isinstance(p, Rectangle) and p.get_hatch()]
    assert sum(p.get_hatch() == "xx" for p in hatched) == 3  # the diagonal
    assert sum(p.get_hatch() == plots.BELOW_FAIR_HATCH for p in hatched) == 3  # below 50%
    assert [t.get_text() for t in heatmap.get_xticklabels()] == STRATEGIES
    assert heatmap.images[0].get_cmap().name == plots.HEATMAP_CMAP
    assert render(fig, "png").startswith(b"\x89PNG")


def test_tournament_heatmap_refuses_mismatched_tables():
    matrix, lo, hi = made_up_matrix()
    with pytest.raises(ValueError, match="same index and columns"):
        plots.tournament_heatmap(matrix, lo.iloc[:2], hi, "t")


def test_convergence_chart_has_both_estimates_in_grey():
    conv = Convergence(300, 2, "cards")
    conv.rows = [[100, 48, 100, 25_000, 7_000_000], [300, 150, 300, 76_000, 21_000_000]]
    fig = plots.convergence_chart(conv.table(), TITLE, "first seat", "cards", 2)
    assert fig.get_suptitle().replace("\n", " · ") == TITLE
    left, right = fig.axes
    assert left.get_xscale() == "log" and right.get_xscale() == "log"
    assert left.lines[0].get_ydata().tolist() == pytest.approx([0.48, 0.5])
    assert {left.lines[0].get_marker(), right.lines[0].get_marker()} == {"o", "s"}
    for ax in (left, right):
        assert all(is_grey(line.get_color()) for line in ax.lines)
        band = ax.collections[0].get_facecolor()[0]
        assert is_grey(band) and band[0] > 0.5  # a light band behind the black line


def comparison_rows():
    return pd.DataFrame(
        {
            "variant": ["base", "double", "any_draw"],
            "base": ["base"] * 3,
            "is_base": [True, False, False],
            "first_diff": [np.nan, 0.012, -0.004],
            "first_diff_lo": [np.nan, 0.004, -0.012],
            "first_diff_hi": [np.nan, 0.020, 0.004],
            "first_significant": [None, True, False],
            "length_diff": [np.nan, -0.3, 1.2],
            "length_diff_lo": [np.nan, -0.4, 0.9],
            "length_diff_hi": [np.nan, -0.2, 1.5],
            "length_significant": [None, True, True],
        }
    )


def test_forest_chart_fills_significant_markers_only():
    fig = charts.forest_chart(comparison_rows(), TITLE, "turns")
    share, length = fig.axes
    points = [line for line in share.lines if line.get_marker() == "o"][:2]
    assert [p.get_markerfacecolor() for p in points] == ["black", "white"]
    assert points[0].get_xdata()[0] == pytest.approx(1.2)  # in percentage points
    labels = {
        tick: label.get_text()
        for tick, label in zip(share.get_yticks(), share.get_yticklabels(), strict=True)
    }
    assert labels == {1: "double\nvs base", 0: "any_draw\nvs base"}
    assert points[0].get_ydata()[0] == 1
    assert "turns" in length.get_xlabel()


def test_variant_series_differ_by_marker_and_line_style():
    shares = [
        (name, win_share_table(np.array([30 + i, 25, 25 - i, 20, 0])))
        for i, name in enumerate(["a", "b", "c"])
    ]
    fig = charts.variants_win_share_chart(shares, TITLE)
    series = [container.lines[0] for container in fig.axes[0].containers]
    assert len({line.get_marker() for line in series}) == 3
    assert [line.get_markerfacecolor() == "white" for line in series] == [False, True, False]
    dists = [(n, Distribution.of(np.arange(10 + i))) for i, n in enumerate("abc")]
    fig = charts.survival_curves(dists, TITLE, "turns")
    styles = [line.get_linestyle() for line in fig.axes[0].lines]
    assert len(set(styles)) == 3
    assert all(is_grey(line.get_color()) for line in fig.axes[0].lines)


def test_score_chart_from_distributions_matches_boxplot_statistics():
    rng = np.random.default_rng(2)
    values = {f"seat {s}": rng.integers(0, 90, 400) for s in range(3)}
    fig = plots.score_chart({k: Distribution.of(v) for k, v in values.items()}, TITLE)
    ax = fig.axes[0]
    medians = [line for line in ax.lines if line.get_linewidth() == 2][:3]
    assert [m.get_ydata()[0] for m in medians] == [np.median(v) for v in values.values()]
    assert [t.get_text() for t in ax.get_xticklabels()] == list(values)
