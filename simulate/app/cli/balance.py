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

from ...core.errors import CardsimError
from ...core.skill import DEFAULT_SKILL
from ...games.registry import resolve_game
from .common import (
    ConfigOpt,
    GameArg,
    PlayersOpt,
    RolloutsOpt,
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
    trace: Annotated[
        int | None,
        count_option(
            "Trace the first N games (single deals): each seat's chance of winning through "
            "the game, for the drama, security, decisive-moment, stability and chance-lead "
            "measures (default: 2,000 where the game and rules can be traced; 0: none).",
            "--trace",
        ),
    ] = None,
    rollouts: RolloutsOpt = None,
):
    """Play a run and its skill games, then write its report with every balance measure.

    The run goes into DIR as 'cardsim simulate' plays it; the skill games (--skill in one
    seat, random in the others, every deal once per seat on the run's seed) into
    DIR/skill. The report (DIR/report.html, report.md) has a Balance section and
    DIR/balance.csv the measures as numbers; the measures are printed too."""
    from ...runs.folder.writer import read_meta
    from .. import api
    from ..commands.balance import check_skill_options
    from . import runs

    runs.check_scheduler(scheduler)
    info = resolve_game(game)
    check_skill_options(info, skill, skill_games)
    if not resume and games is None:
        raise CardsimError("--games is needed: the games (matches) of the run, e.g. --games 100000")
    from ..api.playing import RunInterrupted

    given_rules = rule is not None or config is not None
    try:
        table = api.balance(
            game,
            out=out,
            players=players,
            games=games,
            seed=seed,
            threads=threads,
            rules=rule_overrides(config, rule, game) if given_rules or not resume else None,
            strategies=seat_list(strategy, seats),
            skill=skill,
            skill_games=skill_games,
            force=force,
            resume=resume,
            skip_space_check=skip_space_check,
            report=True,
            progress=True,
            scheduler=scheduler,
            trace=trace,
            rollouts=rollouts,
        )
    except RunInterrupted as exc:
        runs.say_interrupted(exc, info.name)
        runs.say(
            f"or complete the run, its skill games and the report with: cardsim balance "
            f"{info.name} --out {out} --resume"
        )
        raise typer.Exit(130) from None
    typer.echo(f"wrote {out / 'report.html'} and {out / 'report.md'}")
    _print_measures(table, info.spec, read_meta(out)["players"])


def _print_measures(table, spec, players: int) -> None:
    """The measures of ``table`` (:func:`simulate.app.api.balance`'s), one line each, and the
    skill in words."""
    from analysis.balance import games_needed, length_column
    from analysis.reports.balance import measure_cells

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
