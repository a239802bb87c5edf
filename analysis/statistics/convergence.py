"""Convergence: the headline estimates, with their intervals, after the first m games.

At prefixes of the run spaced 1-2-5 per decade (100, 200, 500, 1,000, … and the whole
run), the first seat's win share with its Wilson interval and the mean length with its
normal interval (mean ± 1.96 standard errors; the bootstrap is kept for the whole run's
length table). Games are taken in game order, the order they were played in.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import NormalDist

import numpy as np
import pandas as pd

from analysis.statistics.stats import wilson_interval
from analysis.statistics.tally import Where
from simulate.runs.folder.batch import Batch, leaders

#: The smallest prefix reported.
FIRST_PREFIX = 100


def checkpoints(n: int, first: int = FIRST_PREFIX) -> np.ndarray:
    """Prefix sizes 1, 2, 5 × 10^k from ``first`` up to below ``n``, then ``n``: int64."""
    sizes = []
    decade = 1
    while decade * first < n:
        sizes += [m * decade * first for m in (1, 2, 5) if m * decade * first < n]
        decade *= 10
    return np.array([*sizes, n], dtype=np.int64)


class Convergence:
    """Accumulates, at each of :func:`checkpoints` ``(games)``, the first seat's wins and
    the count, sum and sum of squares of ``length`` over the games ``where`` keeps (it may
    read the columns in ``needs``). The first seat is the one that led each deal, as the
    ``lead`` column says (:func:`simulate.runs.folder.batch.lead_column`), or seat 0 without one."""

    def __init__(
        self,
        games: int,
        players: int,
        length: str,
        where: Where | None = None,
        needs: Sequence[str] = (),
        lead: str | None = None,
    ):
        self.players, self.length, self.where, self.lead = players, length, where, lead
        self.columns = ("winner", length, *needs, *((lead,) if lead else ()))
        self.sizes = checkpoints(games)
        self.totals = np.zeros(4, dtype=object)  # wins, kept games, sum, sum of squares
        self.rows: list[list[int]] = []

    def update(self, batch: Batch) -> None:
        winner = batch["winner"].astype(np.int64)
        first = winner == leaders(batch, self.lead, self.players)
        keep = self.where(batch) if self.where is not None else np.ones(len(batch), bool)
        lengths = np.where(keep, batch[self.length].astype(np.int64), 0)
        columns = (first, keep, lengths, lengths * lengths)
        end = batch.start + len(batch)
        for size in self.sizes[(self.sizes > batch.start) & (self.sizes <= end)]:
            upto = int(size) - batch.start
            partial = [int(c[:upto].sum()) for c in columns]
            self.rows.append(
                [int(size), *(int(t) + p for t, p in zip(self.totals, partial, strict=True))]
            )
        self.totals += np.array([int(c.sum()) for c in columns], dtype=object)

    def merge(self, other: Convergence) -> None:
        """Both together: ``other`` (built alike) was fed the games after this one's, so
        its checkpoints' counts add to all of this one's."""
        self.rows += [
            [size, *(t + p for t, p in zip(self.totals, rest, strict=True))]
            for size, *rest in other.rows
        ]
        self.totals = self.totals + other.totals

    def from_aggregates(self, view) -> None:
        """Only the whole run's point, from an aggregate-only run
        (:class:`analysis.aggregates.AggregateView`): the prefixes need the games in
        order."""
        kept = view.kept(self.where, self.columns[2:]) if self.where else list(view.keys)
        seats, positions = view.wins_by(self.players, self.lead)
        wins = int(positions[0]) if self.lead else int(seats[0])
        dist = view.dist(self.length, kept)
        squares = int(np.dot(dist.values * dist.values, dist.counts)) if dist.n else 0
        self.rows = [[view.games(), wins, dist.n, dist.total, squares]]
        self.single_games = False

    def table(self, confidence: float = 0.95) -> pd.DataFrame:
        """One row per prefix: ``games``, ``wins`` (first seat), ``share``, ``lo``, ``hi``
        (Wilson), ``kept`` (games counted for the length), ``mean``, ``mean_lo``,
        ``mean_hi`` (normal interval; NaN below two games)."""
        z = NormalDist().inv_cdf(0.5 + confidence / 2)
        records = []
        for games, wins, kept, total, squares in self.rows:
            lo, hi = wilson_interval(wins, games, confidence)
            mean = total / kept if kept else float("nan")
            if kept > 1:
                half = z * (((kept * squares - total * total) / (kept * (kept - 1))) / kept) ** 0.5
            else:
                half = float("nan")
            records.append(
                {
                    "games": games,
                    "wins": wins,
                    "share": wins / games,
                    "lo": lo,
                    "hi": hi,
                    "kept": kept,
                    "mean": mean,
                    "mean_lo": mean - half,
                    "mean_hi": mean + half,
                }
            )
        return pd.DataFrame(records)
