"""Statistics over a games table: win shares with Wilson intervals, lengths, end reasons."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pandas as pd

#: Every way a game can end, in report order.
END_REASONS = ("out", "cycle", "time_limit")


def wilson_interval(successes, n, confidence: float = 0.95):
    """Wilson score interval for a binomial proportion ``successes / n``.

    ``successes`` and ``n`` are scalars or broadcastable arrays of counts. Returns
    ``(lo, hi)`` as floats in [0, 1] (arrays of the broadcast shape for array input);
    both are NaN where ``n == 0``.
    """
    k = np.asarray(successes, dtype=float)
    total = np.asarray(n, dtype=float)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / total
        denom = 1 + z**2 / total
        centre = (p + z**2 / (2 * total)) / denom
        half = z / denom * np.sqrt(p * (1 - p) / total + z**2 / (4 * total**2))
        # At k = 0 and k = n the bounds are exactly 0 and 1; rounding would leave ~1e-17.
        lo = np.where(k == 0, 0.0, np.clip(centre - half, 0.0, 1.0))
        hi = np.where(k == total, 1.0, np.clip(centre + half, 0.0, 1.0))
        lo = np.where(total > 0, lo, np.nan)
        hi = np.where(total > 0, hi, np.nan)
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


def win_shares(games: pd.DataFrame, players: int, confidence: float = 0.95) -> pd.DataFrame:
    """Wins per seat as a share of all games, with Wilson intervals.

    One row per seat ``0 .. players-1`` and a last row with ``seat == -1`` for games with
    no winner (cycles, tied time limits). Columns: ``seat``, ``label`` ("seat 0", ...,
    "no winner"), ``wins`` (int), ``share``, ``lo``, ``hi`` (fractions of all games, so
    games without a winner count in every seat's denominator).
    """
    winners = games["winner"].to_numpy()
    counts = np.bincount(winners[winners >= 0], minlength=players)
    wins = np.append(counts, np.count_nonzero(winners < 0))
    total = len(winners)
    lo, hi = wilson_interval(wins, total, confidence)
    return pd.DataFrame(
        {
            "seat": [*range(players), -1],
            "label": [*(f"seat {s}" for s in range(players)), "no winner"],
            "wins": wins.astype(np.int64),
            "share": wins / total if total else np.full(len(wins), np.nan),
            "lo": lo,
            "hi": hi,
        }
    )


def length_summary(lengths: pd.Series) -> dict[str, float]:
    """Summary of game lengths (in cards or tricks): mean, median, p10, p90, p99, max.

    Percentiles use linear interpolation, so they may fall between two integers. All
    values are NaN for an empty series.
    """
    values = np.asarray(lengths, dtype=float)
    if values.size == 0:
        return dict.fromkeys(("mean", "median", "p10", "p90", "p99", "max"), float("nan"))
    p10, median, p90, p99 = np.percentile(values, [10, 50, 90, 99])
    return {
        "mean": float(values.mean()),
        "median": float(median),
        "p10": float(p10),
        "p90": float(p90),
        "p99": float(p99),
        "max": float(values.max()),
    }


def survival(lengths: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Empirical survival function of game lengths.

    Returns ``(x, s)``: the distinct lengths in increasing order and ``s[i] = P(length >
    x[i])``, both of shape ``(k,)``; ``s`` ends at 0 (no game is longer than the longest).
    """
    x, counts = np.unique(np.asarray(lengths), return_counts=True)
    if x.size == 0:
        return x, np.zeros(0)
    s = 1.0 - np.cumsum(counts) / counts.sum()
    s[-1] = 0.0  # exact, whatever the rounding of the cumulative sum
    return x, s


def end_reasons(games: pd.DataFrame) -> pd.DataFrame:
    """Count and share of games per end reason, indexed by reason.

    Lists every reason in :data:`END_REASONS` (at 0 when absent), then any other reason
    found in the data.
    """
    counts = games["end"].astype(str).value_counts()
    order = [*END_REASONS, *sorted(set(counts.index) - set(END_REASONS))]
    counts = counts.reindex(order, fill_value=0).astype(np.int64)
    table = pd.DataFrame({"count": counts, "share": counts / len(games)})
    table.index.name = "end"
    return table
