"""A batch of records as the accumulators read it: consecutive games of a run as numpy
arrays in their stored types, string columns as codes (:class:`Batch`), whether they come
from a run folder (:func:`analysis.load.scan`) or from memory (:func:`batch_of`). Imports
nothing else of cardsim, so every counter can use it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

#: Games per batch read from ``games.parquet`` while scanning (about 30 MB of columns).
BATCH_ROWS = 1 << 20


@dataclass
class Batch:
    """Consecutive games of a run, in game order: ``start`` is the position (row) of the
    first in the run. ``data`` maps a column to a 1-D numpy array in its stored type
    (int8 winners, int32 lengths …); a string column is given as int8/int32 codes into
    ``labels[column]``, with −1 for a null."""

    start: int
    data: dict[str, np.ndarray]
    labels: dict[str, list[str]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.data["game"])

    def __getitem__(self, column: str) -> np.ndarray:
        return self.data[column]

    def is_in(self, column: str, names: Iterable[str]) -> np.ndarray:
        """Boolean mask of the games whose string ``column`` is one of ``names``."""
        wanted = set(names)
        codes = [i for i, label in enumerate(self.labels[column]) if label in wanted]
        return np.isin(self.data[column], codes)

    def strings(self, column: str, rows: np.ndarray) -> list[str | None]:
        """The string ``column`` at the positions ``rows`` of this batch."""
        labels = self.labels[column]
        return [labels[c] if c >= 0 else None for c in self.data[column][rows]]


class Accumulator(Protocol):
    """Something computed in one pass over a run's games, which owns its reduction:
    ``columns`` names what it reads; ``update`` takes each :class:`Batch` in game order;
    ``merge(other)`` folds in an accumulator built alike that was fed the games after
    this one's (a pass split in parts gives, merged in order, what one pass gives). One
    that an aggregate-only run can feed also has ``from_aggregates(view)``, which fills it
    from an :class:`analysis.aggregates.AggregateView` as the pass over every game would
    (raising :class:`analysis.errors.NeedsSingleGames` for what the aggregates do not
    keep): the aggregates file holds the run layer's reduction of the records
    (:mod:`simulate.runs.folder.aggregates`), from which each accumulator loads itself."""

    columns: Sequence[str]

    def update(self, batch: Batch) -> None: ...

    def merge(self, other: Accumulator) -> None: ...


def batch_of(table: pa.Table | pa.RecordBatch, start: int = 0) -> Batch:
    """Records held in memory (an Arrow table, as a kernel's chunk gives them) as one
    :class:`Batch`, for the accumulators that count a run folder's batches."""
    if isinstance(table, pa.Table):
        table = table.combine_chunks().to_batches()[0] if table.num_rows else None
    if table is None:
        raise ValueError("batch_of needs at least one record")
    return from_record_batch(table, start)


def from_record_batch(record_batch: pa.RecordBatch, start: int) -> Batch:
    """One Arrow record batch as a :class:`Batch` (strings as codes into labels)."""
    data, labels = {}, {}
    for name, column in zip(record_batch.schema.names, record_batch.columns, strict=True):
        if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
            column = pc.dictionary_encode(column)
        if pa.types.is_dictionary(column.type):
            labels[name] = [str(v) for v in column.dictionary.to_pylist()]
            codes = pc.fill_null(column.indices, -1) if column.null_count else column.indices
            data[name] = codes.to_numpy(zero_copy_only=False)
        else:
            data[name] = column.to_numpy(zero_copy_only=False)
    return Batch(start=start, data=data, labels=labels)


def lead_column(run) -> str | None:
    """The column of ``run`` (anything with the ``meta`` and ``columns`` of a run folder)
    that tells which seat led each deal: ``first_seat`` when the file has it
    (the engine records it), else ``deal`` for match runs with ``first_seat = seat0`` (deal
    k of a match is led by seat k mod n); None when seat 0 always leads or nothing says."""
    if "first_seat" in run.columns:
        return "first_seat"
    rules = run.meta.get("rules", {})
    if "deal" in run.columns and rules.get("first_seat", "seat0") == "seat0":
        return "deal"
    return None


def leaders(batch: Batch, lead: str | None, players: int) -> np.ndarray | int:
    """The seat that led each game of ``batch`` (int64 array), or 0 when ``lead`` is None."""
    if lead is None:
        return 0
    return batch[lead].astype(np.int64) % players
