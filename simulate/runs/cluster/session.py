"""The client's side of a run on a cluster: connect, check the workers, play in order.

:func:`connect` reaches the scheduler (or starts a ``LocalCluster`` of one-thread worker
processes), waits for a worker, and refuses workers whose cardsim, numba or numpy differ
from the client's. :meth:`Cluster.play_chunks` is :func:`simulate.runs.engine.play_chunks` on
the cluster: it cuts the games into tasks of one chunk each, keeps at most
:data:`IN_FLIGHT_PER_WORKER` tasks per worker in flight (so the chunks waiting on the
client stay bounded), and yields the chunks in game order as they arrive, so that
:func:`simulate.runs.engine.stream` writes the run folder exactly as for a run played here.

Faults: a worker that dies takes its tasks with it and the scheduler runs them again
elsewhere (a task that kills :data:`ALLOWED_FAILURES` workers stops the run, kept as an
interruption); a scheduler lost mid-run stops the run as an interruption
(:class:`simulate.runs.engine.RunStopped`); the client's Ctrl-C and SIGTERM are
:func:`~simulate.runs.engine.stream`'s, and the tasks still in flight are cancelled.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import os
import signal
import threading
import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ...core.errors import CardsimError
from ...games.spec import Chunk
from ..request import Request, max_threads
from .address import SchedulerAddress, parse_address
from .task import (
    PROBE_PREFIX,
    VERSIONED,
    Along,
    check_versions,
    describe,
    numbered,
    play_task,
    probe_reply,
    probe_storage,
    stage_played,
    worker_versions,
)

WRITES_VARIABLE = "CARDSIM_CLUSTER_WRITES"
"""``client``: a cluster's client writes every record, even where the workers could."""

CONNECT_TIMEOUT_S = 5
"""How long to try to reach a scheduler before saying it cannot be reached."""
WORKERS_TIMEOUT_S = 30
"""How long to wait for a scheduler's first worker."""
TASKS_PER_WORKER = 4
"""A run is cut into about this many tasks per worker (fewer where chunks would exceed
:data:`simulate.runs.engine.DEFAULT_CHUNK` records), so that the last tasks are short."""
SMALLEST_TASK = 1 << 14
"""Records below which a run is not cut further (a task then takes some 20 ms or more)."""
AGGREGATE_TASK_CHUNKS = 16
"""An aggregate-only task may hold this many chunks (played and reduced one after the
other on its worker): the client merges and writes the aggregates once per task (about
50 ms here), so tasks of one chunk would cap a run at about 20 chunks a second, however
many workers play them; the worker's memory stays one chunk's."""
IN_FLIGHT_PER_WORKER = 2
"""Tasks in flight per worker: one played, one waiting, so a worker never idles for the
round trip. The chunks held by the client are at most this many per worker."""
ALLOWED_FAILURES = 3
"""Dask's ``distributed.scheduler.allowed-failures``: a task whose workers died this many
times is given up (its error is ``KilledWorker``)."""


def _distributed():
    """The ``distributed`` module, or one line saying how to install it."""
    try:
        import distributed
    except ImportError:
        raise CardsimError(
            "running on a Dask cluster needs the package distributed, which is not installed "
            "here: pip install 'cardsim[cluster]'"
        ) from None
    return distributed


