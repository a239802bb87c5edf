"""Statistics over a games table: win shares with Wilson intervals, lengths, end reasons."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from statistics import NormalDist

import numpy as np
import pandas as pd

from simulate.runs.folder.distribution import Distribution

#: Every way a game can end, in report order: Beggar-My-Neighbour, the shedding games.


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


def win_share_table(
    wins: np.ndarray, labels: Sequence[str] | None = None, confidence: float = 0.95
) -> pd.DataFrame:
    """Win shares with Wilson intervals from counts: ``wins`` has shape (players + 1,), one
    count per seat and last the games with no winner (as :class:`analysis.statistics.tally.WinCounts`
    keeps them); shares are of all games.

    Columns: ``seat`` (0 … players − 1, then −1), ``label`` ("seat 0", …, "no winner", or
    ``labels`` for the seats), ``wins`` (int64), ``share``, ``lo``, ``hi`` (fractions).
    """
    wins = np.asarray(wins, dtype=np.int64)
    players = wins.size - 1
    total = int(wins.sum())
    names = list(labels) if labels is not None else [f"seat {s}" for s in range(players)]
    lo, hi = wilson_interval(wins, total, confidence)
    return pd.DataFrame(
        {
            "seat": [*range(players), -1],
            "label": [*names, "no winner"],
            "wins": wins,
            "share": wins / total if total else np.full(len(wins), np.nan),
            "lo": lo,
            "hi": hi,
        }
    )


def win_shares(games: pd.DataFrame, players: int, confidence: float = 0.95) -> pd.DataFrame:
    """:func:`win_share_table` of a games table (its ``winner`` column): games with no
    winner count in every seat's denominator."""
    winners = games["winner"].to_numpy()
    counts = np.bincount(winners[winners >= 0], minlength=players)
    return win_share_table(np.append(counts, np.count_nonzero(winners < 0)), None, confidence)


def length_summary(lengths: Distribution | pd.Series | np.ndarray) -> dict[str, float]:
    """Summary of game lengths (in cards, tricks, turns …): mean, median, p10, p90, p99, max.

    ``lengths`` is a :class:`Distribution` or an integer array with one value per game.
    Percentiles use linear interpolation, so they may fall between two integers. All values
    are NaN when there are no games.
    """
    dist = lengths if isinstance(lengths, Distribution) else Distribution.of(np.asarray(lengths))
    if dist.n == 0:
        return dict.fromkeys(("mean", "median", "p10", "p90", "p99", "max"), float("nan"))
    p10, median, p90, p99 = dist.percentiles([10, 50, 90, 99])
    return {
        "mean": dist.mean(),
        "median": float(median),
        "p10": float(p10),
        "p90": float(p90),
        "p99": float(p99),
        "max": dist.max(),
    }


