"""The statistics of a comparison of runs: each variant's headline figures and, against
the base variant, the difference of each with its interval and a test.

Numbers only, one row per variant (:func:`comparison_table`); the report that words and
draws them is :mod:`analysis.comparisons.report`.

Per variant and its base (runs with the same number of players), as independent samples:

- the first seat's win share: difference with Newcombe's hybrid score interval, pooled
  two-proportion z-test;
- the win shares of every seat (and of no winner), seats counted in playing order from the
  deal's leader as the balance measures count them: chi-squared test of homogeneity;
- the seat spread (the largest minus the smallest of those shares): difference with a
  percentile bootstrap interval, each run's deals resampled from its win counts
  (independently, so conservative for paired runs), outside Holm's family;
- the mean length (cards for Beggar-My-Neighbour, over the deals that end; turns for the
  shedding games): difference with a bootstrap interval, Mann-Whitney U test;
- the end reasons: chi-squared test of homogeneity;
- in match play, seat 0's share of the match wins (shared wins count their fraction):
  difference with Newcombe's interval, two-proportion z-test.

When the variant played the same deals as its base (common random numbers, see
:mod:`analysis.statistics.paired`), the first seat's share and the mean length are compared as paired
samples instead: McNemar's test with Newcombe's interval for paired shares, and the mean of
the paired differences of length with its t interval and the Wilcoxon signed-rank test (for
Beggar-My-Neighbour over the pairs in which both deals end); in match play, seat 0's match
win share by the paired t-test and interval over the matches paired by index. The seats and
end reasons stay chi-squared tests of independent samples (conservative for paired runs).
The independent-sample intervals and p-values are kept beside the paired ones
(``<test>_ind_lo``, ``_ind_hi``, ``_ind_p``). Paired deals also say how often the rules
change who wins: ``winner_changes``, the share of pairs whose winner differs, with its
Wilson interval (a description, not a test: outside Holm's family).

Scores and match totals are compared like the mean length: in the shedding games the mean
score per seat and deal (every seat's score summed per deal, over the players) and each
seat's mean score; in match play the deals per match (unless every match of both runs is as
long) and each seat's mean match total. Each is given with a bootstrap interval of its mean
(:func:`headline`) and, against the base, with the bootstrap interval of the difference and
the Mann-Whitney U test as independent samples, or, where the deals (matches) pair, the t
interval of the mean paired difference and the Wilcoxon signed-rank test.

Holm's correction runs over every test of the comparison (all variants, all player
counts), with the p-value of the analysis used; a difference is significant when its
adjusted p-value is below 5%.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analysis.comparisons.settings import not_rules
from analysis.errors import ReportError
from analysis.load import RunFolder, scan
from analysis.paired_counts import pair_folders
from analysis.reports.matches import Matches, has_matches, read_matches
from analysis.statistics.bootstrap import (
    mean_difference_interval,
    mean_interval,
    spread_difference_interval,
)
from analysis.statistics.paired import Pairing
from analysis.statistics.significance import (
    chi2_homogeneity,
    holm,
    mann_whitney,
    mcnemar_test,
    mean_difference_test,
    newcombe_interval,
    paired_newcombe_interval,
    two_proportion_test,
    wilcoxon_signed_rank,
)
from analysis.statistics.stats import wilson_interval
from analysis.statistics.tally import (
    LabelCounts,
    RowSums,
    Values,
    WinCounts,
    where_not,
)
from simulate.runs.folder.batch import lead_column
from simulate.runs.folder.distribution import Distribution
from simulate.runs.folder.paired import deal_sums, match_sums

#: Family-wise error rate for "significant".
ALPHA = 0.05

#: The tests of each variant against its base, in table order: (key, figure, test of
#: independent samples, test of paired samples or None).
TESTS = (
    ("first", "first seat's win share", "two-proportion z-test", "McNemar's test"),
    ("seats", "win shares of all seats", "chi-squared test", None),
    ("length", "mean length", "Mann-Whitney U test", "Wilcoxon signed-rank test"),
    ("ends", "end reasons", "chi-squared test", None),
    ("match", "seat 0's match win share", "two-proportion z-test", "paired t-test"),
)

#: The tests of means compared like the length (scores, match totals): independent
#: samples, paired samples.
MEAN_TESTS = ("Mann-Whitney U test", "Wilcoxon signed-rank test")

#: The analysis a difference used (``<test>_analysis`` in the table).
PAIRED, INDEPENDENT = "paired", "independent"


def score_tests(players: int) -> list[tuple[str, str, str, str]]:
    """The tests of scores at ``players`` seats, as :data:`TESTS` lists its own: the mean
    score per seat and deal (``score``), then each seat's (``score_<i>``)."""
    return [
        ("score", "mean score per seat", *MEAN_TESTS),
        *((f"score_{s}", f"seat {s}'s mean score", *MEAN_TESTS) for s in range(players)),
    ]


