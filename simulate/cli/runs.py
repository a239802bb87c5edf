"""``cardsim simulate``, ``report`` and ``verify``: a run folder, from playing to checking."""

from __future__ import annotations

from contextlib import nullcontext
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from ..errors import CardsimError
from .common import (
    ConfigOpt,
    DpiOpt,
    FormatsOpt,
    GameArg,
    PlayersOpt,
    RuleOpt,
    SeatsOpt,
    SeedOpt,
    StrategyOpt,
    ThreadsOpt,
    app,
    chart_options,
    count,
    count_option,
    path_value,
    rule_overrides,
    seat_list,
    user_errors,
)

ReportOpt = Annotated[
    bool,
    typer.Option("--report/--no-report", help="Write the report when the run is complete."),
]
SchedulerOpt = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        metavar="ADDRESS",
        help="Play on a Dask cluster: tcp://HOST:PORT (a running scheduler), local or "
        "local:N (N worker processes here); this machine writes the records, which are "
        "the same as without it (default: play here; needs pip install 'cardsim\\[cluster]').",
    ),
]

SkipSpaceCheckOpt = Annotated[
    bool,
    typer.Option(
        "--skip-space-check",
        help="Start even when the records' estimated size exceeds the disk's free space "
        "(default: off).",
    ),
]


def check_scheduler(scheduler) -> None:
    """Refuse a bad ``--scheduler`` address in one line, before anything else is done."""
    if isinstance(scheduler, str):
        from ..cluster import parse_address

        parse_address(scheduler)


def cluster_session(scheduler, threads: int | None):
    """The cluster of ``--scheduler`` for a ``with`` block (None without one); each
    worker's numba threads are ``--threads`` where given. Connecting comes before anything
    is written: an unreachable scheduler is one line, and the folder is left as it was.
    ``scheduler`` may also be a cluster already connected (``balance`` reuses its own)."""
    if scheduler is None or not isinstance(scheduler, str):
        return nullcontext(scheduler)
    from ..cluster import connect

    return connect(scheduler, threads=threads)


@app.command()
@user_errors
def simulate(
    game: GameArg,
    players: PlayersOpt = None,
    games: Annotated[
        int | None,
        count_option("Number of games (matches, in match play) to play (default: 1,000,000)."),
    ] = None,
    seed: SeedOpt = None,
    out: Annotated[
        Path | None,
        typer.Option(help="Run folder (default: results/<game>-<timestamp>).", parser=path_value),
    ] = None,
    threads: ThreadsOpt = None,
    rule: RuleOpt = None,
    config: ConfigOpt = None,
    strategy: StrategyOpt = None,
    seats: SeatsOpt = None,
    rotate_seats: Annotated[
        bool,
        typer.Option(
            "--rotate-seats",
            help="Play every deal once per cyclic seating of the strategies (the same cards), "
            "so that seat advantage cancels out (default: off).",
        ),
    ] = False,
    report_: ReportOpt = True,
    force: Annotated[bool, typer.Option(help="Overwrite a folder that holds a run.")] = False,
    resume: Annotated[
        bool,
        typer.Option(
            help="Complete the interrupted or crashed run in --out (its own settings), "
            "playing again any chunk found damaged."
        ),
    ] = False,
    skip_space_check: SkipSpaceCheckOpt = False,
    log: Annotated[
        str | None,
        typer.Option(
            metavar="N|all",
            help="Log the first N games (matches) event by event into DIR/events/; all: "
            "every game of a run of at most 100,000 (default: none).",
        ),
    ] = None,
    scheduler: SchedulerOpt = None,
    records: Annotated[
        str | None,
        typer.Option(
            metavar="all|none",
            help="all: keep every game's record; none: keep only exact counts and histograms "
            "(an aggregate-only run: memory and disk constant however many games; "
            "docs/cluster.md) (default: all; with --resume, the run's).",
        ),
    ] = None,
    backend: Annotated[
        str,
        typer.Option(
            metavar="cpu|cuda",
            help="Where the games are played: cpu, or cuda (an NVIDIA GPU; needs pip install "
            "'cardsim\\[cuda]'; built-in strategies only). The records are the same (default: "
            "cpu).",
        ),
    ] = "cpu",
    dpi: DpiOpt = None,
    formats: FormatsOpt = None,
):
    """Play many games into a run folder, then write its report.

    The folder holds run.json, the records chunk by chunk (DIR/games/, one row per game)
    under DIR/manifest.jsonl, and (unless --no-report) the report."""
    from ..folder.writer import RunWriter
    from ..request import DEFAULT_GAMES, make_request

    dpi_, formats_ = chart_options(dpi, formats)
    charts = {"dpi": dpi_, "formats": formats_} if report_ else None
    strategies = seat_list(strategy, seats)
    if scheduler is not None and backend != "cpu":
        raise CardsimError(
            "a --scheduler run plays on its workers' CPUs: give --scheduler or --backend"
        )
    check_scheduler(scheduler)
    if records is not None:
        from ..request import check_records

        check_records(records, "--records")
    if resume:
        if out is None:
            raise CardsimError("--resume needs --out DIR, the folder of the interrupted run")
        if force:
            raise CardsimError(
                "give --resume (complete the run) or --force (overwrite it), not both"
            )
        held = run_request(game, out, threads)
        _check_settings(
            held,
            out,
            players=players,
            games=games,
            seed=seed,
            overrides=rule_overrides(config, rule, game) if (rule or config) else None,
            strategies=strategies,
            rotate_seats=rotate_seats,
            log=log,
            records=records,
        )
        with cluster_session(scheduler, threads) as cluster:
            request, writer = reopen(held, out, backend)
            with writer:
                run_and_report(request, writer, out, charts, cluster=cluster)
    else:
        # Everything is checked before the engine (and numba) is imported: a mistake is
        # reported in a fifth of a second.
        request = make_request(
            game,
            players=players,
            games=DEFAULT_GAMES if games is None else games,
            seed=seed,
            threads=threads,
            rules=rule_overrides(config, rule, game),
            strategies=strategies,
            rotate_seats=rotate_seats,
            log=_log_count(log),
            backend=backend,
            records="all" if records is None else records,
        )
        if out is None:
            stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
            out = Path("results") / f"{request.game.name}-{stamp}"
        meta = request.meta()
        if not skip_space_check and request.records == "all":
            from ..folder.writer import check_space

            check_space(out, meta, request.games)
        with cluster_session(scheduler, threads) as cluster:
            writer = RunWriter(out, meta, force=force)
            with writer:
                run_and_report(request, writer, out, charts, cluster=cluster)


