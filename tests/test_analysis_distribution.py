"""Counts per value (simulate.runs.folder.distribution), the bootstrap from counts and convergence
prefixes, against numpy, matplotlib and hand-computed cases."""

import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from matplotlib import cbook

from analysis.load import RunFolder, scan
from analysis.statistics.bootstrap import BOOTSTRAP_SEED, mean_difference_interval, mean_interval
from analysis.statistics.convergence import Convergence, checkpoints
from analysis.statistics.tally import Longest, Values, WinCounts, where_not
from simulate.runs.folder.distribution import Distribution

PERCENTILES = [0, 2.5, 10, 25, 33.3, 50, 75, 90, 97.5, 99, 99.9, 100]


def random_cases(count=150, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(1, 400))
        low = int(rng.integers(-60, 5))
        values = rng.integers(low, low + int(rng.integers(1, 600)), n)
        yield values.astype(rng.choice([np.int16, np.int32, np.int64]))


def test_percentiles_equal_numpy_bit_for_bit():
    for values in random_cases():
        dist = Distribution.of(values)
        expected = np.percentile(values.astype(float), PERCENTILES)
        assert np.array_equal(dist.percentiles(PERCENTILES), expected)
        assert dist.median() == np.median(values.astype(float))
        assert dist.percentiles(90).shape == ()


def test_moments_and_extremes_equal_numpy():
    for values in random_cases(60, seed=1):
        dist = Distribution.of(values)
        assert dist.n == values.size and dist.total == int(values.sum())
        assert dist.mean() == values.astype(float).mean()
        if values.size > 1:
            assert dist.var() == pytest.approx(values.var(ddof=1), rel=1e-12, abs=1e-12)
        assert (dist.min(), dist.max()) == (values.min(), values.max())


def test_box_statistics_equal_matplotlib():
    for values in random_cases(60, seed=2):
        expected = cbook.boxplot_stats(values.astype(float), whis=(10, 90))[0]
        got = Distribution.of(values).box_stats((10, 90))
        for key in ("med", "q1", "q3", "mean", "whislo", "whishi"):
            assert got[key] == pytest.approx(expected[key], abs=1e-12), key


def test_counts_hand_computed_and_merged():
    dist = Distribution.of(np.array([3, 1, 3, 7, 3], dtype=np.int8))
    assert dist.values.tolist() == [1, 3, 7] and dist.counts.tolist() == [1, 3, 1]
    merged = dist + Distribution.of(np.array([7, 2]))
    assert merged.values.tolist() == [1, 2, 3, 7] and merged.counts.tolist() == [1, 1, 3, 2]
    assert Distribution.from_counts([5, 1, 5, 9], [2, 1, 3, 0]) == Distribution.from_counts(
        [1, 5], [1, 5]
    )
    x, s = Distribution.of(np.array([2, 1, 3, 2])).survival()
    assert x.tolist() == [1, 2, 3] and s.tolist() == pytest.approx([0.75, 0.25, 0.0])
    assert Distribution.of(np.array([1, 5, 5, 9])).count_above(4.5) == 3


def test_sums_of_many_pairs_equal_each_sum_and_the_counts_of_both():
    """Distribution.add_pairs (a merge's thousands of sums at once) equals ``a + b`` and
    what counting both arrays of values gives: negative values, one side within the
    other, disjoint ranges, wide ranges and empty sides included."""
    rng = np.random.default_rng(3)
    arrays = []
    for _ in range(60):
        low = int(rng.integers(-50, 50))
        arrays.append(
            (
                rng.integers(low, low + int(rng.integers(1, 40)), int(rng.integers(1, 30))),
                rng.integers(low - 20, low + 5, int(rng.integers(1, 30))),
            )
        )
    pairs = [(Distribution.of(a), Distribution.of(b)) for a, b in arrays]
    sums = Distribution.add_pairs(pairs)
    for (a, b), total, pair in zip(arrays, sums, pairs, strict=True):
        assert total == Distribution.of(np.concatenate([a, b])) == pair[0] + pair[1]
    wide = [(Distribution.of(np.array([0, 2**40])), Distribution.of(np.array([1])))]
    empty = [(Distribution.empty(), Distribution.of(np.array([4, 4])))]
    for odd in (wide, empty, pairs[:3] + empty):
        assert Distribution.add_pairs(odd) == [a + b for a, b in odd]


