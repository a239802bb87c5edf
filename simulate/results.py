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
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .errors import CardsimError

GAMES_FILE = "games.parquet"
META_FILE = "run.json"
PARTIAL_SUFFIX = ".partial"
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


def holds_run(path: Path) -> bool:
    return (path / META_FILE).exists() or (path / GAMES_FILE).exists()


class RunWriter:
    """Streams record tables into ``DIR/games.parquet`` and finishes with ``DIR/run.json``."""

    def __init__(self, folder: str | Path, force: bool = False):
        self.folder = Path(folder)
        if self.folder.exists() and not self.folder.is_dir():
            raise CardsimError(f"--out {self.folder} is a file, not a folder")
        if holds_run(self.folder) and not force:
            raise CardsimError(
                f"{self.folder} already holds a run; choose another --out or pass --force "
                "to overwrite it"
            )
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CardsimError(f"cannot create {self.folder}: {exc.strerror}") from None
        self.partial = self.folder / (GAMES_FILE + PARTIAL_SUFFIX)
        self.writer: pq.ParquetWriter | None = None
        self.rows = 0

    def write(self, table: pa.Table) -> None:
        """Append one chunk of records (a row group)."""
        if self.writer is None:
            self.writer = pq.ParquetWriter(self.partial, table.schema, compression="zstd")
        self.writer.write_table(table, row_group_size=table.num_rows)
        self.rows += table.num_rows

    def close(self, meta: dict) -> Path:
        """Close the Parquet file, move it into place and write ``run.json``."""
        if self.writer is not None:
            self.writer.close()
            os.replace(self.partial, self.folder / GAMES_FILE)
        meta = {**meta, "completed_games": self.rows, "versions": package_versions()}
        meta.setdefault("created", datetime.now(timezone.utc).isoformat(timespec="seconds"))
        write_atomic(self.folder / META_FILE, (json.dumps(meta, indent=2) + "\n").encode())
        return self.folder