def _check_settings(held, out: Path, **given) -> None:
    """Refuse a --resume whose settings that decide records differ from those of the run's
    request ``held`` (:meth:`~simulate.request.Request.identity`), naming each difference
    (the same command with --resume added is accepted)."""
    from ..request import logged_games, seat_strategies

    run = held.identity()
    differ = []
    for name in ("players", "games", "seed"):
        if given[name] is not None and given[name] != run[name]:
            differ.append(f"--{name} {given[name]} (the run's: {run[name]})")
    if given["overrides"] is not None:
        asked = held.game.spec.rules(held.game.name, given["overrides"]).to_dict()
        for knob in sorted(set(asked) | set(run["rules"])):
            if asked.get(knob) != run["rules"].get(knob):
                differ.append(f"{knob} {asked.get(knob)!r} (the run's: {run['rules'].get(knob)!r})")
    if given["strategies"]:
        asked = seat_strategies(run["game"], given["strategies"], run["players"])
        if asked != run["strategies"]:
            differ.append(f"seats {','.join(asked)} (the run's: {','.join(run['strategies'])})")
    if given["rotate_seats"] and not run["rotate_seats"]:
        differ.append("--rotate-seats (the run's seats do not rotate)")
    if given["log"] is not None:
        if logged_games(_log_count(given["log"]), run["games"]) != run["log"]:
            differ.append(f"--log {given['log']} (the run's: {run['log']})")
    if given["records"] is not None and given["records"] != run["records"]:
        differ.append(f"--records {given['records']} (the run's: {run['records']})")
    if differ:
        raise CardsimError(
            f"--resume completes the run in {out} with its own settings, and these differ: "
            + "; ".join(differ)
        )


def _log_count(log: str | None) -> int | str:
    """``--log``'s value as :func:`simulate.request.make_request` takes it."""
    if log is None:
        return 0
    text = log.strip().replace(",", "").replace("_", "")
    if text.lower() == "all":
        return "all"
    if text.isdigit():
        return int(text)
    raise CardsimError(f"--log must be a whole number of games from 0, or all, got {log!r}")


def resume_run(game: str, out: Path, threads: int | None, backend: str = "cpu"):
    """The request of the run in ``out`` and its writer, reopened to complete it (on
    ``backend``: the records do not depend on it, so it need not be the run's)."""
    return reopen(run_request(game, out, threads), out, backend)


def run_request(game: str, out: Path, threads: int | None):
    """The request that the run in ``out`` (a run of ``game``) records in its run.json,
    to play on ``threads``."""
    from ..folder.writer import read_meta
    from ..games.registry import resolve_game
    from ..request import request_from_meta

    info = resolve_game(game)
    request = request_from_meta(read_meta(out), threads=threads)
    if request.game != info:
        raise CardsimError(f"{out} holds a run of {request.game.name}, not of {game}")
    return request


def reopen(request, out: Path, backend: str = "cpu"):
    """``request`` (the run's own, :func:`run_request`) and the writer of its folder
    ``out``, reopened to complete it on ``backend``."""
    from dataclasses import replace

    from ..folder.writer import RunWriter, crashed, progress_text, read_meta
    from ..gpu import check_backend

    if backend != "cpu":
        checked = check_backend(
            backend, game=request.game.name, backends=request.game.spec.backends
        )
        request = replace(request, backend=checked)
    meta = read_meta(out)
    was_crashed = crashed(out, meta)
    writer, meta = RunWriter.resume(out)
    if was_crashed:
        typer.echo(
            f"{out}: the run crashed after {progress_text(out, meta)}; completing it", err=True
        )
    for problem in writer.damaged:
        typer.echo(f"{out}: damaged, played again: {problem}", err=True)
    return request, writer