def match_tests(players: int) -> list[tuple[str, str, str, str]]:
    """The tests of match play at ``players`` seats: deals per match (``deals``), then each
    seat's mean match total (``total_<i>``); paired over the matches."""
    return [
        ("deals", "deals per match", *MEAN_TESTS),
        *((f"total_{s}", f"seat {s}'s mean match total", *MEAN_TESTS) for s in range(players)),
    ]


#: Keys whose paired analysis pairs matches rather than deals.
def pairs_matches(key: str) -> bool:
    """Whether the paired form of the test ``key`` pairs matches (not deals)."""
    return key == "match" or key == "deals" or key.startswith("total_")


def table_tests(table: pd.DataFrame) -> list[tuple[str, str, str, str]]:
    """Every test that ``table`` (:func:`comparison_table`) holds, in the order of the
    report: :data:`TESTS`, then the scores and match play tests present."""
    players = int(table["players"].max()) if len(table) else 0
    extra = [*score_tests(players), *match_tests(players)]
    return [*TESTS, *(t for t in extra if f"{t[0]}_p" in table)]


@dataclass(frozen=True)
class Variant:
    """One run of a comparison, reduced to its headline counts.

    ``seats`` (players + 1,) wins per seat then games with no winner; ``first`` the same
    by position relative to the seat that led the deal where the run says which did
    (:func:`simulate.runs.folder.batch.lead_column`; else equal to ``seats``);
    ``ends`` games per end reason; ``length`` the distribution of the headline length
    (``length_unit``); ``scores`` each seat's score distribution (shedding games, else
    empty); ``matches`` the run's matches, or None; ``score_sum`` the distribution of each
    deal's scores summed over the seats (None without scores); ``balance`` the run's
    balance measures (:class:`analysis.reports.balance.Balance`: its ``table`` indexed by
    measure, with ``value``, ``lo``, ``hi``, ``definition``), or None."""

    name: str
    run: RunFolder
    n: int
    seats: np.ndarray
    first: np.ndarray
    ends: dict[str, int]
    length: Distribution
    length_unit: str
    scores: list[Distribution]
    matches: Matches | None
    score_sum: Distribution | None = None
    balance: Any = None

    @property
    def players(self) -> int:
        return self.run.players


def length_column(run: RunFolder) -> tuple[str, str]:
    """The headline length of a run's game: ``(column, unit)``."""
    return run.spec.length.name, run.spec.length.unit


def summarize(run: RunFolder, name: str) -> Variant:
    """Scan ``run`` once for the counts a comparison needs."""
    column, unit = length_column(run)
    lead = lead_column(run)

    def length() -> Values:
        if run.spec.unended:
            return Values(column, where_not("end", list(run.spec.unended)), needs=("end",))
        return Values(column)

    score_columns = [f"score_{s}" for s in range(run.players) if f"score_{s}" in run.columns]
    # An aggregate-only run keeps no row to sum: its groups give the sums (_summed_scores).
    row_sums = bool(score_columns) and run.aggregates is None
    balance = _balance_along(run)  # its counts ride along the scan below
    wins, ends, lengths, *scores = scan(
        run,
        lambda: [
            WinCounts(run.players, lead),
            LabelCounts("end"),
            length(),
            *(Values(c) for c in score_columns),
            *([RowSums(score_columns)] if row_sums else []),
        ],
    )
    score_sum = scores.pop().dist if row_sums else None
    if score_columns and not row_sums:
        score_sum = _summed_scores(run)
    first = wins.positions if wins.positions is not None else wins.seats
    matches = read_matches(run) if has_matches(run) else None
    return Variant(
        name,
        run,
        wins.n,
        wins.seats,
        first,
        ends.counts,
        lengths.dist,
        unit,
        [s.dist for s in scores],
        matches,
        score_sum,
        balance() if balance is not None else None,
    )


