"""``cardsim explore``: search the rule space for the rule sets that best meet the aims."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from ...core.errors import CardsimError
from .common import (
    ConfigOpt,
    PlayersOpt,
    PlayThreadsOpt,
    RuleOpt,
    SeatsOpt,
    SeedOpt,
    app,
    count_option,
    game_names,
    path_value,
    rule_overrides,
    seat_list,
    user_errors,
)
from .runs import SchedulerOpt, check_scheduler


@app.command()
@user_errors
def explore(
    game: Annotated[
        str,
        typer.Argument(
            metavar="GAME|FILE.toml",
            help=f"Game: {game_names()}; or an explore file (docs/designing-house-rules.md).",
        ),
    ],
    vary: Annotated[
        list[str] | None,
        typer.Option(
            "--vary",
            help="A knob and its values, KNOB=V1,V2,... or KNOB=A..B for whole numbers "
            "(repeatable): the space is the product of the lists (no default: one or more).",
        ),
    ] = None,
    aim: Annotated[
        list[str] | None,
        typer.Option(
            "--aim",
            help="MEASURE[=TARGET|max|min] (repeatable): first_seat_advantage, seat_spread, "
            "decisive, turns, turns_p90, lead_changes, comebacks, skill; the advantage and "
            "the spread may be bare (aim at 0) (no default: one or more).",
        ),
    ] = None,
    require: Annotated[
        list[str] | None,
        typer.Option(
            "--require",
            help="MEASURE<=X or MEASURE>=X (repeatable): a bound every answer must keep, in "
            "the measure's unit (a fraction for shares and advantages, or points: 1pt); a rule "
            "set whose interval lies beyond it leaves the race (default: none).",
        ),
    ] = None,
    budget: Annotated[
        int | None,
        count_option(
            "Deals to play at most, every seating, match deal and skill game counted "
            "(default: 1,000,000)."
        ),
    ] = None,
    players: PlayersOpt = None,
    seed: SeedOpt = None,
    out: Annotated[
        Path | None,
        typer.Option(
            help="Folder for explore.csv, best.toml and the report "
            "(default: results/explore-<game>-<timestamp>).",
            parser=path_value,
        ),
    ] = None,
    method: Annotated[
        str | None,
        typer.Option(
            help="auto (exhaustive when every rule set's first round takes at most half the "
            "search's deals), exhaustive, or search (optuna proposes) (default: auto)."
        ),
    ] = None,
    rule: RuleOpt = None,
    config: ConfigOpt = None,
    seats: SeatsOpt = None,
    skill: Annotated[
        str | None,
        typer.Option(
            help="The skilled strategy of the skill games, when skill is aimed "
            "(default: hold-wilds)."
        ),
    ] = None,
    first_round: Annotated[
        int | None,
        count_option(
            "Games (matches) each rule set plays in the first racing round (default: 1,000)."
        ),
    ] = None,
    threads: PlayThreadsOpt = None,
    force: Annotated[
        bool, typer.Option(help="Overwrite a folder that holds an exploration.")
    ] = False,
    scheduler: SchedulerOpt = None,
):
    """Search the rule sets made by the --vary lists for those that best meet the aims.

    Candidates are raced on common random numbers (the clearly beaten dropped after each
    round), the best confirmed on held-out deals beside the base rules. Writes
    DIR/explore.csv, DIR/best.toml (a study for 'cardsim sweep'), DIR/explore.json and the
    report (DIR/report.html, DIR/report.md)."""
    from ...games.registry import resolve_game
    from ..api import write_explore
    from ..exploration.file import is_explore_file, read_explore_file

    check_scheduler(scheduler)
    if is_explore_file(game):
        fixed = {
            "--vary": vary,
            "--aim": aim,
            "--require": require,
            "--rule": rule,
            "--config": config,
            "--seats": seats,
            "--players": players,
            "--skill": skill,
        }
        clash = [option for option, value in fixed.items() if value]
        if clash:
            raise CardsimError(
                f"{clash[0]} is not taken with an explore file ({game}): it comes from the "
                "file; --budget, --seed, --method, --first-round, --threads, --out and --force "
                "may change a file's run"
            )
        settings = {}
        name = read_explore_file(game)[0]
    else:
        settings = {
            "players": players,
            "vary": vary or [],
            "aim": aim or [],
            "require": require or [],
            "rules": rule_overrides(config, rule, game),
            "strategies": seat_list(None, seats),
            "skill": skill,
        }
        name = game
    if out is None:
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        try:
            name = resolve_game(name).name
        except CardsimError:
            pass  # the file's bad game: write_explore names its line
        out = Path("results") / f"explore-{name}-{stamp}"
    found = write_explore(
        game,
        out=out,
        budget=budget,
        seed=seed,
        method=method,
        first_round=first_round,
        threads=threads,
        force=force,
        progress=True,
        scheduler=scheduler,
        **settings,
    )
    typer.echo(f"wrote {out / 'explore.csv'}, {out / 'best.toml'} and {out / 'report.html'}")
    for line in found.best:
        typer.echo(line)