def run_and_report(request, writer, out: Path, charts: dict | None, *, cluster=None) -> None:
    """Stream a run into its folder, then write its report with ``charts`` (``dpi`` and
    ``formats``, checked; None: no report). ``cluster``
    (:class:`simulate.cluster.session.Cluster`): where the games are played, if not here."""
    from ..engine import RunInterrupted, stream

    unit = "match" if request.match_play else "game"
    where = count(request.threads, "thread") if cluster is None else cluster.text
    if getattr(request, "backend", "cpu") != "cpu":
        where = f"backend {request.backend}"
    typer.echo(
        f"{request.game.title}: {count(request.games, unit)}, {request.players} players, "
        f"seed {request.seed}, {where} -> {out}",
        err=True,
    )
    try:
        play = None if cluster is None else cluster.play_chunks
        stream(request, writer, progress=True, play=play)
    except RunInterrupted as exc:
        then = (
            f"write its report with: cardsim report {out}"
            if exc.complete
            else f"resume with: cardsim simulate {request.game.name} --out {out} --resume"
        )
        typer.echo(f"{exc}; {then}", err=True)
        raise typer.Exit(130) from None
    typer.echo(f"wrote {out / 'run.json'} and the records of {out}")
    if charts is not None:
        html_path, md_path = report_with_status(out, **charts)
        typer.echo(f"wrote {html_path} and {md_path}")


def report_with_status(run_dir: Path, **options) -> tuple[Path, Path]:
    """Write a run's report with a spinner on stderr that says which step it is at."""
    from rich.console import Console

    from analysis.reports import write_report

    with Console(stderr=True).status(f"report of {run_dir}") as spinner:
        return write_report(
            run_dir,
            status=lambda step: spinner.update(f"report of {run_dir}: {step}"),
            **options,
        )


@app.command()
@user_errors
def report(
    run_dir: Annotated[
        Path, typer.Argument(help="A run folder written by 'cardsim simulate'.", parser=path_value)
    ],
    top: Annotated[int, typer.Option(help="How many of the longest deals to list.")] = 10,
    dpi: DpiOpt = None,
    formats: FormatsOpt = None,
):
    """Write DIR/report.html (self-contained) and DIR/report.md with charts in DIR/charts
    (PNG, SVG and PDF)."""
    dpi_, formats_ = chart_options(dpi, formats)
    with folder_lock(run_dir):
        html_path, md_path = report_with_status(run_dir, top=top, dpi=dpi_, formats=formats_)
    typer.echo(f"wrote {html_path} and {md_path}")


def folder_lock(folder: Path):
    """The lock of a run folder (see :func:`simulate.folder.writer.lock_run`), or nothing
    for a folder that is not a run: the reader then names what is missing, and nothing is
    written."""
    from ..folder.writer import META_FILE, lock_run

    return lock_run(folder) if (folder / META_FILE).is_file() else nullcontext()


@app.command()
@user_errors
def verify(
    run_dir: Annotated[
        Path, typer.Argument(metavar="DIR", help="A run folder.", parser=path_value)
    ],
    replay: Annotated[
        int,
        count_option(
            "Games (matches) to replay against their stored records, drawn across the run."
        ),
    ] = 300,
    repair: Annotated[
        bool,
        typer.Option(
            help="Play the damaged or missing chunks again (their records come back exactly)."
        ),
    ] = False,
    threads: Annotated[
        int | None, typer.Option(help="Threads that replay games (default: all cores).")
    ] = None,
):
    """Check a run folder's checksums and replay sampled games; --repair heals it.

    Exit code 0 when healthy, 1 when damaged (one line per problem), 2 on bad input."""
    from ..folder.verify import verify_run

    verdict = verify_run(
        run_dir,
        replay=replay,
        repair=repair,
        threads=threads,
        echo=lambda line: typer.echo(line, err=True),
        progress=True,
    )
    for note in verdict.notes:
        typer.echo(f"note: {note}")
    for repaired in verdict.repaired:
        typer.echo(f"repaired: {repaired}")
    for problem in verdict.problems:
        typer.echo(f"damaged: {problem}")
    replayed = f"{count(verdict.replayed, 'game')} replayed equal to their records"
    if verdict.problems:
        typer.echo(
            f"{run_dir}: {count(len(verdict.problems), 'problem')} found"
            + (
                f"; repair with: cardsim verify {run_dir} --repair"
                if verdict.repairable and not repair
                else ""
            )
        )
        raise typer.Exit(1)
    if repair and not verdict.repaired:
        typer.echo(f"{run_dir}: healthy, nothing to repair ({replayed})")
    else:
        typer.echo(f"{run_dir}: healthy ({replayed})")
