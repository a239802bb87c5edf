"""Paired comparisons (analysis.statistics.paired, the paired tests of analysis.statistics.significance and the
paired analysis of analysis.comparisons.report) against scipy, published cases and brute force on
small synthetic runs."""

import csv
import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from scipy import stats
from test_analysis_matches import make_match_run

from analysis.comparisons.report import write_comparison
from analysis.load import RunFolder, open_run
from analysis.statistics.paired import obstacle, pair_runs
from analysis.statistics.significance import (
    holm,
    mcnemar_test,
    mean_difference_test,
    newcombe_interval,
    paired_newcombe_interval,
    wilcoxon_signed_rank,
)
from simulate.runs.folder.distribution import Distribution
from simulate.runs.folder.paired import _Unpaired, in_step

BEGGAR_RULES = {"penalties": {"J": 1, "Q": 2, "K": 3, "A": 4}, "time_limit": None}

# Cavo et al. (2012) in Fagerland, Lydersen and Laake, "Statistical Analysis of Contingency
# Tables" (2017), chapter 8: 59 pairs both succeed, 6 only the first, 16 only the second,
# 80 neither. As a PairTable (row: first outcome, column: second; 0 fail, 1 success):
CAVO = [[80, 16], [6, 59]]


# --- statistics ------------------------------------------------------------------------


def test_mcnemar_matches_the_published_case_and_chi_squared():
    z, p = mcnemar_test(CAVO)
    # published: Z = -2.132, P = 0.033006 for first minus second; ours is second minus first
    assert z == pytest.approx(10 / math.sqrt(22)) and round(z, 3) == 2.132
    assert p == pytest.approx(0.033006, abs=5e-7)
    assert p == pytest.approx(stats.chi2.sf(10**2 / 22, 1), rel=1e-12)
    # hand computed: 15 pairs only the first won, 5 only the second: z = -10/sqrt(20)
    z, p = mcnemar_test([[10, 5], [15, 20]])
    assert z == pytest.approx(-2.2360680) and p == pytest.approx(0.0253473, abs=1e-7)
    assert mcnemar_test([[30, 0], [0, 12]]) == (0.0, 1.0)  # every pair agrees


def test_paired_newcombe_interval_matches_the_published_case():
    # published (method 10, square-and-add): -0.1186 to -0.0046 for first minus second
    lo, hi = paired_newcombe_interval(CAVO)
    assert lo == pytest.approx(0.0046, abs=5e-5) and hi == pytest.approx(0.1186, abs=5e-5)
    # swapping the samples mirrors the interval
    swapped = np.array(CAVO).T
    assert paired_newcombe_interval(swapped) == pytest.approx((-hi, -lo))
    assert all(math.isnan(v) for v in paired_newcombe_interval([[0, 0], [0, 0]]))


def test_paired_newcombe_without_correlation_is_the_unpaired_interval():
    # AD - BC = 25*25 - 25*25 = 0: phi is 0, leaving Newcombe's interval for two samples
    table = [[25, 25], [25, 25]]
    assert paired_newcombe_interval(table) == pytest.approx(newcombe_interval(50, 100, 50, 100))
    table = [[40, 10], [30, 20]]  # AD - BC = 800 - 300 = 500 > n/2: positive correlation
    paired = paired_newcombe_interval(table)
    unpaired = newcombe_interval(50, 100, 30, 100)
    assert paired[1] - paired[0] < unpaired[1] - unpaired[0]
    assert (paired[0] + paired[1]) / 2 == pytest.approx(-0.2, abs=0.01)


def test_paired_newcombe_agrees_with_the_wald_interval_on_large_tables():
    n00, n01, n10, n11 = 600_000, 7_000, 9_000, 384_000
    n = n00 + n01 + n10 + n11
    d = (n01 - n10) / n
    half = 1.959964 * math.sqrt(((n01 + n10) / n - d * d) / n)
    lo, hi = paired_newcombe_interval([[n00, n01], [n10, n11]])
    assert lo == pytest.approx(d - half, rel=2e-3) and hi == pytest.approx(d + half, rel=2e-3)


