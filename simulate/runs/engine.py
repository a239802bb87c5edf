"""The only caller of kernels: validates a request, plays it in chunks, streams the records.

A run of ``games`` games is cut into chunks of consecutive game indices; each chunk is
played by the game's parallel kernel (all threads), turned into an Arrow table and handed
to the consumers (a Parquet writer, an in-memory list, a record hunt). Because game ``i``
depends only on ``(seed, i)``, the chunk size and thread count never change a record.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import closing, contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING

import numba
import numpy as np
import pyarrow as pa
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from ..core import arrow
from ..games.spec import Chunk
from .folder.records import rotation_tagged
from .folder.writer import RunWriter, check_space
from .log_tables import interleave_events, interleave_trace
from .request import DEFAULT_GAMES, Request, make_request

if TYPE_CHECKING:  # pandas costs a fifth of a second to import; only run() needs it
    import pandas as pd

DEFAULT_CHUNK = 1 << 20
"""Games per chunk: a chunk's records take about 30 MB (Beggar-My-Neighbour) to 80 MB (a
four-seat shedding game) in memory."""


class RunInterrupted(Exception):
    """Ctrl-C or SIGTERM stopped a run; the finished chunks were kept. ``complete``: the
    signal came during the last chunk, so the run was finished first."""

    def __init__(self, completed: int, games: int, folder, *, unit: str = "game", reason: str = ""):
        self.completed, self.games, self.folder = completed, games, folder
        self.complete = completed >= games
        units = "matches" if unit == "match" else "games"
        if self.complete:
            text = f"interrupted as the run ended: all {games:,} {units} are done"
        else:
            text = f"interrupted after {completed:,} of {games:,} {units}"
            text += f"; the finished {units} are in {folder}" if folder else ""
        super().__init__(f"{reason}: {text}" if reason else text)


class RunStopped(Exception):
    """Raised by a source of chunks that can no longer deliver any (a cluster whose
    scheduler was lost): :func:`stream` stops the run as an interruption, its message
    saying why."""


MATCH_CHUNK_DEALS = 4
"""In match play a chunk holds ``chunk_size // MATCH_CHUNK_DEALS`` matches (about as many
records as a chunk of single games)."""


REDUCED_CHUNKS = 2
"""An aggregate-only run on the CPU plays this many chunks' games at a time: each is reduced before
the next is played, so one such chunk's records are in memory, as the two chunks of a run
that writes one while it plays the next; every chunk costs the reduction and the writer a
few tens of milliseconds whatever its size, so fewer cost less."""
TAIL_FLOOR = 1 << 16
"""The smallest chunk :func:`chunk_spans` cuts a run's tail into."""


def chunk_spans(
    start: int, stop: int, size: int, *, halve_tail: bool = True
) -> Iterator[tuple[int, int]]:
    """``(first, count)`` of the chunks that cover games ``start .. stop - 1``.

    Chunks hold ``size`` games, except the last ``size`` or fewer: with ``halve_tail``
    they are halved down to ``TAIL_FLOOR``. A chunk's records are written while the next
    is played, but the last write overlaps nothing (one core idles through it); halving the
    tail makes that write short. An aggregate-only run's chunk is reduced as it is played
    and writes a small file: there every chunk costs the same, and fewer cost less.
    """
    first = start
    while first < stop:
        left = stop - first
        if left > size:
            count = size
        elif halve_tail and left >= 2 * TAIL_FLOOR:
            count = (left + 1) // 2
        else:
            count = left
        yield first, count
        first += count


