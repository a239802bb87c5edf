"""The only caller of kernels: validates a request, plays it in chunks, streams the records.

A run of ``games`` games is cut into chunks of consecutive game indices; each chunk is
played by the game's parallel kernel (all threads), turned into an Arrow table and handed
to the consumers (a Parquet writer, an in-memory list, a record hunt). Because game ``i``
depends only on ``(seed, i)``, the chunk size and thread count never change a record.
"""

from __future__ import annotations

import secrets
import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass, field
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

from . import arrow
from .errors import CardsimError
from .games.beggar.rules import BeggarRules
from .games.registry import GameInfo, check_players, resolve_game
from .games.shedding.rules import SheddingRules, preset
from .results import RunWriter, check_space
from .rng import MAX_SEED

if TYPE_CHECKING:  # pandas costs a fifth of a second to import; only run() needs it
    import pandas as pd

DEFAULT_CHUNK = 1 << 20
"""Games per chunk: a chunk's records take about 30 MB (Beggar-My-Neighbour) to 80 MB (a
four-seat shedding game) in memory."""


class RunInterrupted(Exception):
    """Ctrl-C or SIGTERM stopped a run; the finished chunks were kept."""

    def __init__(self, completed: int, games: int, folder):
        self.completed, self.games, self.folder = completed, games, folder
        where = f"; the finished games are in {folder}" if folder else ""
        super().__init__(f"interrupted after {completed:,} of {games:,} games{where}")


@dataclass(frozen=True)
class Request:
    """A validated run request."""

    game: GameInfo
    players: int
    games: int
    seed: int
    rules: BeggarRules | SheddingRules
    threads: int
    strategies: tuple[str, ...] = ()
    """Each seat's strategy, written in full (shedding games; Beggar-My-Neighbour has no
    decisions)."""
    rotate_seats: bool = False
    """Play every deal (match) once per cyclic seating of the strategies."""
    specs: tuple = field(default=(), compare=False, repr=False)
    """The strategies as :class:`.games.shedding.strategies.StrategySpec` (a user
    strategy's function included)."""

    def seatings(self) -> list[tuple]:
        """The specs' seatings: rotation r puts seat i's strategy in seat i + r."""
        if not self.rotate_seats:
            return [self.specs]
        n = len(self.specs)
        return [tuple(self.specs[(i - r) % n] for i in range(n)) for r in range(n)]

    @property
    def match_play(self) -> bool:
        """Whether the rules make matches (``match_deals`` or ``target_score``): then
        ``games`` counts matches, and each deal of a match is a record."""
        rules = self.rules
        return isinstance(rules, SheddingRules) and (
            rules.match_deals is not None or rules.target_score is not None
        )

    @property
    def unit(self) -> str:
        """What ``games`` counts: ``"game"`` or ``"match"``."""
        return "match" if self.match_play else "game"

    def meta(self) -> dict:
        """The request as stored in ``run.json``."""
        meta = {
            "game": self.game.name,
            "players": self.players,
            "games": self.games,
            "seed": self.seed,
            "rules": self.rules.to_dict(),
            "threads": self.threads,
        }
        if self.strategies:
            meta["strategies"] = list(self.strategies)
        if self.match_play:
            meta["unit"] = "match"
        if self.rotate_seats:
            meta["rotate_seats"] = True
        return meta