def test_wilcoxon_from_counts_equals_scipy():
    rng = np.random.default_rng(3)
    for _ in range(200):
        size = int(rng.integers(2, 80))
        spread = int(rng.integers(1, 12))
        d = rng.integers(-spread, spread + 1, size) + int(rng.integers(-2, 3))
        if not d.any():
            continue
        w, p = wilcoxon_signed_rank(Distribution.of(d))
        expected = stats.wilcoxon(d, method="asymptotic")
        r_plus = float(np.sum(stats.rankdata(np.abs(d[d != 0]))[d[d != 0] > 0]))
        assert w == pytest.approx(r_plus)
        assert min(w, np.count_nonzero(d) * (np.count_nonzero(d) + 1) / 2 - w) == pytest.approx(
            expected.statistic
        )
        assert p == pytest.approx(expected.pvalue, rel=1e-9, abs=1e-15)


def test_wilcoxon_hand_computed_and_degenerate():
    # d = 1, -2, 3, 3: ranks of |d| 1, 2, 3.5, 3.5; W+ = 8; m = 4, mean 5,
    # variance (4*5*9 - (8 - 2)/2) / 24 = 177/24
    w, p = wilcoxon_signed_rank(Distribution.of(np.array([1, -2, 3, 3, 0])))
    assert w == 8.0
    assert p == pytest.approx(2 * stats.norm.sf(3 / math.sqrt(177 / 24)))
    assert wilcoxon_signed_rank(Distribution.of(np.zeros(5, np.int64))) == (0.0, 1.0)
    assert math.isnan(wilcoxon_signed_rank(Distribution.empty())[1])


def test_mean_difference_test_equals_paired_t_test():
    rng = np.random.default_rng(5)
    for _ in range(20):
        n = int(rng.integers(2, 200))
        x = rng.normal(size=n)
        y = x + rng.normal(0.1, 0.5, n)
        d = y - x
        lo, hi, t, p = mean_difference_test(n, d.mean(), d.var(ddof=1))
        expected = stats.ttest_rel(y, x)
        ci = expected.confidence_interval()
        assert t == pytest.approx(expected.statistic) and p == pytest.approx(expected.pvalue)
        assert (lo, hi) == pytest.approx((ci.low, ci.high))
    assert mean_difference_test(5, 0.0, 0.0)[2:] == (pytest.approx(math.nan, nan_ok=True), 1.0)
    assert mean_difference_test(5, 2.0, 0.0)[:2] == (2.0, 2.0)
    assert mean_difference_test(5, 2.0, 0.0)[3] == 0.0
    assert all(math.isnan(v) for v in mean_difference_test(1, 2.0, math.nan))


# --- which runs are paired ----------------------------------------------------------------


def folder(meta: dict, rows: int = 100) -> RunFolder:
    return RunFolder(Path("/nowhere"), meta, rows, ("game", "winner"))


SHEDDING = {"game": "crazy-eights", "players": 4, "seed": 7}


@pytest.mark.parametrize(
    "change, reason",
    [
        ({}, None),
        ({"seed": 8}, "the seeds differ (7 and 8)"),
        ({"seed": None}, "a run does not record its seed"),
        ({"players": 5}, "the player counts differ (4 and 5)"),
        ({"unit": "match"}, "one run plays matches, the other single deals"),
        ({"rules": {"decks": 2, "hand_size": 5}}, "the deals differ (1 deck(s), 5 cards a hand"),
        ({"rules": {"decks": 1, "hand_size": 7}}, "7 cards a hand)"),
        ({"rules": {"decks": {"5+": 2, "default": 1}, "hand_size": {"2": 7, "default": 5}}}, None),
        ({"rules": {"decks": 1}}, "a run does not record its decks and hand size"),
    ],
)
def test_obstacles_to_pairing_from_run_json(change, reason):
    base = folder({**SHEDDING, "rules": {"decks": 1, "hand_size": 5}})
    variant = folder({**SHEDDING, "rules": {"decks": 1, "hand_size": 5}, **change})
    found = obstacle(base, variant)
    assert found == reason if reason is None else reason in found


def test_beggar_runs_pair_on_seed_and_players_alone():
    base = folder({"game": "beggar-my-neighbour", "players": 2, "seed": 1, "rules": {}})
    other = folder({**base.meta, "rules": {"time_limit": 300}})
    assert obstacle(base, other) is None
    assert "seeds differ" in obstacle(base, folder({**base.meta, "seed": 2}))


