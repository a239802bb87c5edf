"""The report's accumulators filled from an aggregate-only run's statistics (the run
layer's :class:`simulate.runs.folder.aggregates.Aggregates`, ``--records none``).

The report reads a run through accumulators (:mod:`analysis.statistics.tally`,
:class:`analysis.balance.BalanceCounts`...); :func:`fill` gives each of them, from the
aggregates, exactly what one pass over the rows would: the filters on the end reason
(``where_in("end", ...)``) are evaluated on one row per group. Accumulators that need the
games in order (the convergence table) get only the run's end point
(:data:`NEEDS_SINGLE_GAMES`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from analysis.errors import NeedsSingleGames
from simulate.runs.folder.aggregates import KEY_COLUMNS, Aggregates
from simulate.runs.folder.distribution import Distribution

NEEDS_SINGLE_GAMES = ("convergence by game index", "a listing of every game")
"""What an aggregate-only run cannot show."""


def single_records_note(aggregates: Aggregates) -> str:
    """The report's sentence on what an aggregate-only run kept, and what needs its
    single games (deals and matches, in match play)."""
    if aggregates.matches is None:
        kept, games = "every column, the longest and first games", "games"
    else:
        kept = "every column of the deals and of the matches, the longest and first deals"
        games = "deals or matches"
    return (
        f"This is an aggregate-only run (--records none): it kept exact counts and "
        f"histograms of {kept}, but no single {games}. Every figure above and below is "
        f"what the full records give; the convergence of the estimates by "
        f"{'game' if aggregates.matches is None else 'deal'} index, and any listing of "
        f"single {games} beyond the longest and first ones kept, need the records (run "
        f"again with --records all)."
    )


def fill(accumulators: Sequence, aggregates: Aggregates) -> None:
    """Give each accumulator (of :func:`analysis.load.scan`) what one pass over the run's
    rows would, from ``aggregates``: each fills itself (its ``from_aggregates`` method,
    reading an :class:`AggregateView`). Raises :class:`NeedsSingleGames` for one that has
    no such method or reads something the aggregates do not keep."""
    view = AggregateView(aggregates)
    for accumulator in accumulators:
        found = getattr(accumulator, "from_aggregates", None)
        if found is None:
            raise NeedsSingleGames(type(accumulator).__name__)
        found(view)


class AggregateView:
    """An aggregate-only run as an accumulator reads it: its groups of games (``keys``,
    each the values of :data:`KEY_COLUMNS`, in the groups' order), the games in each, the
    distributions kept per group, and the longest and first games kept whole."""

    def __init__(self, aggregates: Aggregates):
        self.aggregates = aggregates
        self.keys, self._key_batch = aggregates.key_batch()
        self.lengths = aggregates.lengths
        """The length columns whose longest games are kept."""

    @staticmethod
    def value(key: tuple, column: str):
        """The value of key column ``column`` in group ``key``."""
        return key[KEY_COLUMNS.index(column)]

    def games(self, keys: Sequence[tuple] | None = None) -> int:
        """The games in the groups ``keys`` (every group by default)."""
        groups = self.aggregates.groups
        return sum(groups[k]["n"] for k in (self.keys if keys is None else keys))

    def labels(self, column: str) -> list[str]:
        """The labels of key column ``column``, in the records' dictionary order."""
        if column not in KEY_COLUMNS:
            raise NeedsSingleGames(f"counts of {column}")
        return self._key_batch.labels.get(column, [])

    def kept(self, where, needs: Sequence[str]) -> list[tuple]:
        """The groups whose games ``where`` keeps (every one for None); ``needs``: the
        columns it reads, which must be key columns."""
        return _kept(where, needs, self.keys, self._key_batch)

    def wins_by(self, players: int, lead: str | None) -> tuple[np.ndarray, np.ndarray]:
        """Wins per seat (``players + 1``, the last: no winner) and, with ``lead``, per
        position from the deal's leader (without, the same counts)."""
        return _wins_by(self.aggregates, self.keys, players, lead)

    def dist(self, column: str, keys: Sequence[tuple]) -> Distribution:
        """The distribution of ``column`` over the groups ``keys``."""
        return self.aggregates.dist(column, keys)

    def rows(self, which: str):
        """The games kept whole, ``longest`` or ``first``, as a batch (None when none)."""
        table = self.aggregates.longest if which == "longest" else self.aggregates.first
        return _rows_batch(table)


def _kept(where, needs: Sequence[str], keys, key_batch) -> list[tuple]:
    """The groups whose games ``where`` keeps (it must read only the key columns)."""
    if where is None:
        return list(keys)
    unknown = [c for c in needs if c not in KEY_COLUMNS]
    if unknown:
        raise NeedsSingleGames(f"a filter on {', '.join(unknown)}")
    mask = np.asarray(where(key_batch), bool)
    return [key for key, kept in zip(keys, mask, strict=True) if kept]


def _rows_batch(table: pa.Table):
    from simulate.runs.folder.batch import batch_of

    if table.num_rows == 0:
        return None
    return batch_of(table)


def _wins_by(aggregates: Aggregates, keys, players: int, lead: str | None):
    """Wins per seat (players + 1, last: no winner) and, with ``lead``, per position."""
    seats = np.zeros(players + 1, np.int64)
    positions = np.zeros(players + 1, np.int64)
    for key in keys:
        n = aggregates.groups[key]["n"]
        winner = key[1]
        seats[winner if winner >= 0 else players] += n
        if lead is None:
            positions[winner if winner >= 0 else players] += n
            continue
        if winner < 0:
            positions[players] += n
            continue
        dist = aggregates.groups[key][lead]
        at = (winner - dist.values % players) % players
        positions += np.bincount(at, weights=dist.counts, minlength=players + 1).astype(np.int64)
    return seats, positions
