"""Bootstrap replicates of one statistic measured on two samples of the same games.

Two rule sets that dealt the same cards are compared on the games they played in common,
resampled as pairs: game ``i`` of one goes with game ``i`` of the other, so the luck of
the deal, which both share, leaves the difference. Each function returns the statistic on
the paired games for both (``point``, shape ``(2,)``) and its ``replicates`` bootstrap
replicates (shape ``(replicates, 2)``, float64), from which any function of the two (a
difference of losses, say) gets its percentile interval (:func:`percentile_interval`).
With ``replicates=0`` only the point is computed (no bootstrap: cheap).

- :func:`winner_spreads`: the spread of the seats' win shares (largest minus smallest),
  from the games counted by (one's winner, the other's winner): a multinomial bootstrap
  over those (seats + 1)² cells is a bootstrap of the games themselves;
- :func:`quantile_pair`: a quantile of a length, from the games counted by (one's value,
  the other's value), the values kept apart only near each one's quantile (where a
  replicate's quantile can fall) and pooled below and above it;
- :func:`mean_pair`: two means, drawn jointly normal with the paired games' covariance
  (for large samples what the bootstrap of two means converges to; used where a
  function of them, such as a distance to a target, is not their difference).

Every generator is seeded with :data:`~analysis.statistics.bootstrap.BOOTSTRAP_SEED`, so
an interval is the same each time it is computed.
"""

from __future__ import annotations

import math

import numpy as np

from analysis.statistics.bootstrap import BOOTSTRAP_SEED, REPLICATES, percentile_bounds

#: Standard deviations of a quantile's rank kept apart on either side of it
#: (:func:`quantile_pair`): a replicate's rank falls outside with probability under 10⁻⁹.
_RANK_SDS = 6.0


def percentile_interval(
    point: float, replicates: np.ndarray, *, confidence: float = 0.95
) -> tuple[float, float, float]:
    """``(point, lo, hi)``: the percentile interval of ``replicates`` (shape ``(R,)``),
    widened to hold ``point`` where it does not."""
    lo, hi = percentile_bounds(replicates, confidence)
    return float(point), min(lo, float(point)), max(hi, float(point))


def winner_spreads(
    joint: np.ndarray, *, replicates: int = REPLICATES
) -> tuple[np.ndarray, np.ndarray]:
    """Seat spreads of two samples from ``joint`` (shape ``(seats + 1, seats + 1)``, int):
    the games counted by (the first's winner + 1, the second's winner + 1), 0 for no
    winner. A spread is the largest minus the smallest seat's share of all the games.
    Returns ``(point, replicates)`` as the module says; at least two games needed."""
    n = int(joint.sum())
    if not replicates:
        return _spreads(joint, n), np.empty((0, 2))
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    draws = rng.multinomial(n, joint.ravel() / n, size=replicates)
    cells = draws.reshape(replicates, *joint.shape)
    return _spreads(joint, n), _spreads(cells, n)


def _spreads(cells: np.ndarray, n: int) -> np.ndarray:
    # cells: (..., size, size); seats are rows/columns 1.. (0 is "no winner")
    first = cells.sum(axis=-1)[..., 1:] / n
    second = cells.sum(axis=-2)[..., 1:] / n
    spread = [s.max(-1) - s.min(-1) for s in (first, second)]
    return np.stack(spread, axis=-1)