def test_in_step_cuts_batches_of_both_streams_to_equal_slices():
    table = pa.table({"x": np.arange(20)})
    left = iter(table.to_batches(max_chunksize=7))
    right = iter([table.slice(0, 3).to_batches()[0], table.slice(3, 17).to_batches()[0]])
    pairs = list(in_step(left, right))
    assert [len(a) for a, _ in pairs] == [3, 4, 7, 6]
    assert all(a.equals(b) for a, b in pairs)
    with pytest.raises(_Unpaired):
        list(in_step(iter(table.to_batches(5)), iter(table.slice(0, 15).to_batches(5))))


# --- synthetic runs ----------------------------------------------------------------------


def write_beggar(
    path: Path, winner, cards, end, seed: int = 1, row_group: int = 1000, game=None
) -> Path:
    """A Beggar-My-Neighbour run folder of two players with the given records, written in
    row groups of ``row_group`` games."""
    n = len(winner)
    table = pa.table(
        {
            "game": np.arange(n, dtype=np.int64) if game is None else np.asarray(game),
            "cards": np.asarray(cards, np.int32),
            "tricks": np.asarray(cards, np.int32) // 7,
            "winner": np.asarray(winner, np.int8),
            "end": pa.array(end).dictionary_encode(),
            "cycle_cards": np.zeros(n, np.int32),
            "cycle_tricks": np.zeros(n, np.int32),
        }
    )
    path.mkdir(parents=True)
    pq.write_table(table, path / "games.parquet", row_group_size=row_group)
    meta = {"game": "beggar-my-neighbour", "players": 2, "rules": BEGGAR_RULES, "seed": seed}
    (path / "run.json").write_text(json.dumps({**meta, "games": n, "status": "complete"}))
    return path


def correlated_runs(n: int, seed: int = 11):
    """Records of a base run and of a variant that plays most deals the same way: 15% of its
    winners drawn again, its lengths the base's plus small changes, and a few cycles."""
    rng = np.random.default_rng(seed)
    winner = rng.integers(0, 2, n)
    cards = rng.integers(20, 600, n)
    end = np.where(rng.random(n) < 0.02, "cycle", "out")
    redraw = rng.random(n) < 0.15
    winner_v = np.where(redraw, rng.integers(0, 2, n), winner)
    cards_v = cards + rng.choice([0, 0, 0, 1, 2, -1, 5], n)
    end_v = np.where(rng.random(n) < 0.02, "cycle", end)
    winner[end == "cycle"], winner_v[end_v == "cycle"] = -1, -1
    return (winner, cards, end), (winner_v, cards_v, end_v)


def test_pair_runs_counts_equal_brute_force_whatever_the_row_groups(tmp_path):
    (wb, cb, eb), (wv, cv, ev) = correlated_runs(2500)
    base = open_run(write_beggar(tmp_path / "base", wb, cb, eb, row_group=700))
    variant = open_run(write_beggar(tmp_path / "variant", wv, cv, ev, row_group=1000))
    pairing = pair_runs(base, variant, "cards", ("cycle",), batch_size=300)
    assert pairing.deals_reason is None and pairing.matches is None
    deals = pairing.deals
    assert deals.n == 2500
    table = pd.crosstab(wb == 0, wv == 0).to_numpy()
    assert deals.first.tolist() == table.tolist()
    both = (eb != "cycle") & (ev != "cycle")
    assert deals.length == Distribution.of(cv[both] - cb[both])
    # no winner (a cycle) against a seat counts as a change, as one seat against another
    assert deals.winner_changes == int(np.count_nonzero(wb != wv)) > 0


