"""Bootstrap intervals for the mean of an integer quantity, from its counts.

Resampling n games with replacement from a run is the same, in distribution, as drawing
the number of copies of each distinct value from a multinomial with n trials and the run's
shares as probabilities. So a bootstrap replicate costs O(k) for k distinct values
whatever n is: the full nonparametric bootstrap on 10⁸ games, no subsampling, in about a
second for the 3,600 distinct lengths of Beggar-My-Neighbour. The generator is seeded with
:data:`BOOTSTRAP_SEED`, so an interval is the same every time it is computed.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from simulate.runs.folder.distribution import Distribution

#: Seed of the numpy Generator behind every bootstrap interval (``np.random.default_rng``).
BOOTSTRAP_SEED = 20241130
#: Bootstrap replicates per interval.
REPLICATES = 2000
#: Most multinomial draws (replicates × distinct values) held in memory at once.
_BLOCK_CELLS = 4_000_000
#: Replicate sets kept by :func:`_memo` (2,000 replicates are 16 KB each).
_MEMO_SIZE = 512
_memo_store: OrderedDict[tuple, np.ndarray] = OrderedDict()
_memo_lock = threading.Lock()


def replicate_means(
    dist: Distribution, replicates: int = REPLICATES, rng: np.random.Generator | None = None
) -> np.ndarray:
    """Means of ``replicates`` bootstrap resamples of the games in ``dist``: shape
    ``(replicates,)``, float64. ``rng`` defaults to a fresh Generator seeded with
    :data:`BOOTSTRAP_SEED`."""
    rng = np.random.default_rng(BOOTSTRAP_SEED) if rng is None else rng
    n = dist.n
    if n == 0:
        return np.full(replicates, np.nan)
    shares = dist.counts / n
    values = dist.values.astype(float)
    block = max(1, _BLOCK_CELLS // max(1, dist.values.size))
    means = np.empty(replicates)
    for start in range(0, replicates, block):
        size = min(block, replicates - start)
        draws = rng.multinomial(n, shares, size=size)
        means[start : start + size] = draws @ values / n
    return means


def percentile_bounds(replicates: np.ndarray, confidence: float) -> tuple[float, float]:
    """``(lo, hi)``: the percentile interval of ``replicates`` (shape ``(R,)``) at
    ``confidence``; NaN when a replicate is."""
    if np.isnan(replicates).any():
        return float("nan"), float("nan")
    tail = 100 * (1 - confidence) / 2
    lo, hi = np.percentile(replicates, [tail, 100 - tail])
    return float(lo), float(hi)


def _key(dist: Distribution) -> tuple:
    values, counts = np.ascontiguousarray(dist.values), np.ascontiguousarray(dist.counts)
    return (values.dtype.str, values.tobytes(), counts.dtype.str, counts.tobytes())


def _memo(key: tuple, compute) -> np.ndarray:
    """``compute()``, remembered under ``key`` (least recently used dropped past
    :data:`_MEMO_SIZE`): a report, its summary.csv and a comparison ask for the intervals of
    the same distributions, and each is a pure function of the counts, the number of
    replicates and the seed, so asking again gives the same array without drawing it."""
    with _memo_lock:
        found = _memo_store.get(key)
        if found is not None:
            _memo_store.move_to_end(key)
            return found
    found = compute()
    found.setflags(write=False)
    with _memo_lock:
        _memo_store[key] = found
        while len(_memo_store) > _MEMO_SIZE:
            _memo_store.popitem(last=False)
    return found


def _seeded_means(dist: Distribution, replicates: int, seed: int) -> tuple[np.ndarray, dict]:
    """The replicate means of ``dist`` from a Generator seeded with ``seed``, and that
    Generator's state once they are drawn (remembered: :func:`_memo`). A difference of two
    runs draws its first run's means exactly so, then goes on from that state, so it
    reuses them instead of drawing them again."""
    key = ("mean", *_key(dist), replicates, seed)

    def draw() -> np.ndarray:
        rng = np.random.default_rng(seed)
        means = replicate_means(dist, replicates, rng)
        _keep_state(key, rng.bit_generator.state)
        return means

    means = _memo(key, draw)
    with _memo_lock:
        state = _states.get(key)
    if state is None:  # the state was dropped before the means: draw them again for it
        rng = np.random.default_rng(seed)
        replicate_means(dist, replicates, rng)
        state = rng.bit_generator.state
        _keep_state(key, state)
    return means, state


#: Generator states after each remembered replicate set of :func:`_seeded_means`, the
#: least recently kept dropped past :data:`_MEMO_SIZE`.
_states: OrderedDict[tuple, dict] = OrderedDict()


def _keep_state(key: tuple, state: dict) -> None:
    with _memo_lock:
        _states[key] = state
        _states.move_to_end(key)
        while len(_states) > _MEMO_SIZE:
            _states.popitem(last=False)


def mean_interval(
    dist: Distribution,
    confidence: float = 0.95,
    replicates: int = REPLICATES,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float]:
    """Percentile bootstrap interval ``(lo, hi)`` of the mean of ``dist``; NaN when empty."""
    means, _ = _seeded_means(dist, replicates, seed)
    return percentile_bounds(means, confidence)


def mean_difference_interval(
    base: Distribution,
    other: Distribution,
    confidence: float = 0.95,
    replicates: int = REPLICATES,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``mean(other) − mean(base)``, the two runs resampled
    independently (replicate i of each paired); NaN when either is empty."""

    def draw() -> np.ndarray:
        # other's means as mean_interval draws them, then base's from where they left off
        first, state = _seeded_means(other, replicates, seed)
        rng = np.random.default_rng(seed)
        rng.bit_generator.state = state
        return first - replicate_means(base, replicates, rng)

    diff = _memo(("difference", *_key(base), *_key(other), replicates, seed), draw)
    return percentile_bounds(diff, confidence)


def spread_replicates(
    wins: np.ndarray, replicates: int = REPLICATES, rng: np.random.Generator | None = None
) -> np.ndarray:
    """Spreads (the largest minus the smallest seat's share) of ``replicates`` bootstrap
    resamples of a run's games, from ``wins`` (shape (players + 1,): each seat's wins, then
    the games with no winner): shape ``(replicates,)``, float64; NaN when there is no game."""
    rng = np.random.default_rng(BOOTSTRAP_SEED) if rng is None else rng
    wins = np.asarray(wins, np.int64)
    n = int(wins.sum())
    if n == 0:
        return np.full(replicates, np.nan)
    shares = rng.multinomial(n, wins / n, size=replicates)[:, :-1] / n
    return shares.max(axis=1) - shares.min(axis=1)


def spread_difference_interval(
    base: np.ndarray,
    other: np.ndarray,
    confidence: float = 0.95,
    replicates: int = REPLICATES,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``spread(other) − spread(base)``, each run's games
    resampled independently from its win counts (shape (players + 1,), as
    :func:`spread_replicates` takes them); NaN when either run is empty. For runs that
    played the same deals the independent resampling makes the interval conservative."""
    key = ("spread", np.asarray(base, np.int64).tobytes(), np.asarray(other, np.int64).tobytes())

    def draw() -> np.ndarray:
        rng = np.random.default_rng(seed)
        return spread_replicates(other, replicates, rng) - spread_replicates(base, replicates, rng)

    return percentile_bounds(_memo((*key, replicates, seed), draw), confidence)