def quantile_pair(
    x: np.ndarray, y: np.ndarray, *, q: float = 0.9, replicates: int = REPLICATES
) -> tuple[np.ndarray, np.ndarray] | None:
    """The ``q`` quantiles (linear interpolation, as ``np.quantile``) of two samples of
    the same games, ``x`` and ``y`` (shape ``(games,)``, float, NaN where a game does not
    count); None when either counts fewer than two games. Returns ``(point,
    replicates)`` as the module says."""
    if min(np.count_nonzero(~np.isnan(s)) for s in (x, y)) < 2:
        return None
    point = np.array([np.nanquantile(x, q), np.nanquantile(y, q)])
    if not replicates:
        return point, np.empty((0, 2))
    codes, values, sizes = [], [], []
    for sample in (x, y):
        found = _window_codes(sample, q)
        codes.append(found[0])
        values.append(found[1])
        sizes.append(found[1].size + 3)
    joint = np.bincount(codes[0] * sizes[1] + codes[1], minlength=sizes[0] * sizes[1])
    kept = np.flatnonzero(joint)
    n = int(joint.sum())
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    draws = rng.multinomial(n, joint[kept] / n, size=replicates)
    cells = np.zeros((replicates, joint.size), np.int64)
    cells[:, kept] = draws
    cells = cells.reshape(replicates, sizes[0], sizes[1])
    out = np.empty((replicates, 2))
    out[:, 0] = _replicate_quantiles(cells.sum(axis=2), values[0], q)
    out[:, 1] = _replicate_quantiles(cells.sum(axis=1), values[1], q)
    return point, out


def _window_codes(sample: np.ndarray, q: float) -> tuple[np.ndarray, np.ndarray]:
    """Each game's code: 0 not counted, 1 below the window, 2 + k its value's place among
    the window's distinct values, the last code above it; and those values (float64). The
    window holds every value whose rank lies within :data:`_RANK_SDS` standard deviations
    of the quantile's rank."""
    counted = ~np.isnan(sample)
    n = int(counted.sum())
    ordered = np.sort(sample[counted])
    rank = (n - 1) * q
    reach = _RANK_SDS * math.sqrt(n * q * (1 - q)) + 2
    low = ordered[max(int(rank - reach), 0)]
    high = ordered[min(int(rank + reach) + 1, n - 1)]
    values = np.unique(ordered[(ordered >= low) & (ordered <= high)])
    codes = np.zeros(sample.size, np.int64)
    inside = counted & (sample >= low) & (sample <= high)
    codes[inside] = 2 + np.searchsorted(values, sample[inside])
    codes[counted & (sample < low)] = 1
    codes[counted & (sample > high)] = values.size + 2
    return codes, values


def _replicate_quantiles(counts: np.ndarray, values: np.ndarray, q: float) -> np.ndarray:
    """The ``q`` quantile of each replicate from its counts per code (shape ``(R, k + 3)``,
    codes as :func:`_window_codes`): a rank outside the window takes the window's edge."""
    n = counts[:, 1:].sum(axis=1)
    virtual = (n - 1) * q
    below = np.floor(virtual)
    gamma = virtual - below
    above = np.minimum(below + 1, n - 1)
    cumulative = np.cumsum(counts[:, 1:], axis=1)  # codes 1.. : below, values, above

    def at(rank: np.ndarray) -> np.ndarray:
        place = (cumulative <= rank[:, None]).sum(axis=1)  # 0 below, 1 + k inside, …
        return values[np.clip(place - 1, 0, values.size - 1)]

    a, b = at(below), at(above)
    diff = b - a
    return np.where(gamma >= 0.5, b - diff * (1 - gamma), a + diff * gamma)


def mean_pair(
    n: float,
    sums: tuple[float, float],
    squares: tuple[float, float],
    difference_squares: float,
    *,
    replicates: int = REPLICATES,
) -> tuple[np.ndarray, np.ndarray] | None:
    """Two means over the same ``n`` games from their sums, their sums of squares and the
    sum of the squared paired differences; the replicates drawn from the bivariate normal
    with the games' sample covariance over ``n``. None for fewer than two games."""
    if n < 2:
        return None
    point = np.array(sums, float) / n
    if not replicates:
        return point, np.empty((0, 2))
    var = [max(s - n * m * m, 0.0) / (n - 1) for s, m in zip(squares, point, strict=True)]
    cross = (squares[0] + squares[1] - difference_squares) / 2
    cov = (cross - n * point[0] * point[1]) / (n - 1)
    matrix = np.array([[var[0], cov], [cov, var[1]]]) / n
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    draws = rng.multivariate_normal(point, matrix, size=replicates, method="eigh")
    return point, draws