def _summed_scores(run: RunFolder) -> Distribution:
    """The distribution of each deal's scores summed over the seats, from an aggregate-only
    run's groups (:mod:`simulate.runs.folder.aggregates`): a deal's sum is its winner's score plus
    ``others_score`` (with no winner, ``others_score`` is the sum), so in a group where one
    of the two takes a single value the sum's distribution is the other's, shifted. Every
    scoring of the rule book is so (the winner scores 0, or the others do); where neither
    is, the sum needs single deals and :class:`ReportError` says so."""
    from simulate.runs.folder.aggregates import OTHERS

    total = Distribution.empty()
    for key, group in run.aggregates.groups.items():
        others = group.get(OTHERS, Distribution.empty())
        mine = group.get(f"score_{key[1]}") if key[1] >= 0 else None
        if key[1] < 0:
            total = total + others
        elif mine is not None and mine.min() == mine.max():
            total = total + _shifted(others, int(mine.min()))
        elif mine is not None and others.n and others.min() == others.max():
            total = total + _shifted(mine, int(others.min()))
        else:
            raise ReportError(
                f"{run.path} is an aggregate-only run (--records none) whose deals' summed "
                "scores cannot be told from its counts (neither the winner's score nor the "
                "others' is constant); compare runs that keep their records"
            )
    return total


def _shifted(dist: Distribution, by: int) -> Distribution:
    return Distribution(dist.values + by, dist.counts.copy())


def _balance_along(run: RunFolder) -> Callable[[], Any] | None:
    """:func:`analysis.reports.balance.balance_along` of ``run`` (the measures of the run's
    report, its skill games included), or None where that module is missing."""
    try:
        from analysis.reports.balance import balance_along
    except ModuleNotFoundError as exc:
        if exc.name not in ("analysis.balance", "analysis.reports.balance"):
            raise
        return None
    return balance_along(run)


def headline(variant: Variant) -> dict[str, float]:
    """The variant's headline figures as plain numbers (shares as fractions): the first
    seat's share and advantage with Wilson intervals, each seat's share, the share of deals
    with a winner (``decisive``, Wilson), the mean length; the mean score per seat and deal
    and each seat's (``mean_score``, ``mean_score_<i>``), and in match play seat 0's match
    win share, the deals per match (``mean_deals``) and each seat's match total
    (``mean_total_<i>``), means with bootstrap intervals (``_lo``, ``_hi``); then the
    balance measures (``<measure>``, ``<measure>_lo``, ``<measure>_hi``; those of
    :mod:`analysis.balance`, ``decisive`` being the same as above)."""
    k, n, players = int(variant.first[0]), variant.n, variant.players
    lo, hi = wilson_interval(k, n)
    decided = n - int(variant.seats[-1])
    decisive_lo, decisive_hi = wilson_interval(decided, n)
    mean_lo, mean_hi = mean_interval(variant.length)
    scores = {}
    if variant.score_sum is not None:
        scores |= _mean_columns("mean_score", variant.score_sum, 1 / players)
    for s, d in enumerate(variant.scores):
        scores |= _mean_columns(f"mean_score_{s}", d)
    matches = {}
    if variant.matches is not None:
        wins, total = float(variant.matches.wins[0]), variant.matches.n
        match_lo, match_hi = wilson_interval(wins, total)
        matches = {
            "matches": total,
            "match_share": wins / total,
            "match_lo": match_lo,
            "match_hi": match_hi,
            **_mean_columns("mean_deals", variant.matches.deals),
        }
        for s, d in enumerate(variant.matches.totals):
            matches |= _mean_columns(f"mean_total_{s}", d)
    return {
        "games": n,
        "first_wins": k,
        "first_share": k / n,
        "first_lo": lo,
        "first_hi": hi,
        "advantage": k / n - 1 / players,
        "advantage_lo": lo - 1 / players,
        "advantage_hi": hi - 1 / players,
        **{f"seat_{s}_share": int(c) / n for s, c in enumerate(variant.seats[:-1])},
        **{f"position_{k}_share": int(c) / n for k, c in enumerate(variant.first[:-1])},
        "spread": _spread(variant.first),
        "no_winner_share": int(variant.seats[-1]) / n,
        "decisive": decided / n,
        "decisive_lo": decisive_lo,
        "decisive_hi": decisive_hi,
        "mean_length": variant.length.mean(),
        "mean_lo": mean_lo,
        "mean_hi": mean_hi,
        "median_length": variant.length.median(),
        **scores,
        **matches,
        **_balance_columns(variant),
    }


