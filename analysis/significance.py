"""Tests and intervals for the difference between two runs, and Holm's correction.

Shares: the two-proportion z-test (pooled) with Newcombe's hybrid score interval for the
difference; a chi-squared test of homogeneity for a whole table of outcomes (every seat,
or every end reason). Lengths: the Mann-Whitney U test, computed exactly from the counts
per value (ties handled as mid-ranks), so no subsampling is needed on any run size.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np
from scipy import stats

from analysis.distribution import Distribution
from analysis.stats import wilson_interval

_NORMAL = NormalDist()


def _two_sided(z: float) -> float:
    return 2 * _NORMAL.cdf(-abs(z)) if math.isfinite(z) else float("nan")


def two_proportion_test(k1: float, n1: int, k2: float, n2: int) -> tuple[float, float]:
    """Pooled two-proportion z-test of ``k1/n1`` against ``k2/n2``: ``(z, p)``, ``z``
    positive when the second share is the larger, ``p`` two-sided. NaN when a sample is
    empty or the pooled share is 0 or 1 (no variation to test)."""
    if n1 == 0 or n2 == 0:
        return float("nan"), float("nan")
    pooled = (k1 + k2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:
        return float("nan"), float("nan")
    z = (k2 / n2 - k1 / n1) / se
    return z, _two_sided(z)


def newcombe_interval(
    k1: float, n1: int, k2: float, n2: int, confidence: float = 0.95
) -> tuple[float, float]:
    """Newcombe's hybrid score interval (his method 10, from the two Wilson intervals) for
    the difference of shares ``k2/n2 − k1/n1``."""
    p1, p2 = k1 / n1, k2 / n2
    lo1, hi1 = wilson_interval(k1, n1, confidence)
    lo2, hi2 = wilson_interval(k2, n2, confidence)
    d = p2 - p1
    lo = d - math.sqrt((p2 - lo2) ** 2 + (hi1 - p1) ** 2)
    hi = d + math.sqrt((hi2 - p2) ** 2 + (p1 - lo1) ** 2)
    return lo, hi


def chi2_homogeneity(counts1: Sequence[float], counts2: Sequence[float]) -> tuple[float, float]:
    """Chi-squared test that two runs share one distribution over the same categories
    (``counts1`` and ``counts2`` of equal length): ``(statistic, p)``, without Yates's
    correction. Categories empty in both are dropped; NaN when fewer than two remain."""
    table = np.array([counts1, counts2], dtype=float)
    table = table[:, table.sum(axis=0) > 0]
    if table.shape[1] < 2 or (table.sum(axis=1) == 0).any():
        return float("nan"), float("nan")
    result = stats.chi2_contingency(table, correction=False)
    return float(result.statistic), float(result.pvalue)


def mann_whitney(x: Distribution, y: Distribution) -> tuple[float, float]:
    """Mann-Whitney U test of ``x`` against ``y``: ``(U, p)`` with ``U`` the statistic of
    ``x`` (pairs where x's game is longer, ties counting half) and ``p`` two-sided, from the
    normal approximation with tie correction and continuity correction. Equal to
    ``scipy.stats.mannwhitneyu(x, y, method="asymptotic")``: ``p`` is 1 when every game of
    both has the same value, NaN when either is empty."""
    n1, n2 = x.n, y.n
    if n1 == 0 or n2 == 0:
        return float("nan"), float("nan")
    values = np.union1d(x.values, y.values)
    c1 = np.zeros(values.size)
    c2 = np.zeros(values.size)
    c1[np.searchsorted(values, x.values)] = x.counts
    c2[np.searchsorted(values, y.values)] = y.counts
    below2 = np.cumsum(c2) - c2
    u1 = float(np.dot(c1, below2 + c2 / 2))
    n = n1 + n2
    ties = c1 + c2
    tie_term = float(np.sum(ties**3 - ties))
    variance = n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1)))
    if variance <= 0:
        return u1, 1.0
    u = max(u1, n1 * n2 - u1)
    z = (u - n1 * n2 / 2 - 0.5) / math.sqrt(variance)
    return u1, min(1.0, 2 * _NORMAL.cdf(-z))


def holm(pvalues: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjustment of a family of p-values (NaN entries are left out of the
    family and stay NaN): with the m valid p-values sorted, p₍ᵢ₎ becomes
    max over j ≤ i of min(1, (m − j + 1) p₍ⱼ₎). Shape as the input."""
    p = np.asarray(pvalues, dtype=float)
    adjusted = np.full(p.shape, np.nan)
    valid = np.flatnonzero(~np.isnan(p))
    m = valid.size
    order = valid[np.argsort(p[valid], kind="stable")]
    running = 0.0
    for i, index in enumerate(order):
        running = max(running, min(1.0, (m - i) * p[index]))
        adjusted[index] = running
    return adjusted
