"""Reading a run folder: ``run.json`` (metadata) and its records (one row per game).

Reports never hold a whole run in memory: :func:`open_run` reads the metadata and the
manifest, and :func:`scan` streams the columns a report needs, a million games at a time
and in their stored (compact) types, through accumulators that keep counts.
:func:`load_run` reads a whole run into a DataFrame, for small runs and interactive use.
The record files themselves (chunks under a manifest, or one file in a folder written
before it) are read through :mod:`simulate.runs.folder.records`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from analysis.errors import ReportError
from simulate.games.spec import GameSpec
from simulate.runs.folder.batch import BATCH_ROWS, Accumulator, from_record_batch
from simulate.runs.folder.batch import (
    Batch as Batch,
)  # re-exported: where the accumulators' batches live
from simulate.runs.folder.batch import batch_of as batch_of
from simulate.runs.folder.lock import is_locked
from simulate.runs.folder.manifest import progress_text, resume_hint
from simulate.runs.folder.records import RecordFiles, game_spec, record_files


@dataclass(frozen=True)
class Run:
    """One run, loaded: what :func:`load_run` reads from a run folder, and what
    ``simulate.simulate`` plays.

    ``meta`` is the parsed ``run.json``; ``games`` has one row per game (per deal in match
    play), in the run's order, with ``end`` categorical; ``matches`` has one row per match
    in match play, else None. Both tables carry ``meta`` in their ``attrs`` (as the
    DataFrame of ``simulate.run`` does), which the charts of :mod:`analysis.charts` read
    for their titles. ``path`` is the run folder (None for a run played in memory only).
    ``events`` has one row per event of the logged games (``--log``; see
    ``docs/results-format.md``), None when the run logged none. ``trace`` has one row per
    (game, turn, seat) of the traced games (``--trace``): the rollouts each seat won from
    each point, of ``meta["rollouts"]``; None when the run traced none.
    """

    path: Path | None
    meta: dict[str, Any]
    games: pd.DataFrame
    matches: pd.DataFrame | None = None
    events: pd.DataFrame | None = None
    aggregates: Any = None
    """An aggregate-only run's (``--records none``) statistics
    (:class:`simulate.runs.folder.aggregates.Aggregates`); ``games`` is then empty, and so is
    ``matches`` in match play (the matches' statistics are ``aggregates.matches``). None
    otherwise."""
    trace: pd.DataFrame | None = None

    @property
    def players(self) -> int:
        """Number of seats at the table."""
        return int(self.meta["players"])


def load_run(path: str | Path) -> Run:
    """Load the run folder at ``path``; raise :class:`ReportError` if it is not a usable one
    (a damaged record file: :class:`simulate.runs.folder.records.DamagedRun`, naming the chunks).

    A run still being played, or one that crashed, gives the games of its finished chunks
    (``meta["status"]`` says ``running``)."""
    path = Path(path)
    if not path.is_dir():
        raise ReportError(f"{path}: run folder not found")
    meta = _read_meta(path / "run.json")
    if meta.get("records") == "none":
        aggregates = read_aggregates(path, meta)
        games = aggregates.schema.empty_table().to_pandas()
        games.attrs.update(meta)
        events = _read_matches(record_files(path, meta, "events"))
        if events is not None:
            events.attrs.update(meta)
        matches = None
        if aggregates.matches is not None:  # match play: no match kept either
            matches = aggregates.matches.schema.empty_table().to_pandas()
            matches.attrs.update(meta)
        return Run(
            path=path,
            meta=meta,
            games=games,
            matches=matches,
            aggregates=aggregates,
            events=events,
            trace=_read_trace(path, meta),
        )
    files = record_files(path, meta, "games")
    games = _read_games(files, meta["players"], game_spec(meta))
    matches = _read_matches(record_files(path, meta, "matches"))
    events = None
    if meta.get("format", 1) >= 2:  # older folders have no logs
        events = _read_matches(record_files(path, meta, "events"))
    games.attrs.update(meta)
    for table in (matches, events):
        if table is not None:
            table.attrs.update(meta)
    trace = _read_trace(path, meta)
    return Run(path=path, meta=meta, games=games, matches=matches, events=events, trace=trace)


def _read_trace(path: Path, meta: dict) -> pd.DataFrame | None:
    """The run's trace (``--trace``), None when it traced no game."""
    if not meta.get("trace"):
        return None
    trace = _read_matches(record_files(path, meta, "trace"))
    if trace is not None:
        trace.attrs.update(meta)
    return trace


def _read_matches(files: RecordFiles) -> pd.DataFrame | None:
    if not files:
        return None
    try:
        return files.read().to_pandas()
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise ReportError(f"{files.path}: unreadable Parquet file: {_reason(exc)}") from exc


def _read_meta(json_path: Path) -> dict[str, Any]:
    if not json_path.is_file():
        raise ReportError(f"{json_path}: missing (is {json_path.parent} a run folder?)")
    try:
        meta = json.loads(json_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{json_path}: cannot read: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise ReportError(f"{json_path}: invalid JSON: {exc}") from exc
    if not isinstance(meta, dict):
        raise ReportError(f"{json_path}: expected a JSON object")
    for key in ("game", "players"):
        if key not in meta:
            raise ReportError(f"{json_path}: no {key!r} entry")
    if not isinstance(meta["players"], int) or meta["players"] < 1:
        raise ReportError(f"{json_path}: 'players' must be a positive integer")
    meta.setdefault("rules", {})
    return meta


def _read_games(files: RecordFiles, players: int, spec: GameSpec) -> pd.DataFrame:
    if not files:
        raise ReportError(f"{files.path}: missing (is {files.folder} a run folder?)")
    try:
        games = files.read().to_pandas()
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise ReportError(f"{files.path}: unreadable Parquet file: {_reason(exc)}") from exc
    missing = [c for c in spec.required_columns if c not in games.columns]
    if missing:
        raise ReportError(f"{files.path}: missing columns {', '.join(missing)}")
    if games.empty:
        raise ReportError(f"{files.path}: no games recorded")
    bad = (games["winner"] < -1) | (games["winner"] >= players)
    if bad.any():
        raise ReportError(
            f"{files.path}: winner out of range for {players} players "
            f"(game {int(games.loc[bad, 'game'].iloc[0])})"
        )
    if not games["game"].is_monotonic_increasing:
        games = games.sort_values("game", kind="stable", ignore_index=True)
    # ``end`` stays categorical (the engine writes a dictionary column): comparisons with
    # strings work on it, and it costs one byte a game instead of a Python string.
    games["end"] = games["end"].astype("category")
    return games


@dataclass(frozen=True)
class RunFolder:
    """A run folder opened for scanning: ``meta`` is the parsed ``run.json``, ``rows`` the
    number of games in ``games.parquet`` and ``columns`` its column names; no game is read."""

    path: Path
    meta: dict[str, Any]
    rows: int
    columns: tuple[str, ...]
    riders: list[Rider] = field(default_factory=list, repr=False, compare=False)
    """Accumulators waiting to ride along the next :func:`scan` (:meth:`ride`)."""
    aggregates: Any = field(default=None, repr=False, compare=False)
    """An aggregate-only run's statistics (:class:`simulate.runs.folder.aggregates.Aggregates`), from
    which :func:`scan` fills the accumulators; None for a run with its records."""

    @property
    def players(self) -> int:
        """Number of seats at the table."""
        return int(self.meta["players"])

    def ride(self, build: Callable[[], Sequence[Accumulator]]) -> Rider:
        """Have the next :func:`scan` of this run also feed the accumulators ``build()``
        returns, in the same pass (a report's numbers and ``summary.csv`` from one read of
        the records). Returns the :class:`Rider`: once that scan is done its ``done`` is
        true and its ``accumulators`` fed; if no scan comes, nothing is fed."""
        rider = Rider(build)
        self.riders.append(rider)
        return rider

    @property
    def spec(self) -> GameSpec:
        """The game's spec: its columns, end reasons, length, report."""
        return game_spec(self.meta)

    def records(self, kind: str = "games") -> RecordFiles:
        """The record files of ``kind`` (``games`` or ``matches``); an aggregate-only
        run's ``games`` are the few whole records its aggregates keep, and its
        ``matches`` (match play) none: the report reads their statistics
        (:meth:`simulate.runs.folder.aggregates.MatchAggregates.summary`)."""
        if self.aggregates is not None and kind in ("games", "matches"):
            return _KeptRecords(self.path, self.aggregates, kind)
        return record_files(self.path, self.meta, kind)

    def some_games(self, kind: str, setting: str) -> pd.DataFrame | None:
        """The table of ``kind`` that the run keeps of some games (``events`` of the
        logged, ``setting`` ``log``; ``trace`` of the traced, ``trace``), read whole; None
        when ``run.json``'s ``setting`` names none or the table is empty."""
        if not self.meta.get(setting):
            return None
        files = self.records(kind)
        if not files:
            return None
        table = files.read()
        return table.to_pandas() if table.num_rows else None

    @property
    def games_path(self) -> Path:
        """What messages about the games name (``DIR/games``, or an old folder's
        ``DIR/games.parquet``)."""
        return self.records("games").path


def open_run(path: str | Path) -> RunFolder:
    """Open the run folder at ``path``: check ``run.json``, its status and the columns and
    size of its games; raise :class:`ReportError` if it is not a usable run folder (one in
    progress, one that crashed, a damaged one)."""
    path = Path(path)
    if not path.is_dir():
        raise ReportError(f"{path}: run folder not found")
    meta = _read_meta(path / "run.json")
    check_status(path, meta)
    if meta.get("records") == "none":
        aggregates = read_aggregates(path, meta)
        if aggregates.records == 0:
            raise ReportError(f"{path}: no games recorded")
        return RunFolder(
            path=path,
            meta=meta,
            rows=aggregates.records,
            columns=aggregates.columns,
            aggregates=aggregates,
        )
    files = record_files(path, meta, "games")
    if not files:
        raise ReportError(f"{files.path}: missing (is {path} a run folder?)")
    try:
        rows, columns = files.metadata()
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise ReportError(f"{files.path}: unreadable Parquet file: {_reason(exc)}") from exc
    missing = [c for c in game_spec(meta).required_columns if c not in columns]
    if missing:
        raise ReportError(f"{files.path}: missing columns {', '.join(missing)}")
    if rows == 0:
        raise ReportError(f"{files.path}: no games recorded")
    return RunFolder(path=path, meta=meta, rows=rows, columns=columns)


def check_status(path: Path, meta: dict) -> None:
    """Refuse a run that is still being played, or that crashed (``run.json`` says
    ``running`` while no process holds the folder's lock), in one line."""
    if meta.get("status") != "running":
        return
    done = progress_text(path, meta)
    if is_locked(path):
        raise ReportError(f"{path} is in progress: {done}; try again when it is done")
    raise ReportError(
        f"{path}: the run crashed after {done} (run.json says running, but no process is "
        f"writing it); complete it with: {resume_hint(path, meta)}"
    )


def _reason(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


class _OutOfOrder(Exception):
    pass


def scan(
    run: RunFolder,
    build: Callable[[], Sequence[Accumulator]],
    batch_size: int | None = None,
) -> list[Accumulator]:
    """Feed every game of ``run`` to the accumulators ``build()`` returns, in game order,
    reading only the columns they name (plus ``game`` and ``winner``, which are checked),
    ``batch_size`` games at a time (default :data:`BATCH_ROWS`). Returns the accumulators.
    A file whose games are out of order (none the engine writes) is read whole, sorted,
    and fed again to fresh accumulators. Accumulators waiting to ride along
    (:meth:`RunFolder.ride`) are fed in the same pass."""
    batch_size = batch_size or BATCH_ROWS
    riders, run.riders[:] = list(run.riders), []
    if run.aggregates is not None:
        return _fill_from_aggregates(run, build, riders)

    def everything() -> tuple[list[Accumulator], list[Accumulator]]:
        for rider in riders:
            rider.accumulators = list(rider.build())
        return list(build()), [a for rider in riders for a in rider.accumulators]

    accumulators, extra = everything()
    names = _columns(run, [*accumulators, *extra])
    try:
        _feed(run, run.records("games").batches(names, batch_size), [*accumulators, *extra])
    except _OutOfOrder:
        accumulators, extra = everything()
        table = read_columns(run, names).sort_by("game")
        _feed(run, table.to_batches(batch_size), [*accumulators, *extra])
    except (pa.ArrowException, OSError) as exc:
        raise ReportError(f"{run.games_path}: unreadable Parquet file: {_reason(exc)}") from exc
    for rider in riders:
        rider.done = True
    return accumulators


def _fill_from_aggregates(run: RunFolder, build, riders: list[Rider]) -> list[Accumulator]:
    """:func:`scan` for an aggregate-only run: every accumulator filled from its
    aggregates; one that needs single games is refused in one line."""
    from analysis.aggregates import NeedsSingleGames, fill

    accumulators = list(build())
    for rider in riders:
        rider.accumulators = list(rider.build())
    try:
        fill([*accumulators, *(a for r in riders for a in r.accumulators)], run.aggregates)
    except NeedsSingleGames as exc:
        raise ReportError(
            f"{run.path} is an aggregate-only run (--records none): it keeps no single "
            f"games, which {exc} needs"
        ) from None
    for rider in riders:
        rider.done = True
    return accumulators


def read_aggregates(path: Path, meta: dict):
    """The merged :class:`simulate.runs.folder.aggregates.Aggregates` of an aggregate-only run folder
    (its chunks' files under the manifest, checked)."""
    from simulate.runs.folder.aggregates import Aggregates

    files = record_files(path, meta, "aggregates")
    if not files:
        raise ReportError(f"{path}: an aggregate-only run without aggregates (no chunk finished)")
    merged = None
    try:
        for file, _part in files.files:
            found = Aggregates.from_bytes(file.read_bytes())
            merged = found if merged is None else merged.merge(found)
    except (pa.ArrowException, OSError, ValueError, KeyError) as exc:
        raise ReportError(f"{path}: unreadable aggregates: {_reason(exc)}") from exc
    return merged


class _KeptRecords:
    """An aggregate-only run's ``games`` as the reports ask for them: the run's first
    record (its seats' strategies), nothing more; its ``matches`` (true in match play
    only): no row, only their columns."""

    def __init__(self, folder: Path, aggregates, kind: str = "games"):
        self.folder, self.aggregates, self.kind = folder, aggregates, kind
        self.path = folder / "aggregates"

    def __bool__(self) -> bool:
        return self.kind == "games" or self.aggregates.matches is not None

    def metadata(self) -> tuple[int, tuple[str, ...]]:
        if self.kind == "games":
            return self.aggregates.records, self.aggregates.columns
        return self.aggregates.matches.records, tuple(self.aggregates.matches.schema.names)

    def batches(self, columns, batch_size):
        if self.kind == "games":
            yield from self.aggregates.first_record().select(list(columns)).to_batches()


class Rider:
    """Accumulators fed by the next :func:`scan` of a run (:meth:`RunFolder.ride`):
    ``build`` makes them, ``accumulators`` holds them once built, ``done`` says whether a
    whole scan has fed them."""

    def __init__(self, build: Callable[[], Sequence[Accumulator]]):
        self.build = build
        self.accumulators: list[Accumulator] = []
        self.done = False


def _columns(run: RunFolder, accumulators: Sequence[Accumulator]) -> list[str]:
    wanted = dict.fromkeys(["game", "winner"])
    for accumulator in accumulators:
        wanted.update(dict.fromkeys(accumulator.columns))
    missing = [c for c in wanted if c not in run.columns]
    if missing:
        raise ReportError(f"{run.games_path}: missing columns {', '.join(missing)}")
    return list(wanted)


def read_columns(run: RunFolder, names: list[str]) -> pa.Table:
    """The ``names`` columns of every game of ``run``, as one Arrow table."""
    try:
        return run.records("games").read(names)
    except (pa.ArrowException, OSError) as exc:
        raise ReportError(f"{run.games_path}: unreadable Parquet file: {_reason(exc)}") from exc


def _feed(run: RunFolder, record_batches: Iterator, accumulators: Sequence[Accumulator]) -> None:
    start, last_game = 0, None
    for record_batch in record_batches:
        batch = from_record_batch(record_batch, start)
        if len(batch) == 0:
            continue
        game, winner = batch["game"], batch["winner"]
        if (last_game is not None and game[0] < last_game) or (np.diff(game) < 0).any():
            raise _OutOfOrder
        last_game = game[-1]
        bad = (winner < -1) | (winner >= run.players)
        if bad.any():
            raise ReportError(
                f"{run.games_path}: winner out of range for {run.players} players "
                f"(game {int(game[np.argmax(bad)])})"
            )
        for accumulator in accumulators:
            accumulator.update(batch)
        start += len(batch)