def survival(lengths: Distribution | pd.Series | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Empirical survival function of game lengths (a :class:`Distribution` or one value
    per game).

    Returns ``(x, s)``: the distinct lengths in increasing order and ``s[i] = P(length >
    x[i])``, both of shape ``(k,)``; ``s`` ends at 0 (no game is longer than the longest).
    """
    dist = lengths if isinstance(lengths, Distribution) else Distribution.of(np.asarray(lengths))
    return dist.survival()


def end_reason_table(counts: Mapping[str, int], reasons: tuple[str, ...]) -> pd.DataFrame:
    """Count and share of games per end reason, indexed by reason, from ``counts`` (reason →
    games). Lists every reason in ``reasons`` (the game's, ``GameSpec.end_reasons``) at 0
    when absent, then any other reason found, in alphabetical order; shares are of all
    games counted."""
    total = sum(counts.values())
    order = [*reasons, *sorted(set(k for k, v in counts.items() if v) - set(reasons))]
    table = pd.DataFrame(
        {"count": np.array([int(counts.get(r, 0)) for r in order], dtype=np.int64)}, index=order
    )
    table["share"] = table["count"] / total if total else np.nan
    table.index.name = "end"
    return table


def end_reasons(games: pd.DataFrame, reasons: tuple[str, ...]) -> pd.DataFrame:
    """:func:`end_reason_table` of a games table's ``end`` column."""
    return end_reason_table(games["end"].astype(str).value_counts().to_dict(), reasons)


def strategy_shares(
    seat_wins: np.ndarray, strategies: list[str], confidence: float = 0.95
) -> pd.DataFrame:
    """Wins per strategy as a share of all games, with Wilson intervals, from the wins per
    seat (``seat_wins`` as :func:`win_share_table` takes it: one count per seat, then the
    games with no winner) and each seat's strategy.

    One row per distinct strategy, in order of first seat. Columns: ``strategy``,
    ``seats`` (how many seats play it), ``wins`` (games won by any of those seats),
    ``share``, ``lo``, ``hi`` (fractions of all games), ``equal`` (``seats / players``,
    the share with equal chances) and ``per_seat`` (``share / seats``).
    """
    seat_wins = np.asarray(seat_wins, dtype=np.int64)
    names = list(dict.fromkeys(strategies))
    seats = np.array([strategies.count(name) for name in names])
    wins = np.array(
        [sum(int(seat_wins[i]) for i, s in enumerate(strategies) if s == name) for name in names]
    )
    total = int(seat_wins.sum())
    lo, hi = wilson_interval(wins, total, confidence)
    share = wins / total if total else np.full(len(wins), np.nan)
    return pd.DataFrame(
        {
            "strategy": names,
            "seats": seats.astype(np.int64),
            "wins": wins.astype(np.int64),
            "share": share,
            "lo": lo,
            "hi": hi,
            "equal": seats / len(strategies),
            "per_seat": share / seats,
        }
    )


def first_seat_advantage(shares: pd.DataFrame, players: int) -> dict[str, float]:
    """Seat 0's win share minus the equal share ``1/players``, with its interval (the
    Wilson interval of the share, shifted by the same constant): ``{"diff", "lo", "hi"}``
    as fractions, from the table of :func:`win_share_table`."""
    first = shares[shares["seat"] == 0].iloc[0]
    equal = 1 / players
    return {
        "diff": float(first["share"] - equal),
        "lo": float(first["lo"] - equal),
        "hi": float(first["hi"] - equal),
    }


def value_summary(dist: Distribution) -> dict[str, float]:
    """Mean, 10th percentile, median, 90th percentile, min and max of a distribution
    (keys ``mean``, ``p10``, ``median``, ``p90``, ``min``, ``max``; NaN when empty)."""
    if dist.n == 0:
        return dict.fromkeys(("mean", "p10", "median", "p90", "min", "max"), float("nan"))
    p10, median, p90 = dist.percentiles([10, 50, 90])
    return {
        "mean": dist.mean(),
        "p10": float(p10),
        "median": float(median),
        "p90": float(p90),
        "min": dist.min(),
        "max": dist.max(),
    }


def finish_ranks(counts: Mapping[str, int], multipliers: Mapping[str, int]) -> pd.DataFrame:
    """How often the winner went out on each rank, from ``counts`` (rank → games won by
    going out on it, in the order ace to king the data's dictionary gives), indexed by
    rank, with columns ``count``, ``share`` (of the games won by going out) and
    ``multiplier`` (1 where ``multipliers`` has none). Ranks never seen are left out."""
    order = [rank for rank, count in counts.items() if count]
    total = sum(counts[r] for r in order)
    table = pd.DataFrame(
        {
            "count": np.array([counts[r] for r in order], dtype=np.int64),
            "multiplier": [int(multipliers.get(r, 1)) for r in order],
        },
        index=pd.Index(order, name="rank"),
    )
    table.insert(1, "share", table["count"] / total if total else np.nan)
    return table
