"""A run folder on disk, written so that a crash loses only the chunk in flight.

The folder (see ``docs/results-format.md``)::

    DIR/run.json          what was run, and its status: running, interrupted or complete
    DIR/manifest.jsonl    one line per finished chunk: its games, files, sizes, checksums
    DIR/games/<first>.parquet     a chunk's records (one row per game; per deal in matches)
    DIR/matches/<first>.parquet   match play: a chunk's matches (one row per match)
    DIR/.lock             held (flock) by the process writing the folder

``run.json`` is written first (status ``running``), every chunk is made durable (file
flushed, renamed, folder flushed, then its manifest line flushed) before the next is
counted, and ``run.json`` says ``complete`` only once every chunk is. A run whose
``run.json`` says ``running`` while nobody holds the lock has crashed; ``--resume`` (or
``cardsim verify --repair``) plays exactly the missing chunks again, since every record is a
pure function of (seed, game index).

Folders written before the manifest (one ``games.parquet``, and ``matches.parquet``) are
still read, and an interrupted one is resumed by turning its file into the first chunk.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import platform
import re
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ...core.errors import CardsimError
from . import manifest as mf
from .lock import LOCK_FILE, FolderInUse, FolderLock, is_locked, lock_folder
from .manifest import PER_GAME_KINDS, progress_text, resume_hint

INCOMING = "incoming"
"""Where a cluster's workers write a chunk's files, each task attempt in a folder of its
own (``incoming/<first>-<attempt>/<kind>.parquet``), until the client, which holds the
folder's lock, commits them by renaming them into place (:class:`Staged`)."""
LEGACY_GAMES_FILE = "games.parquet"
LEGACY_MATCHES_FILE = "matches.parquet"
META_FILE = "run.json"
PARTIAL_SUFFIX = ".partial"
FORMAT = 2
"""``run.json``'s ``format``: 2 for a folder of chunks under a manifest (absent before)."""
REPORT_FILES = ("report.html", "report.md", "charts", "summary.csv", "balance.csv")
"""What a report adds to a run folder: derived, outside the manifest, rebuilt by
``cardsim report``; removed when a run is overwritten."""
RUN_FILES = (
    META_FILE,
    mf.MANIFEST_FILE,
    INCOMING,
    *mf.RECORD_KINDS,
    LEGACY_GAMES_FILE,
    LEGACY_MATCHES_FILE,
    LEGACY_GAMES_FILE + PARTIAL_SUFFIX,
    LEGACY_MATCHES_FILE + PARTIAL_SUFFIX,
)
_VERSIONED = ("cardsim", "numpy", "numba", "pandas", "pyarrow")
_NO_SPACE = (errno.ENOSPC, errno.EDQUOT)


class DiskFull(CardsimError):
    """The disk filled up while a chunk was written; the finished chunks are kept."""


