"""Statistics of analysis.statistics.stats against hand-computed cases and scipy."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from analysis.statistics.stats import (
    end_reasons,
    length_summary,
    survival,
    wilson_interval,
    win_shares,
)


def test_wilson_hand_computed():
    # 8 of 10, z = 1.959964: centre = (0.8 + z²/20) / (1 + z²/10) = 0.716740,
    # half width = z / (1 + z²/10) * sqrt(0.8 * 0.2 / 10 + z² / 400) = 0.226578.
    lo, hi = wilson_interval(8, 10)
    assert lo == pytest.approx(0.490162, abs=1e-6)
    assert hi == pytest.approx(0.943318, abs=1e-6)
    assert isinstance(lo, float) and isinstance(hi, float)


@pytest.mark.parametrize("confidence", [0.90, 0.95, 0.99])
@pytest.mark.parametrize("k, n", [(0, 1), (1, 1), (0, 20), (3, 20), (20, 20), (5012, 10000)])
def test_wilson_matches_scipy(k, n, confidence):
    ci = binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    lo, hi = wilson_interval(k, n, confidence)
    assert lo == pytest.approx(ci.low, abs=1e-12)
    assert hi == pytest.approx(ci.high, abs=1e-12)


def test_wilson_vectorised_matches_scalar():
    k = np.array([0, 3, 7, 10])
    lo, hi = wilson_interval(k, 10)
    assert lo.shape == hi.shape == (4,)
    for i, ki in enumerate(k):
        assert (lo[i], hi[i]) == pytest.approx(wilson_interval(int(ki), 10))
    assert lo[0] == 0.0 and hi[-1] == 1.0


def test_wilson_empty_sample_is_nan():
    assert all(math.isnan(v) for v in wilson_interval(0, 0))
    lo, hi = wilson_interval(np.array([0, 1]), np.array([0, 2]))
    assert math.isnan(lo[0]) and math.isnan(hi[0])
    assert not math.isnan(lo[1])


def test_win_shares_counts_no_winner_in_denominator():
    games = pd.DataFrame({"winner": np.array([0, 0, 1, -1, 0], dtype=np.int8)})
    table = win_shares(games, players=2)
    assert table["seat"].tolist() == [0, 1, -1]
    assert table["label"].tolist() == ["seat 0", "seat 1", "no winner"]
    assert table["wins"].tolist() == [3, 1, 1]
    assert table["share"].tolist() == pytest.approx([0.6, 0.2, 0.2])
    lo, hi = wilson_interval(3, 5)
    assert (table.loc[0, "lo"], table.loc[0, "hi"]) == pytest.approx((lo, hi))


def test_win_shares_lists_seats_without_wins():
    games = pd.DataFrame({"winner": np.array([0, 2, 2, 2], dtype=np.int8)})
    table = win_shares(games, players=4)
    assert table["wins"].tolist() == [1, 0, 3, 0, 0]
    assert table.loc[1, "lo"] == 0.0


def test_length_summary_hand_computed():
    summary = length_summary(pd.Series(np.arange(1, 11, dtype=np.int32)))
    assert summary == pytest.approx(
        {"mean": 5.5, "median": 5.5, "p10": 1.9, "p90": 9.1, "p99": 9.91, "max": 10.0}
    )


def test_length_summary_empty_is_nan():
    assert all(math.isnan(v) for v in length_summary(pd.Series([], dtype=np.int32)).values())


def test_survival_is_share_strictly_longer():
    x, s = survival(pd.Series([2, 1, 3, 2]))
    assert x.tolist() == [1, 2, 3]
    assert s.tolist() == pytest.approx([0.75, 0.25, 0.0])


END_REASONS = ("out", "cycle", "time_limit")  # Beggar-My-Neighbour's


def test_end_reasons_lists_every_reason():
    end = pd.Categorical(["out", "out", "cycle", "out"], categories=["out", "cycle"])
    table = end_reasons(pd.DataFrame({"end": end}), END_REASONS)
    assert tuple(table.index) == END_REASONS
    assert table["count"].tolist() == [3, 1, 0]
    assert table["share"].tolist() == pytest.approx([0.75, 0.25, 0.0])


def test_end_reasons_keeps_unknown_reasons_last():
    table = end_reasons(pd.DataFrame({"end": ["out", "resigned"]}), END_REASONS)
    assert list(table.index) == [*END_REASONS, "resigned"]
    assert table["count"].sum() == 2


def test_interval_decimals_follow_the_half_width():
    from analysis.rendering.words import fmt_range, fmt_share_pm, fmt_wilson, pct_digits

    assert pct_digits(0.2443, 0.2564) == 1  # ± 0.6%
    assert pct_digits(0.25015, 0.25185) == 2  # ± 0.085%
    assert fmt_share_pm(0.2503, 0.2443, 0.2564) == "25.0% ± 0.6%"
    assert fmt_share_pm(0.251, 0.25015, 0.25185) == "25.10% ± 0.09%"
    assert fmt_wilson(0.25012, 0.25183) == "25.01–25.18%"
    assert fmt_range(28.93, 29.31) == "28.9–29.3"
    assert fmt_range(28.93, 29.10) == "28.93–29.10"
    assert fmt_range(254.7712, 254.8301) == "254.77–254.83"
    assert fmt_range(7.0, 7.0) == "7.0–7.0"
    assert fmt_range(float("nan"), 1.0) == "–"