def test_wide_ranges_are_counted_by_sorting():
    values = np.array([-(2**40), 0, 0, 2**40], dtype=np.int64)
    dist = Distribution.of(values)
    assert dist.values.tolist() == [-(2**40), 0, 2**40] and dist.counts.tolist() == [1, 2, 1]
    assert dist.percentiles(50) == np.percentile(values.astype(float), 50)


def test_empty_distribution_is_nan():
    empty = Distribution.of(np.zeros(0, np.int32))
    assert empty.n == 0 and empty.total == 0
    assert all(math.isnan(v) for v in (empty.mean(), empty.var(), empty.median(), empty.max()))
    assert np.isnan(empty.percentiles([10, 90])).all()
    assert (empty + Distribution.of(np.array([4]))).values.tolist() == [4]
    with pytest.raises(TypeError):
        Distribution.of(np.array([0.5]))


def test_bootstrap_is_reproducible_and_degenerate_for_constant_data():
    dist = Distribution.of(np.random.default_rng(3).integers(0, 50, 2000))
    assert mean_interval(dist) == mean_interval(dist)
    assert mean_interval(dist) != mean_interval(dist, seed=BOOTSTRAP_SEED + 1)
    assert mean_interval(Distribution.of(np.full(30, 7))) == (7.0, 7.0)
    assert all(math.isnan(v) for v in mean_interval(Distribution.empty()))


def test_bootstrap_from_counts_matches_resampling_games():
    rng = np.random.default_rng(4)
    values = rng.geometric(0.02, 3000)  # skewed, like game lengths
    dist = Distribution.of(values)
    lo, hi = mean_interval(dist)
    assert lo < values.mean() < hi
    # Resampling the games themselves gives the same spread of means.
    resampled = np.array([rng.choice(values, values.size).mean() for _ in range(2000)])
    classic_lo, classic_hi = np.percentile(resampled, [2.5, 97.5])
    assert hi - lo == pytest.approx(classic_hi - classic_lo, rel=0.1)
    # Both are close to the normal interval on a sample this large.
    half = 1.959964 * values.std(ddof=1) / math.sqrt(values.size)
    assert (hi - lo) / 2 == pytest.approx(half, rel=0.1)


def test_bootstrap_difference_interval_covers_the_difference():
    rng = np.random.default_rng(5)
    a = Distribution.of(rng.integers(0, 100, 4000))
    b = Distribution.of(rng.integers(10, 110, 4000))
    lo, hi = mean_difference_interval(a, b)
    assert lo < b.mean() - a.mean() < hi
    assert 5 < lo and hi < 15


def test_bootstrap_intervals_asked_again_are_remembered_and_equal(monkeypatch):
    """The memo returns what a fresh draw gives, without drawing again; another count,
    seed or number of replicates is drawn anew."""
    from analysis.statistics import bootstrap

    monkeypatch.setattr(bootstrap, "_memo_store", type(bootstrap._memo_store)())
    monkeypatch.setattr(bootstrap, "_states", type(bootstrap._states)())
    rng = np.random.default_rng(8)
    a = Distribution.of(rng.integers(0, 60, 3000))
    b = Distribution.of(rng.integers(5, 70, 3000))
    draws = []
    real = bootstrap.replicate_means
    monkeypatch.setattr(bootstrap, "replicate_means", lambda *args: draws.append(1) or real(*args))
    fresh = mean_interval(a), mean_difference_interval(a, b)
    assert len(draws) == 3
    again = mean_interval(a), mean_difference_interval(a, b)
    assert again == fresh and len(draws) == 3
    lo, hi = np.percentile(real(a, 2000, np.random.default_rng(BOOTSTRAP_SEED)), [2.5, 97.5])
    assert fresh[0] == (lo, hi)
    shifted = Distribution(a.values, a.counts + (np.arange(a.counts.size) == 0))
    assert mean_interval(shifted) != fresh[0] and len(draws) == 4
    mean_interval(a, seed=BOOTSTRAP_SEED + 1), mean_interval(a, replicates=500)
    # a's means are remembered with the generator's state after them: b − a draws b's only,
    # and equals the two drawn in a row from one seeded generator
    backwards = mean_difference_interval(b, a)
    assert len(draws) == 7
    one = np.random.default_rng(BOOTSTRAP_SEED)
    direct = real(a, 2000, one) - real(b, 2000, one)
    assert backwards == tuple(np.percentile(direct, [2.5, 97.5]))
    monkeypatch.setattr(bootstrap, "_MEMO_SIZE", 2)
    mean_interval(b, seed=BOOTSTRAP_SEED + 2)  # a new set: the oldest ones make room
    assert len(bootstrap._memo_store) == 2 and len(bootstrap._states) == 2


