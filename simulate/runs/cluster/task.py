"""The worker's side of a run on a cluster: one task plays one chunk.

The client sends each task a :class:`TaskRequest`: the run's settings as ``run.json``
records them (JSON), the module path of each user strategy, the threads numba may use on
the worker, and the client's versions of the packages that decide records. The worker
rebuilds the :class:`~simulate.runs.request.Request` from it (once per process: it is cached),
checks its versions against the client's, and plays the chunk with the CPU kernels
(compiled, or loaded from numba's cache, once per process). The chunk (pyarrow tables)
goes back to the client, which writes it.

A worker plays one task at a time: two threads calling numba's parallel kernels at once
abort its default threading layer, so a worker started with more than one thread still
plays its tasks one after the other.

This module does not import ``distributed`` (only :func:`worker_name` asks it, lazily).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import json
import os
import threading
import uuid
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...core import arrow
from ...core.errors import CardsimError
from ...games.spec import Chunk
from ..request import Request, make_request, max_threads, traced

VERSIONED = ("cardsim", "numba", "numpy")
"""The packages whose versions must be the same on the client and every worker."""


class VersionMismatch(CardsimError):
    """A worker's cardsim, numba or numpy differs from the client's."""


@dataclass(frozen=True)
class TaskRequest:
    """What a worker needs to play any chunk of a run: picklable, hashable, small."""

    meta: str
    """``Request.meta()`` as JSON (what ``run.json`` records)."""
    user_strategies: tuple[tuple[int, str, str], ...] = ()
    """``(seat, module, qualified name)`` of each seat that plays a user strategy."""
    threads: int | None = None
    """Threads numba may use on the worker (None: all its cores); never more than it has."""
    versions: tuple[tuple[str, str], ...] = ()
    """The client's versions of :data:`VERSIONED`, as ``(name, version)`` pairs."""


@functools.cache
def _installed_versions() -> dict[str, str]:
    from ..folder.writer import package_versions

    versions = package_versions()
    return {name: versions[name] for name in VERSIONED}


def worker_versions() -> dict[str, str]:
    """This process's versions of :data:`VERSIONED` (the tests replace this function on a
    worker to play one of another version)."""
    return dict(_installed_versions())


def worker_name() -> str:
    """The address of the Dask worker running this code, or "a worker" outside one."""
    try:
        from distributed import get_worker

        return f"worker {get_worker().address}"
    except (ImportError, ValueError):
        return "a worker"


def check_versions(client: dict[str, str], mine: dict[str, str], where: str) -> None:
    """Refuse, in one line, versions of :data:`VERSIONED` that differ from the client's."""
    differ = [
        f"{name} {mine.get(name, 'not installed')} where the client has {version}"
        for name, version in client.items()
        if mine.get(name) != version
    ]
    if differ:
        raise VersionMismatch(
            f"{where} has {', '.join(differ)}; every worker needs the client's versions of "
            f"{', '.join(VERSIONED)} (refused: its records could differ)"
        )


def describe(request: Request, *, threads: int | None = None) -> TaskRequest:
    """The :class:`TaskRequest` of ``request``, checked to rebuild the same request here:
    a user strategy must be importable by its module path (the workers import it), else
    one line says so."""
    user = []
    for seat, spec in enumerate(request.specs):
        if str(spec).startswith("user:"):
            user.append((seat, *_import_path(getattr(spec, "function", None), str(spec))))
    task = TaskRequest(
        json.dumps(request.meta(), sort_keys=True),
        tuple(user),
        threads,
        tuple(sorted(worker_versions().items())),
    )
    rebuilt, asked = request_of(task).meta(), request.meta()
    differ = sorted(
        key
        for key in (set(rebuilt) | set(asked)) - {"threads"}
        if rebuilt.get(key) != asked.get(key)
    )
    if differ:
        raise CardsimError(
            f"this run cannot be played on a cluster: its {', '.join(differ)} cannot be "
            "sent to the workers yet; run it on one machine"
        )
    return task


def _import_path(function, name: str) -> tuple[str, str]:
    """``(module, qualified name)`` under which the workers import a user strategy."""
    source = getattr(function, "py_func", function)
    module = getattr(source, "__module__", None)
    qualname = getattr(source, "__qualname__", "") or ""
    if not module or module == "__main__" or "<" in qualname:
        where = "a script or notebook (__main__)" if module == "__main__" else "a function"
        if "<" in qualname:
            where = f"{module}.{qualname}, which no import reaches"
        raise CardsimError(
            f"user strategy '{name}' cannot go to the workers: it is defined in {where}; "
            "the workers import a user strategy by its module path, so define it at the top "
            "level of a module that they can import"
        )
    try:
        found = resolve(module, qualname)
    except CardsimError:
        found = None
    if found is not function and getattr(found, "py_func", found) is not source:
        raise CardsimError(
            f"user strategy '{name}' cannot go to the workers: {module}.{qualname} does not "
            "import as this function here; define it at the top level of a module that the "
            "workers can import"
        )
    return module, qualname


