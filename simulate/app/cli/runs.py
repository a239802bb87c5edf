"""``cardsim simulate``, ``report`` and ``verify``: a run folder, from playing to checking."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from ...core.errors import CardsimError
from ...games.registry import resolve_game
from .common import (
    ConfigOpt,
    DpiOpt,
    FormatsOpt,
    GameArg,
    PlayersOpt,
    RolloutsOpt,
    RuleOpt,
    SeatsOpt,
    SeedOpt,
    StrategyOpt,
    ThreadsOpt,
    TraceOpt,
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
        from ...runs.cluster import parse_address

        parse_address(scheduler)


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
    trace: TraceOpt = None,
    rollouts: RolloutsOpt = None,
):
    """Play many games into a run folder, then write its report.

    The folder holds run.json, the records chunk by chunk (DIR/games/, one row per game)
    under DIR/manifest.jsonl, and (unless --no-report) the report."""
    dpi_, formats_ = chart_options(dpi, formats)
    if scheduler is not None and backend != "cpu":
        raise CardsimError(
            "a --scheduler run plays on its workers' CPUs: give --scheduler or --backend"
        )
    check_scheduler(scheduler)
    if records is not None:
        from ...runs.request import check_records

        check_records(records, "--records")
    if resume:
        if out is None:
            raise CardsimError("--resume needs --out DIR, the folder of the interrupted run")
        overrides = rule_overrides(config, rule, game) if (rule or config) else None
    else:
        overrides = rule_overrides(config, rule, game)
        if out is None:
            stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
            out = Path("results") / f"{resolve_game(game).name}-{stamp}"
    settings = {
        "players": players,
        "games": games,
        "seed": seed,
        "threads": threads,
        "rules": overrides,
        "strategies": seat_list(strategy, seats),
        "rotate_seats": rotate_seats,
        "log": log,
        "records": records,
        "trace": trace,
        "rollouts": rollouts,
    }
    play_and_report(
        game,
        out,
        {"dpi": dpi_, "formats": formats_} if report_ else None,
        force=force,
        resume=resume,
        skip_space_check=skip_space_check,
        scheduler=scheduler,
        backend=backend,
        **settings,
    )


def play_and_report(game: str, out: Path, charts: dict | None, **options) -> None:
    """Play the run of ``options`` (:func:`simulate.app.api.write_run`'s) into ``out``, saying
    what is played on standard error, then write its report with ``charts`` (``dpi`` and
    ``formats``; None: no report). A signal stops the run with exit code 130 and the
    command that completes it."""
    from ..api import write_run
    from ..api.playing import RunInterrupted

    try:
        write_run(game, out=out, progress=True, **options)
    except RunInterrupted as exc:
        say_interrupted(exc, resolve_game(game).name)
        raise typer.Exit(130) from None
    typer.echo(f"wrote {out / 'run.json'} and the records of {out}")
    if charts is not None:
        html_path, md_path = report_with_status(out, **charts)
        typer.echo(f"wrote {html_path} and {md_path}")


def say(line: str) -> None:
    """A line on standard error: what a command is doing."""
    typer.echo(line, err=True)


def say_interrupted(exc, game: str) -> None:
    """What a signal left of the run of ``game`` (a
    :class:`~simulate.runs.engine.RunInterrupted`), and the command that goes on from there."""
    then = (
        f"write its report with: cardsim report {exc.folder}"
        if exc.complete
        else f"resume with: cardsim simulate {game} --out {exc.folder} --resume"
    )
    say(f"{exc}; {then}")


def report_with_status(run_dir: Path, **options) -> tuple[Path, Path]:
    """Write a run's report with a spinner on stderr that says which step it is at."""
    from ..api import write_report

    return write_report(run_dir, progress=True, **options)


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
    html_path, md_path = report_with_status(run_dir, top=top, dpi=dpi_, formats=formats_)
    typer.echo(f"wrote {html_path} and {md_path}")


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
    from ..api import verify as verify_folder

    verdict = verify_folder(run_dir, replay=replay, repair=repair, threads=threads, progress=True)
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
