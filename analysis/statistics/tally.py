"""Accumulators for :func:`analysis.load.scan`: what a report keeps of a run's games.

Each keeps only counts or a bounded number of rows, so memory does not grow with the
number of games: win counts, counts per label, the distribution of an integer column (or
of a sum of columns), the longest games, the first games of a kind.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from analysis.errors import NeedsSingleGames
from simulate.runs.folder.batch import Batch, leaders
from simulate.runs.folder.distribution import Distribution

if TYPE_CHECKING:
    from analysis.aggregates import AggregateView

#: A filter on the games of a batch: a boolean mask of shape (len(batch),).
Where = Callable[[Batch], np.ndarray]


def where_not(column: str, names: Sequence[str]) -> Where:
    """Games whose string ``column`` is none of ``names``."""
    return lambda batch: ~batch.is_in(column, names)


def where_in(column: str, names: Sequence[str]) -> Where:
    """Games whose string ``column`` is one of ``names``."""
    return lambda batch: batch.is_in(column, names)


class WinCounts:
    """Wins per seat: ``seats`` has shape (players + 1,), the last entry counting games
    with no winner. With a ``lead`` column (:func:`simulate.runs.folder.batch.lead_column`)
    ``positions`` counts wins by seat relative to the deal's leader (position 0 led), same
    shape; otherwise it is None."""

    def __init__(self, players: int, lead: str | None = None):
        self.players, self.lead = players, lead
        self.columns = ("winner",) if lead is None else ("winner", lead)
        self.n = 0
        self.seats = np.zeros(players + 1, np.int64)
        self.positions = None if lead is None else np.zeros(players + 1, np.int64)

    def update(self, batch: Batch) -> None:
        winner = batch["winner"]
        self.n += len(winner)
        self.seats += _seat_counts(winner, self.players)
        if self.positions is not None:
            lead = leaders(batch, self.lead, self.players)
            position = np.where(winner >= 0, (winner.astype(np.int64) - lead) % self.players, -1)
            self.positions += _seat_counts(position, self.players)

    def merge(self, other: WinCounts) -> None:
        """Add ``other``'s counts (an accumulator built alike, fed other games)."""
        self.n += other.n
        self.seats += other.seats
        if self.positions is not None:
            self.positions += other.positions

    def from_aggregates(self, view: AggregateView) -> None:
        """What :meth:`update` over every game gives, from an aggregate-only run."""
        self.n = view.games()
        self.seats, positions = view.wins_by(self.players, self.lead)
        if self.positions is not None:
            self.positions = positions


def _seat_counts(winner: np.ndarray, players: int) -> np.ndarray:
    won = winner[winner >= 0]
    counts = np.bincount(won.astype(np.intp), minlength=players)
    return np.append(counts, winner.size - won.size)


class LabelCounts:
    """Games per label of the string ``column`` (nulls left out), among the games that
    ``where`` keeps (it may read the columns in ``needs``). ``counts`` maps label → count
    in the order the labels first appear in the file's dictionaries, unseen ones at 0."""

    def __init__(self, column: str, where: Where | None = None, needs: Sequence[str] = ()):
        self.column, self.where = column, where
        self.columns = (column, *needs)
        self.counts: dict[str, int] = {}

    def update(self, batch: Batch) -> None:
        codes = batch[self.column]
        if self.where is not None:
            codes = codes[self.where(batch)]
        labels = batch.labels[self.column]
        counts = np.bincount(codes[codes >= 0].astype(np.intp), minlength=len(labels))
        for label, count in zip(labels, counts, strict=True):
            self.counts[label] = self.counts.get(label, 0) + int(count)

    def merge(self, other: LabelCounts) -> None:
        """Add ``other``'s counts (built alike, fed the games after this one's: its
        new labels come after this one's, as one pass would list them)."""
        for label, count in other.counts.items():
            self.counts[label] = self.counts.get(label, 0) + count

    def from_aggregates(self, view: AggregateView) -> None:
        """What :meth:`update` over every game gives, from an aggregate-only run (a key
        column only)."""
        labels = view.labels(self.column)
        kept = view.kept(self.where, self.columns[1:])
        for label in labels:
            self.counts[label] = 0
        for key in kept:
            label = view.value(key, self.column)
            if label is not None:
                self.counts[label] += view.games([key])


class Values:
    """The :class:`Distribution` of the integer ``column`` over the games ``where`` keeps."""

    def __init__(self, column: str, where: Where | None = None, needs: Sequence[str] = ()):
        self.column, self.where = column, where
        self.columns = (column, *needs)
        self.dist = Distribution.empty()

    def update(self, batch: Batch) -> None:
        values = batch[self.column]
        if self.where is not None:
            values = values[self.where(batch)]
        self.dist = self.dist + Distribution.of(values)

    def merge(self, other: Values) -> None:
        """Add ``other``'s distribution (an accumulator built alike, fed other games)."""
        self.dist = self.dist + other.dist

    def from_aggregates(self, view: AggregateView) -> None:
        """What :meth:`update` over every game gives, from an aggregate-only run."""
        kept = view.kept(self.where, self.columns[1:])
        if self.column in ("winner",):
            raise NeedsSingleGames("the winner's distribution")
        self.dist = view.dist(self.column, kept)


