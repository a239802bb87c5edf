"""Points and scores of shedding-game runs: the per-seat score section, finishing multipliers
and the accumulator of the others' scores by the winner's last card."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from analysis.rendering.document import Block, Chart, Heading, Paragraph, Table
from analysis.rendering.words import fmt_int, fmt_num, fmt_pct
from analysis.reports.common import count_text
from analysis.statistics.stats import finish_ranks, value_summary
from analysis.statistics.tally import LabelCounts
from simulate.runs.folder.batch import Batch
from simulate.runs.folder.distribution import Distribution

SCORING_MEANINGS = {
    "penalty": (
        "each losing seat scores the points left in its hand, the winner 0, so lower is better"
    ),
    "winner_collects": (
        "the winner scores the points left in every other hand, the others 0, so higher is better"
    ),
    "minus_hand": (
        "each losing seat scores minus the points left in its hand, the winner 0, so "
        "higher is better"
    ),
}


class OthersByFinish:
    """Scores of the seats other than the winner in deals won by going out, split by
    whether the winner's last card was a multiplier rank (``multipliers`` value above 1).

    For each of ``multiplier`` and ``no multiplier`` it keeps the deals counted and the
    distribution of the others' summed score per deal."""

    def __init__(self, players: int, multipliers: Mapping[str, int]):
        self.players = players
        self.special = {rank for rank, m in multipliers.items() if m > 1}
        self.columns = ("end", "winner", "finish_rank", *(f"score_{s}" for s in range(players)))
        self.sums = {"multiplier": Distribution.empty(), "no multiplier": Distribution.empty()}

    def update(self, batch: Batch) -> None:
        out = np.flatnonzero(batch.is_in("end", ["out"]))
        if not out.size:
            return
        scores = np.stack([batch[f"score_{s}"][out] for s in range(self.players)], axis=1)
        scores = scores.astype(np.int64)
        winners = batch["winner"][out].astype(np.intp)
        others = scores.sum(axis=1) - scores[np.arange(out.size), winners]
        special = batch.is_in("finish_rank", self.special)[out]
        self.sums["multiplier"] += Distribution.of(others[special])
        self.sums["no multiplier"] += Distribution.of(others[~special])

    def merge(self, other: OthersByFinish) -> None:
        """Add ``other``'s distributions (an accumulator built alike, fed other games)."""
        self.sums = {label: dist + other.sums[label] for label, dist in self.sums.items()}

    def from_aggregates(self, view) -> None:
        """What :meth:`update` over every game gives, from an aggregate-only run
        (:class:`analysis.aggregates.AggregateView`), which keeps the others' summed
        score per group."""
        from simulate.runs.folder.aggregates import OTHERS

        out = [k for k in view.keys if view.value(k, "end") == "out"]
        special = [k for k in out if view.value(k, "finish_rank") in self.special]
        plain = [k for k in out if view.value(k, "finish_rank") not in self.special]
        self.sums = {
            "multiplier": view.dist(OTHERS, special),
            "no multiplier": view.dist(OTHERS, plain),
        }

    def table(self) -> pd.DataFrame:
        """Rows ``multiplier`` and ``no multiplier``; columns ``games``, ``mean`` (over every
        non-winning seat of those deals) and ``median`` (of each deal's mean over the
        others, as ``np.median`` gives it)."""
        others = self.players - 1
        rows = {}
        for label, dist in self.sums.items():
            games = dist.n
            mean = dist.total / (games * others) if games and others else float("nan")
            rows[label] = {"games": games, "mean": mean, "median": _median_of_means(dist, others)}
        return pd.DataFrame.from_dict(rows, orient="index")