def package_versions() -> dict[str, str]:
    """Versions of Python and of the packages that decide a run's results."""
    versions = {"python": platform.python_version()}
    for name in _VERSIONED:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def write_atomic(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Write ``data`` to ``path`` through a temporary file, a flush and a rename."""
    mf.write_file(Path(path), data, durable=durable)


def read_meta(folder: Path) -> dict:
    """The ``run.json`` of a run folder."""
    try:
        return json.loads((folder / META_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CardsimError(f"{folder} is not a run folder (no {META_FILE})") from None
    except (OSError, ValueError) as exc:
        raise CardsimError(f"cannot read {folder / META_FILE}: {exc}") from None


def holds_run(path: Path) -> bool:
    """Whether ``path`` holds a cardsim run: its ``run.json`` (written before any record)."""
    return (path / META_FILE).is_file()


def foreign_files(path: Path) -> list[str]:
    """The names a run or its report would write that ``path``, a folder without a run,
    already holds: files of somebody else's, which cardsim neither overwrites nor removes."""
    if holds_run(path) or not path.is_dir():
        return []
    return [
        name + ("/" if (path / name).is_dir() else "")
        for name in (*RUN_FILES, *REPORT_FILES)
        if (path / name).exists()
    ]


def refuse_foreign_files(path: Path) -> None:
    """Refuse, in one line, a folder without a run that holds files a run or its report
    would write (:func:`foreign_files`), ``--force`` or not."""
    foreign = foreign_files(path)
    if foreign:
        raise CardsimError(
            f"{path} holds files that no cardsim run wrote ({', '.join(foreign)}); choose "
            "another folder (cardsim never overwrites them, and --force removes only a "
            "cardsim run's own files)"
        )


CHUNK_NAME = re.compile(r"\d{12}(-\d{12})?\.parquet(\.partial)?")
"""The names cardsim gives chunk files in a kind's folder (``part_file``, a merged
aggregates file, either one in flight)."""
CHART_LINK = re.compile(r"\(charts/([A-Za-z0-9_.-]+)\)")


def crashed(folder: Path, meta: dict) -> bool:
    """Whether the run in ``folder`` says ``running`` while no process holds its lock."""
    return meta.get("status") == "running" and not is_locked(folder)


def lock_run(folder: Path) -> FolderLock:
    """The lock of the run in ``folder``; one held by a run in progress is refused in one
    line: "DIR is in progress: N of M games"."""
    try:
        return lock_folder(folder, create=False)
    except FolderInUse:
        meta = read_meta(folder)
        if meta.get("status") == "running":
            raise CardsimError(
                f"{folder} is in progress: {progress_text(folder, meta)}; try again when it is done"
            ) from None
        raise


COUNTING_COLUMNS = ("game", "match")
"""Columns that count up row by row: delta-encoded, they take almost no room (a dictionary
of a million distinct numbers cost a tenth of the file and of the time to write it)."""


def parquet_bytes(table: pa.Table) -> pa.Buffer:
    """``table`` as the bytes of a Parquet file, one row group: zstd, dictionary encoding
    for every column but the counting ones."""
    counting = [name for name in COUNTING_COLUMNS if name in table.schema.names]
    sink = pa.BufferOutputStream()
    with pq.ParquetWriter(
        sink,
        table.schema,
        compression="zstd",
        use_dictionary=[name for name in table.schema.names if name not in counting],
        column_encoding=dict.fromkeys(counting, "DELTA_BINARY_PACKED"),
    ) as writer:
        writer.write_table(table, row_group_size=max(1, table.num_rows))
    return sink.getvalue()


@dataclass(frozen=True)
class Encoded:
    """A record table already encoded as its chunk file's bytes (:func:`parquet_bytes`),
    as a cluster's worker sends it: the client writes it as it is."""

    data: pa.Buffer
    num_rows: int

    @classmethod
    def of(cls, table: pa.Table | None) -> Encoded | None:
        return None if table is None else cls(parquet_bytes(table), table.num_rows)


@dataclass(frozen=True)
class Staged:
    """A record table that a cluster's worker wrote into the run folder's
    :data:`INCOMING` area: ``file`` relative to the folder, its ``rows``, ``bytes`` and
    SHA-256 (its manifest line's values), and the ``worker`` that wrote it. The client
    commits it by a rename (:meth:`RunWriter.write`); only the attempt whose result the
    client received is ever committed, so a lost or late worker's files are not."""

    file: str
    rows: int
    bytes: int
    sha256: str
    worker: str = ""

    @property
    def num_rows(self) -> int:
        return self.rows


def stage_table(folder: str | Path, attempt: str, kind: str, table, worker: str = "") -> Staged:
    """Write ``table`` (records of ``kind``) as ``INCOMING/attempt/kind.parquet`` in the run
    folder ``folder``, durably (flushed, renamed, folder flushed), as a worker does before
    it answers; its :class:`Staged` line."""
    data = parquet_bytes(table)
    name = f"{INCOMING}/{attempt}/{kind}.parquet"
    path = Path(folder) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    mf.write_file(path, data, durable=True)
    return Staged(name, table.num_rows, data.size, mf.sha256_of(data), worker)


class StagedMissing(CardsimError):
    """A worker's staged file is not where the client looks, or has another size: the
    storage is not shared with that worker (its chunk is played again, written by the
    client)."""


def staged_problem(folder: Path, tables: dict) -> str | None:
    """What keeps the client from committing ``tables``' :class:`Staged` files (missing,
    another size), or None."""
    for table in tables.values():
        if isinstance(table, Staged):
            path = Path(folder) / table.file
            try:
                size = path.stat().st_size
            except OSError:
                return f"{table.worker or 'a worker'} wrote {table.file}, which is not here"
            if size != table.bytes:
                return f"{table.file} has {size:,} bytes here where {table.bytes:,} were written"
    return None


def part_file(kind: str, first: int) -> str:
    """The path, relative to the run folder, of the ``kind`` file of the chunk at ``first``."""
    return f"{kind}/{first:012d}.parquet"


class RunWriter:
    """Writes a run folder chunk by chunk, each chunk durable before it counts.

    Creating it takes the folder's lock, refuses a folder that already holds a run unless
    ``force`` (which removes the old run and its report first), and writes ``run.json``
    with status ``running``. ``durable=False`` skips the flushes to disk (a crash may then
    lose more than the chunk in flight; for measuring what durability costs).
    """

    def __init__(
        self, folder: str | Path, meta: dict, *, force: bool = False, durable: bool = True
    ):
        self.folder = Path(folder)
        if self.folder.exists() and not self.folder.is_dir():
            raise CardsimError(f"{self.folder} is a file, not a folder")
        self._lock: FolderLock | None = lock_folder(self.folder)
        try:
            if holds_run(self.folder):
                if not force:
                    raise CardsimError(
                        f"{self.folder} already holds a run; choose another folder, pass "
                        "--force to overwrite it, or --resume to complete it"
                    )
                remove_run(self.folder)
            else:
                refuse_foreign_files(self.folder)
            self._setup(meta, mf.Manifest(), durable)
            self._write_meta({**self.meta, "status": "running", "completed_games": 0})
        except BaseException:
            self._lock.release(failed=True)
            self._lock = None
            raise

    def _setup(self, meta: dict, manifest: mf.Manifest, durable: bool) -> None:
        self.meta = {
            **meta,
            "format": FORMAT,
            "created": meta.get("created") or datetime.now(UTC).isoformat(timespec="seconds"),
        }
        self.manifest = manifest
        self.durable = durable
        self.damaged: list[str] = getattr(self, "damaged", [])
        """What :meth:`reopen` found damaged (those games are played again)."""

    @classmethod
    def resume(cls, folder: str | Path, *, durable: bool = True) -> tuple[RunWriter, dict]:
        """Reopen an interrupted or crashed run to complete it: returns the writer (whose
        :meth:`todo` names the games still to play: the unfinished tail, and the chunks
        found damaged or missing) and the run's ``run.json``."""

        def resumable(meta: dict) -> None:
            if meta.get("status") == "complete":
                problems = mf.check(folder, mf.read_manifest(folder), int(meta["games"]))
                if meta.get("format") == FORMAT and problems:
                    raise CardsimError(
                        f"{folder} holds a complete run with damaged records: "
                        f"{'; '.join(p.text for p in problems)}; repair with: cardsim "
                        f"verify {folder} --repair"
                    )
                raise CardsimError(
                    f"{folder} holds a complete run; nothing to resume (cardsim verify "
                    f"{folder} checks it)"
                )
            if meta.get("status") not in ("interrupted", "running"):
                raise CardsimError(
                    f"{folder} holds a run with status {meta.get('status')!r}; only an "
                    "interrupted or crashed run can be resumed"
                )

        writer = cls.reopen(folder, check=resumable, durable=durable)
        try:
            writer._write_meta({**writer.meta, "status": "running"})  # noqa: SLF001 (its class)
        except BaseException:
            writer.close()
            raise
        return writer, writer.meta

    @classmethod
    def reopen(cls, folder: str | Path, *, check=None, durable: bool = True) -> RunWriter:
        """Open an existing run to write into it, under its lock: a folder from before
        the manifest is turned into chunks first, and the chunks found damaged (listed in
        ``damaged``) are dropped from the manifest, so that :meth:`todo` names them.
        ``check(meta)`` may refuse the run (raising) before anything is changed."""
        folder = Path(folder)
        writer = cls.__new__(cls)
        writer.folder = folder
        writer._lock = None  # noqa: SLF001 (a writer made by its class)
        if not (folder / META_FILE).exists():
            raise CardsimError(f"{folder} is not a run folder (no {META_FILE})")
        writer._lock = lock_folder(folder, create=False)  # noqa: SLF001
        try:
            meta = read_meta(folder)
            if check is not None:
                check(meta)
            dropped = []
            if meta.get("format") != FORMAT:
                dropped = migrate_legacy(folder, meta)
                meta = read_meta(folder)
            manifest = mf.read_manifest(folder)
            problems = mf.check(folder, manifest)
            writer.damaged = dropped + [problem.text for problem in problems]
            manifest = manifest.without([p.entry for p in problems if p.entry is not None])
            writer._setup(meta, manifest, durable)  # noqa: SLF001
            mf.rewrite(folder, manifest, durable=durable)  # drops a line cut short, if any
        except BaseException:
            writer.close()
            raise
        return writer

    @property
    def rows(self) -> int:
        """Records held so far (games; deals in match play), or that an aggregate-only
        run's chunks stand for."""
        return sum(entry.records for entry in self.manifest.entries)

    def todo(self, games: int) -> list[tuple[int, int]]:
        """``(first, stop)`` of the games (matches) no finished chunk holds."""
        return self.manifest.gaps(games)

    def write(self, first: int, count: int, tables: dict[str, pa.Table]) -> None:
        """Make one chunk durable: games (matches) ``first .. first + count - 1``, its
        record tables by kind (``games``, and ``matches`` in match play). A full disk
        raises :class:`DiskFull`; the chunk is then not counted and leaves no file."""
        if "aggregates" in tables:
            logs = {kind: tables.get(kind) for kind in PER_GAME_KINDS}
            return self._write_aggregates(
                first, count, tables["aggregates"], logs, tables.get("paired")
            )
        try:
            entry = mf.Entry(first, count, self._write_parts(first, tables))
            mf.append_line(self.folder, entry.to_line(), durable=self.durable)
        except OSError as exc:
            if exc.errno in _NO_SPACE:
                raise self._disk_full(count) from None
            raise
        self.manifest = self.manifest.with_entry(entry)

    def _write_parts(self, first: int, tables: dict[str, pa.Table | Encoded | None]) -> dict:
        """Write the chunk at ``first``'s files, one per kind of table (None: no file; an
        :class:`Encoded` table as it is), each durable; their :class:`~.manifest.Part` by
        kind."""
        parts, attempts = {}, set()
        for kind, table in tables.items():
            if table is None:
                continue
            name = part_file(kind, first)
            (self.folder / kind).mkdir(exist_ok=True)
            if isinstance(table, Staged):  # written by a worker: committed by a rename
                problem = staged_problem(self.folder, {kind: table})
                if problem is not None:
                    raise StagedMissing(problem)
                os.replace(self.folder / table.file, self.folder / name)
                if self.durable:
                    mf.fsync_folder(self.folder / kind)
                attempts.add(Path(table.file).parent)
                parts[kind] = mf.Part(name, table.rows, table.bytes, table.sha256)
                continue
            data = table.data if isinstance(table, Encoded) else parquet_bytes(table)
            mf.write_file(self.folder / name, data, durable=self.durable)
            parts[kind] = mf.Part(name, table.num_rows, data.size, mf.sha256_of(data))
        for attempt in attempts:
            with contextlib.suppress(OSError):
                (self.folder / attempt).rmdir()
        return parts

    def _write_aggregates(self, first: int, count: int, found, logs: dict, paired=None) -> None:
        """An aggregate-only chunk (:class:`simulate.runs.folder.aggregates.Aggregates`): merged into
        the chunk that ends where it starts, written as one new file (durable), the
        manifest replaced atomically, the old file removed; so the folder holds one
        aggregates file of bounded size, and a crash loses at most this chunk.

        A chunk that holds logged or traced games (``logs``: their ``events`` and ``trace``
        tables by kind, None for none) keeps its own entry, their files beside its
        aggregates, and later chunks do not merge into it: the logged and traced games are
        the run's first, so the folder holds one more aggregates file per such chunk.

        ``paired`` (a study's variant: its paired counts against the base,
        :class:`analysis.paired_counts.PairedCounts`) is merged and written the same way,
        a ``paired`` file in the same entry, where the entry it merges into has one."""
        from .aggregates import Aggregates

        previous = next(
            (
                e
                for e in self.manifest.entries
                if e.stop == first
                and "aggregates" in e.parts
                and not any(kind in e.parts for kind in PER_GAME_KINDS)
            ),
            None,
        )
        if any(table is not None for table in logs.values()):
            previous = None
        start, merged = first, found
        if previous is not None:
            held = getattr(self, "_aggregates", None)
            if held is None or held[0] is not previous:
                data = (self.folder / previous.parts["aggregates"].file).read_bytes()
                held = (previous, Aggregates.from_bytes(data))
            start, merged = previous.first, held[1].merge(found)
        try:
            data = merged.to_bytes()
            name = f"aggregates/{start:012d}-{first + count:012d}.parquet"
            (self.folder / "aggregates").mkdir(exist_ok=True)
            mf.write_file(self.folder / name, data, durable=self.durable)
            part = mf.Part(name, merged.records, len(data), mf.sha256_of(data))
            parts = {"aggregates": part, **self._write_parts(first, logs)}
            pairs = self._merged_pairs(previous, paired)
            if pairs is not None:
                parts["paired"] = self._write_merged("paired", start, first + count, pairs)
            entry = mf.Entry(start, first + count - start, parts)
            kept = [e for e in self.manifest.entries if e is not previous and e.first != start]
            manifest = mf.Manifest(sorted([*kept, entry], key=lambda e: e.first))
            mf.rewrite(self.folder, manifest, durable=self.durable)
        except OSError as exc:
            if exc.errno in _NO_SPACE:
                raise self._disk_full(count) from None
            raise
        self.manifest = manifest
        self._aggregates = (entry, merged)
        self._pairs = (entry, pairs)
        if previous is not None and previous.parts["aggregates"].file != name:
            (self.folder / previous.parts["aggregates"].file).unlink(missing_ok=True)
        old_pairs = previous.parts.get("paired") if previous is not None else None
        if old_pairs is not None and old_pairs.file != getattr(parts.get("paired"), "file", None):
            (self.folder / old_pairs.file).unlink(missing_ok=True)

    def _merged_pairs(self, previous, found):
        """A chunk's paired counts merged into those of the entry ``previous`` (None: it
        starts a new entry); None where there are none, or where ``previous`` has no pairs
        to merge into (pairs that covered part of an entry would mislead)."""
        if found is None or previous is None:
            return found
        if "paired" not in previous.parts:
            return None
        held = getattr(self, "_pairs", None)
        if held is None or held[0] is not previous or held[1] is None:
            data = (self.folder / previous.parts["paired"].file).read_bytes()
            held = (previous, type(found).from_bytes(data))
        return held[1].merge(found)

    def _write_merged(self, kind: str, start: int, stop: int, merged) -> mf.Part:
        """Write the merged ``kind`` file of games ``start .. stop - 1`` (durable)."""
        data = merged.to_bytes()
        name = f"{kind}/{start:012d}-{stop:012d}.parquet"
        (self.folder / kind).mkdir(exist_ok=True)
        mf.write_file(self.folder / name, data, durable=self.durable)
        return mf.Part(name, merged.records, len(data), mf.sha256_of(data))

    def _disk_full(self, count: int) -> DiskFull:
        games = int(self.meta.get("games", 0))
        done = self.manifest.completed
        written = sum(part.bytes for e in self.manifest.entries for part in e.parts.values())
        per_game = written / done if done else estimated_bytes_per_game(self.meta)
        need = per_game * max(games - done, count)
        unit = "matches" if self.meta.get("unit") == "match" else "games"
        return DiskFull(
            f"no space left on the device of {self.folder}: the rest of the run needs about "
            f"{format_bytes(need)} more; the {done:,} finished {unit} are kept; free some "
            f"space, then: {resume_hint(self.folder, self.meta)}"
        )

    def finish(self, meta: dict) -> int:
        """Write ``run.json`` with ``meta`` and the counts of the finished chunks; returns
        the games (matches) finished. ``meta["status"]`` is ``complete`` only when every
        game is held."""
        meta = {**self.meta, **meta}
        completed = self.manifest.completed
        if meta.get("status") == "complete" and self.todo(int(meta["games"])):
            meta["status"] = "interrupted"
        counts = {"completed_games": completed}
        if meta.get("unit") == "match":
            counts["completed_deals"] = self.rows
        self._tidy()
        self._write_meta({**meta, **counts})
        return completed

    def _tidy(self) -> None:
        """Remove the chunk files no manifest line lists: a crash's half-written or
        unlisted files, a repaired chunk's old file (files not named as chunks stay)."""
        shutil.rmtree(self.folder / INCOMING, ignore_errors=True)  # uncommitted attempts
        listed = {part.file for entry in self.manifest.entries for part in entry.parts.values()}
        for kind in mf.RECORD_KINDS:
            if (self.folder / kind).is_dir():
                for path in (self.folder / kind).iterdir():
                    unlisted = f"{kind}/{path.name}" not in listed
                    if unlisted and path.is_file() and CHUNK_NAME.fullmatch(path.name):
                        path.unlink()

    def note(self, **fields) -> None:
        """Add ``fields`` to ``run.json`` now (how the run is being written, say)."""
        self._write_meta({**self.meta, **fields})

    def _write_meta(self, meta: dict) -> None:
        meta = {**meta, "versions": package_versions()}
        write_atomic(
            self.folder / META_FILE,
            (json.dumps(meta, indent=2) + "\n").encode(),
            durable=self.durable,
        )
        self.meta = {key: value for key, value in meta.items() if key != "versions"}

    def close(self) -> None:
        """Release the folder's lock (the writer cannot write any more)."""
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __enter__(self) -> RunWriter:
        return self

    def __exit__(self, *exc) -> bool:
        self.close()
        return False


def remove_run(folder: Path) -> None:
    """Remove what cardsim wrote of the run in ``folder`` and its report, and nothing else
    (the lock file stays): ``run.json``, the manifest, the chunk files (by their names,
    listed or in flight), the legacy files, the report's pages and tables, and the charts
    that ``report.md`` links. A folder left empty is removed; any other file stays."""
    charts = []
    if (folder / "report.md").is_file():
        text = (folder / "report.md").read_text(encoding="utf-8", errors="replace")
        charts = [f"charts/{name}" for name in CHART_LINK.findall(text)]
    names = [name for name in (*RUN_FILES, *REPORT_FILES) if (folder / name).is_file()]
    for kind in mf.RECORD_KINDS:
        if (folder / kind).is_dir():
            names += [
                f"{kind}/{path.name}"
                for path in (folder / kind).iterdir()
                if path.is_file() and CHUNK_NAME.fullmatch(path.name)
            ]
    for name in (*names, *charts):
        (folder / name).unlink(missing_ok=True)
    shutil.rmtree(folder / INCOMING, ignore_errors=True)
    for name in (*mf.RECORD_KINDS, "charts"):
        with contextlib.suppress(OSError):  # not empty: somebody else's files stay
            (folder / name).rmdir()


def migrate_legacy(folder: Path, meta: dict) -> list[str]:
    """Turn a run folder written before the manifest into chunks under one: its
    ``games.parquet`` (and ``matches.parquet``) become the chunk of its finished games.
    A file that cannot be read is dropped (its games are then played again); returns what
    was dropped. The caller holds the folder's lock."""
    completed = int(meta.get("completed_games", 0))
    entry_parts, dropped = {}, []
    for kind, legacy in (("games", LEGACY_GAMES_FILE), ("matches", LEGACY_MATCHES_FILE)):
        path = folder / legacy
        if completed == 0 or not path.exists():
            continue
        data = path.read_bytes()
        try:
            rows = pq.ParquetFile(pa.BufferReader(data)).metadata.num_rows
        except (pa.ArrowException, OSError) as exc:
            dropped.append(f"{legacy}: unreadable ({str(exc).splitlines()[0]})")
            continue
        name = part_file(kind, 0)
        (folder / kind).mkdir(exist_ok=True)
        mf.write_file(folder / name, data)
        entry_parts[kind] = mf.Part(name, rows, len(data), mf.sha256_of(data))
    manifest = mf.Manifest()
    if "games" in entry_parts and not dropped:
        manifest = manifest.with_entry(mf.Entry(0, completed, entry_parts))
    else:
        for kind in entry_parts:
            (folder / part_file(kind, 0)).unlink()
    mf.rewrite(folder, manifest)
    write_atomic(
        folder / META_FILE, (json.dumps({**meta, "format": FORMAT}, indent=2) + "\n").encode()
    )
    for legacy in (LEGACY_GAMES_FILE, LEGACY_MATCHES_FILE):
        (folder / legacy).unlink(missing_ok=True)
    return dropped


def estimated_bytes_per_game(meta: dict) -> float:
    """About how many bytes a game (a match of about ``match_deals`` or 8 deals, in match
    play) takes on disk, from the game's generous size of a record."""
    from ...games.registry import info_of

    info = info_of(meta.get("game", ""))
    players = int(meta.get("players", 2))
    rotations = players if meta.get("rotate_seats") else 1
    per_record = info.spec.bytes_per_record(players) if info else 8.0 + 4.0 * players
    if meta.get("unit") == "match":
        deals = meta.get("rules", {}).get("match_deals") or 8
        return rotations * (per_record * deals + 4.0 * players + 8)
    return rotations * per_record


LOGGED_BYTES_PER_DEAL = 1_500
"""About the most bytes one logged deal's events take on disk (measured 2026-12-06 on
20,000 games each: Beggar-My-Neighbour 607 a deal, Crazy Eights 200, OpenSpiel's 212, Pis
Yedili 942 a match), with room to spare."""


TRACED_BYTES_PER_DEAL = 500
"""About the most bytes one traced deal's trace takes on disk (measured 2026-12-07 on 2,000
four-seat deals: Crazy Eights 132 a deal, OpenSpiel's 119, Pis Yedili 106), with room for
long deals and many seats."""


def estimated_bytes(meta: dict, games: int) -> int:
    """About how many bytes ``games`` games of the run ``meta`` take on disk: their records,
    the events of those of them that are logged (``meta["log"]``, the first ones) and the
    trace of those traced (``meta["trace"]``)."""
    logged = min(int(meta.get("log") or 0), games)
    traced = min(int(meta.get("trace") or 0), games)
    rotations = int(meta.get("players", 2)) if meta.get("rotate_seats") else 1
    deals = (meta.get("rules", {}).get("match_deals") or 8) if meta.get("unit") == "match" else 1
    events = logged * rotations * deals * LOGGED_BYTES_PER_DEAL
    events += traced * rotations * deals * TRACED_BYTES_PER_DEAL
    return int(estimated_bytes_per_game(meta) * games + events) + (1 << 20)


def format_bytes(count: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if count < 1000 or unit == "TB":
            return f"{count:,.0f} {unit}" if unit == "bytes" else f"{count:,.1f} {unit}"
        count /= 1000
    raise AssertionError


def check_space(folder: Path, meta: dict, games: int) -> None:
    """Refuse a run whose records would not fit on the free space of ``folder``'s disk;
    an aggregate-only run (``meta["records"]`` ``"none"``) writes next to nothing, and
    passes."""
    if meta.get("records") == "none":
        return
    existing = next(path for path in (folder, *folder.parents) if path.exists())
    free = shutil.disk_usage(existing).free
    need = estimated_bytes(meta, games)
    if need > free:
        raise CardsimError(
            f"{folder}: the run needs about {format_bytes(need)} and its disk has "
            f"{format_bytes(free)} free; free some space, ask for fewer games, or pass "
            "--skip-space-check to start anyway"
        )


__all__ = [
    "LOCK_FILE",
    "DiskFull",
    "RunWriter",
    "check_space",
    "crashed",
    "holds_run",
    "read_meta",
    "write_atomic",
]