def play_chunks(
    request: Request,
    chunk_size: int = DEFAULT_CHUNK,
    progress: bool = False,
    spans: list[tuple[int, int]] | None = None,
    rows_before: Callable[[int], int] | None = None,
) -> Iterator[tuple[int, int, Chunk]]:
    """Play the games (matches, in match play) of ``spans`` (``(first, stop)`` pairs, in
    order; default: the whole run) chunk by chunk; yields ``(first, count, chunk)``.

    ``rows_before(first)``: in match play, the records (deals) that precede match
    ``first`` outside ``spans`` (held by a resumed run); the ``game`` column numbers the
    records of the run from 0. A request of ``records="none"``: each chunk comes reduced
    (:func:`.aggregate_runs.reduced`, compiled, on the run's threads; on the GPU where its
    engine reduces it there, :func:`.aggregate_runs.reduced_where_played`)."""
    numba.set_num_threads(request.threads)
    spans = [(0, request.games)] if spans is None else spans
    seatings = request.seatings()
    chunk_size = games_per_chunk(request, chunk_size)
    done = request.games - sum(stop - first for first, stop in spans)
    replayed = 0
    reduce = None
    if request.records == "none":  # here, on numba's threads, before the next chunk plays
        from .aggregate_runs import reduced

        meta = request.meta()
        if request.backend == "cpu":  # a GPU reduces its chunks where they are
            chunk_size *= REDUCED_CHUNKS

        def reduce(chunk: Chunk) -> Chunk:
            return reduced(chunk, meta)

    with ProgressBar(request, progress, done) as bar:
        for span_first, span_stop in spans:
            for first, count in chunk_spans(
                span_first, span_stop, chunk_size, halve_tail=reduce is None
            ):
                row = replayed + (rows_before(first) if rows_before else 0)
                chunk = _play_chunk(request, seatings, first, count, row, bar.seating)
                if reduce is not None:
                    chunk = reduce(chunk)
                replayed += (
                    chunk.games.num_rows if chunk.aggregates is None else chunk.aggregates.records
                )
                yield first, count, chunk
                bar.advance(count)


