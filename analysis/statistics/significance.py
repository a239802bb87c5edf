"""Tests and intervals for the difference between two runs, and Holm's correction.

Independent samples. Shares: the two-proportion z-test (pooled) with Newcombe's hybrid
score interval for the difference; a chi-squared test of homogeneity for a whole table of
outcomes (every seat, or every end reason). Lengths: the Mann-Whitney U test, computed
exactly from the counts per value (ties handled as mid-ranks), so no subsampling is needed
on any run size.

Paired samples (the same deals in both runs, :mod:`analysis.statistics.paired`). Shares: McNemar's
test with Newcombe's square-and-add interval for paired data (his method 10); lengths: the
Wilcoxon signed-rank test on the paired differences, computed exactly from their counts per
value, and the t interval of their mean; per-match figures: the paired t-test and interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats

from analysis.statistics.stats import wilson_interval
from simulate.runs.folder.distribution import Distribution

#: A 2×2 table of paired binary outcomes: ``table[i][j]`` pairs whose first outcome is i
#: and second j (1 a success, 0 not).
PairTable = Sequence[Sequence[float]] | np.ndarray


def _two_sided(z: float) -> float:
    """Two-sided normal p-value of ``z``: 2 Φ(−|z|), as erfc(|z|/√2) so that it keeps its
    precision far into the tail (``NormalDist.cdf`` gives 0 below about 1e-17)."""
    return math.erfc(abs(z) / math.sqrt(2)) if math.isfinite(z) else float("nan")


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
    return u1, min(1.0, math.erfc(z / math.sqrt(2)))


def mcnemar_test(table: PairTable) -> tuple[float, float]:
    """McNemar's test that paired binary outcomes succeed as often in the second sample as in
    the first, in its asymptotic form without continuity correction (as Fagerland, Lydersen
    and Laake, BMC Med Res Methodol 2013, recommend): ``(z, p)`` with
    ``z = (n₀₁ − n₁₀) / √(n₀₁ + n₁₀)`` from the discordant pairs of ``table`` (see
    :data:`PairTable`), positive when the second sample succeeds more often, and ``p``
    two-sided (``z²`` is the chi-squared statistic on one degree of freedom). With no
    discordant pair every pair agrees: ``z = 0``, ``p = 1``."""
    t = np.asarray(table, dtype=float)
    first_only, second_only = t[1, 0], t[0, 1]
    discordant = first_only + second_only
    if discordant == 0:
        return 0.0, 1.0
    z = (second_only - first_only) / math.sqrt(discordant)
    return z, _two_sided(z)


def paired_newcombe_interval(table: PairTable, confidence: float = 0.95) -> tuple[float, float]:
    """Newcombe's square-and-add interval for the difference of paired shares (his method
    10 for paired data, Statistics in Medicine 1998; 17:2635): second sample's share minus
    the first's, from ``table`` (see :data:`PairTable`). The Wilson intervals of the two
    shares are combined with the correlation of the pairs, the phi coefficient of the table
    with Newcombe's continuity correction (``(AD − BC − N/2)/√(margins)`` when AD − BC
    exceeds N/2, 0 from 0 to N/2, uncorrected below 0; 0 when a margin is empty).
    NaN when the table is empty."""
    t = np.asarray(table, dtype=float)
    n = float(t.sum())
    if n == 0:
        return float("nan"), float("nan")
    first, second = t[1].sum(), t[:, 1].sum()
    p1, p2 = first / n, second / n
    lo1, hi1 = wilson_interval(first, n, confidence)
    lo2, hi2 = wilson_interval(second, n, confidence)
    margins = first * (n - first) * second * (n - second)
    cross = t[1, 1] * t[0, 0] - t[1, 0] * t[0, 1]
    if margins == 0 or 0 <= cross <= n / 2:
        phi = 0.0
    else:
        phi = (cross - n / 2 if cross > n / 2 else cross) / math.sqrt(margins)
    below = (p2 - lo2) ** 2 + (hi1 - p1) ** 2 - 2 * phi * (p2 - lo2) * (hi1 - p1)
    above = (hi2 - p2) ** 2 + (p1 - lo1) ** 2 - 2 * phi * (hi2 - p2) * (p1 - lo1)
    d = p2 - p1
    return d - math.sqrt(max(below, 0.0)), d + math.sqrt(max(above, 0.0))


def wilcoxon_signed_rank(differences: Distribution) -> tuple[float, float]:
    """Wilcoxon's signed-rank test that paired differences (second minus first, given as
    counts per value) are symmetric about 0: ``(W, p)`` with ``W`` the sum of the ranks of
    the positive differences and ``p`` two-sided. Zero differences are dropped (Wilcoxon's
    method), tied |differences| get mid-ranks, and ``p`` is the normal approximation with
    the tie correction and no continuity correction: equal to ``scipy.stats.wilcoxon(d,
    method="asymptotic")``. ``p`` is 1 when every difference is 0, NaN when there is none."""
    if differences.n == 0:
        return float("nan"), float("nan")
    values, counts = differences.values, differences.counts.astype(float)
    nonzero = values != 0
    magnitude = np.abs(values[nonzero])
    counts = counts[nonzero]
    positive = np.where(values[nonzero] > 0, counts, 0.0)
    sizes = np.unique(magnitude)
    index = np.searchsorted(sizes, magnitude)
    ties = np.bincount(index, weights=counts, minlength=sizes.size)
    above = np.bincount(index, weights=positive, minlength=sizes.size)
    mid_rank = np.cumsum(ties) - ties + (ties + 1) / 2
    w_plus = float(np.dot(above, mid_rank))
    m = float(ties.sum())
    if m == 0:
        return 0.0, 1.0
    variance = (m * (m + 1) * (2 * m + 1) - float(np.sum(ties**3 - ties)) / 2) / 24
    if variance <= 0:
        return w_plus, 1.0
    z = (w_plus - m * (m + 1) / 4) / math.sqrt(variance)
    return w_plus, _two_sided(z)


def mean_difference_test(
    n: int, mean: float, variance: float, confidence: float = 0.95
) -> tuple[float, float, float, float]:
    """The t interval and t-test of the mean of ``n`` paired differences with sample mean
    ``mean`` and sample variance ``variance`` (divisor n − 1): ``(lo, hi, t, p)``, ``p``
    two-sided against a mean of 0 (Student's t, n − 1 degrees of freedom), equal to
    ``scipy.stats.ttest_rel``. When every difference is the same the interval is that
    value and ``p`` is 1 if it is 0, else 0; all NaN below two pairs."""
    if n < 2 or math.isnan(variance):
        return (float("nan"),) * 4
    se = math.sqrt(max(variance, 0.0) / n)
    if se == 0:
        return mean, mean, float("nan"), (1.0 if mean == 0 else 0.0)
    df = n - 1
    half = float(stats.t.ppf(0.5 + confidence / 2, df)) * se
    t = mean / se
    return mean - half, mean + half, t, float(2 * stats.t.sf(abs(t), df))


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
