"""The manifest of a run folder: which chunks are finished, in which files, with checksums.

A run is played in chunks of consecutive games (matches, in match play). Each finished
chunk's records are one Parquet file per kind of record (``games/000000000000.parquet``,
``matches/000000000000.parquet``: the number is the chunk's first game), written under a
temporary name, flushed to disk and renamed; then one line is appended to
``manifest.jsonl`` and flushed::

    {"first": 0, "count": 1048576,
     "games": {"file": "games/000000000000.parquet", "rows": 1048576, "bytes": 9876543,
               "sha256": "…"}}

A chunk exists when its line does: a file without a line is work that was in flight when
the run stopped, and is played again. Reading a kind of record is reading its files in the
order of ``first``. A line cut short by a crash (the last one, without its newline) is
ignored; any other line that cannot be read is damage, which :func:`check` reports and
``cardsim verify --repair`` heals by playing the missing range again.

This module imports neither numba nor the kernels: :mod:`analysis` reads runs through it.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

MANIFEST_FILE = "manifest.jsonl"
RECORD_KINDS = ("games", "matches", "events", "aggregates", "paired", "trace")
"""The kinds of record a chunk can hold, each a table of its own (``aggregates``: the
merged statistics of an aggregate-only run, ``--records none``, in place of ``games``;
see :mod:`simulate.runs.folder.aggregates`; ``paired``: beside them, a study's variant's paired counts
against its base, :mod:`analysis.paired_counts`; ``trace``: the traced games' win chances)."""
PER_GAME_KINDS = ("events", "trace")
"""The kinds that hold some games of a chunk (the run's first: logged, traced), kept by
aggregate-only runs too."""


@dataclass(frozen=True)
class Part:
    """One file of a chunk: ``file`` relative to the run folder, its ``rows``, its size in
    ``bytes`` and the SHA-256 of those bytes (hex)."""

    file: str
    rows: int
    bytes: int
    sha256: str


@dataclass(frozen=True)
class Entry:
    """A finished chunk: games (matches) ``first .. first + count - 1`` and its files."""

    first: int
    count: int
    parts: dict[str, Part]

    @property
    def stop(self) -> int:
        return self.first + self.count

    @property
    def records(self) -> int:
        """Records (rows of ``games``) the chunk holds or, aggregate-only, stands for."""
        part = self.parts.get("games") or self.parts.get("aggregates")
        return part.rows if part is not None else 0

    def to_line(self) -> str:
        record = {"first": self.first, "count": self.count}
        for kind, part in self.parts.items():
            record[kind] = {
                "file": part.file,
                "rows": part.rows,
                "bytes": part.bytes,
                "sha256": part.sha256,
            }
        return json.dumps(record, separators=(",", ":")) + "\n"

    @classmethod
    def from_line(cls, line: str) -> Entry:
        record = json.loads(line)
        parts = {
            kind: Part(
                str(record[kind]["file"]),
                int(record[kind]["rows"]),
                int(record[kind]["bytes"]),
                str(record[kind]["sha256"]),
            )
            for kind in RECORD_KINDS
            if kind in record
        }
        first, count = int(record["first"]), int(record["count"])
        if first < 0 or count < 1 or not ("games" in parts or "aggregates" in parts):
            raise ValueError("not a chunk")
        return cls(first, count, parts)


@dataclass
class Manifest:
    """The chunks of a run folder, in game order; ``bad_lines`` are the numbers (from 1) of
    lines that could not be read (damage, not a crash's cut-short last line)."""

    entries: list[Entry] = field(default_factory=list)
    bad_lines: list[int] = field(default_factory=list)

    @property
    def completed(self) -> int:
        """Games (matches) held in finished chunks."""
        return sum(entry.count for entry in self.entries)

    def rows(self, kind: str = "games") -> int:
        return sum(entry.parts[kind].rows for entry in self.entries if kind in entry.parts)

    def rows_before(self, first: int) -> int:
        """Records (rows of ``games``) of the chunks before game (match) ``first``."""
        return sum(e.records for e in self.entries if e.first < first)

    def parts(self, kind: str) -> list[Part]:
        """The files of one kind of record, in game order."""
        return [entry.parts[kind] for entry in self.entries if kind in entry.parts]

    def gaps(self, games: int) -> list[tuple[int, int]]:
        """``(first, stop)`` of the ranges of games ``0 .. games - 1`` no chunk covers."""
        gaps, at = [], 0
        for entry in self.entries:
            if entry.first > at:
                gaps.append((at, entry.first))
            at = max(at, entry.stop)
        if at < games:
            gaps.append((at, games))
        return gaps

    def without(self, damaged: list[Entry]) -> Manifest:
        drop = {id(entry) for entry in damaged}
        return Manifest([entry for entry in self.entries if id(entry) not in drop])

    def with_entry(self, entry: Entry) -> Manifest:
        kept = [old for old in self.entries if old.first != entry.first]
        return Manifest(sorted([*kept, entry], key=lambda e: e.first), list(self.bad_lines))


def read_manifest(folder: Path) -> Manifest:
    """The manifest of ``folder`` (empty when it has none). Overlapping lines: the later
    one wins (a repaired chunk)."""
    path = folder / MANIFEST_FILE
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return Manifest()
    # After the last newline comes "" or a line that a crash cut short: not a chunk yet.
    *lines, _cut_short = text.split("\n")
    by_first: dict[int, Entry] = {}
    bad = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = Entry.from_line(line)
        except (ValueError, KeyError, TypeError):
            bad.append(number)
            continue
        by_first[entry.first] = entry
    return Manifest(sorted(by_first.values(), key=lambda e: e.first), bad)


def sha256_of(data) -> str:
    return hashlib.sha256(data).hexdigest()


def part_problem(
    folder: Path, part: Part, entry: Entry | None = None, kind: str | None = None
) -> str | None:
    """What is wrong with one chunk file (missing, another size, another checksum), or
    None when its bytes are those the manifest recorded. With its ``entry`` and ``kind``, a
    Parquet file of games, matches or events whose bytes hold is also read against its line:
    the rows it holds and the games (matches) they belong to (a line edited by hand
    contradicts them)."""
    path = folder / part.file
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        return f"unreadable ({exc.strerror})"
    if len(data) != part.bytes:
        return f"{len(data):,} bytes where {part.bytes:,} were written"
    if sha256_of(data) != part.sha256:
        return "checksum mismatch (the bytes changed since they were written)"
    if entry is not None and kind in SPANNED_KINDS:
        return _contents_problem(data, part, entry, kind)
    return None


def _key_span(handle, key: str) -> tuple[int, int]:
    """The least and greatest value of the integer column ``key`` of a Parquet file: from
    its row groups' statistics where written (the bytes already matched their checksum),
    else read."""
    import pyarrow.compute as pc

    index = handle.schema_arrow.get_field_index(key)
    lows, highs = [], []
    for group in range(handle.metadata.num_row_groups):
        stats = handle.metadata.row_group(group).column(index).statistics
        if stats is None or not stats.has_min_max:
            found = pc.min_max(handle.read(columns=[key])[key])
            return int(found["min"].as_py()), int(found["max"].as_py())
        lows.append(int(stats.min))
        highs.append(int(stats.max))
    return min(lows), max(highs)


SPANNED_KINDS = ("games", "matches", *PER_GAME_KINDS)
"""The kinds of record whose rows name their game (match): ``games`` and ``matches`` hold
every game of their chunk, ``events`` and ``trace`` those that were logged or traced."""


def _contents_problem(data: bytes, part: Part, entry: Entry, kind: str) -> str | None:
    """Whether a chunk file's rows agree with its manifest line: ``part.rows`` rows, every
    one of a game (match) of ``entry``, and for games and matches every game of it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        handle = pq.ParquetFile(pa.BufferReader(data))
        names = handle.schema_arrow.names
        key = "match" if "match" in names else "game"
        rows = handle.metadata.num_rows
        span = _key_span(handle, key) if key in names and rows else None
    except (pa.ArrowException, OSError, ValueError) as exc:
        return f"unreadable ({str(exc).splitlines()[0]})"
    if rows != part.rows:
        return f"holds {rows:,} rows where its manifest line says {part.rows:,}"
    if span is None:
        return None
    low, high = span
    if kind in PER_GAME_KINDS:  # the logged (traced) games only
        agrees = entry.first <= low and high < entry.stop
    else:
        agrees = (low, high) == (entry.first, entry.stop - 1)
    if agrees:
        return None
    holds = f"{'matches' if key == 'match' else 'games'} {low:,}-{high:,}"
    return f"holds {holds} where its manifest line says {entry.first:,}-{entry.stop - 1:,}"


@dataclass(frozen=True)
class Problem:
    """Damage in a run folder: a chunk's file (``entry`` set) or a manifest line."""

    text: str
    entry: Entry | None = None


def check(folder: Path, manifest: Manifest, games: int | None = None) -> list[Problem]:
    """Every problem of the chunks in ``manifest``: damaged files, unreadable manifest
    lines, and holes in the range of finished games: below ``games`` (a complete run's
    chunks cover every game), or below the last finished chunk."""
    problems = []
    for number in manifest.bad_lines:
        problems.append(Problem(f"{MANIFEST_FILE} line {number}: unreadable"))
    previous = None
    for entry in manifest.entries:
        span = f"{entry.first:,}-{entry.stop - 1:,}"
        if previous is not None and entry.first < previous.stop:
            # the later line is dropped by a repair; the gap left is what no chunk holds
            problems.append(
                Problem(
                    f"{MANIFEST_FILE}: the chunk of games {span} overlaps that of games "
                    f"{previous.first:,}-{previous.stop - 1:,}",
                    entry,
                )
            )
        previous = entry if previous is None or entry.stop > previous.stop else previous
        for kind, part in entry.parts.items():
            problem = part_problem(folder, part, entry, kind)
            if problem is not None:
                problems.append(Problem(f"{part.file} (games {span}): {problem}", entry))
    end = manifest_end(manifest) if games is None else games
    for first, stop in manifest.gaps(end):
        problems.append(Problem(f"games {first:,}-{stop - 1:,}: no chunk holds them"))
    return problems


def manifest_end(manifest: Manifest) -> int:
    """One past the last game a chunk holds (0 for none)."""
    return max((entry.stop for entry in manifest.entries), default=0)


def fsync_folder(folder: Path) -> None:
    """Make a rename or a new file in ``folder`` durable."""
    handle = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def write_file(path: Path, data, *, durable: bool = True) -> None:
    """Write ``data`` to ``path`` through ``path.partial``: flushed to disk (``durable``),
    then renamed over ``path``. On any error the partial file is removed."""
    temporary = path.with_name(path.name + ".partial")
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    if durable:
        fsync_folder(path.parent)


def append_line(folder: Path, line: str, *, durable: bool = True) -> None:
    """Append one manifest line and flush it to disk."""
    with open(folder / MANIFEST_FILE, "ab") as handle:
        handle.write(line.encode("utf-8"))
        handle.flush()
        if durable:
            os.fsync(handle.fileno())


def rewrite(folder: Path, manifest: Manifest, *, durable: bool = True) -> None:
    """Replace the manifest by ``manifest``'s entries (after a repair, or to drop a line a
    crash cut short before appending to it)."""
    text = "".join(entry.to_line() for entry in manifest.entries)
    write_file(folder / MANIFEST_FILE, text.encode("utf-8"), durable=durable)


def progress_text(folder: Path, meta: dict) -> str:
    """ "N of M games" (matches, in match play) held in finished chunks."""
    done = read_manifest(folder).completed
    unit = "matches" if meta.get("unit") == "match" else "games"
    return f"{done:,} of {int(meta.get('games', 0)):,} {unit}"


def resume_hint(folder: Path, meta: dict) -> str:
    """The command that completes the run in ``folder`` (its ``run.json`` is ``meta``)."""
    return f"cardsim simulate {meta.get('game', 'GAME')} --out {folder} --resume"
