"""The statistics of a comparison of runs: each variant's headline figures and, against
the base variant, the difference of each with its interval and a test.

Per variant and its base (runs with the same number of players):

- the first seat's win share: difference with Newcombe's hybrid score interval, pooled
  two-proportion z-test;
- the win shares of every seat (and of no winner): chi-squared test of homogeneity;
- the mean length (cards for Beggar-My-Neighbour, over the deals that end; turns for the
  shedding games): difference with a bootstrap interval, Mann-Whitney U test;
- the end reasons: chi-squared test of homogeneity;
- in match play, seat 0's share of the match wins (shared wins count their fraction):
  difference with Newcombe's interval, two-proportion z-test.

Scores are put side by side (mean per seat) without a test.

Holm's correction runs over every test of the comparison (all variants, all player
counts); a difference is significant when its adjusted p-value is below 5%.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.bootstrap import mean_difference_interval, mean_interval
from analysis.distribution import Distribution
from analysis.load import RunFolder, scan
from analysis.matches import Matches, has_matches, read_matches
from analysis.significance import (
    chi2_homogeneity,
    holm,
    mann_whitney,
    newcombe_interval,
    two_proportion_test,
)
from analysis.stats import wilson_interval
from analysis.tally import LabelCounts, Values, WinCounts, lead_column, where_not

#: Family-wise error rate for "significant".
ALPHA = 0.05

#: The tests of each variant against its base, in table order: (key, figure, test).
TESTS = (
    ("first", "first seat's win share", "two-proportion z-test"),
    ("seats", "win shares of all seats", "chi-squared test"),
    ("length", "mean length", "Mann-Whitney U test"),
    ("ends", "end reasons", "chi-squared test"),
    ("match", "seat 0's match win share", "two-proportion z-test"),
)


@dataclass(frozen=True)
class Variant:
    """One run of a comparison, reduced to its headline counts.

    ``seats`` (players + 1,) wins per seat then games with no winner; ``first`` the same
    by position relative to the seat that led the deal where the run says which did
    (:func:`analysis.tally.lead_column`; else equal to ``seats``);
    ``ends`` games per end reason; ``length`` the distribution of the headline length
    (``length_unit``); ``scores`` each seat's score distribution (shedding games, else
    empty); ``matches`` the run's matches, or None."""

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

    @property
    def players(self) -> int:
        return self.run.players


def length_column(run: RunFolder) -> tuple[str, str]:
    """The headline length of a run's family: ``(column, unit)``."""
    return ("cards", "cards") if run.family == "beggar" else ("turns", "turns")


def summarize(run: RunFolder, name: str) -> Variant:
    """Scan ``run`` once for the counts a comparison needs."""
    column, unit = length_column(run)
    lead = lead_column(run)

    def length() -> Values:
        if run.family == "beggar":
            return Values(column, where_not("end", ["cycle"]), needs=("end",))
        return Values(column)

    score_columns = [f"score_{s}" for s in range(run.players) if f"score_{s}" in run.columns]
    wins, ends, lengths, *scores = scan(
        run,
        lambda: [
            WinCounts(run.players, lead),
            LabelCounts("end"),
            length(),
            *(Values(c) for c in score_columns),
        ],
    )
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
    )


def headline(variant: Variant) -> dict[str, float]:
    """The variant's headline figures as plain numbers (shares as fractions)."""
    k, n, players = int(variant.first[0]), variant.n, variant.players
    lo, hi = wilson_interval(k, n)
    mean_lo, mean_hi = mean_interval(variant.length)
    scores = {f"mean_score_{s}": d.mean() for s, d in enumerate(variant.scores)}
    matches = {}
    if variant.matches is not None:
        wins, total = float(variant.matches.wins[0]), variant.matches.n
        match_lo, match_hi = wilson_interval(wins, total)
        matches = {
            "matches": total,
            "match_share": wins / total,
            "match_lo": match_lo,
            "match_hi": match_hi,
        }
    return {
        "games": n,
        "first_wins": k,
        "first_share": k / n,
        "first_lo": lo,
        "first_hi": hi,
        "advantage": k / n - 1 / players,
        "no_winner_share": int(variant.seats[-1]) / n,
        "mean_length": variant.length.mean(),
        "mean_lo": mean_lo,
        "mean_hi": mean_hi,
        "median_length": variant.length.median(),
        **scores,
        **matches,
    }


def differences(variant: Variant, base: Variant) -> dict[str, float]:
    """Each figure of ``variant`` minus the base's, its interval, and each test's
    statistic and raw p-value (keys ``<test>_p`` for the tests of :data:`TESTS`)."""
    k1, n1 = int(base.first[0]), base.n
    k2, n2 = int(variant.first[0]), variant.n
    _, first_p = two_proportion_test(k1, n1, k2, n2)
    first_lo, first_hi = newcombe_interval(k1, n1, k2, n2)
    seats_chi2, seats_p = chi2_homogeneity(base.seats, variant.seats)
    reasons = list(dict.fromkeys([*base.ends, *variant.ends]))
    ends_chi2, ends_p = chi2_homogeneity(
        [base.ends.get(r, 0) for r in reasons], [variant.ends.get(r, 0) for r in reasons]
    )
    u, length_p = mann_whitney(variant.length, base.length)
    length_lo, length_hi = mean_difference_interval(base.length, variant.length)
    matches = {}
    if variant.matches is not None and base.matches is not None:
        m1, t1 = float(base.matches.wins[0]), base.matches.n
        m2, t2 = float(variant.matches.wins[0]), variant.matches.n
        match_lo, match_hi = newcombe_interval(m1, t1, m2, t2)
        matches = {
            "match_diff": m2 / t2 - m1 / t1,
            "match_diff_lo": match_lo,
            "match_diff_hi": match_hi,
            "match_p": two_proportion_test(m1, t1, m2, t2)[1],
        }
    return {
        "first_diff": k2 / n2 - k1 / n1,
        "first_diff_lo": first_lo,
        "first_diff_hi": first_hi,
        "first_p": first_p,
        "seats_chi2": seats_chi2,
        "seats_p": seats_p,
        "length_diff": variant.length.mean() - base.length.mean(),
        "length_diff_lo": length_lo,
        "length_diff_hi": length_hi,
        "length_u": u,
        "length_p": length_p,
        "ends_chi2": ends_chi2,
        "ends_p": ends_p,
        **matches,
    }


def comparison_table(variants: list[Variant], bases: dict[int, int]) -> pd.DataFrame:
    """One row per variant: ``players``, ``variant``, ``base`` (the name of its base),
    ``is_base``, the :func:`headline` figures, the end-reason shares (``end_<reason>``),
    the :func:`differences` to its base (NaN on base rows), and for each test its
    Holm-adjusted p-value (``<test>_p_holm``, over the whole table) and ``<test>_significant``.
    ``bases`` maps a player count to the index of its base variant."""
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
        }
        if i != base_index:
            row |= differences(variant, base)
        rows.append(row)
    table = pd.DataFrame(rows)
    for key, _, _ in TESTS:
        if f"{key}_p" not in table:
            table[f"{key}_p"] = np.nan
    adjusted = holm(table[[f"{key}_p" for key, _, _ in TESTS]].to_numpy().ravel())
    adjusted = adjusted.reshape(len(table), len(TESTS))
    for j, (key, _, _) in enumerate(TESTS):
        table[f"{key}_p_holm"] = adjusted[:, j]
        table[f"{key}_significant"] = np.where(
            np.isnan(adjusted[:, j]), None, adjusted[:, j] < ALPHA
        )
    return table