def _spread(wins: np.ndarray) -> float:
    """The largest minus the smallest seat's share of the games, from ``wins`` (shape
    (players + 1,), the last entry the games with no winner)."""
    shares = np.asarray(wins[:-1], float) / max(int(np.sum(wins)), 1)
    return float(shares.max() - shares.min())


def _balance_columns(variant: Variant) -> dict[str, float]:
    if variant.balance is None:
        return {}
    out = {}
    for measure, row in variant.balance.table.iterrows():
        out |= {measure: row["value"], f"{measure}_lo": row["lo"], f"{measure}_hi": row["hi"]}
    return out


def _mean_columns(name: str, dist: Distribution, scale: float = 1.0) -> dict[str, float]:
    """``name``, ``name_lo``, ``name_hi``: the mean of ``dist`` times ``scale`` with its
    bootstrap interval."""
    lo, hi = mean_interval(dist)
    return {name: dist.mean() * scale, f"{name}_lo": lo * scale, f"{name}_hi": hi * scale}


def differences(variant: Variant, base: Variant, pairing: Pairing | None = None) -> dict:
    """Each figure of ``variant`` minus the base's, its interval, and each test's statistic
    and raw p-value (keys ``<test>_p`` for the tests of :data:`TESTS`, :func:`score_tests`
    and :func:`match_tests`), with the analysis used (``<test>_analysis``,
    :data:`PAIRED` or :data:`INDEPENDENT`) and the test's name (``<test>_test``). With
    ``pairing`` (:func:`analysis.paired_counts.pair_folders`) the figures it pairs are
    compared as paired samples, and ``pairing_note`` says why the deals are not paired (""
    when they are). The independent-sample interval and p-value of the first seat's share,
    the mean length, the match share, the scores and the match totals are kept as
    ``<test>_ind_lo``, ``<test>_ind_hi`` and ``<test>_ind_p`` whichever analysis is used.
    Paired deals also give ``winner_changes``: the share of pairs whose winner differs (a
    seat in one run, another seat or no winner in the other), with its Wilson interval
    (``winner_changes_lo``, ``winner_changes_hi``)."""
    deals = pairing.deals if pairing is not None else None
    k1, n1 = int(base.first[0]), base.n
    k2, n2 = int(variant.first[0]), variant.n
    independent = (*newcombe_interval(k1, n1, k2, n2), two_proportion_test(k1, n1, k2, n2)[1])
    out = _figure("first", k2 / n2 - k1 / n1, independent, independent)
    if deals is not None:
        z, p = mcnemar_test(deals.first)
        out |= _figure("first", k2 / n2 - k1 / n1, (*paired_newcombe_interval(deals.first), p))
        out |= {
            "pairs": deals.n,
            "first_base_only": int(deals.first[1, 0]),
            "first_variant_only": int(deals.first[0, 1]),
            "first_z": z,
        }
        if deals.winner_changes is not None and deals.n:
            lo, hi = wilson_interval(deals.winner_changes, deals.n)
            out |= {
                "winner_changes": deals.winner_changes / deals.n,
                "winner_changes_lo": float(lo),
                "winner_changes_hi": float(hi),
            }
    chi2, p = chi2_homogeneity(base.first, variant.first)
    out |= {"seats_chi2": chi2, "seats_p": p, "seats_analysis": INDEPENDENT}
    out["seats_test"] = _test_names("seats")[0]
    lo, hi = spread_difference_interval(base.first, variant.first)
    out |= {"spread_diff": _spread(variant.first) - _spread(base.first)}
    out |= {"spread_diff_lo": lo, "spread_diff_hi": hi}
    length, stats = _mean_difference(
        "length", base.length, variant.length, deals.length if deals is not None else None
    )
    out |= length | {"length_ind_diff": stats["ind_diff"], "length_u": stats["u"]}
    if deals is not None:
        out |= {"length_pairs": deals.length.n, "length_w": stats["w"]}
    reasons = list(dict.fromkeys([*base.ends, *variant.ends]))
    chi2, p = chi2_homogeneity(
        [base.ends.get(r, 0) for r in reasons], [variant.ends.get(r, 0) for r in reasons]
    )
    out |= {"ends_chi2": chi2, "ends_p": p, "ends_analysis": INDEPENDENT}
    out["ends_test"] = _test_names("ends")[0]
    if base.score_sum is not None and variant.score_sum is not None:
        sums = deals.sums if deals is not None else {}
        out |= _mean_difference(
            "score", base.score_sum, variant.score_sum, sums.get("score"), 1 / base.players
        )[0]
        for s, (b, v) in enumerate(zip(base.scores, variant.scores, strict=True)):
            out |= _mean_difference(f"score_{s}", b, v, sums.get(f"score_{s}"))[0]
    if variant.matches is not None and base.matches is not None:
        m1, t1 = float(base.matches.wins[0]), base.matches.n
        m2, t2 = float(variant.matches.wins[0]), variant.matches.n
        independent = (*newcombe_interval(m1, t1, m2, t2), two_proportion_test(m1, t1, m2, t2)[1])
        out |= _figure("match", m2 / t2 - m1 / t1, independent, independent)
        matches = pairing.matches if pairing is not None else None
        if matches is not None:
            lo, hi, t, p = mean_difference_test(matches.n, matches.mean(), matches.var())
            out |= _figure("match", matches.mean(), (lo, hi, p))
            out |= {"match_pairs": matches.n, "match_t": t}
        sums = matches.sums if matches is not None else {}
        if _varies(base.matches.deals, variant.matches.deals):
            out |= _mean_difference(
                "deals", base.matches.deals, variant.matches.deals, sums.get("deals")
            )[0]
        for s, (b, v) in enumerate(zip(base.matches.totals, variant.matches.totals, strict=True)):
            out |= _mean_difference(f"total_{s}", b, v, sums.get(f"total_{s}"))[0]
    out["pairing_note"] = "" if pairing is None else pairing.deals_reason or ""
    return out