def resolve(module: str, qualname: str):
    """The object ``module.qualname`` (a user strategy), imported here."""
    try:
        found = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
    except Exception as exc:  # ImportError, AttributeError, or the module's own error
        raise CardsimError(
            f"the user strategy {module}.{qualname} cannot be imported on {worker_name()}: "
            f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}; every "
            "worker needs the module on its path"
        ) from None
    return found


@functools.lru_cache(maxsize=16)
def request_of(task: TaskRequest) -> Request:
    """The request that ``task`` describes, built (and cached) in this process."""
    meta = json.loads(task.meta)
    strategies = list(meta.get("strategies") or []) or None
    for seat, module, qualname in task.user_strategies:
        strategies[seat] = resolve(module, qualname)
    most = max_threads()
    return make_request(
        meta["game"],
        players=meta["players"],
        games=meta["games"],
        seed=meta["seed"],
        threads=most if task.threads is None else min(task.threads, most),
        rules={key: value for key, value in meta["rules"].items() if key != "preset"},
        strategies=strategies,
        rotate_seats=meta.get("rotate_seats", False),
        log=meta.get("log", 0),
        records=meta.get("records", "all"),
        **traced(meta),
    )


_ONE_AT_A_TIME = threading.Lock()


@dataclass(frozen=True)
class Along:
    """``along`` of :func:`play_task` for an aggregate-only study's cells of one player
    count (:mod:`simulate.runs.paired_runs`): the task plays its range of the base (its
    ``task``) and of each of ``variants`` together, and returns their statistics and
    paired counts (:class:`~simulate.runs.paired_runs.PlayedTogether`)."""

    variants: tuple[TaskRequest, ...]


def play_task(
    task: TaskRequest,
    first: int,
    count: int,
    along: Along | None = None,
    chunk_size: int | None = None,
    encoded: bool = False,
    stage: str | None = None,
    row: int = 0,
) -> Chunk:
    """A Dask task: games (matches) ``first .. first + count - 1`` of the run ``task``
    describes, in every seating, as one chunk. In match play the ``game`` column numbers
    the chunk's records from 0: the client, which knows how many records precede them,
    numbers them again. A task of ``records="none"``: the chunk reduced to its statistics
    (played ``chunk_size`` records at a time, default :data:`simulate.runs.engine.DEFAULT_CHUNK`);
    with ``along`` (:class:`Along`): those of the variants played along too. ``encoded``:
    the tables the client writes as they are (all of them; in match play the matches
    alone, since the client numbers the deals) come as their files' bytes
    (:class:`~simulate.runs.folder.writer.Encoded`), which cross the network in a seventh of
    the room and leave the client only the writing. ``stage`` (the run folder, on storage
    this worker shares with the client): the worker writes the chunk's files itself
    (:func:`~simulate.runs.folder.writer.stage_table`, under an attempt name of its own)
    and returns only their :class:`~simulate.runs.folder.writer.Staged` lines; ``row``:
    then, in match play, the ``game`` number of the chunk's first deal."""
    import numba

    from ..engine import play_chunk

    check_versions(dict(task.versions), worker_versions(), worker_name())
    request = request_of(task)
    if along is not None:
        from ..paired_runs import play_together

        requests = [request, *(request_of(variant) for variant in along.variants)]
        with _ONE_AT_A_TIME:
            numba.set_num_threads(request.threads)
            return Chunk(None, aggregates=play_together(requests, first, count))
    if request.records == "none":  # aggregate-only: only the statistics (and logs) travel
        return _reduced_task(request, json.loads(task.meta), first, count, chunk_size)
    with _ONE_AT_A_TIME:
        numba.set_num_threads(request.threads)
        chunk = play_chunk(request, first, count, row if stage is not None else 0)
    if stage is not None:
        return staged(chunk, stage, first)
    if not encoded:
        return chunk
    from ..folder.writer import Encoded

    if request.match_play:
        return dataclasses.replace(chunk, matches=Encoded.of(chunk.matches))
    return Chunk(
        Encoded.of(chunk.games), events=Encoded.of(chunk.events), trace=Encoded.of(chunk.trace)
    )