def make_request(
    game,
    players=None,
    games=1_000_000,
    seed=None,
    threads=None,
    rules=None,
    strategies=None,
    rotate_seats=False,
):
    """Validate a run's parameters (raising CardsimError) and fill in the defaults.

    ``rules`` is a rules object, or a dict of knob overrides such as ``{"time_limit": 500}``.
    A missing seed is drawn at random (and recorded, so the run can be repeated).
    ``strategies`` (shedding games) names each seat's strategy in seat order
    (``"greedy"``, ``"random:forget=0.1"``, ``"weighted:points=1,wild=-2"``); seats without
    one play ``random``. ``rotate_seats`` plays every deal once per cyclic seating.
    """
    info = resolve_game(game)
    players = info.default_players if players is None else players
    check_players(info, players)
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise CardsimError(f"games must be a whole number of at least 1, got {games!r}")
    if seed is None:
        seed = secrets.randbits(63)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise CardsimError(f"seed must be a whole number from 0 to {MAX_SEED}, got {seed!r}")
    most = numba.config.NUMBA_NUM_THREADS
    threads = most if threads is None else threads
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= most:
        raise CardsimError(f"threads must be from 1 to {most} on this machine, got {threads!r}")
    base = BeggarRules() if info.family == "beggar" else preset(info.name)
    if rules is None:
        rules = base
    elif isinstance(rules, dict):
        rules = base.with_overrides(rules)
    elif type(rules) is not type(base):
        raise CardsimError(f"rules must be a dict of knob overrides, got {type(rules).__name__}")
    if info.family == "beggar":
        if strategies:
            raise CardsimError(f"{info.name} has no decisions to make: it takes no strategies")
        if rotate_seats:
            raise CardsimError(f"{info.name} has no strategies to rotate: drop --rotate-seats")
        return Request(info, players, games, seed, rules, threads)
    rules.check_players(players)
    specs = seat_specs(strategies, players)
    names = tuple(str(spec) for spec in specs)
    return Request(info, players, games, seed, rules, threads, names, bool(rotate_seats), specs)


def seat_specs(strategies, players: int) -> tuple:
    """Each seat's strategy spec: those given (names, specs or user functions), in seat
    order, then ``random``."""
    from .games.shedding.strategies import parse

    given = list(strategies or [])
    if len(given) > players:
        raise CardsimError(f"{len(given)} strategies given for {players} seats")
    return tuple(parse(strategy) for strategy in given + ["random"] * (players - len(given)))


def seat_strategies(strategies, players: int) -> tuple[str, ...]:
    """Each seat's strategy, written in full: those given, in seat order, then ``random``."""
    return tuple(str(spec) for spec in seat_specs(strategies, players))


def request_from_meta(meta: dict, threads: int | None = None) -> Request:
    """The request that a run folder's ``run.json`` records (to resume it)."""
    if any(str(name).startswith("user:") for name in meta.get("strategies", [])):
        raise CardsimError(
            "this run has a user strategy (a Python function): run it again from Python, "
            "it cannot be resumed from run.json"
        )
    try:
        return make_request(
            meta["game"],
            meta["players"],
            meta["games"],
            meta["seed"],
            threads,
            _as_overrides(meta["rules"]),
            meta.get("strategies"),
            meta.get("rotate_seats", False),
        )
    except KeyError as exc:
        raise CardsimError(f"run.json lacks {exc}; it cannot be resumed") from None


def _as_overrides(rules: dict) -> dict:
    """A run.json ``rules`` entry as knob overrides (everything but the preset's name)."""
    return {key: value for key, value in rules.items() if key != "preset"}


@dataclass(frozen=True)
class Chunk:
    """The records of consecutive games (or matches) of a run."""

    games: pa.Table
    """One row per game (per deal in match play)."""
    matches: pa.Table | None = None
    """Match play: one row per match."""


MATCH_CHUNK_DEALS = 4
"""In match play a chunk holds ``chunk_size // MATCH_CHUNK_DEALS`` matches (about as many
records as a chunk of single games)."""


TAIL_FLOOR = 1 << 16
"""The smallest chunk :func:`chunk_spans` cuts a run's tail into."""


