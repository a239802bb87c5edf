"""The record files of a run folder, read as one table per kind (``games``, ``matches``).

A run folder keeps each kind of record as one Parquet file per chunk, listed in
``manifest.jsonl`` with its checksum (:mod:`simulate.runs.folder.manifest`); a folder written before
the manifest keeps one ``games.parquet`` (and ``matches.parquet``). Either way
:class:`RecordFiles` reads the kind as one table, in game order: every chunk file's bytes
are checked against their checksum as they are read, and damage ends in one
:class:`DamagedRun` line naming the damaged chunks and the repair command.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ...core import arrow
from . import manifest as mf
from .errors import ReportError

if TYPE_CHECKING:
    from ...games.spec import GameSpec


def rotation_tagged(table: pa.Table, rotation: int) -> pa.Table:
    """``table``'s records tagged with the seating they were played in (a ``rotation``
    int8 column, appended), as a run with rotated seats writes them."""
    return table.append_column("rotation", arrow.constant(rotation, table.num_rows, np.int8))


LEGACY_FILES = {"games": "games.parquet", "matches": "matches.parquet"}


class DamagedRun(ReportError):
    """A chunk file's bytes are not those written (or it is missing)."""


@dataclass(frozen=True)
class RecordFiles:
    """One kind of record of a run folder: its files in game order, each with the
    :class:`simulate.runs.folder.manifest.Part` the manifest lists (None for a folder written before
    the manifest)."""

    folder: Path
    kind: str
    files: tuple[tuple[Path, mf.Part | None], ...]
    legacy: bool

    @property
    def path(self) -> Path:
        """What messages name: ``DIR/games`` (``DIR/games.parquet`` in an old folder)."""
        return self.folder / (LEGACY_FILES[self.kind] if self.legacy else self.kind)

    def __bool__(self) -> bool:
        return bool(self.files)

    def open(self, index: int) -> pq.ParquetFile:
        """The ``index``-th file, its checksum checked."""
        path, part = self.files[index]
        if part is None:
            return pq.ParquetFile(path)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            data = None
        if data is None or len(data) != part.bytes or mf.sha256_of(data) != part.sha256:
            raise damaged(self.folder)
        return pq.ParquetFile(pa.BufferReader(data))

    def metadata(self) -> tuple[int, tuple[str, ...]]:
        """``(rows, column names)`` without reading any record (names from the first
        file's footer; rows from the manifest, or the footer of an old folder's file)."""
        if not self.files:
            return 0, ()
        if self.legacy:
            with pq.ParquetFile(self.files[0][0]) as parquet:
                return parquet.metadata.num_rows, tuple(parquet.schema_arrow.names)
        rows = sum(part.rows for _, part in self.files)
        path = self.files[0][0]
        try:
            with pq.ParquetFile(path) as parquet:
                return rows, tuple(parquet.schema_arrow.names)
        except FileNotFoundError:
            raise damaged(self.folder) from None
        except (pa.ArrowException, OSError):
            raise damaged(self.folder) from None

    def batches(self, columns: Sequence[str], batch_size: int) -> Iterator[pa.RecordBatch]:
        """The ``columns`` as record batches of at most ``batch_size`` rows, file by file
        and row group by row group (memory stays near one row group's size)."""
        for index in range(len(self.files)):
            with self.open(index) as parquet:
                yield from row_group_batches(parquet, columns, batch_size)

    def read(self, columns: Sequence[str] | None = None) -> pa.Table:
        """The whole kind as one Arrow table (``columns``, default all)."""
        tables = []
        for index in range(len(self.files)):
            with self.open(index) as parquet:
                tables.append(parquet.read(columns=list(columns) if columns else None))
        return pa.concat_tables(tables) if len(tables) > 1 else tables[0]


def row_group_batches(
    parquet: pq.ParquetFile, columns: Sequence[str], batch_size: int
) -> Iterator[pa.RecordBatch]:
    """The ``columns`` of a Parquet file as record batches of at most ``batch_size`` rows,
    one row group after another. (A single ``iter_batches`` over the whole file lets
    Arrow's buffers grow with the file: 430 MB for 10⁸ games; row group by row group they
    stay near one group's size.)"""
    for group in range(parquet.num_row_groups):
        yield from parquet.iter_batches(batch_size, row_groups=[group], columns=list(columns))


def record_files(folder: Path, meta: dict, kind: str) -> RecordFiles:
    """The files of ``kind`` in ``folder`` (empty when it has none)."""
    if meta.get("format", 1) < 2:
        legacy = folder / LEGACY_FILES[kind]
        files = ((legacy, None),) if legacy.is_file() else ()
        return RecordFiles(folder, kind, files, legacy=True)
    manifest = mf.read_manifest(folder)
    complete = meta.get("status") == "complete"
    end = int(meta.get("games", 0)) if complete else mf.manifest_end(manifest)
    if manifest.bad_lines or manifest.gaps(end):
        raise damaged(folder, manifest, end)
    files = tuple((folder / part.file, part) for part in manifest.parts(kind))
    return RecordFiles(folder, kind, files, legacy=False)


def damaged(
    folder: Path, manifest: mf.Manifest | None = None, games: int | None = None
) -> DamagedRun:
    """One line naming every damaged chunk of ``folder`` (and the games below ``games`` no
    chunk holds) and the repair command."""
    manifest = manifest if manifest is not None else mf.read_manifest(folder)
    problems = [problem.text for problem in mf.check(folder, manifest, games)]
    listed = "; ".join(problems[:5]) + (
        f"; and {len(problems) - 5} more" if len(problems) > 5 else ""
    )
    return DamagedRun(
        f"{folder}: damaged records: {listed or 'a chunk changed while it was read'}; "
        f"repair with: cardsim verify {folder} --repair"
    )


def game_spec(meta: Mapping) -> GameSpec:
    """The spec of the game a ``run.json`` names (see :mod:`simulate.games.spec`); a game
    this installation does not know is a :class:`ReportError`."""
    from ...games.registry import info_of

    info = info_of(meta["game"])
    if info is None:
        raise ReportError(
            f"run.json names the game {meta['game']!r}, which this installation does not know"
        )
    return info.spec
