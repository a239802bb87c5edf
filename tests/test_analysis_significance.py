"""Tests of differences (analysis.statistics.significance) against scipy and published cases."""

import math

import numpy as np
import pytest
from scipy import stats

from analysis.statistics.significance import (
    chi2_homogeneity,
    holm,
    mann_whitney,
    newcombe_interval,
    two_proportion_test,
)
from simulate.runs.folder.distribution import Distribution


def test_newcombe_interval_matches_the_published_example():
    # Newcombe (1998), Statistics in Medicine 17:873, method 10: 56/70 − 48/80.
    lo, hi = newcombe_interval(48, 80, 56, 70)
    assert lo == pytest.approx(0.0524, abs=5e-5) and hi == pytest.approx(0.3339, abs=5e-5)
    # Reversing the samples mirrors the interval.
    assert newcombe_interval(56, 70, 48, 80) == pytest.approx((-hi, -lo))


@pytest.mark.parametrize(
    "k1, n1, k2, n2", [(48, 80, 56, 70), (5012, 10000, 4890, 10000), (0, 30, 3, 30)]
)
def test_two_proportion_z_test_equals_chi_squared_on_the_two_by_two_table(k1, n1, k2, n2):
    z, p = two_proportion_test(k1, n1, k2, n2)
    table = [[k1, n1 - k1], [k2, n2 - k2]]
    expected = stats.chi2_contingency(table, correction=False)
    assert z * z == pytest.approx(expected.statistic, rel=1e-10)
    assert p == pytest.approx(expected.pvalue, rel=1e-9)
    assert math.copysign(1, z) == math.copysign(1, k2 / n2 - k1 / n1)


def test_two_proportion_hand_computed_and_degenerate():
    # 60/100 against 40/100: pooled 0.5, se = sqrt(0.25 * 0.02) = 0.070711, z = -2.828427.
    z, p = two_proportion_test(60, 100, 40, 100)
    assert z == pytest.approx(-2.828427, abs=1e-6) and p == pytest.approx(0.004678, abs=1e-6)
    assert all(math.isnan(v) for v in two_proportion_test(0, 10, 0, 20))
    assert all(math.isnan(v) for v in two_proportion_test(1, 0, 1, 2))


def test_chi_squared_homogeneity_equals_scipy_and_drops_empty_categories():
    a, b = [30, 25, 45, 0], [20, 35, 40, 0]
    statistic, p = chi2_homogeneity(a, b)
    expected = stats.chi2_contingency([a[:3], b[:3]], correction=False)
    assert statistic == pytest.approx(expected.statistic) and p == pytest.approx(expected.pvalue)
    assert all(math.isnan(v) for v in chi2_homogeneity([10, 0], [7, 0]))


def test_mann_whitney_from_counts_equals_scipy():
    rng = np.random.default_rng(8)
    for _ in range(300):
        x = rng.integers(0, int(rng.integers(1, 25)), int(rng.integers(1, 60)))
        y = rng.integers(0, int(rng.integers(1, 25)), int(rng.integers(1, 60)))
        expected = stats.mannwhitneyu(x, y, method="asymptotic")
        u, p = mann_whitney(Distribution.of(x), Distribution.of(y))
        assert u == pytest.approx(expected.statistic, abs=1e-9)
        assert p == pytest.approx(expected.pvalue, rel=1e-9, abs=1e-15)


def test_mann_whitney_hand_computed():
    # x = [1, 2], y = [2, 3]: pairs x > y: none; ties: (2, 2) counts half: U = 0.5.
    u, p = mann_whitney(Distribution.of(np.array([1, 2])), Distribution.of(np.array([2, 3])))
    assert u == 0.5 and 0 < p <= 1
    assert mann_whitney(Distribution.of(np.array([4, 4])), Distribution.of(np.array([4])))[1] == 1
    assert math.isnan(mann_whitney(Distribution.empty(), Distribution.of(np.array([1])))[1])


def test_holm_hand_computed():
    # Sorted 0.005, 0.01, 0.03, 0.04 with m = 4: 0.02, 0.03, 0.06, max(0.04, 0.06).
    adjusted = holm([0.01, 0.04, 0.03, 0.005, float("nan")])
    assert adjusted[:4] == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert math.isnan(adjusted[4])
    assert holm([0.5, 0.9]).tolist() == [1.0, 1.0]
    assert holm([]).shape == (0,)


def test_holm_never_below_the_raw_p_and_keeps_the_order():
    p = np.random.default_rng(9).random(40) ** 3
    adjusted = holm(p)
    assert (adjusted >= p).all() and (adjusted <= 1).all()
    order = np.argsort(p)
    assert (np.diff(adjusted[order]) >= 0).all()
    # Rejections at 5% are Holm's: the first k sorted p-values with p_(i) < 0.05 / (m − i).
    sorted_p = p[order]
    k = next((i for i, v in enumerate(sorted_p) if v >= 0.05 / (len(p) - i)), len(p))
    assert (adjusted < 0.05).sum() == k
