"""Statistics over a games table: win shares with Wilson intervals, lengths, end reasons."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pandas as pd

#: Every way a game can end, in report order: Beggar-My-Neighbour, the shedding games.
END_REASONS = ("out", "cycle", "time_limit")
SHEDDING_END_REASONS = ("out", "stock_out", "blocked", "play_cap", "turn_cap")


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


def end_reasons(games: pd.DataFrame, reasons: tuple[str, ...] = END_REASONS) -> pd.DataFrame:
    """Count and share of games per end reason, indexed by reason.

    Lists every reason in ``reasons`` (default :data:`END_REASONS`; the shedding games'
    are :data:`SHEDDING_END_REASONS`) at 0 when absent, then any other reason found in
    the data.
    """
    counts = games["end"].astype(str).value_counts()
    order = [*reasons, *sorted(set(counts.index) - set(reasons))]
    counts = counts.reindex(order, fill_value=0).astype(np.int64)
    table = pd.DataFrame({"count": counts, "share": counts / len(games)})
    table.index.name = "end"
    return table


def seat_strategies(games: pd.DataFrame, players: int, meta: dict | None = None) -> list[str]:
    """Each seat's strategy: from ``run.json``'s ``strategies`` when it has one per seat,
    else from the ``strategy_<i>`` columns (their first row); ``[]`` when neither."""
    listed = (meta or {}).get("strategies")
    if isinstance(listed, list) and len(listed) == players:
        return [str(s) for s in listed]
    columns = [f"strategy_{seat}" for seat in range(players)]
    if all(c in games.columns for c in columns) and len(games):
        return [str(games[c].iloc[0]) for c in columns]
    return []


def strategy_shares(
    games: pd.DataFrame, strategies: list[str], confidence: float = 0.95
) -> pd.DataFrame:
    """Wins per strategy as a share of all games, with Wilson intervals.

    One row per distinct strategy, in order of first seat. Columns: ``strategy``,
    ``seats`` (how many seats play it), ``wins`` (games won by any of those seats),
    ``share``, ``lo``, ``hi`` (fractions of all games), ``equal`` (``seats / players``,
    the share with equal chances) and ``per_seat`` (``share / seats``).
    """
    winners = games["winner"].to_numpy()
    names = list(dict.fromkeys(strategies))
    seats = np.array([strategies.count(name) for name in names])
    wins = np.array(
        [
            np.isin(winners, [i for i, s in enumerate(strategies) if s == name]).sum()
            for name in names
        ]
    )
    total = len(winners)
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
    as fractions, from the table of :func:`win_shares`."""
    first = shares[shares["seat"] == 0].iloc[0]
    equal = 1 / players
    return {
        "diff": float(first["share"] - equal),
        "lo": float(first["lo"] - equal),
        "hi": float(first["hi"] - equal),
    }


def seat_columns(games: pd.DataFrame, prefix: str, players: int) -> pd.DataFrame:
    """The per-seat columns ``<prefix>_0 .. <prefix>_<players-1>`` (those present)."""
    return games[[c for c in (f"{prefix}_{s}" for s in range(players)) if c in games.columns]]


def score_summary(games: pd.DataFrame, players: int) -> pd.DataFrame:
    """Per seat: mean cards left, mean hand points, and the score's mean, p10, median, p90,
    min and max. Indexed by seat; NaN where a column is missing."""
    rows = []
    for seat in range(players):
        row = {"seat": seat}
        for prefix in ("cards_left", "points"):
            column = f"{prefix}_{seat}"
            row[f"{prefix}_mean"] = float(games[column].mean()) if column in games else np.nan
        values = np.asarray(games.get(f"score_{seat}", pd.Series(dtype=float)), dtype=float)
        if values.size:
            p10, median, p90 = np.percentile(values, [10, 50, 90])
            row |= {
                "score_mean": float(values.mean()),
                "score_p10": float(p10),
                "score_median": float(median),
                "score_p90": float(p90),
                "score_min": float(values.min()),
                "score_max": float(values.max()),
            }
        else:
            row |= dict.fromkeys(
                ("score_mean", "score_p10", "score_median", "score_p90", "score_min", "score_max"),
                np.nan,
            )
        rows.append(row)
    return pd.DataFrame(rows).set_index("seat")


def finish_ranks(games: pd.DataFrame, multipliers: dict[str, int]) -> pd.DataFrame:
    """How often the winner went out on each rank (games ending ``out``), indexed by rank
    in the order the data's categories give (ace to king), with columns ``count``,
    ``share`` (of the games ending out) and ``multiplier`` (1 where ``multipliers`` has
    none). Ranks never seen are left out."""
    ranks = games["finish_rank"]
    out = ranks[games["end"].astype(str) == "out"].dropna().astype(str)
    categories = (
        [str(c) for c in ranks.cat.categories]
        if isinstance(ranks.dtype, pd.CategoricalDtype)
        else []
    )
    counts = out.value_counts()
    order = [r for r in categories if r in counts.index] + sorted(
        set(counts.index) - set(categories)
    )
    counts = counts.reindex(order).astype(np.int64)
    table = pd.DataFrame(
        {
            "count": counts,
            "share": counts / len(out) if len(out) else np.nan,
            "multiplier": [int(multipliers.get(r, 1)) for r in order],
        }
    )
    table.index.name = "rank"
    return table


def others_score_by_finish(
    games: pd.DataFrame, players: int, multipliers: dict[str, int]
) -> pd.DataFrame:
    """Mean score of the seats other than the winner, in games where the winner went out,
    split by whether the last card was a multiplier rank (``multipliers`` value above 1).

    Rows ``multiplier`` and ``no multiplier``; columns ``games``, ``mean`` (over every
    non-winning seat of those games), ``median`` of the per-game mean of the others.
    """
    out = games[games["end"].astype(str) == "out"]
    winners = out["winner"].to_numpy()
    scores = seat_columns(out, "score", players).to_numpy(dtype=float)
    mask = np.ones_like(scores, dtype=bool)
    if len(out):
        mask[np.arange(len(out)), winners] = False
    others = np.where(mask, scores, np.nan)
    per_game = np.nanmean(others, axis=1) if players > 1 and len(out) else np.zeros(len(out))
    special = {r for r, m in multipliers.items() if m > 1}
    on_special = out["finish_rank"].astype(str).isin(special).to_numpy()
    rows = {}
    for label, pick in (("multiplier", on_special), ("no multiplier", ~on_special)):
        values = per_game[pick]
        rows[label] = {
            "games": int(pick.sum()),
            "mean": float(np.nanmean(others[pick])) if pick.any() else np.nan,
            "median": float(np.median(values)) if values.size else np.nan,
        }
    return pd.DataFrame.from_dict(rows, orient="index")