@contextmanager
def connect(address, *, threads: int | None = None, echo=None) -> Iterator[Cluster]:
    """The cluster at ``address`` (``tcp://HOST:PORT``, ``local`` or ``local:N``) for the
    length of the ``with`` block; closed after it (a local one is shut down).

    ``threads``: numba's threads in each worker (default: the worker's cores; on a local
    cluster of N workers, the cores here divided among them). Before anything is written:
    an address that is not one of those forms, a scheduler not reached within
    :data:`CONNECT_TIMEOUT_S`, one without workers for :data:`WORKERS_TIMEOUT_S`, and
    workers of other versions are each refused in one line (:class:`CardsimError`)."""
    where = parse_address(address)
    distributed = _distributed()
    quiet = _Quiet()
    local = client = None
    try:
        if where.local:
            local = _local_cluster(distributed, where.workers)
            if threads is None:
                threads = max(1, max_threads() // where.workers)
            url = local.scheduler_address
        else:
            url = where.url
            found = _not_a_scheduler(url, CONNECT_TIMEOUT_S)
            if isinstance(found, OSError):
                raise CardsimError(_unreachable(where, found))
            if found is not None:
                raise CardsimError(
                    f"no Dask scheduler answers at {where.text} (tried for {CONNECT_TIMEOUT_S} "
                    f"s: {found}); is a scheduler running there (dask scheduler), and is "
                    "that its address?"
                )
        try:
            client = distributed.Client(url, timeout=f"{CONNECT_TIMEOUT_S}s", set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise CardsimError(_unreachable(where, exc)) from None
        cluster = Cluster(client, where, threads)
        cluster.check_workers()
        if echo is not None:
            echo(f"on {cluster.text}")
        yield cluster
    finally:
        try:
            if client is not None:
                client.close(timeout=CONNECT_TIMEOUT_S)
            if local is not None:
                local.close(timeout=2 * CONNECT_TIMEOUT_S)
        except Exception:  # a lost scheduler: nothing left to close
            pass
        quiet.restore()


def _unreachable(where, exc: BaseException) -> str:
    return (
        f"cannot reach the Dask scheduler at {where.text} (tried for {CONNECT_TIMEOUT_S} s: "
        f"{_first_line(exc)}); is a scheduler running there (dask scheduler), and its port "
        "open to this machine?"
    )


def _not_a_scheduler(url: str, timeout: float) -> str | OSError | None:
    """None when a Dask scheduler at ``url`` answers its ``identity`` within ``timeout``
    seconds; the OSError when nothing could be reached there; else what happened in
    words. distributed's own connection waits for the
    peer's handshake without a limit, so a server that accepts and says nothing (a web
    server, a port forwarded nowhere) would hang a Client for good; this asks in a thread
    of its own, with its own event loop, and gives up on time."""
    import asyncio

    async def ask():
        from distributed.comm import connect

        # its retries end before the whole answer's limit: a closed port is an OSError
        comm = await connect(url, timeout=0.6 * timeout)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    found: dict = {}

    def run() -> None:
        try:
            found["answer"] = asyncio.run(asyncio.wait_for(ask(), timeout))
        except BaseException as exc:  # noqa: BLE001 (reported in words)
            found["error"] = exc

    thread = threading.Thread(target=run, name="cardsim-scheduler-probe", daemon=True)
    thread.start()
    thread.join(timeout + 2)
    if "error" in found:
        error = found["error"]
        if isinstance(error, TimeoutError | asyncio.TimeoutError):
            return "it accepted the connection but did not answer as a scheduler"
        if isinstance(error, OSError):
            return error
        return f"what answered is not a Dask scheduler ({_first_line(error)})"
    answer = found.get("answer")
    if answer is None:
        return "it did not answer"
    if not isinstance(answer, dict) or answer.get("type") != "Scheduler":
        return "what answered is not a Dask scheduler"
    return None


def _local_cluster(distributed, workers: int):
    """A ``LocalCluster`` of ``workers`` processes, one thread each, no dashboard. Its
    processes ignore SIGINT, so that Ctrl-C in a terminal (sent to the whole process group)
    reaches the client alone, which stops the run cleanly and then shuts them down."""
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if in_main else None
    try:
        with warnings.catch_warnings():
            # its scheduler's HTTP server moving off a busy port 8787: nothing to act on
            warnings.filterwarnings("ignore", "Port .* is already in use", UserWarning)
            return distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.CRITICAL,
            )
    finally:
        if in_main:
            signal.signal(signal.SIGINT, previous)


class _Quiet:
    """Dask's own log lines off (our errors say what happened, in one line), restored
    after the run."""

    PREFIXES = ("distributed", "tornado")

    def __init__(self):
        # Dask's logging configuration gives some of its loggers levels of their own
        # (distributed.client...): each one is silenced, not just the parents.
        names = [
            name
            for name in (*self.PREFIXES, *logging.root.manager.loggerDict)
            if name.split(".")[0] in self.PREFIXES
        ]
        self.levels = {name: logging.getLogger(name).level for name in names}
        for name in names:
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)

    def restore(self) -> None:
        for name, level in self.levels.items():
            logging.getLogger(name).setLevel(level)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class Cluster:
    """A connected Dask client and what cardsim needs of it."""

    def __init__(self, client, where: SchedulerAddress, threads: int | None):
        self.client, self.where, self.threads = client, where, threads
        self.probed: set[str] = set()
        """The workers whose probe found the run folder shared (:meth:`shared_storage`)."""
        self.stage_failed: str | None = None
        """Why the workers stopped writing a run's records mid-run (a worker that joined
        cannot reach the folder), or None."""

    def writing(self, request: Request, folder) -> tuple[bool, str]:
        """Whether the workers write the records of ``request`` into ``folder`` (a run
        folder on a filesystem, open for writing), and the words that say who writes and
        why: the workers, where every worker's probe (:meth:`shared_storage`) finds the
        folder shared; else the client, as before. ``CARDSIM_CLUSTER_WRITES`` in the
        environment: ``auto`` (the default: as just said), ``client`` (the client
        whatever the storage) or ``workers`` (storage the workers cannot write is refused
        in one line, :class:`CardsimError`, before anything is written). The probe leaves
        nothing behind: a folder it had to make is removed again."""
        asked = os.environ.get(WRITES_VARIABLE, "auto").strip().lower() or "auto"
        if asked not in ("auto", "workers", "client"):
            raise CardsimError(
                f"{WRITES_VARIABLE}={asked!r} is not a way to write a cluster's records: "
                "use auto, workers or client"
            )
        if request.records == "none":
            return False, "the client writes the statistics (only they cross the network)"
        if asked == "client":
            return False, f"the client writes the records ({WRITES_VARIABLE}=client)"
        problem = self.shared_storage(folder)
        if problem is not None and asked == "workers":
            raise CardsimError(
                f"the workers cannot write the run folder {folder}: {problem}; "
                f"{WRITES_VARIABLE}=workers needs a folder every worker reaches at the same "
                "path (unset it and the client writes the records)"
            )
        if problem is not None:
            return False, f"the client writes the records ({problem})"
        return True, f"the workers write the records into {folder} (shared storage)"

    def shared_storage(self, folder, workers: list[str] | None = None) -> str | None:
        """Probe ``workers`` (default: every worker) for the run folder ``folder``: the
        client writes a file into its incoming area, each worker reads it, writes one of
        its own and reads it back (:func:`.task.probe_storage`), and the client reads each
        worker's file and deletes them all. None when every probed worker shares the
        folder (they join :attr:`probed`), else what failed, in words."""
        from ..folder.writer import INCOMING

        area = Path(folder) / INCOMING
        made = [path for path in (Path(folder), area) if not path.exists()]
        token = uuid.uuid4().hex
        mine = area / f"{PROBE_PREFIX}{token}"
        try:
            area.mkdir(parents=True, exist_ok=True)
            mine.write_text(token, encoding="utf-8")
            try:
                answers = self.client.run(
                    probe_storage, str(Path(folder).resolve()), token, workers=workers
                )
            except Exception as exc:  # a worker lost while it answered
                return f"the probe of the workers failed: {_first_line(exc)}"
            for address, problem in sorted(answers.items()):
                if problem is not None:
                    return problem
                reply = Path(probe_reply(str(Path(folder).resolve()), token, f"worker {address}"))
                try:
                    if reply.read_text(encoding="utf-8") != f"worker {address}":
                        return f"worker {address} writes another file than the client reads"
                except OSError:
                    return f"worker {address} writes {Path(folder).resolve()} on storage the client does not see"
                finally:
                    reply.unlink(missing_ok=True)
                self.probed.add(f"worker {address}")
        finally:
            mine.unlink(missing_ok=True)
            for path in reversed(made):  # what the probe made, if left empty
                with contextlib.suppress(OSError):
                    path.rmdir()
        return None

    @property
    def workers(self) -> int:
        """The workers the scheduler has now."""
        return len(self.client.nthreads())

    @property
    def text(self) -> str:
        """``2 workers at local:2`` (for the banner)."""
        count = self.workers
        return f"{count:,} worker{'s' if count != 1 else ''} at {self.where.text}"

    def check_workers(self) -> None:
        """Wait for a worker; refuse workers whose :data:`VERSIONED` differ from ours."""
        try:
            self.client.wait_for_workers(1, timeout=WORKERS_TIMEOUT_S)
        except (TimeoutError, OSError):
            raise CardsimError(
                f"the Dask scheduler at {self.where.text} has no workers (waited "
                f"{WORKERS_TIMEOUT_S} s); start some with: dask worker {self.where.text} "
                "--nthreads 1"
            ) from None
        try:
            found = self.client.run(worker_versions)
        except Exception as exc:
            raise CardsimError(
                f"the workers at {self.where.text} cannot run cardsim ({type(exc).__name__}: "
                f"{_first_line(exc)}); every worker needs cardsim installed with the "
                "client's versions"
            ) from None
        mine = worker_versions()
        for address, versions in sorted(found.items()):
            check_versions(mine, versions, f"worker {address}")

    def task_size(self, request: Request, chunk_size: int, left: int, along=None) -> int:
        """Games (matches) per task: about :data:`TASKS_PER_WORKER` tasks per worker,
        none over ``chunk_size`` records (:data:`AGGREGATE_TASK_CHUNKS` times that in an
        aggregate-only run, a request of ``records="none"`` not played ``along`` others)
        nor (unless the run is that small) under :data:`SMALLEST_TASK`."""
        from ..engine import games_per_chunk

        most = games_per_chunk(request, chunk_size)
        if request.records == "none" and along is None:
            most *= AGGREGATE_TASK_CHUNKS
        smallest = games_per_chunk(request, SMALLEST_TASK)
        balanced = -(-left // (TASKS_PER_WORKER * max(1, self.workers)))
        return max(1, min(most, max(smallest, balanced)))

    def play_chunks(
        self,
        request: Request,
        chunk_size: int | None = None,
        progress: bool = False,
        spans: list[tuple[int, int]] | None = None,
        rows_before=None,
        encoded: bool = False,
        along: Along | None = None,
        stage=None,
    ) -> Iterator[tuple[int, int, Chunk]]:
        """:func:`simulate.runs.engine.play_chunks` on the cluster: the same arguments, the
        chunks yielded in game order as ``(first, count, chunk)``; the progress bar counts
        the games of every task as it comes back. Closing the generator cancels the tasks
        still in flight. A request of ``records="none"``: each task returns its chunk
        reduced to its statistics (:func:`simulate.runs.aggregate_runs.reduced`), yielded as it
        is. ``along``: the variants each task plays together with ``request``
        (:mod:`simulate.runs.cluster.together`).
        ``encoded``: the tables that go to the run folder as they are come encoded
        (:func:`.task.play_task`), for a caller that only writes them. ``stage`` (the run
        folder, where :meth:`writing` said the workers write): each task writes its files
        there itself and its chunk holds their
        :class:`~simulate.runs.folder.writer.Staged` lines, which the writer commits; a
        task that ran on a worker not yet probed probes it first, and where that worker
        (or any staged file) fails the check, the task is played again with its records
        sent back, and so is every later one (:attr:`stage_failed` says why)."""
        from distributed import as_completed

        from ..engine import DEFAULT_CHUNK, ProgressBar, chunk_spans

        spans = [(0, request.games)] if spans is None else spans
        left = sum(stop - first for first, stop in spans)
        size = self.task_size(request, chunk_size or DEFAULT_CHUNK, left, along)
        tasks = [chunk for first, stop in spans for chunk in chunk_spans(first, stop, size)]
        task = describe(request, threads=self.threads)
        window = max(2, IN_FLIGHT_PER_WORKER * self.workers)
        run_id = uuid.uuid4().hex[:12]
        live: dict[str, tuple[int, object]] = {}  # key -> (position, future)
        arrived: dict[int, Chunk] = {}
        queue = as_completed(loop=self.client.loop)
        submitted = replayed = 0
        # Matches of any length, staged: a task's chunk is played and kept on its worker
        # (held), its deals counted (rows_of); once every earlier task's are, its deals
        # are numbered and staged there (stage_played), never crossing the network.
        held: dict[int, object] = {}  # position -> the future of its chunk, on a worker
        rows_of: dict[int, int] = {}  # position -> its records, once known
        counts: set[str] = set()  # the keys of the futures that count a chunk's records
        numbered_up_to, rows_ahead = 0, 0
        with ProgressBar(request, progress, request.games - left) as bar:
            try:

                def enqueue(position: int, future, counting: bool = False) -> None:
                    live[future.key] = (position, future)
                    queue.add(future)
                    if counting:
                        counts.add(future.key)

                def submit(position: int, attempt: str = "") -> None:
                    at, games = tasks[position]
                    staging = None if stage is None or self.stage_failed else str(stage)
                    key = f"cardsim-{run_id}-{at}{attempt}"
                    row = request.records_before(at) if staging else 0
                    if staging is not None and row is None:
                        chunk = self.client.submit(
                            play_task, task, at, games, along, chunk_size, key=key, pure=False
                        )
                        held[position] = chunk
                        rows = self.client.submit(_records, chunk, key=f"{key}-rows", pure=False)
                        enqueue(position, rows, counting=True)
                        return
                    future = self.client.submit(
                        play_task,
                        task,
                        at,
                        games,
                        along,
                        chunk_size,
                        encoded,
                        staging,
                        row,
                        key=key,
                        pure=False,
                    )
                    enqueue(position, future)

                def number_held() -> None:
                    """Stage each held chunk whose first deal's number is now known."""
                    nonlocal numbered_up_to, rows_ahead
                    while numbered_up_to in rows_of:
                        position = numbered_up_to
                        chunk = held.pop(position, None)
                        if chunk is not None and self.stage_failed:
                            submit(position, "-again")  # played again, sent back
                        elif chunk is not None:
                            at = tasks[position][0]
                            row = rows_ahead + (rows_before(at) if rows_before else 0)
                            future = self.client.submit(
                                stage_played,
                                chunk,
                                str(stage),
                                at,
                                row,
                                key=f"cardsim-{run_id}-{at}-staged",
                                pure=False,
                            )
                            enqueue(position, future)
                        rows_ahead += rows_of[position]
                        numbered_up_to += 1

                for position, (first, count) in enumerate(tasks):
                    while submitted < min(len(tasks), position + window):
                        submit(submitted)
                        submitted += 1
                    while position not in arrived:
                        at, future = live.pop(next(queue).key)
                        found = self._result(future, tasks[at])
                        if future.key in counts:  # a held chunk's deals, counted
                            rows_of[at] = found
                            number_held()
                            continue
                        if stage is not None and not self._committable(found, stage):
                            held.pop(at, None)
                            submit(at, "-again")  # its records come back to the client
                            continue
                        arrived[at] = found
                        rows_of.setdefault(at, _records(found))
                        number_held()
                        bar.advance(tasks[at][1])
                    chunk = arrived.pop(position)
                    if _staged(chunk):  # numbered by its worker, written into place
                        replayed += _records(chunk)
                        yield first, count, chunk
                        continue
                    if request.match_play:
                        row = replayed + (rows_before(first) if rows_before else 0)
                        chunk = numbered(chunk, row)
                    replayed += _records(chunk)
                    yield first, count, chunk
            finally:
                queue.clear()
                if live or held:
                    try:
                        futures = [future for _, future in live.values()]
                        self.client.cancel([*futures, *held.values()])
                    except Exception:  # a lost scheduler took them already
                        pass

    def _committable(self, chunk: Chunk, folder) -> bool:
        """Whether a staged ``chunk`` can be committed: its worker probed (now, if it
        joined since the run began) and every staged file where the client sees it. A
        chunk whose tables came back as records is committable as it is. Sets
        :attr:`stage_failed` when not."""
        from ..folder.writer import staged_problem

        if not _staged(chunk):
            return True
        tables = {kind: getattr(chunk, kind) for kind in ("games", "matches", "events", "trace")}
        workers = {table.worker for table in tables.values() if table is not None}
        for worker in sorted(workers - self.probed):
            address = worker.removeprefix("worker ")
            problem = self.shared_storage(folder, [address])
            if problem is not None:
                self.stage_failed = problem
                return False
        problem = staged_problem(Path(folder), tables)
        if problem is not None:
            self.stage_failed = problem
            return False
        return True

    def _result(self, future, span: tuple[int, int]) -> Chunk:
        """A task's chunk; its failure as cardsim's: a lost scheduler stops the run as an
        interruption, a task that killed its workers is one line."""
        from distributed import KilledWorker

        from ..engine import RunStopped

        first, count = span
        try:
            return future.result()
        except concurrent.futures.CancelledError:
            raise RunStopped(f"lost the Dask scheduler at {self.where.text}") from None
        except KilledWorker:
            raise CardsimError(
                f"games {first:,}-{first + count - 1:,} killed {ALLOWED_FAILURES + 1} workers "
                "in turn (out of memory? see the workers' logs); the finished games are kept"
            ) from None
        except OSError as exc:
            if self.client.status in ("running", "connecting"):
                raise
            raise RunStopped(
                f"lost the Dask scheduler at {self.where.text} ({_first_line(exc)})"
            ) from None


def _staged(chunk: Chunk) -> bool:
    """Whether ``chunk``'s records were written by its worker (staged, to be committed)."""
    from ..folder.writer import Staged

    return isinstance(chunk.games, Staged)


def _records(chunk: Chunk) -> int:
    """The records (deals in match play) ``chunk`` holds or, reduced, stands for."""
    return chunk.games.num_rows if chunk.aggregates is None else chunk.aggregates.records


__all__ = ["VERSIONED", "Cluster", "connect", "numbered"]