def test_checkpoints_are_one_two_five_per_decade():
    assert checkpoints(500).tolist() == [100, 200, 500]
    assert checkpoints(1234).tolist() == [100, 200, 500, 1000, 1234]
    assert checkpoints(60).tolist() == [60]
    assert checkpoints(10**6)[-3:].tolist() == [200_000, 500_000, 1_000_000]


def write_games(folder, n=1300, players=3, seed=6):
    """A minimal games.parquet (game, winner, end, cards) and its RunFolder."""
    rng = np.random.default_rng(seed)
    winner = rng.integers(-1, players, n).astype(np.int8)
    end = np.where(winner < 0, "cycle", "out")
    cards = rng.integers(10, 900, n).astype(np.int32)
    folder.mkdir()
    table = pa.table(
        {
            "game": np.arange(n, dtype=np.int64),
            "winner": winner,
            "end": pa.array(end).dictionary_encode(),
            "cards": cards,
        }
    )
    pq.write_table(table, folder / "games.parquet", row_group_size=500)
    meta = {"game": "beggar-my-neighbour", "players": players}
    run = RunFolder(folder, meta, n, tuple(table.column_names))
    return run, pd.DataFrame({"winner": winner, "end": end, "cards": cards})


@pytest.mark.parametrize("batch_size", [1, 97, 500, 10_000])
def test_convergence_equals_direct_computation_on_prefixes(tmp_path, batch_size):
    run, games = write_games(tmp_path / "run")
    ended = where_not("end", ["cycle"])
    (convergence,) = scan(
        run, lambda: [Convergence(len(games), 3, "cards", ended, needs=("end",))], batch_size
    )
    table = convergence.table()
    assert table["games"].tolist() == [100, 200, 500, 1000, 1300]
    for row in table.itertuples():
        prefix = games.iloc[: row.games]
        kept = prefix.loc[prefix["end"] != "cycle", "cards"]
        assert row.wins == (prefix["winner"] == 0).sum()
        assert row.mean == pytest.approx(kept.mean(), rel=1e-12)
        half = 1.959964 * kept.std(ddof=1) / math.sqrt(len(kept))
        assert (row.mean_hi - row.mean_lo) / 2 == pytest.approx(half, rel=1e-5)


@pytest.mark.parametrize("batch_size", [7, 10_000])
def test_accumulators_do_not_depend_on_batches(tmp_path, batch_size):
    run, games = write_games(tmp_path / "run", seed=7)
    ended = where_not("end", ["cycle"])
    wins, cards, longest = scan(
        run,
        lambda: [
            WinCounts(3),
            Values("cards", ended, needs=("end",)),
            Longest(5, "cards", ("winner",), ended, needs=("end",)),
        ],
        batch_size,
    )
    assert wins.seats.tolist() == [
        *(int((games["winner"] == s).sum()) for s in range(3)),
        int((games["winner"] < 0).sum()),
    ]
    kept = games[games["end"] != "cycle"]
    assert cards.dist == Distribution.of(kept["cards"].to_numpy())
    expected = kept.assign(game=kept.index).sort_values(["cards", "game"], ascending=[False, True])
    assert longest.rows["game"].tolist() == expected["game"].head(5).tolist()