def _varies(a: Distribution, b: Distribution) -> bool:
    """Whether two runs' deals per match are worth a test: not every match of both as long."""
    return not (a.n and b.n and a.min() == a.max() == b.min() == b.max())


def _mean_difference(
    key: str,
    base: Distribution,
    variant: Distribution,
    paired: Distribution | None,
    scale: float = 1.0,
) -> tuple[dict, dict[str, float]]:
    """The columns of the difference of two means (:func:`_figure`), times ``scale``: as
    independent samples the bootstrap interval and the Mann-Whitney U test; with ``paired``
    (the distribution of the paired differences) the t interval of their mean and the
    Wilcoxon signed-rank test. Also returns the statistics: ``ind_diff`` (the difference of
    the two means), ``u`` and, when paired, ``w``."""
    u, p = mann_whitney(variant, base)
    ind_diff = (variant.mean() - base.mean()) * scale
    lo, hi = mean_difference_interval(base, variant)
    independent = (lo * scale, hi * scale, p)
    out = _figure(key, ind_diff, independent, independent)
    stats = {"ind_diff": ind_diff, "u": u}
    if paired is not None:
        lo, hi, _, _ = mean_difference_test(paired.n, paired.mean(), paired.var())
        w, p = wilcoxon_signed_rank(paired)
        out |= _figure(key, paired.mean() * scale, (lo * scale, hi * scale, p))
        stats["w"] = w
    return out, stats


#: Each test's name: (independent samples, paired samples).
_TEST_NAMES = {key: (independent, paired) for key, _, independent, paired in TESTS}