def chunk_spans(start: int, stop: int, size: int) -> Iterator[tuple[int, int]]:
    """``(first, count)`` of the chunks that cover games ``start .. stop - 1``.

    Chunks hold ``size`` games, except the last ``size`` or fewer: they are halved down to
    ``TAIL_FLOOR``. A chunk's records are written while the next is played, but the last
    write overlaps nothing (one core idles through it); halving the tail makes that write
    short.
    """
    first = start
    while first < stop:
        left = stop - first
        if left > size:
            count = size
        elif left >= 2 * TAIL_FLOOR:
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
    records of the run from 0."""
    numba.set_num_threads(request.threads)
    spans = [(0, request.games)] if spans is None else spans
    seatings = request.seatings()
    chunk_size = max(1, chunk_size // len(seatings))
    if request.match_play:
        chunk_size = max(1, chunk_size // MATCH_CHUNK_DEALS)
    done = request.games - sum(stop - first for first, stop in spans)
    replayed = 0
    with _progress_bar(request, progress, done) as advance:
        for span_first, span_stop in spans:
            for first, count in chunk_spans(span_first, span_stop, chunk_size):
                row = replayed + (rows_before(first) if rows_before else 0)
                chunk = _play_chunk(request, seatings, first, count, row)
                replayed += chunk.games.num_rows
                yield first, count, chunk
                advance(count)


def play_one(request: Request, game: int, row: int = 0) -> Chunk:
    """The records of game (match) ``game`` alone, in every seating: what the run holds
    for it. ``row``: the ``game`` number of its first record in match play."""
    numba.set_num_threads(request.threads)
    return _play_chunk(request, request.seatings(), game, 1, row)


def _play_chunk(request: Request, seatings: list, first: int, count: int, row: int) -> Chunk:
    """Games (matches) ``first .. first + count - 1`` in every seating; ``row``: the
    ``game`` number of the first record in match play."""
    if request.game.family == "beggar":
        return _beggar_chunk(request, first, count)
    parts = []
    for rotation, seating in enumerate(seatings):
        if request.match_play:
            part = _match_chunk(request, seating, first, count, row)
        else:
            part = _shedding_chunk(request, seating, first, count)
        parts.append(_with_rotation(part, rotation) if request.rotate_seats else part)
    return _interleave(parts, request.match_play, row)


def _beggar_chunk(request: Request, first: int, count: int) -> Chunk:
    from .games.beggar import batch, records

    columns = batch.play_random(request.seed, first, count, request.players, request.rules)
    return Chunk(records.to_table(first, columns, request.players))


def _shedding_chunk(request: Request, seating, first: int, count: int) -> Chunk:
    from .games.shedding import batch, records

    columns = batch.play_random(
        request.rules, request.players, list(seating), request.seed, first, count
    )
    names = [str(spec) for spec in seating]
    return Chunk(records.to_table(first, columns, names, request.strategies))


def _match_chunk(request: Request, seating, first: int, count: int, first_row: int) -> Chunk:
    from .games.shedding import batch, records

    columns, matches = batch.play_match_batch(
        request.rules, request.players, list(seating), request.seed, first, count
    )
    names = [str(spec) for spec in seating]
    return Chunk(
        records.to_table(first_row, columns, names, request.strategies),
        records.matches_table(matches, names, request.strategies),
    )


def _with_rotation(chunk: Chunk, rotation: int) -> Chunk:
    """Tag a chunk's records with the seating they were played in (``rotation`` int8)."""

    def tag(table: pa.Table | None) -> pa.Table | None:
        if table is None:
            return None
        column = arrow.constant(rotation, table.num_rows, np.int8)
        return table.append_column("rotation", column)

    return Chunk(tag(chunk.games), tag(chunk.matches))


def _interleave(parts: list[Chunk], match_play: bool, first_row: int) -> Chunk:
    """One chunk from the seatings' parts, its records in (game, rotation) order, or
    (match, rotation, deal) in match play, so that the order of a run's records does not
    depend on how it was cut into chunks; match play's ``game`` numbers the rows again
    from ``first_row``."""
    if len(parts) == 1:
        return parts[0]
    games = pa.concat_tables([part.games for part in parts])
    if not match_play:
        return Chunk(games.sort_by([("game", "ascending"), ("rotation", "ascending")]))
    games = games.sort_by(
        [("match", "ascending"), ("rotation", "ascending"), ("deal", "ascending")]
    )
    numbers = arrow.numeric(np.arange(first_row, first_row + games.num_rows, dtype=np.int64))
    games = games.set_column(games.schema.get_field_index("game"), "game", numbers)
    matches = pa.concat_tables([part.matches for part in parts])
    matches = matches.sort_by([("match", "ascending"), ("rotation", "ascending")])
    return Chunk(games, matches)