def _reduced_task(
    request: Request, meta: dict, first: int, count: int, chunk_size: int | None
) -> Chunk:
    """Games (matches) ``first .. first + count - 1`` reduced to their statistics, played
    a chunk's worth at a time (an aggregate-only task may hold many chunks: the worker's
    memory stays one chunk's), each chunk reduced and merged into the last; the deals are
    numbered from 0 across the whole task, as in one chunk."""
    import numba

    from ..aggregate_runs import reduced
    from ..engine import DEFAULT_CHUNK, games_per_chunk, play_chunk
    from ..log_tables import concat_events

    size = games_per_chunk(request, chunk_size or DEFAULT_CHUNK)
    merged, events, traces, rows = None, [], [], 0
    with _ONE_AT_A_TIME:
        numba.set_num_threads(request.threads)
        for at in range(first, first + count, size):
            part = reduced(play_chunk(request, at, min(size, first + count - at), rows), meta)
            rows += part.aggregates.records
            merged = part.aggregates if merged is None else merged.merge(part.aggregates)
            events.append(part.events)
            traces.append(part.trace)
    return Chunk(None, events=concat_events(events), aggregates=merged, trace=concat_events(traces))


def staged(chunk: Chunk, folder: str, first: int) -> Chunk:
    """``chunk``'s tables written into ``folder``'s incoming area under an attempt name
    no other execution of this task shares (a rerun after a lost worker writes beside a
    late first attempt, never over it); the chunk of their
    :class:`~simulate.runs.folder.writer.Staged` lines."""
    from ..folder.writer import stage_table

    attempt = f"{first:012d}-{uuid.uuid4().hex}"
    worker = worker_name()
    tables = {}
    for kind in ("games", "matches", "events", "trace"):
        table = getattr(chunk, kind)
        tables[kind] = None if table is None else stage_table(folder, attempt, kind, table, worker)
    return Chunk(**tables)


def numbered(chunk: Chunk, row: int) -> Chunk:
    """``chunk`` with its records' ``game`` numbered from ``row``, and its logged deals'
    events and traced deals' trace with them (match play: a task numbers them from 0, not knowing how many deals
    the matches before it had)."""
    games = chunk.games
    if games is not None:
        index = games.schema.get_field_index("game")
        numbers = arrow.numeric(np.arange(row, row + games.num_rows, dtype=np.int64))
        games = games.set_column(index, games.schema.field(index), pa.chunked_array([numbers]))
    events, trace = (_shifted(table, row) for table in (chunk.events, chunk.trace))
    found = chunk.aggregates  # aggregate-only: the longest and first deals it keeps
    if found is not None:
        found = found.shifted(row)
    return dataclasses.replace(chunk, games=games, events=events, aggregates=found, trace=trace)


def _shifted(table: pa.Table | None, row: int) -> pa.Table | None:
    """``table`` (logged events, a trace) with its ``game`` column shifted by ``row``."""
    if table is None:
        return None
    index = table.schema.get_field_index("game")
    shifted = pc.add(table["game"], pa.scalar(row, table.schema.field(index).type))
    return table.set_column(index, table.schema.field(index), shifted)


def stage_played(chunk: Chunk, folder: str, first: int, row: int) -> Chunk:
    """A Dask task, on the worker that holds ``chunk`` (a match-play task's chunk, its
    deals numbered from 0): its deals numbered from ``row`` (:func:`numbered`), then its
    files staged (:func:`staged`)."""
    return staged(numbered(chunk, row), folder, first)


PROBE_PREFIX = "probe-"


def probe_storage(folder: str, token: str, dask_worker=None) -> str | None:
    """Run on a worker: whether it shares the run folder ``folder`` with the client.
    It reads the file ``incoming/probe-<token>`` that the client wrote (it must hold the
    token), writes ``incoming/probe-<token>-<worker>`` (for the client to read back),
    reads it back and leaves it to the client to delete; None when all holds, else what
    failed, in words. ``dask_worker``: given by ``Client.run``."""
    from ..folder.writer import INCOMING

    area = os.path.join(folder, INCOMING)
    where = worker_name() if dask_worker is None else f"worker {dask_worker.address}"
    try:
        with open(os.path.join(area, f"{PROBE_PREFIX}{token}"), encoding="utf-8") as handle:
            if handle.read() != token:
                return f"{where} reads another file at {folder}"
        mine = os.path.join(area, f"{PROBE_PREFIX}{token}-{_probe_name(where)}")
        with open(mine, "w", encoding="utf-8") as handle:
            handle.write(where)
        with open(mine, encoding="utf-8") as handle:
            if handle.read() != where:
                return f"{where} cannot read back what it writes at {folder}"
    except OSError as exc:
        return f"{where} cannot reach {folder} ({exc.strerror or type(exc).__name__})"
    return None


def _probe_name(worker: str) -> str:
    """A worker's address as a file name."""
    return "".join(c if c.isalnum() else "_" for c in worker)


def probe_reply(folder: str, token: str, worker: str) -> str:
    """The path of the file that ``worker`` wrote for the probe ``token``."""
    from ..folder.writer import INCOMING

    return os.path.join(folder, INCOMING, f"{PROBE_PREFIX}{token}-{_probe_name(worker)}")