def _test_names(key: str) -> tuple[str, str | None]:
    """The names of the test ``key``: (independent samples, paired samples)."""
    return _TEST_NAMES.get(key, MEAN_TESTS)


def _figure(
    key: str,
    diff: float,
    used: tuple[float, float, float],
    independent: tuple[float, float, float] | None = None,
) -> dict:
    """The columns of one difference: ``<key>_diff``, its interval and p-value from ``used``
    (lo, hi, p), the analysis and test, and, when ``independent`` is given (the
    independent-sample lo, hi, p; ``used`` is then the same), the ``_ind_`` columns. Without
    ``independent`` the analysis is :data:`PAIRED`."""
    analysis = INDEPENDENT if independent is not None else PAIRED
    out = {
        f"{key}_diff": diff,
        f"{key}_diff_lo": used[0],
        f"{key}_diff_hi": used[1],
        f"{key}_p": used[2],
        f"{key}_analysis": analysis,
        f"{key}_test": _test_names(key)[analysis == PAIRED],
    }
    if independent is not None:
        lo, hi, p = independent
        out |= {f"{key}_ind_lo": lo, f"{key}_ind_hi": hi, f"{key}_ind_p": p}
    return out


def comparison_table(
    variants: list[Variant], bases: dict[int, int], paired: bool = True
) -> pd.DataFrame:
    """One row per variant: ``players``, ``variant``, ``base`` (the name of its base),
    ``is_base``, the :func:`headline` figures, the end-reason shares (``end_<reason>``),
    ``not_rules`` (what besides the rules differs from the base:
    :func:`analysis.comparisons.settings.not_rules`, joined by semicolons; "" when nothing),
    the :func:`differences` to its base (NaN on base rows), and for each test its
    Holm-adjusted p-value (``<test>_p_holm``, over every test of the whole table:
    :func:`table_tests`) and ``<test>_significant``.
    ``bases`` maps a player count to the index of its base variant. With ``paired`` each
    variant that played its base's deals is compared with it as paired samples (both runs
    are read again, in step: :func:`analysis.paired_counts.pair_folders`)."""
    reasons = list(dict.fromkeys(r for v in variants for r, c in v.ends.items() if c))
    rows = []
    for i, variant in enumerate(variants):
        base_index = bases[variant.players]
        base = variants[base_index]
        row = {
            "players": variant.players,
            "variant": variant.name,
            "base": base.name,
            "is_base": i == base_index,
            **headline(variant),
            "length_unit": variant.length_unit,
            **{f"end_{r}": variant.ends.get(r, 0) / variant.n for r in reasons},
            "not_rules": "; ".join(not_rules(base.run.meta, variant.run.meta, variant.run.spec)),
        }
        if i != base_index:
            pairing = None
            if paired:
                column, _ = length_column(base.run)
                pairing = pair_folders(
                    base.run,
                    variant.run,
                    column,
                    base.run.spec.unended,
                    sums=_score_sums(base, variant),
                    match_sums=_match_sums(base, variant),
                )
            row |= differences(variant, base, pairing)
        rows.append(row)
    table = pd.DataFrame(rows)
    for key, *_ in TESTS:
        if f"{key}_p" not in table:
            table[f"{key}_p"] = np.nan
    tests = table_tests(table)
    adjusted = holm(table[[f"{key}_p" for key, *_ in tests]].to_numpy().ravel())
    adjusted = adjusted.reshape(len(table), len(tests))
    for j, (key, *_) in enumerate(tests):
        table[f"{key}_p_holm"] = adjusted[:, j]
        table[f"{key}_significant"] = np.where(
            np.isnan(adjusted[:, j]), None, adjusted[:, j] < ALPHA
        )
    return table


def _score_sums(base: Variant, variant: Variant) -> dict[str, tuple[str, ...]]:
    """What :func:`analysis.statistics.paired.pair_runs` sums per deal for the score tests."""
    if base.score_sum is None or variant.score_sum is None:
        return {}
    return deal_sums(base.players, base.run.columns)


def _match_sums(base: Variant, variant: Variant) -> dict[str, tuple[str, ...]]:
    """What :func:`analysis.statistics.paired.pair_runs` sums per match."""
    if base.matches is None or variant.matches is None:
        return {}
    return match_sums(base.players)
