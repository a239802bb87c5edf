"""One run folder, as ``cardsim simulate`` and :func:`simulate.app.api.write_run` play it: a
new one or an interrupted one completed (``--resume``: its own request, any settings
given besides checked against it), in two steps so that a cluster is connected between
them: :func:`plan_run` checks everything and writes nothing, :func:`play_plan` opens the
folder and plays; :func:`report` writes the report.

The lines these say (the run's header, a crash or a damaged chunk found on resuming, the
report's steps) go to ``echo``; the command line prints them on standard error, the
Python API with ``progress=True`` only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ...core.errors import CardsimError

Echo = Callable[[str], None]


def silent(line: str) -> None:
    """An ``echo`` that says nothing."""


def cluster_session(scheduler, threads: int | None):
    """The Dask cluster at ``scheduler`` (``tcp://HOST:PORT``, ``local``, ``local:N``) for a
    ``with`` block, each worker's numba threads ``threads`` where given; None without one.
    Connecting comes before anything is written: an unreachable scheduler is one line, and
    the folder is left as it was. A cluster already connected is used as it is (a command
    that plays several runs connects once)."""
    if scheduler is None or not isinstance(scheduler, str):
        from contextlib import nullcontext

        return nullcontext(scheduler)
    from ...runs.cluster import connect

    return connect(scheduler, threads=threads)


@dataclass(frozen=True)
class RunPlan:
    """A run folder to play: ``request`` (a :class:`~simulate.runs.request.Request`: the run's
    own when resumed) into ``out``, new (over a run there only with ``force``) or
    completed (``resume``); ``kept``: a complete run kept as it is (nothing to play)."""

    request: object
    out: Path
    resume: bool = False
    force: bool = False
    kept: bool = False


def plan_run(
    game: str,
    out: Path,
    *,
    resume: bool = False,
    force: bool = False,
    skip_space_check: bool = False,
    keep_complete: bool = False,
    threads: int | None = None,
    backend: str = "cpu",
    players: int | None = None,
    games: int | None = None,
    seed: int | None = None,
    rules: dict | None = None,
    strategies=None,
    rotate_seats: bool = False,
    log: int | str | None = None,
    records: str | None = None,
    trace: int | None = None,
    rollouts: int | None = None,
) -> RunPlan:
    """The plan of a run of ``game`` into ``out``, everything checked and nothing written.

    New: the request of the settings (``games`` None: 1,000,000; ``records`` None:
    ``"all"``; :func:`simulate.runs.request.make_request`), its records' size checked against
    the disk's free space unless ``skip_space_check``. ``resume``: the run's own request
    (:func:`run_request`) to play on ``threads`` and ``backend``, the settings given (None,
    and ``rotate_seats`` False, where not given) checked against it
    (:func:`check_settings`); a complete run is refused, or kept with ``keep_complete``."""
    from dataclasses import replace

    out = Path(out)
    if resume and force:
        raise CardsimError("give --resume (complete the run) or --force (overwrite it), not both")
    if not resume:
        request = new_request(
            game,
            threads=threads,
            backend=backend,
            players=players,
            games=games,
            seed=seed,
            rules=rules,
            strategies=strategies,
            rotate_seats=rotate_seats,
            log=log,
            records=records,
            trace=trace,
            rollouts=rollouts,
        )
        if not skip_space_check:
            from ...runs.folder.writer import check_space

            check_space(out, request.meta(), request.games)
        return RunPlan(request, out, force=force)
    from ...runs.folder.writer import read_meta
    from ...runs.request import check_backend

    request = run_request(game, out, threads)
    check_settings(
        request,
        out,
        players=players,
        games=games,
        seed=seed,
        overrides=rules,
        strategies=strategies,
        rotate_seats=rotate_seats,
        log=log,
        records=records,
        trace=trace,
        rollouts=rollouts,
    )
    if backend != "cpu":
        spec = request.game.spec
        request = replace(
            request, backend=check_backend(backend, game=request.game.name, backends=spec.backends)
        )
    kept = keep_complete and read_meta(out).get("status") == "complete"
    return RunPlan(request, out, resume=True, kept=kept)


def new_request(
    game: str,
    *,
    games: int | None = None,
    log: int | str | None = None,
    records: str | None = None,
    trace: int | None = None,
    rollouts: int | None = None,
    **settings,
):
    """The request of a new run of ``game`` (:func:`simulate.runs.request.make_request`) with
    the commands' defaults: ``games`` None, 1,000,000; ``log`` None, no game logged (or
    as ``--log`` takes it: ``"1,000"``, ``"all"``); ``records`` None, ``"all"``; ``trace``
    None, no game traced; ``rollouts`` None, 64 a point."""
    from ...runs.request import DEFAULT_GAMES, DEFAULT_ROLLOUTS, make_request

    return make_request(
        game,
        games=DEFAULT_GAMES if games is None else games,
        log=log_count(log),
        records="all" if records is None else records,
        trace=0 if trace is None else trace,
        rollouts=DEFAULT_ROLLOUTS if rollouts is None else rollouts,
        **settings,
    )


def play_plan(plan: RunPlan, *, cluster=None, progress: bool = False, echo: Echo = silent) -> None:
    """Open the folder of ``plan`` (:func:`plan_run`) and play its games into it
    (:func:`play_folder`); a kept run says so. A new run with a strong player says first
    what it will cost (:mod:`simulate.runs.cost`)."""
    from ...runs.cost import estimate_words, trace_words
    from ...runs.folder.writer import RunWriter

    if plan.kept:
        echo(f"{plan.out}: the run is complete, kept")
        return
    # who writes a cluster's records, probed before anything is written
    writes = None if cluster is None else cluster.writing(plan.request, plan.out)
    if plan.resume:
        writer = reopen(plan.out, echo=echo)
    else:
        for words in (estimate_words([plan.request]), trace_words(plan.request)):
            if words:
                echo(words)
        writer = RunWriter(plan.out, plan.request.meta(), force=plan.force)
    play_folder(
        plan.request, writer, plan.out, cluster=cluster, writes=writes, progress=progress, echo=echo
    )


def run_request(game: str, out: Path, threads: int | None):
    """The request that the run in ``out`` (a run of ``game``) records in its run.json,
    to play on ``threads``."""
    from ...games.registry import resolve_game
    from ...runs.folder.writer import read_meta
    from ...runs.request import request_from_meta

    info = resolve_game(game)
    request = request_from_meta(read_meta(out), threads=threads)
    if request.game != info:
        raise CardsimError(f"{out} holds a run of {request.game.name}, not of {game}")
    return request


def reopen(out: Path, *, echo: Echo = silent):
    """The writer of the interrupted run in ``out``, reopened to complete it; ``echo``
    says whether it had crashed and which chunks were found damaged (played again)."""
    from ...runs.folder.writer import RunWriter, crashed, progress_text, read_meta

    was_crashed = crashed(out, read_meta(out))
    writer, meta = RunWriter.resume(out)
    if was_crashed:
        echo(f"{out}: the run crashed after {progress_text(out, meta)}; completing it")
    for problem in writer.damaged:
        echo(f"{out}: damaged, played again: {problem}")
    return writer


def check_settings(
    held,
    out: Path,
    *,
    players: int | None = None,
    games: int | None = None,
    seed: int | None = None,
    overrides: dict | None = None,
    strategies=None,
    rotate_seats: bool = False,
    log: int | str | None = None,
    records: str | None = None,
    trace: int | None = None,
    rollouts: int | None = None,
) -> None:
    """Refuse a resume whose settings that decide records differ from those of the run's
    request ``held`` (:meth:`~simulate.runs.request.Request.identity`), naming each difference
    by its option (the same command with ``--resume`` added is accepted). None, and
    ``rotate_seats`` False, stand for a setting not given."""
    from ...runs.request import logged_games, seat_strategies

    run = held.identity()
    differ = []
    for name, value in (("players", players), ("games", games), ("seed", seed)):
        if value is not None and value != run[name]:
            differ.append(f"--{name} {value} (the run's: {run[name]})")
    if overrides is not None:
        asked = held.game.spec.rules(held.game.name, overrides).to_dict()
        for knob in sorted(set(asked) | set(run["rules"])):
            if asked.get(knob) != run["rules"].get(knob):
                differ.append(f"{knob} {asked.get(knob)!r} (the run's: {run['rules'].get(knob)!r})")
    if strategies:
        asked = seat_strategies(run["game"], strategies, run["players"])
        if asked != run["strategies"]:
            differ.append(f"seats {','.join(asked)} (the run's: {','.join(run['strategies'])})")
    if rotate_seats and not run["rotate_seats"]:
        differ.append("--rotate-seats (the run's seats do not rotate)")
    if log is not None and logged_games(log_count(log), run["games"]) != run["log"]:
        differ.append(f"--log {log} (the run's: {run['log']})")
    if records is not None and records != run["records"]:
        differ.append(f"--records {records} (the run's: {run['records']})")
    traced = run.get("trace", 0)
    if trace is not None and min(trace, run["games"]) != traced:
        differ.append(f"--trace {trace} (the run's: {traced})")
    if rollouts is not None and traced and rollouts != run["rollouts"]:
        differ.append(f"--rollouts {rollouts} (the run's: {run['rollouts']})")
    if differ:
        raise CardsimError(
            f"--resume completes the run in {out} with its own settings, and these differ: "
            + "; ".join(differ)
        )


def log_count(log: int | str | None) -> int | str:
    """``--log``'s value (``N``, ``1,000``, ``all``; None: 0) as
    :func:`simulate.runs.request.make_request` takes it."""
    if log is None:
        return 0
    if isinstance(log, int) and not isinstance(log, bool):
        return log
    text = str(log).strip().replace(",", "").replace("_", "")
    if text.lower() == "all":
        return "all"
    if text.isdigit():
        return int(text)
    raise CardsimError(f"--log must be a whole number of games from 0, or all, got {log!r}")


def play_folder(
    request,
    writer,
    out: Path,
    *,
    cluster=None,
    writes: tuple[bool, str] | None = None,
    progress: bool = False,
    echo: Echo = silent,
) -> None:
    """Play ``request``'s games into its run folder ``out`` through ``writer`` (closed
    after), on ``cluster`` (:class:`simulate.runs.cluster.session.Cluster`) where given, with a
    progress bar on standard error with ``progress``; first ``echo`` says what is played
    and where. ``writes``: whether the workers write the records, and the words that say
    so (:meth:`simulate.runs.cluster.session.Cluster.writing`; asked here when not given).
    Raises :class:`simulate.runs.engine.RunInterrupted` when a signal stops the run
    (the finished chunks are kept)."""
    from analysis.rendering.words import count_text

    from ..api.playing import stream

    where = count_text(request.threads, "thread") if cluster is None else cluster.text
    if request.backend != "cpu":
        where = f"backend {request.backend}"
    echo(
        f"{request.game.title}: {count_text(request.games, request.unit)}, {request.players} "
        f"players, seed {request.seed}, {where} -> {out}"
    )
    with writer:
        play = None if cluster is None else cluster.play_chunks
        if cluster is not None:
            if writes is None:
                writes = cluster.writing(request, writer.folder)
            play = _cluster_writes(writes, writer, cluster, echo)
        elif "writes" in writer.meta:  # a cluster's run, resumed here
            writer.note(writes="client", writes_why="resumed on one machine, which writes")
        stream(request, writer, progress=progress, play=play)
        if cluster is not None and cluster.stage_failed:
            words = f"the client writes the records from here on ({cluster.stage_failed})"
            writer.note(writes="client", writes_why=words)
            echo(words)


def _cluster_writes(writes: tuple[bool, str], writer, cluster, echo: Echo):
    """Who writes the records of a run on ``cluster`` (``writes``: the workers, where the
    run folder is shared storage, or the client, and why), said on screen and in
    ``run.json`` (``writes``, ``writes_why``); the cluster's source of chunks for
    :func:`stream`."""
    from functools import partial

    workers, words = writes
    writer.note(writes="workers" if workers else "client", writes_why=words)
    echo(words)
    if not workers:
        return cluster.play_chunks
    return partial(cluster.play_chunks, stage=Path(writer.folder).resolve())


def report(run_dir: Path, *, progress: bool = False, **options) -> tuple[Path, Path]:
    """Write a run's report (:func:`analysis.reports.write_report` with ``options``), with
    ``progress`` a spinner on standard error that says which step it is at; returns
    ``(html_path, markdown_path)``."""
    from analysis.reports import write_report

    if not progress:
        return write_report(run_dir, **options)
    from rich.console import Console

    with Console(stderr=True).status(f"report of {run_dir}") as spinner:
        return write_report(
            run_dir,
            status=lambda step: spinner.update(f"report of {run_dir}: {step}"),
            **options,
        )