class RowSums:
    """The :class:`Distribution` of each game's sum of the integer ``columns`` (a deal's
    scores over every seat, say)."""

    def __init__(self, columns: Sequence[str]):
        self.columns = tuple(columns)
        self.dist = Distribution.empty()

    def update(self, batch: Batch) -> None:
        total = np.sum([batch[c].astype(np.int64) for c in self.columns], axis=0, dtype=np.int64)
        self.dist = self.dist + Distribution.of(total)

    def merge(self, other: RowSums) -> None:
        """Add ``other``'s distribution (an accumulator built alike, fed other games)."""
        self.dist = self.dist + other.dist

    def from_aggregates(self, view: AggregateView) -> None:
        """Sums of columns are not kept by an aggregate-only run."""
        raise NeedsSingleGames("sums of columns")


def _frame(batch: Batch, rows: np.ndarray, columns: Sequence[str]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            c: batch.strings(c, rows) if c in batch.labels else batch[c][rows]
            for c in ("game", *columns)
        }
    )


class Longest:
    """The ``top`` games with the largest ``key`` (ties: lower game index first) among
    those ``where`` keeps, as a DataFrame with ``game`` and ``columns`` (string columns as
    strings), longest first."""

    def __init__(
        self,
        top: int,
        key: str,
        columns: Sequence[str],
        where: Where | None = None,
        needs: Sequence[str] = (),
    ):
        self.top, self.key, self.where = top, key, where
        self.shown = tuple(dict.fromkeys([key, *columns]))
        self.columns = (*self.shown, *needs)
        self.rows = pd.DataFrame({c: [] for c in ("game", *self.shown)})

    def update(self, batch: Batch) -> None:
        if self.top <= 0:
            return
        rows = np.arange(len(batch)) if self.where is None else np.flatnonzero(self.where(batch))
        keys = batch[self.key][rows]
        if keys.size > self.top:
            threshold = np.partition(keys, keys.size - self.top)[keys.size - self.top]
            rows = rows[keys >= threshold]
        if not rows.size:
            return
        self._keep(_frame(batch, rows, self.shown))

    def merge(self, other: Longest) -> None:
        """Keep the longest of both (an accumulator built alike, fed other games)."""
        if self.top > 0 and len(other.rows):
            self._keep(other.rows)

    def _keep(self, found: pd.DataFrame) -> None:
        both = pd.concat([self.rows, found], ignore_index=True) if len(self.rows) else found
        self.rows = both.sort_values(
            [self.key, "game"], ascending=[False, True], ignore_index=True
        ).head(self.top)

    def from_aggregates(self, view: AggregateView) -> None:
        """What :meth:`update` over every game gives, from the longest games an
        aggregate-only run keeps whole."""
        if self.key not in view.lengths:
            raise NeedsSingleGames(f"the longest games by {self.key}")
        batch = view.rows("longest")
        if batch is not None:
            if self.where is not None:
                view.kept(self.where, self.columns[len(self.shown) :])  # it reads keys only
            self.update(batch)


class FirstRows:
    """The first ``limit`` games (in game order) that ``where`` keeps, with ``game`` and
    ``columns``, and ``count``: how many games it keeps in all."""

    def __init__(self, limit: int, columns: Sequence[str], where: Where, needs: Sequence[str] = ()):
        self.limit, self.where = limit, where
        self.shown = tuple(columns)
        self.columns = (*self.shown, *needs)
        self.count = 0
        self.parts: list[pd.DataFrame] = []
        self.kept = 0

    def update(self, batch: Batch) -> None:
        rows = np.flatnonzero(self.where(batch))
        self.count += rows.size
        room = self.limit - self.kept
        if room > 0 and rows.size:
            self.parts.append(_frame(batch, rows[:room], self.shown))
            self.kept += min(room, rows.size)

    def merge(self, other: FirstRows) -> None:
        """Both together: ``other`` (built alike) was fed the games after this one's, so
        its rows come after this one's, as many as there is room for."""
        self.count += other.count
        room = self.limit - self.kept
        if room > 0 and other.kept:
            self.parts.append(other.rows.head(room))
            self.kept += min(room, other.kept)

    def from_aggregates(self, view: AggregateView) -> None:
        """What :meth:`update` over every game gives, from the first games an
        aggregate-only run keeps whole and its counts."""
        batch = view.rows("first")
        kept = view.kept(self.where, self.columns[len(self.shown) :])
        if batch is not None:
            self.update(batch)
        self.count = view.games(kept)

    @property
    def rows(self) -> pd.DataFrame:
        if not self.parts:
            return pd.DataFrame({c: [] for c in ("game", *self.shown)})
        return pd.concat(self.parts, ignore_index=True)
