"""``cardsim balance``: a run and its skill games, then the report with every balance
measure (see :mod:`analysis.balance`).

The run is played into ``DIR`` as ``cardsim simulate`` plays it (its command is called
with the same options); the skill games (the skilled strategy in one seat, ``random`` in
the others, rotated over the seats on the run's seed, so on the run's deals) into
``DIR/skill``, a run folder of its own. A game without choices plays no skill games.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import CardsimError
from ..skill import DEFAULT_SKILL, OPPONENT, SKILL_FOLDER, skill_seats
from .common import (
    ConfigOpt,
    GameArg,
    PlayersOpt,
    RuleOpt,
    SeatsOpt,
    SeedOpt,
    StrategyOpt,
    ThreadsOpt,
    app,
    count_option,
    path_value,
    rule_overrides,
    seat_list,
    user_errors,
)
from .runs import SchedulerOpt, SkipSpaceCheckOpt


@app.command()
@user_errors
def balance(
    game: GameArg,
    out: Annotated[
        Path, typer.Option(help="Run folder; the skill games go into DIR/skill.", parser=path_value)
    ],
    games: Annotated[
        int | None,
        count_option(
            "Games (matches, in match play) of the run (no default: needed unless --resume)."
        ),
    ] = None,
    players: PlayersOpt = None,
    rule: RuleOpt = None,
    config: ConfigOpt = None,
    strategy: StrategyOpt = None,
    seats: SeatsOpt = None,
    skill: Annotated[
        str | None,
        typer.Option(
            help="The skilled strategy, played in one seat against random in the others, "
            f"rotated over the seats (any strategy; default: {DEFAULT_SKILL}). Games without "
            "choices take none."
        ),
    ] = None,
    skill_games: Annotated[
        int | None,
        count_option(
            "Deals (matches) of the skill games, each played once per seat (default: --games).",
            "--skill-games",
        ),
    ] = None,
    seed: SeedOpt = None,
    threads: ThreadsOpt = None,
    force: Annotated[
        bool, typer.Option(help="Overwrite a folder that holds a run (and its skill games).")
    ] = False,
    resume: Annotated[
        bool,
        typer.Option(
            help="Complete the interrupted run in --out and its skill games (their own "
            "settings), or play the skill games it lacks."
        ),
    ] = False,
    skip_space_check: SkipSpaceCheckOpt = False,
    scheduler: SchedulerOpt = None,
):
    """Play a run and its skill games, then write its report with every balance measure.

    The run goes into DIR as 'cardsim simulate' plays it; the skill games (--skill in one
    seat, random in the others, every deal once per seat on the run's seed) into
    DIR/skill. The report (DIR/report.html, report.md) has a Balance section and
    DIR/balance.csv the measures as numbers; the measures are printed too."""
    from ..folder.writer import check_space, holds_run, read_meta
    from ..games.registry import resolve_game
    from ..request import make_request, request_from_meta
    from . import runs

    runs.check_scheduler(scheduler)
    info = resolve_game(game)
    if not info.spec.takes_strategies and (skill is not None or skill_games is not None):
        given = "--skill" if skill is not None else "--skill-games"
        raise CardsimError(
            f"{given}: {info.name} has no choices to make, so no skill games (its skill is 0 "
            "by definition); drop the option"
        )
    strategies = seat_list(strategy, seats)
    if resume:
        if force:
            raise CardsimError(
                "give --resume (complete the run) or --force (overwrite it), not both"
            )
        main = request_from_meta(read_meta(out), threads=threads)
        if main.game != info:
            raise CardsimError(f"{out} holds a run of {main.game.name}, not of {game}")
    else:
        if games is None:
            raise CardsimError(
                "--games is needed: the games (matches) of the run, e.g. --games 100000"
            )
        main = make_request(
            game,
            players=players,
            games=games,
            seed=seed,
            threads=threads,
            rules=rule_overrides(config, rule, game),
            strategies=strategies,
        )
    folder = out / SKILL_FOLDER
    skill_request = None
    if info.spec.takes_strategies:
        if resume and holds_run(folder):  # the skill games' own settings, unless given
            held = read_meta(folder)
            skill = skill if skill is not None else (held.get("strategies") or [None])[0]
            skill_games = skill_games if skill_games is not None else held.get("games")
        skill_request = _skill_request(main, skill, skill_games, threads)
        if resume and holds_run(folder):
            _check_skill_folder(folder, skill_request)
        elif holds_run(folder) and not force:
            raise CardsimError(
                f"{folder} already holds skill games; choose another --out, pass --force to "
                "overwrite them, or --resume to complete them"
            )
        if not resume and not skip_space_check:
            check_space(out, skill_request.meta(), skill_request.games)

    try:
        with runs.cluster_session(scheduler, threads) as cluster:  # one for both runs
            if resume and read_meta(out).get("status") == "complete":
                typer.echo(f"{out}: the run is complete, kept", err=True)
            else:
                runs.simulate(
                    game,
                    players=players,
                    games=games,
                    seed=main.seed,
                    out=out,
                    threads=threads,
                    rule=rule,
                    config=config,
                    strategy=strategy,
                    seats=seats,
                    rotate_seats=False,
                    report_=False,
                    force=force,
                    resume=resume,
                    skip_space_check=skip_space_check,
                    scheduler=cluster,
                )
            if skill_request is not None:
                _play_skill(folder, skill_request, resume, threads, cluster)
    except typer.Exit as stop:
        if stop.exit_code == 130:  # interrupted: the finished chunks are kept
            typer.echo(
                f"or complete the run, its skill games and the report with: cardsim balance "
                f"{info.name} --out {out} --resume",
                err=True,
            )
        raise
    html_path, md_path = runs.report_with_status(out)
    typer.echo(f"wrote {html_path} and {md_path}")
    _print_measures(out, info.spec, main.players)


def _skill_request(main, skill: str | None, skill_games: int | None, threads: int | None):
    """The skill games' request: ``main``'s game, players, rules and seed, the skilled
    strategy in seat 0 and random in the others, every deal once per seat."""
    from ..request import make_request

    name = DEFAULT_SKILL if skill is None else skill
    try:
        return make_request(
            main.game.name,
            players=main.players,
            games=main.games if skill_games is None else skill_games,
            seed=main.seed,
            threads=threads,
            rules=main.rules,
            strategies=skill_seats(name, main.players),
            rotate_seats=True,
        )
    except CardsimError as exc:
        option = "--skill-games" if "games" in str(exc) and skill_games is not None else "--skill"
        raise CardsimError(f"{option}: {exc}") from None


def _check_skill_folder(folder: Path, request) -> None:
    """Refuse to resume skill games whose settings differ from those asked (their request
    identity, the number of games aside: a resume completes the folder's own)."""
    from ..folder.writer import read_meta
    from ..request import request_from_meta

    held, asked = request_from_meta(read_meta(folder)).identity(), request.identity()
    for key in ("game", "players", "seed", "rules", "strategies", "rotate_seats"):
        if held[key] != asked[key]:
            raise CardsimError(
                f"{folder} holds skill games with other {key} ({held[key]!r}, asked: "
                f"{asked[key]!r}); pass --force to play the run and its skill games again"
            )


def _play_skill(folder: Path, request, resume: bool, threads: int | None, cluster=None) -> None:
    """Play the skill games into ``folder`` (complete them with ``resume``), on
    ``cluster`` where given."""
    from ..folder.writer import RunWriter, holds_run, read_meta
    from .runs import resume_run, run_and_report

    if resume and holds_run(folder):
        if read_meta(folder).get("status") == "complete":
            typer.echo(f"{folder}: the skill games are complete, kept", err=True)
            return
        request, writer = resume_run(request.game.name, folder, threads)
    else:
        # Refused above when the folder held skill games without --force.
        writer = RunWriter(folder, request.meta(), force=True)
    typer.echo(
        f"skill games: {request.strategies[0]} in one seat, {OPPONENT} in the others", err=True
    )
    with writer:
        run_and_report(request, writer, folder, None, cluster=cluster)


def _print_measures(out: Path, spec, players: int) -> None:
    """The measures of ``out/balance.csv``, one line each, and the skill in words."""
    from analysis.balance import BALANCE_FILE, games_needed, length_column, read_balance
    from analysis.reports.balance import measure_cells

    table = read_balance(out / BALANCE_FILE)
    rows = measure_cells(table, length_column(spec))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    typer.echo("balance (95% intervals):")
    for name, value, interval in rows:
        typer.echo(f"  {name:<{widths[0]}}  {value:>{widths[1]}}  {interval}")
    if not spec.takes_strategies:
        typer.echo("skill: 0 by definition, the game has no choices to make")
    elif "skill" in table.index:
        p = float(table.loc["skill", "value"]) + 1 / players
        needed = games_needed(p, players)
        typer.echo(
            "games needed before the skilled player's lead over a fair share is clear at 95%: "
            + ("never (no lead)" if needed == float("inf") else f"about {round(needed):,}")
        )
