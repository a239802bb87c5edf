"""An integer-valued quantity of many games held as counts per value.

Lengths, scores and totals are whole numbers with few distinct values, so a run of 10⁸
games reduces to a few thousand ``(value, count)`` pairs. Every summary the reports give
(mean, variance, interpolated percentiles, survival curve, box-plot statistics) is computed
exactly from the counts, equal to what numpy gives on the full array of values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Widest range of values counted with ``np.bincount`` (one slot per value); wider ranges
#: are counted with a sort.
_DENSE_SPAN = 1 << 22
#: Widest range of values two distributions are added in dense bins (a merge of two
#: chunks' counts); wider ones are added by sorting.
_ADD_SPAN = 1 << 16


@dataclass(frozen=True, eq=False)
class Distribution:
    """Counts per value: ``values`` (k,) int64 strictly increasing, ``counts`` (k,) int64,
    every count positive. ``n`` is the number of games counted."""

    values: np.ndarray
    counts: np.ndarray

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Distribution):
            return NotImplemented
        return np.array_equal(self.values, other.values) and np.array_equal(
            self.counts, other.counts
        )

    @classmethod
    def empty(cls) -> Distribution:
        return cls(np.zeros(0, np.int64), np.zeros(0, np.int64))

    @classmethod
    def of(cls, data) -> Distribution:
        """Count an integer array of any shape (bool, int8 … int64)."""
        a = np.asarray(data).ravel()
        if a.size == 0:
            return cls.empty()
        if a.dtype.kind not in "biu":
            raise TypeError(f"Distribution.of needs integers, got {a.dtype}")
        lo, hi = int(a.min()), int(a.max())
        if hi - lo < _DENSE_SPAN:
            shifted = np.subtract(a, lo, dtype=np.int64) if lo else a.astype(np.int64, copy=False)
            return cls.from_bins(lo, np.bincount(shifted, minlength=hi - lo + 1))
        values, counts = np.unique(a.astype(np.int64), return_counts=True)
        return cls(values, counts.astype(np.int64))

    @classmethod
    def from_bins(cls, low: int, bins: np.ndarray) -> Distribution:
        """From dense counts: ``bins[i]`` (non-negative integers) games of value
        ``low + i``; empty bins dropped."""
        present = np.flatnonzero(bins)
        return cls(present.astype(np.int64) + np.int64(low), bins[present].astype(np.int64))

    @classmethod
    def from_counts(cls, values, counts) -> Distribution:
        """From parallel arrays of values and counts in any order, repeats allowed and zero
        counts dropped."""
        values = np.asarray(values, dtype=np.int64).ravel()
        counts = np.asarray(counts, dtype=np.int64).ravel()
        if values.shape != counts.shape:
            raise ValueError("values and counts must have the same length")
        if (counts < 0).any():
            raise ValueError("counts must not be negative")
        keep = counts > 0
        unique, inverse = np.unique(values[keep], return_inverse=True)
        summed = np.zeros(unique.size, np.int64)
        np.add.at(summed, inverse, counts[keep])
        return cls(unique, summed)

    def __add__(self, other: Distribution) -> Distribution:
        """The counts of both (games of two batches, or of two runs)."""
        if not other.counts.size:
            return self
        if not self.counts.size:
            return other
        low = min(int(self.values[0]), int(other.values[0]))
        span = max(int(self.values[-1]), int(other.values[-1])) - low + 1
        if span <= _ADD_SPAN:  # both sorted and positive: add them in dense bins
            bins = np.zeros(span, np.int64)
            bins[self.values - low] = self.counts
            bins[other.values - low] += other.counts
            return Distribution.from_bins(low, bins)
        return Distribution.from_counts(
            np.concatenate([self.values, other.values]),
            np.concatenate([self.counts, other.counts]),
        )

    @staticmethod
    def add_pairs(pairs: list[tuple[Distribution, Distribution]]) -> list[Distribution]:
        """``[a + b for a, b in pairs]``, computed together: each pair's counts added in
        its own stretch of one array of dense bins, so that merging two runs' thousands
        of distributions costs a few numpy calls instead of a few each."""
        if not pairs:
            return []
        firsts = [a for a, b in pairs if a.counts.size and b.counts.size]
        if len(firsts) < len(pairs):  # an empty side: the pairs one by one
            return [a + b for a, b in pairs]
        lows = np.array([min(a.values[0], b.values[0]) for a, b in pairs], np.int64)
        highs = np.array([max(a.values[-1], b.values[-1]) for a, b in pairs], np.int64)
        spans = highs - lows + 1
        if int(spans.sum()) > _ADD_SPAN * 16:
            return [a + b for a, b in pairs]
        starts = np.concatenate([[0], np.cumsum(spans)])
        bins = np.zeros(int(starts[-1]), np.int64)
        for side in (0, 1):
            items = [pair[side] for pair in pairs]
            sizes = np.array([item.values.size for item in items])
            shift = np.repeat(starts[:-1] - lows, sizes)
            at = np.concatenate([item.values for item in items]) + shift
            counts = np.concatenate([item.counts for item in items])
            if side == 0:
                bins[at] = counts
            else:
                bins[at] += counts  # values are unique within a distribution
        present = np.flatnonzero(bins)
        cuts = np.searchsorted(present, starts)
        pair_of = np.repeat(np.arange(len(pairs)), np.diff(cuts))
        values = present - starts[pair_of] + lows[pair_of]
        counts = bins[present]
        return [
            Distribution(values[cuts[i] : cuts[i + 1]], counts[cuts[i] : cuts[i + 1]])
            for i in range(len(pairs))
        ]

    @property
    def n(self) -> int:
        """Number of games counted."""
        return int(self.counts.sum())

    @property
    def total(self) -> int:
        """Sum of the values over every game, exact (Python integer)."""
        return int(np.dot(self.values, self.counts)) if self.counts.size else 0

    @property
    def squares(self) -> int:
        """Sum of the squared values over every game, exact (Python integer)."""
        if not self.counts.size:
            return 0
        return sum(int(v) * int(v) * int(c) for v, c in zip(self.values, self.counts, strict=True))

    def mean(self) -> float:
        """Mean value; NaN when empty."""
        return self.total / self.n if self.counts.size else float("nan")

    def var(self) -> float:
        """Sample variance (divisor n − 1), computed exactly in integers; NaN below 2 games."""
        n = self.n
        if n < 2:
            return float("nan")
        squares = int(np.dot(self.values * self.values, self.counts))
        return (n * squares - self.total**2) / (n * (n - 1))

    def min(self) -> float:
        return float(self.values[0]) if self.counts.size else float("nan")

    def max(self) -> float:
        return float(self.values[-1]) if self.counts.size else float("nan")

    def order_statistics(self, ranks) -> np.ndarray:
        """The values at 0-based positions ``ranks`` of the sorted games, as int64."""
        cumulative = np.cumsum(self.counts)
        return self.values[np.searchsorted(cumulative, np.asarray(ranks), side="right")]

    def quantiles(self, q) -> np.ndarray:
        """Quantiles at fractions ``q`` (array, each in [0, 1]) with linear interpolation,
        bit for bit what ``np.quantile`` (method ``linear``) gives on the values as float64.
        All NaN when empty."""
        shape = np.shape(q)
        q = np.atleast_1d(np.asarray(q, dtype=float))
        n = self.n
        if n == 0:
            return np.full(shape, np.nan)
        virtual = (n - 1) * q
        below = np.floor(virtual)
        above = below + 1
        at_end = virtual >= n - 1
        below[at_end] = above[at_end] = n - 1
        gamma = virtual - below
        a = self.order_statistics(below.astype(np.int64)).astype(float)
        b = self.order_statistics(above.astype(np.int64)).astype(float)
        # numpy's _lerp: a + (b - a) t, but b - (b - a) (1 - t) from t = 0.5 on.
        diff = b - a
        return np.where(gamma >= 0.5, b - diff * (1 - gamma), a + diff * gamma).reshape(shape)

    def percentiles(self, p) -> np.ndarray:
        """Percentiles ``p`` (0–100), as ``np.percentile``."""
        return self.quantiles(np.true_divide(np.asarray(p, dtype=float), 100))

    def median(self) -> float:
        return float(self.quantiles(0.5))

    def survival(self) -> tuple[np.ndarray, np.ndarray]:
        """``(x, s)``: the distinct values, increasing, and ``s[i]`` the share of games with
        a value above ``x[i]``; ``s`` ends at exactly 0."""
        if not self.counts.size:
            return self.values.copy(), np.zeros(0)
        s = 1.0 - np.cumsum(self.counts) / self.n
        s[-1] = 0.0
        return self.values.copy(), s

    def count_above(self, x: float) -> int:
        """Number of games with a value above ``x``."""
        return int(self.counts[self.values > x].sum())

    def box_stats(self, whis: tuple[float, float] = (10, 90)) -> dict[str, float]:
        """Statistics of one box for ``Axes.bxp``, as ``matplotlib.cbook.boxplot_stats``
        computes them with percentile whiskers ``whis``: quartiles, median, mean, and the
        whiskers at the most extreme values inside the whisker percentiles."""
        q1, med, q3, lo, hi = self.percentiles([25, 50, 75, *whis])
        inside_lo = self.values[self.values >= lo]
        inside_hi = self.values[self.values <= hi]
        return {
            "med": float(med),
            "q1": float(q1),
            "q3": float(q3),
            "mean": self.mean(),
            "whislo": float(inside_lo[0]) if inside_lo.size and inside_lo[0] <= q1 else float(q1),
            "whishi": float(inside_hi[-1]) if inside_hi.size and inside_hi[-1] >= q3 else float(q3),
            "fliers": np.zeros(0),
        }