def test_runs_that_hold_other_games_are_not_paired(tmp_path):
    (wb, cb, eb), (wv, cv, ev) = correlated_runs(600)
    base = open_run(write_beggar(tmp_path / "base", wb, cb, eb))
    shorter = open_run(write_beggar(tmp_path / "short", wv[:500], cv[:500], ev[:500]))
    pairing = pair_runs(base, shorter, "cards", ("cycle",))
    assert pairing.deals is None
    assert pairing.deals_reason == "the runs hold different numbers of deals (600 and 500)"
    game = np.arange(600)
    game[400:] += 1
    other = open_run(write_beggar(tmp_path / "other", wv, cv, ev, game=game))
    pairing = pair_runs(base, other, "cards", ("cycle",), batch_size=128)
    assert pairing.deals is None
    assert pairing.deals_reason == "the runs hold different deals (at game 400)"
    reseeded = open_run(write_beggar(tmp_path / "seed", wv, cv, ev, seed=2))
    assert pair_runs(base, reseeded, "cards").deals_reason == "the seeds differ (1 and 2)"


def test_match_runs_pair_deals_by_match_and_deal_and_matches_by_match(tmp_path):
    a = open_run(make_match_run(tmp_path / "a"))
    more = [[1, 0, 0], [1, 0, 0], [0, 1, 0], [1, 0, 0]]
    b = open_run(make_match_run(tmp_path / "b", shares=more))
    pairing = pair_runs(a, b, "turns")
    assert pairing.deals.n == 8 and pairing.deals.length == Distribution.of(np.zeros(8, int))
    matches = pairing.matches
    d = np.array([1, 1, 0, 1]) - np.array([1, 0.5, 0, 0])
    assert (matches.n, matches.mean(), matches.var()) == pytest.approx((4, d.mean(), d.var(ddof=1)))
    # deals renumbered (as when matches last different numbers of deals): only the matches pair
    games = pq.read_table(b.games_path)
    deal = games.column("deal").to_numpy().copy()
    deal[5] = 7
    games = games.set_column(games.schema.get_field_index("deal"), "deal", pa.array(deal))
    pq.write_table(games, b.games_path)
    pairing = pair_runs(a, b, "turns")
    assert pairing.deals is None and pairing.deals_reason.startswith("the runs hold different")
    assert pairing.deals_reason.endswith("(at match 2, deal 1)")
    assert pairing.matches is not None and pairing.matches_reason is None
    stripped = open_run(make_match_run(tmp_path / "c"))
    pq.write_table(pq.read_table(stripped.games_path).drop_columns(["deal"]), stripped.games_path)
    reason = pair_runs(a, open_run(stripped.path), "turns").deals_reason
    assert reason == "a run's games do not record match and deal"


# --- the report ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def paired_report(tmp_path_factory):
    root = tmp_path_factory.mktemp("paired")
    (wb, cb, eb), (wv, cv, ev) = correlated_runs(3000)
    base = write_beggar(root / "base", wb, cb, eb, row_group=1000)
    variant = write_beggar(root / "variant", wv, cv, ev, row_group=512)
    out = root / "out"
    _, md_path = write_comparison([base, variant], out)
    with open(out / "comparison.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    return (wb, cb, eb), (wv, cv, ev), rows, md_path.read_text("utf-8")


def test_report_uses_the_paired_tests(paired_report):
    (wb, cb, eb), (wv, cv, ev), rows, _ = paired_report
    row = rows[1]
    assert row["first_analysis"] == "paired" and row["length_analysis"] == "paired"
    only_base = int(np.sum((wb == 0) & (wv != 0)))
    only_variant = int(np.sum((wb != 0) & (wv == 0)))
    z = (only_variant - only_base) / math.sqrt(only_base + only_variant)
    assert float(row["first_p"]) == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-8)
    assert float(row["first_diff"]) == pytest.approx(np.mean(wv == 0) - np.mean(wb == 0))
    both = (eb != "cycle") & (ev != "cycle")
    assert float(row["length_diff"]) == pytest.approx(np.mean(cv[both] - cb[both]))
    wilcoxon = stats.wilcoxon(cv[both], cb[both], method="asymptotic")
    assert float(row["length_p"]) == pytest.approx(wilcoxon.pvalue, rel=1e-8, abs=1e-300)
    ci = stats.ttest_rel(cv[both], cb[both]).confidence_interval()
    assert float(row["length_diff_lo"]) == pytest.approx(ci.low)
    assert float(row["length_diff_hi"]) == pytest.approx(ci.high)
    ended = [c[e != "cycle"] for c, e in ((cb, eb), (cv, ev))]
    mann_whitney = stats.mannwhitneyu(ended[1], ended[0], method="asymptotic")
    assert float(row["length_ind_p"]) == pytest.approx(mann_whitney.pvalue, rel=1e-8)
    assert int(row["pairs"]) == 3000 and int(row["length_pairs"]) == int(both.sum())
    family = [float(row[f"{k}_p"]) for k in ("first", "seats", "length", "ends")]
    assert float(row["first_p_holm"]) == pytest.approx(holm(family)[0])
    for key in ("first", "length"):
        paired = float(row[f"{key}_diff_hi"]) - float(row[f"{key}_diff_lo"])
        independent = float(row[f"{key}_ind_hi"]) - float(row[f"{key}_ind_lo"])
        assert paired < independent / 2  # the variant replays most deals


