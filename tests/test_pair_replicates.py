"""The paired bootstrap of statistics that are not means (analysis.statistics.pair_replicates):
each replicate is what resampling the games as pairs gives, exactly."""

import numpy as np
import pytest

from analysis.statistics import pair_replicates as pr


def lengths(rng, n):
    """Two correlated samples of game lengths (integers), some games not counted."""
    shared = rng.gamma(4.0, 7.0, n)
    x = np.round(shared + rng.normal(0, 3, n)).clip(1)
    y = np.round(shared * 1.05 + rng.normal(0, 3, n)).clip(1)
    x[rng.random(n) < 0.02] = np.nan
    y[rng.random(n) < 0.03] = np.nan
    return x, y


def test_a_replicates_quantile_is_the_quantile_of_the_games_resampled():
    """The window codes lose nothing: counts of a resample, read as the module reads a
    multinomial draw, give np.quantile of the resampled games bit for bit."""
    rng = np.random.default_rng(3)
    x, y = lengths(rng, 5000)
    for sample in (x, y):
        codes, values = pr._window_codes(sample, 0.9)
        for _ in range(20):
            picked = rng.integers(0, sample.size, sample.size)
            counts = np.bincount(codes[picked], minlength=values.size + 3)
            found = pr._replicate_quantiles(counts[None, :], values, 0.9)[0]
            assert found == np.nanquantile(sample[picked], 0.9)


def test_the_quantile_pairs_replicates_follow_a_bootstrap_of_the_pairs():
    rng = np.random.default_rng(4)
    x, y = lengths(rng, 20_000)
    point, replicates = pr.quantile_pair(x, y)
    assert point.tolist() == [np.nanquantile(x, 0.9), np.nanquantile(y, 0.9)]
    assert replicates.shape == (2000, 2)
    brute = []
    for _ in range(400):
        picked = rng.integers(0, x.size, x.size)
        brute.append(np.nanquantile(x[picked], 0.9) - np.nanquantile(y[picked], 0.9))
    ours = replicates[:, 0] - replicates[:, 1]
    assert ours.std() == pytest.approx(np.std(brute), rel=0.2)
    # paired: far narrower than the two quantiles' spreads added as if independent
    apart = np.sqrt(replicates[:, 0].var() + replicates[:, 1].var())
    assert ours.std() < 0.8 * apart
    same = pr.quantile_pair(x, x)[1]
    assert (same[:, 0] == same[:, 1]).all()  # the same games: no difference at all
    assert pr.quantile_pair(x, np.full(x.size, np.nan)) is None


def test_the_means_are_drawn_with_the_paired_games_covariance():
    rng = np.random.default_rng(5)
    a = rng.normal(10, 2, 4000)
    b = a + rng.normal(0.3, 0.5, 4000)
    n = a.size
    point, draws = pr.mean_pair(
        n, (a.sum(), b.sum()), ((a * a).sum(), (b * b).sum()), ((a - b) ** 2).sum()
    )
    assert point == pytest.approx([a.mean(), b.mean()])
    expected = np.cov(np.vstack([a, b])) / n
    assert np.cov(draws.T) == pytest.approx(expected, rel=0.1)
    assert pr.mean_pair(1, (1.0, 1.0), (1.0, 1.0), 0.0) is None


def test_the_percentile_interval_holds_its_point():
    replicates = np.linspace(1.0, 2.0, 1001)
    assert pr.percentile_interval(1.5, replicates) == pytest.approx((1.5, 1.025, 1.975))
    assert pr.percentile_interval(0.5, replicates)[1] == 0.5


def test_without_replicates_only_the_point_is_computed():
    rng = np.random.default_rng(6)
    x, y = lengths(rng, 3000)
    joint = np.bincount(rng.integers(0, 25, 3000), minlength=25).reshape(5, 5)
    a, b = np.nan_to_num(x), np.nan_to_num(y)
    moments = (3000, (a.sum(), b.sum()), ((a * a).sum(), (b * b).sum()), ((a - b) ** 2).sum())
    for full, cheap in (
        (pr.winner_spreads(joint), pr.winner_spreads(joint, replicates=0)),
        (pr.quantile_pair(x, y), pr.quantile_pair(x, y, replicates=0)),
        (pr.mean_pair(*moments), pr.mean_pair(*moments, replicates=0)),
    ):
        assert (cheap[0] == full[0]).all() and cheap[1].shape == (0, 2)