def games_per_chunk(request: Request, chunk_size: int = DEFAULT_CHUNK) -> int:
    """Games (matches) per chunk for about ``chunk_size`` records: fewer with rotated seats
    (a record per seating) and in match play (a record per deal)."""
    chunk_size = max(1, chunk_size // len(request.seatings()))
    if request.match_play:
        chunk_size = max(1, chunk_size // MATCH_CHUNK_DEALS)
    return chunk_size


def play_chunk(request: Request, first: int, count: int, row: int = 0) -> Chunk:
    """Games (matches) ``first .. first + count - 1`` of ``request`` in every seating, with
    the threads numba has in this thread: one chunk as :func:`play_chunks` yields it
    (``row``: the ``game`` number of its first record in match play)."""
    return _play_chunk(request, request.seatings(), first, count, row)


def play_one(request: Request, game: int, row: int = 0) -> Chunk:
    """The records of game (match) ``game`` alone, in every seating: what the run holds
    for it. ``row``: the ``game`` number of its first record in match play."""
    return play_span(request, game, 1, row)


def play_span(request: Request, first: int, count: int, row: int = 0) -> Chunk:
    """The records of games (matches) ``first .. first + count - 1``, in every seating, in
    one kernel call per seating. ``row``: the ``game`` number of the first record in match
    play."""
    numba.set_num_threads(request.threads)
    return _play_chunk(request, request.seatings(), first, count, row)


def _play_chunk(
    request: Request,
    seatings: list,
    first: int,
    count: int,
    row: int,
    playing: Callable[[int, int, int], None] = lambda count, seating, seatings: None,
) -> Chunk:
    """Games (matches) ``first .. first + count - 1`` in every seating, by the game's
    engine; ``row``: the ``game`` number of the first record in match play. ``playing``
    hears which seating is being played (for the progress bar). A request of
    ``records="none"``: reduced where they are played when the engine can (the GPU), else
    as records."""
    if request.records == "none":
        from .aggregate_runs import reduced_where_played

        found = reduced_where_played(request, seatings, first, count, playing)
        if found is not None:
            return found
    engine = request.game.spec.engine()
    parts = []
    for rotation, seating in enumerate(seatings):
        playing(count, rotation, len(seatings))
        part = engine.play(request, seating, first, count, row)
        parts.append(_with_rotation(part, rotation) if request.rotate_seats else part)
    return _interleave(parts, request.match_play, row)


def _with_rotation(chunk: Chunk, rotation: int) -> Chunk:
    """Tag a chunk's records with the seating they were played in (``rotation`` int8)."""

    def tag(table: pa.Table | None) -> pa.Table | None:
        return None if table is None else rotation_tagged(table, rotation)

    return Chunk(tag(chunk.games), tag(chunk.matches), tag(chunk.events), trace=tag(chunk.trace))


def _interleave(parts: list[Chunk], match_play: bool, first_row: int) -> Chunk:
    """One chunk from the seatings' parts, its records in (game, rotation) order, or
    (match, rotation, deal) in match play, so that the order of a run's records does not
    depend on how it was cut into chunks; match play's ``game`` numbers the rows again
    from ``first_row``."""
    if len(parts) == 1:
        return parts[0]
    games = pa.concat_tables([part.games for part in parts])
    if not match_play:
        games = games.sort_by([("game", "ascending"), ("rotation", "ascending")])
        events, trace = interleave_events(parts, games), interleave_trace(parts, games)
        return Chunk(games, events=events, trace=trace)
    games = games.sort_by(
        [("match", "ascending"), ("rotation", "ascending"), ("deal", "ascending")]
    )
    numbers = arrow.numeric(np.arange(first_row, first_row + games.num_rows, dtype=np.int64))
    games = games.set_column(games.schema.get_field_index("game"), "game", numbers)
    matches = pa.concat_tables([part.matches for part in parts])
    matches = matches.sort_by([("match", "ascending"), ("rotation", "ascending")])
    return Chunk(
        games, matches, interleave_events(parts, games), trace=interleave_trace(parts, games)
    )


def run(
    game: str,
    *,
    players: int | None = None,
    games: int = DEFAULT_GAMES,
    seed: int | None = None,
    threads: int | None = None,
    out=None,
    rules=None,
    strategies=None,
    rotate_seats: bool = False,
    progress: bool = False,
    force: bool = False,
    skip_space_check: bool = False,
    chunk_size: int = DEFAULT_CHUNK,
) -> pd.DataFrame:
    """Simulate ``games`` games and return their records as a DataFrame (one row per game).

    With ``out``, also writes the run folder (chunks of records under a manifest, and
    ``run.json``); a folder that already holds a run is refused unless ``force``, and so is
    a run whose records would not fit on the disk unless ``skip_space_check``.
    ``strategies`` (shedding games) names each seat's strategy; seats without one play
    ``random``. The DataFrame's ``attrs`` hold the run's metadata (game, players, seed,
    rules...).

    ``rotate_seats`` plays every deal (match) once per cyclic seating of the strategies
    (the same cards: common random numbers); each record then has a ``rotation`` column.

    In match play (``match_deals`` or ``target_score``) ``games`` counts matches; the
    DataFrame has one row per deal, with ``match`` and ``deal`` columns, and the run folder
    also holds the matches (one row per match); :func:`play_run` (``simulate.simulate``)
    gives the matches too.
    """
    request = make_request(
        game,
        players=players,
        games=games,
        seed=seed,
        threads=threads,
        rules=rules,
        strategies=strategies,
        rotate_seats=rotate_seats,
    )
    games_table, _ = play_run(
        request,
        out=out,
        progress=progress,
        force=force,
        skip_space_check=skip_space_check,
        chunk_size=chunk_size,
    )
    frame = games_table.to_pandas()
    frame.attrs.update(request.meta())
    return frame


def play_run(
    request: Request,
    *,
    out=None,
    progress: bool = False,
    force: bool = False,
    skip_space_check: bool = False,
    chunk_size: int = DEFAULT_CHUNK,
    collect: bool = True,
    play: Callable[..., Iterator[tuple[int, int, Chunk]]] | None = None,
    events: list | None = None,
    aggregates: list | None = None,
    traces: list | None = None,
) -> tuple[pa.Table | None, pa.Table | None]:
    """:func:`run`'s work on a validated ``request``: ``(games, matches)``, the records as
    Arrow tables (``matches`` None unless the rules make matches), the run folder written
    with ``out``. Without ``collect`` the records are only written (both tables are None).
    ``play``: where the chunks come from, as for :func:`stream`. ``events``: a list that
    receives the logged games' events tables (with ``collect``), ``traces`` the traced
    games' trace tables. A request of
    ``records="none"``: an aggregate-only run (:mod:`simulate.runs.folder.aggregates`): no rows are
    kept, ``(None, None)`` is returned, ``aggregates`` (a list) receives the run's merged
    statistics, and ``events`` the logged games' events all the same."""
    records = request.records
    meta = request.meta()
    writer = None
    if out is not None:
        if not skip_space_check:
            check_space(Path(out), meta, request.games)
        writer = RunWriter(out, meta, force=force)
    chunks: list[Chunk] = []
    merged: list = []

    def merge(found: Chunk) -> None:
        statistics = found.aggregates
        merged.append(statistics if not merged else merged.pop().merge(statistics))
        if found.events is not None and events is not None:
            events.append(found.events)
        if found.trace is not None and traces is not None:
            traces.append(found.trace)

    try:
        if records == "none":
            keep = merge
        else:
            keep = chunks.append if collect else None
        stream(
            request,
            writer,
            keep,
            progress=progress,
            chunk_size=chunk_size,
            play=play,
        )
    finally:
        if writer is not None:
            writer.close()
    if records == "none":
        if aggregates is not None:
            aggregates.extend(merged)
        return None, None
    if not collect:
        return None, None
    if events is not None:
        events.extend(chunk.events for chunk in chunks if chunk.events is not None)
    if traces is not None:
        traces.extend(chunk.trace for chunk in chunks if chunk.trace is not None)
    games_table = pa.concat_tables([chunk.games for chunk in chunks])
    matches = [chunk.matches for chunk in chunks if chunk.matches is not None]
    return games_table, pa.concat_tables(matches) if matches else None


def stream(
    request: Request,
    writer: RunWriter | None,
    consume: Callable[[Chunk], None] | None = None,
    *,
    progress: bool = False,
    chunk_size: int = DEFAULT_CHUNK,
    start: int = 0,
    play: Callable[..., Iterator[tuple[int, int, Chunk]]] | None = None,
) -> None:
    """Play ``request``, writing its run folder through ``writer`` and feeding ``consume``.

    ``play``: where the chunks come from, a function called as :func:`play_chunks` is
    (default: :func:`play_chunks`, on this machine; a cluster's, see
    :mod:`simulate.runs.cluster`); it yields the chunks in game order. With a writer and no
    ``consume``, a ``play`` is asked for ``encoded`` chunks (whose tables may be their
    files' bytes, :class:`.folder.writer.Encoded`).

    With a writer, the games its folder lacks are played (all of them for a new run; for
    a resumed one the unfinished tail and any chunk found damaged); without one, the games
    (matches) from ``start`` on. ``consume`` receives the chunks in the order played.

    Ctrl-C and SIGTERM (in the main thread) stop the run at the end of the chunk being
    played: the chunks finished so far are kept, ``run.json`` says ``"status":
    "interrupted"``, and :class:`RunInterrupted` is raised. A second signal stops at once.
    A full disk stops it the same way and raises :class:`.results.DiskFull`. The writer
    keeps the folder's lock: the caller closes it.

    A request of ``records="none"`` (a resumed run's, from its run.json): every chunk
    is reduced to its :class:`simulate.runs.folder.aggregates.Aggregates` (by the worker, on a
    cluster; on the GPU that played it, :mod:`.gpu_aggregates`), which the writer merges;
    ``consume`` receives the reduced chunk (its ``aggregates`` and its logged games'
    ``events``, :func:`.aggregate_runs.reduced`).
    """
    started = time.perf_counter()
    records = request.records
    if writer is not None and writer.meta.get("records", "all") != records:
        raise ValueError(f"a request of records {records!r} for a folder that keeps others")
    meta = writer.meta if writer is not None else request.meta()
    spans = writer.todo(request.games) if writer is not None else [(start, request.games)]
    # The chunks held before this session (a resumed run's), not those it writes.
    rows_before = writer.manifest.rows_before if writer is not None else None

    def finish(status: str) -> int:
        elapsed = round(time.perf_counter() - started, 3)
        return writer.finish({"status": status, "elapsed_s": elapsed})

    def deliver(first: int, count: int, chunk: Chunk) -> None:
        if records == "none":
            from .aggregate_runs import reduced

            chunk = reduced(chunk, meta)
        if writer is not None:
            writer.write(first, count, chunk.parts())
        if consume is not None:
            consume(chunk)

    # Chunk k is written (in a worker thread: pyarrow and the kernel release the GIL)
    # while chunk k + 1 is played; at most one delivery is in flight. With one thread the
    # run keeps to one core: each chunk is written before the next is played (still in the
    # worker, so that a signal never lands between a chunk's games and matches).
    pending: Future | None = None
    with _stop_requests() as stop, ThreadPoolExecutor(max_workers=1) as delivery:
        try:
            # closing: the progress bar is gone before any message about a failure
            left = sum(stop - first for first, stop in spans)
            play_source = play_chunks if play is None else play
            extra = {}
            if play is not None and records == "all" and writer is not None and consume is None:
                extra["encoded"] = True  # the worker encodes what the writer only writes
            chunks = play_source(request, chunk_size, progress, spans, rows_before, **extra)
            with closing(chunks):
                for first, count, chunk in chunks:
                    if pending is not None:
                        pending.result()
                    pending = delivery.submit(deliver, first, count, chunk)
                    if request.threads == 1:
                        pending.result()
                    left -= count
                    if stop.requested and left > 0:  # after the last chunk: finish first
                        raise KeyboardInterrupt
                if pending is not None:
                    pending.result()
        except (KeyboardInterrupt, RunStopped) as exc:
            _settle(pending)  # let a write in flight finish
            completed = finish("interrupted") if writer is not None else 0
            reason = str(exc) if isinstance(exc, RunStopped) else ""
            raise RunInterrupted(
                completed,
                request.games,
                writer and writer.folder,
                unit=request.unit,
                reason=reason,
            ) from None
        except BaseException:  # a full disk (DiskFull), a user strategy's error...
            _settle(pending)
            if writer is not None:
                with suppress(OSError):  # run.json then says "running": a crashed run
                    finish("interrupted")
            raise
    completed = finish("complete") if writer is not None else request.games
    if stop.requested:
        raise RunInterrupted(completed, request.games, writer and writer.folder, unit=request.unit)


def _settle(pending: Future | None) -> None:
    """Wait for a delivery in flight, whatever its outcome."""
    if pending is not None:
        pending.exception()


class _StopRequest:
    requested = False


@contextmanager
def _stop_requests():
    """Turn SIGINT and SIGTERM into a request to stop at the next chunk boundary.

    Signals can only be caught in the main thread; elsewhere this does nothing.
    """
    stop = _StopRequest()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def request_stop(signum, frame):
        if stop.requested:
            raise KeyboardInterrupt
        stop.requested = True

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


class ProgressBar:
    """A rich progress bar over games played (does nothing when ``shown`` is false).

    Between chunks it counts finished games; while a chunk is played, a thread reads
    (five times a second) the share of the chunk's games that the kernel's workers have
    taken up (:func:`simulate.core.compiled.work_sharing.share_taken`), so the bar moves during
    the first chunk too. How the run is chunked or written does not change."""

    POLL_S = 0.2

    def __init__(self, request: Request, shown: bool, done: int = 0):
        self.request, self.shown, self.done = request, shown, done
        self.bar: Progress | None = None
        self.in_flight = (0, 0, 1)  # games of the chunk being played, seating, seatings
        self.stopped = threading.Event()

    def __enter__(self) -> ProgressBar:
        if not self.shown:
            return self
        self.bar = Progress(
            TextColumn(f"{self.request.game.title}, {self.request.players} players"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("matches" if self.request.match_play else "games"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
        )
        self.bar.start()
        self.task = self.bar.add_task("games", total=self.request.games, completed=self.done)
        threading.Thread(target=self._poll, daemon=True).start()
        return self

    def seating(self, count: int, seating: int, seatings: int) -> None:
        """A chunk of ``count`` games starts its ``seating``-th of ``seatings`` kernel calls."""
        self.in_flight = (count, seating, seatings)

    def advance(self, count: int) -> None:
        """``count`` more games are finished."""
        self.done += count
        self.in_flight = (0, 0, 1)
        if self.bar is not None:
            self.bar.update(self.task, completed=self.done)

    def _poll(self) -> None:
        from ..core.compiled.work_sharing import share_taken

        while not self.stopped.wait(self.POLL_S):
            count, seating, seatings = self.in_flight
            if count:
                partial = int(count * (seating + share_taken()) / seatings)
                self.bar.update(self.task, completed=self.done + min(partial, count - 1))

    def __exit__(self, *exc):
        self.stopped.set()
        if self.bar is not None:
            self.bar.stop()
        return False