def test_report_says_which_analysis_was_used(paired_report):
    *_, rows, markdown = paired_report
    row = rows[1]
    table = markdown.split("\n## Results\n", 1)[1]
    line = next(x for x in table.splitlines() if x.startswith("| variant vs base | first"))
    assert "| paired: the same deals in both runs | McNemar's test |" in line
    line = next(x for x in table.splitlines() if x.startswith("| variant vs base | end"))
    assert "| independent samples | chi-squared test |" in line
    half = 100 * (float(row["first_diff_hi"]) - float(row["first_diff_lo"])) / 2
    assert "of variant against base, paired (3,000 pairs of deals) against independent" in table
    assert f"first seat's win share ±{half:.1f} pts against ±" in table
    methods = markdown.split("\n## Methods\n", 1)[1]
    assert "Paired samples (common random numbers)" in methods
    assert "Newcombe's square-and-add interval for paired data" in methods
    assert "Wilcoxon signed-rank test" in methods
    assert "paired 95% CI" in markdown.split("\n## Summary\n\n", 1)[1].split("\n\n")[0]


def test_pairs_merge_in_any_order_and_reverse_with_the_runs_roles():
    """DealPairs and MatchPairs of disjoint deals add up to those of all of them, whichever
    is merged first; reversed, the base and the variant swap: the first seat's table
    transposed and every difference negated (reversed twice, the pairs themselves)."""
    from simulate.runs.folder.paired import DealPairs, MatchPairs

    rng = np.random.default_rng(4)

    def dist(values):
        return Distribution.of(np.asarray(values, dtype=np.int64))

    lengths, shares = rng.integers(-9, 12, 300), rng.integers(-12, 13, 300)
    points = rng.integers(-30, 40, 300)
    firsts = rng.integers(0, 2, (300, 2))

    def deals(rows):
        first = np.zeros((2, 2), np.int64)
        np.add.at(first, (firsts[rows, 0], firsts[rows, 1]), 1)
        changes = int(np.count_nonzero(firsts[rows, 0] != firsts[rows, 1]))
        return DealPairs(
            len(rows), first, dist(lengths[rows]), {"score": dist(points[rows])}, changes
        )

    def matches(rows):
        return MatchPairs.of_shares(dist(shares[rows]), 12, {"score": dist(points[rows])})

    a, b, whole = np.arange(0, 120), np.arange(120, 300), np.arange(300)
    for make in (deals, matches):
        one, other, both = make(a), make(b), make(whole)
        for merged in (one.merge(other), other.merge(one)):
            assert merged.n == both.n and merged.sums["score"] == both.sums["score"]
        back = both.reversed()
        assert back.sums["score"] == dist(-points)
        assert back.reversed().sums["score"] == both.sums["score"]
    back = deals(whole).reversed()
    assert (back.first == deals(whole).first.T).all() and back.length == dist(-lengths)
    assert matches(whole).reversed().total == pytest.approx(-shares.sum() / 12)
    merged = deals(b).merge(deals(a))
    assert (merged.first == deals(whole).first).all() and merged.length == deals(whole).length
    assert merged.winner_changes == deals(whole).winner_changes == back.winner_changes
    assert deals(a).merge(replace(deals(b), winner_changes=None)).winner_changes is None
    merged = matches(a).merge(matches(b))
    assert (merged.total, merged.squares) == (matches(whole).total, matches(whole).squares)