def _median_of_means(sums: Distribution, others: int) -> float:
    """``np.median`` of the per-deal means ``sum / others``: the middle one, or the mean of
    the two middle ones."""
    n = sums.n
    if n == 0 or others == 0:
        return float("nan")
    a, b = (sums.order_statistics([(n - 1) // 2, n // 2]) / others).tolist()
    return a if n % 2 else (a + b) / 2


def score_section(
    dists: Mapping[str, Distribution], players: int, strategies: list[str], rules: dict
) -> list[Block]:
    """The "Points and scores" heading, per-seat table of mean cards left, points and
    score with the score's percentiles, and the score chart (``score_distribution``);
    ``dists`` maps ``cards_left_<i>``, ``points_<i>`` and ``score_<i>`` to distributions."""
    scoring = rules.get("scoring", "")
    meaning = SCORING_MEANINGS.get(scoring, "")
    multiplier = (
        " When the winner went out on a rank with a finishing multiplier, the others' "
        "points are multiplied by it."
        if rules.get("finish_multiplier")
        else ""
    )
    empty = Distribution.empty()
    rows = []
    for seat in range(players):
        score = value_summary(dists.get(f"score_{seat}", empty))
        rows.append(
            [
                f"seat {seat}",
                strategies[seat] if seat < len(strategies) else "",
                fmt_num(dists.get(f"cards_left_{seat}", empty).mean()),
                fmt_num(dists.get(f"points_{seat}", empty).mean()),
                fmt_num(score["mean"]),
                fmt_num(score["p10"]),
                fmt_num(score["median"]),
                fmt_num(score["p90"]),
            ]
        )
    columns = [
        "seat",
        "strategy",
        "cards left",
        "points",
        "score",
        "10th pct",
        "median",
        "90th pct",
    ]
    return [
        Heading("Points and scores"),
        Paragraph(
            f"Cards left and penalty points in hand at the end of the deal, and the deal's "
            f"score, per seat: means, and the score's percentiles. Scoring is "
            f"`{scoring or 'unknown'}`"
            + (f": {meaning}." if meaning else ".")
            + multiplier
            + " A deal without a winner scores every seat its own hand."
        ),
        Table(columns, rows, "llrrrrrr"),
        Chart(
            "score_distribution",
            "Score per deal by seat: box of quartiles, whiskers at the 10th and 90th "
            "percentiles, mean as a diamond",
        ),
    ]


def multiplier_section(
    ranks_seen: LabelCounts, others: OthersByFinish, multipliers: Mapping[str, int]
) -> list[Block]:
    """The "Finishing multipliers" heading and tables: the winner's last card by rank among
    deals won by going out, and the others' scores with and without a multiplier."""
    ranks = finish_ranks(ranks_seen.counts, multipliers)
    n_out = int(ranks["count"].sum())
    special = ", ".join(f"{rank} ×{m}" for rank, m in multipliers.items())
    rank_rows = [
        [str(rank), f"×{row.multiplier}", fmt_int(row.count), fmt_pct(row.share, 2)]
        for rank, row in zip(ranks.index, ranks.itertuples(), strict=True)
    ]
    other_rows = [
        [label, fmt_int(row["games"]), fmt_num(row["mean"]), fmt_num(row["median"])]
        for label, row in others.table().iterrows()
    ]
    rules = f"The rules multiply the losers' points when the winner goes out on {special}."
    if not n_out:
        return [
            Heading("Finishing multipliers"),
            Paragraph(f"{rules} No deal was won by going out, so none was multiplied."),
        ]
    return [
        Heading("Finishing multipliers"),
        Paragraph(
            f"{rules} Of the {count_text(n_out, 'deal')} won by going out, the winner's last "
            "card was of these ranks:"
        ),
        Table(["last card", "multiplier", "deals", "share"], rank_rows, "lrrr"),
        Paragraph(
            "Mean score of the seats other than the winner, in deals won by going out, when "
            "the last card carried a multiplier and when it did not (the median is of each "
            "deal's mean over the others):"
        ),
        Table(["winner's last card", "deals", "others' mean score", "median"], other_rows, "lrrr"),
    ]
