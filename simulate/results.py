"""A run folder on disk: ``games.parquet`` streamed chunk by chunk (and, in match play,
``matches.parquet``), and ``run.json``.

Nothing half-written is ever left under a final name: records go to
``games.parquet.partial`` and are renamed when the writer closes; ``run.json`` is written to
a temporary file and renamed. An interrupted run still closes its Parquet file, so the
chunks finished so far stay readable, and ``run.json`` says how many games it holds.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .errors import CardsimError

GAMES_FILE = "games.parquet"
MATCHES_FILE = "matches.parquet"
META_FILE = "run.json"
PARTIAL_SUFFIX = ".partial"
REPORT_FILES = ("report.html", "report.md", "charts")
"""What a report adds to a run folder: removed when a run is overwritten."""
_VERSIONED = ("cardsim", "numpy", "numba", "pandas", "pyarrow")


def package_versions() -> dict[str, str]:
    """Versions of Python and of the packages that decide a run's results."""
    versions = {"python": platform.python_version()}
    for name in _VERSIONED:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename."""
    temporary = path.with_name(path.name + PARTIAL_SUFFIX)
    temporary.write_bytes(data)
    os.replace(temporary, path)


def read_meta(folder: Path) -> dict:
    """The ``run.json`` of a run folder."""
    try:
        return json.loads((folder / META_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CardsimError(f"{folder} is not a run folder (no {META_FILE})") from None
    except (OSError, ValueError) as exc:
        raise CardsimError(f"cannot read {folder / META_FILE}: {exc}") from None


def holds_run(path: Path) -> bool:
    return (path / META_FILE).exists() or (path / GAMES_FILE).exists()


COUNTING_COLUMNS = ("game", "match")
"""Columns that count up row by row: delta-encoded, they take almost no room (a dictionary
of a million distinct numbers cost a tenth of the file and of the time to write it)."""


def _parquet_writer(path: Path, schema: pa.Schema) -> pq.ParquetWriter:
    """A zstd Parquet writer: dictionary encoding for every column but the counting ones."""
    counting = [name for name in COUNTING_COLUMNS if name in schema.names]
    return pq.ParquetWriter(
        path,
        schema,
        compression="zstd",
        use_dictionary=[name for name in schema.names if name not in counting],
        column_encoding=dict.fromkeys(counting, "DELTA_BINARY_PACKED"),
    )


class RunWriter:
    """Streams record tables into ``DIR/games.parquet`` and finishes with ``DIR/run.json``.

    Creating it validates the folder: one that already holds a run is refused unless
    ``force``, in which case the old run and its report are removed first.
    """

    def __init__(self, folder: str | Path, force: bool = False):
        self.folder = Path(folder)
        if self.folder.exists() and not self.folder.is_dir():
            raise CardsimError(f"--out {self.folder} is a file, not a folder")
        if holds_run(self.folder):
            if not force:
                raise CardsimError(
                    f"{self.folder} already holds a run; choose another --out or pass --force "
                    "to overwrite it"
                )
            self._remove_old_run()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CardsimError(f"cannot create {self.folder}: {exc.strerror}") from None
        self._open()

    def _open(self) -> None:
        self.partial = self.folder / (GAMES_FILE + PARTIAL_SUFFIX)
        self.matches_partial = self.folder / (MATCHES_FILE + PARTIAL_SUFFIX)
        self.writer: pq.ParquetWriter | None = None
        self.matches_writer: pq.ParquetWriter | None = None
        self.rows = 0
        """Records written so far (games; deals in match play)."""

    @classmethod
    def resume(cls, folder: str | Path) -> tuple[RunWriter, dict]:
        """Reopen an interrupted run: returns the writer, already holding the finished
        games (copied row group by row group into the new file), and the run's metadata."""
        folder = Path(folder)
        meta = read_meta(folder)
        if meta.get("status") != "interrupted":
            raise CardsimError(
                f"{folder} holds a run with status {meta.get('status')!r}; only an "
                "interrupted run can be resumed"
            )
        writer = cls.__new__(cls)
        writer.folder = folder
        writer._open()
        sources = [
            pq.ParquetFile(folder / name)
            for name in (GAMES_FILE, MATCHES_FILE)
            if (folder / name).exists()
        ]
        if sources:
            games, matches = sources[0], sources[1] if len(sources) > 1 else None
            # A chunk's games and matches are one row group each, written together.
            for group in range(games.num_row_groups):
                writer.write(
                    games.read_row_group(group),
                    matches.read_row_group(group) if matches is not None else None,
                )
            for source in sources:
                source.close()
        return writer, meta

    def _remove_old_run(self) -> None:
        for name in (GAMES_FILE, MATCHES_FILE, META_FILE, *REPORT_FILES):
            old = self.folder / name
            if old.is_dir():
                shutil.rmtree(old)
            elif old.exists():
                old.unlink()

    def write(self, table: pa.Table, matches: pa.Table | None = None) -> None:
        """Append one chunk of records (a row group), and in match play its matches."""
        if matches is not None:
            if self.matches_writer is None:
                self.matches_writer = _parquet_writer(self.matches_partial, matches.schema)
            self.matches_writer.write_table(matches, row_group_size=max(1, matches.num_rows))
        if self.writer is None:
            self.writer = _parquet_writer(self.partial, table.schema)
        self.writer.write_table(table, row_group_size=max(1, table.num_rows))
        self.rows += table.num_rows

    def finish(self, meta: dict, seatings: int = 1) -> int:
        """Close the Parquet file, move it into place and write ``run.json``.

        Returns the number of games the file holds (read back from the file, so that it is
        right even when an interruption came in the middle of a write). In match play it is
        the number of matches (``run.json`` then also says ``completed_deals``): ``games``
        and ``completed_games`` count what a run is asked for, so with rotated seatings
        (``seatings`` records per game or match, written chunk by chunk) the rows are
        divided by ``seatings``.
        """
        completed = 0
        if self.writer is not None:
            self.writer.close()
            completed = pq.ParquetFile(self.partial).metadata.num_rows
        extra = {}
        if self.matches_writer is not None:
            self.matches_writer.close()
            extra["completed_deals"] = completed
            completed = pq.ParquetFile(self.matches_partial).metadata.num_rows
            os.replace(self.matches_partial, self.folder / MATCHES_FILE)
        if self.writer is not None:
            os.replace(self.partial, self.folder / GAMES_FILE)
        completed //= seatings
        meta = {**meta, "completed_games": completed, **extra, "versions": package_versions()}
        meta.setdefault("created", datetime.now(UTC).isoformat(timespec="seconds"))
        write_atomic(self.folder / META_FILE, (json.dumps(meta, indent=2) + "\n").encode())
        return completed

    def discard(self) -> None:
        """Close and delete the unfinished Parquet file (after an error)."""
        for writer in (self.writer, self.matches_writer):
            if writer is not None:
                writer.close()
        self.partial.unlink(missing_ok=True)
        self.matches_partial.unlink(missing_ok=True)
