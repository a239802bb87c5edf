"""A run folder on disk: ``games.parquet`` streamed chunk by chunk, and ``run.json``.

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
        self.partial = self.folder / (GAMES_FILE + PARTIAL_SUFFIX)
        self.writer: pq.ParquetWriter | None = None

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
        writer.partial = folder / (GAMES_FILE + PARTIAL_SUFFIX)
        writer.writer = None
        finished = folder / GAMES_FILE
        if finished.exists():
            source = pq.ParquetFile(finished)
            for group in range(source.num_row_groups):
                writer.write(source.read_row_group(group))
            source.close()
        return writer, meta

    def _remove_old_run(self) -> None:
        for name in (GAMES_FILE, META_FILE, *REPORT_FILES):
            old = self.folder / name
            if old.is_dir():
                shutil.rmtree(old)
            elif old.exists():
                old.unlink()

    def write(self, table: pa.Table) -> None:
        """Append one chunk of records (a row group)."""
        if self.writer is None:
            self.writer = pq.ParquetWriter(self.partial, table.schema, compression="zstd")
        self.writer.write_table(table, row_group_size=table.num_rows)

    def finish(self, meta: dict) -> int:
        """Close the Parquet file, move it into place and write ``run.json``.

        Returns the number of games the file holds (read back from the file, so that it is
        right even when an interruption came in the middle of a write).
        """
        completed = 0
        if self.writer is not None:
            self.writer.close()
            completed = pq.ParquetFile(self.partial).metadata.num_rows
            os.replace(self.partial, self.folder / GAMES_FILE)
        meta = {**meta, "completed_games": completed, "versions": package_versions()}
        meta.setdefault("created", datetime.now(UTC).isoformat(timespec="seconds"))
        write_atomic(self.folder / META_FILE, (json.dumps(meta, indent=2) + "\n").encode())
        return completed

    def discard(self) -> None:
        """Close and delete the unfinished Parquet file (after an error)."""
        if self.writer is not None:
            self.writer.close()
        self.partial.unlink(missing_ok=True)