def run(
    game: str,
    players: int | None = None,
    games: int = 1_000_000,
    seed: int | None = None,
    threads: int | None = None,
    out=None,
    rules=None,
    *,
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
    also holds the matches (one row per match).
    """
    request = make_request(game, players, games, seed, threads, rules, strategies, rotate_seats)
    writer = None
    if out is not None:
        if not skip_space_check:
            check_space(Path(out), request.meta(), request.games)
        writer = RunWriter(out, request.meta(), force=force)
    tables: list[pa.Table] = []
    try:
        stream(
            request,
            writer,
            lambda chunk: tables.append(chunk.games),
            progress=progress,
            chunk_size=chunk_size,
        )
    finally:
        if writer is not None:
            writer.close()
    frame = pa.concat_tables(tables).to_pandas()
    frame.attrs.update(request.meta())
    return frame


def stream(
    request: Request,
    writer: RunWriter | None,
    consume: Callable[[Chunk], None] | None = None,
    *,
    progress: bool = False,
    chunk_size: int = DEFAULT_CHUNK,
    start: int = 0,
) -> None:
    """Play ``request``, writing its run folder through ``writer`` and feeding ``consume``.

    With a writer, the games its folder lacks are played (all of them for a new run; for
    a resumed one the unfinished tail and any chunk found damaged); without one, the games
    (matches) from ``start`` on. ``consume`` receives the chunks in the order played.

    Ctrl-C and SIGTERM (in the main thread) stop the run at the end of the chunk being
    played: the chunks finished so far are kept, ``run.json`` says ``"status":
    "interrupted"``, and :class:`RunInterrupted` is raised. A second signal stops at once.
    A full disk stops it the same way and raises :class:`.results.DiskFull`. The writer
    keeps the folder's lock: the caller closes it.
    """
    started = time.perf_counter()
    spans = writer.todo(request.games) if writer is not None else [(start, request.games)]
    # The chunks held before this session (a resumed run's), not those it writes.
    rows_before = writer.manifest.rows_before if writer is not None else None

    def finish(status: str) -> int:
        elapsed = round(time.perf_counter() - started, 3)
        return writer.finish({"status": status, "elapsed_s": elapsed})

    def deliver(first: int, count: int, chunk: Chunk) -> None:
        if writer is not None:
            writer.write(first, count, {"games": chunk.games, "matches": chunk.matches})
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
            with closing(play_chunks(request, chunk_size, progress, spans, rows_before)) as chunks:
                for first, count, chunk in chunks:
                    if pending is not None:
                        pending.result()
                    pending = delivery.submit(deliver, first, count, chunk)
                    if request.threads == 1:
                        pending.result()
                    if stop.requested:
                        raise KeyboardInterrupt
                if pending is not None:
                    pending.result()
        except KeyboardInterrupt:
            _settle(pending)  # let a write in flight finish
            completed = finish("interrupted") if writer is not None else 0
            raise RunInterrupted(completed, request.games, writer and writer.folder) from None
        except BaseException:  # a full disk (DiskFull), a user strategy's error...
            _settle(pending)
            if writer is not None:
                with suppress(OSError):  # run.json then says "running": a crashed run
                    finish("interrupted")
            raise
    if writer is not None:
        finish("complete")


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


class _progress_bar:
    """A rich progress bar over games played (a no-op when ``shown`` is false)."""

    def __init__(self, request: Request, shown: bool, done: int = 0):
        self.request, self.shown, self.done = request, shown, done
        self.bar: Progress | None = None

    def __enter__(self):
        if not self.shown:
            return lambda count: None
        self.bar = Progress(
            TextColumn(f"{self.request.game.title}, {self.request.players} players"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(f"{self.request.unit}es" if self.request.match_play else "games"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
        )
        self.bar.start()
        task = self.bar.add_task("games", total=self.request.games, completed=self.done)
        return lambda count: self.bar.advance(task, count)

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()
        return False
