"""``cardsim explore``: search the rule space for the rule sets that best meet the aims."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from ...core.errors import CardsimError
from ..commands.runs import cluster_session
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
    from ..exploration import check_out, explore_into
    from ..exploration.file import is_explore_file, locate, read_explore_file
    from ..exploration.files import held_out_words
    from ..exploration.plan import DEFAULT_BUDGET, FIRST_ROUND, plan_explore
    from ..exploration.versus import against_base

    check_scheduler(scheduler)
    given = {
        "budget": budget,
        "seed": seed,
        "method": method,
        "first_round": first_round,
        "threads": threads,
    }
    given = {key: value for key, value in given.items() if value is not None}
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
        name, settings, title = read_explore_file(game)
        settings.update(given, title=title)
        try:
            plan = plan_explore(name, **settings)
        except CardsimError as exc:
            raise locate(game, exc) from None
    else:
        settings = {
            "players": players,
            "vary": vary or [],
            "aim": aim or [],
            "require": require or [],
            "budget": DEFAULT_BUDGET,
            "first_round": FIRST_ROUND,
            "rules": rule_overrides(config, rule, game),
            "strategies": seat_list(None, seats),
            "skill": skill,
            **given,
        }
        plan = plan_explore(game, **settings)
    if out is None:
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        out = Path("results") / f"explore-{plan.game.name}-{stamp}"
    check_out(out, force)
    typer.echo(
        f"{plan.title}: {plan.space.size:,} rule sets ({len(plan.space.valid):,} playable), "
        f"method {plan.method}, budget {plan.budget:,} deals, seed {plan.seed} -> {out}",
        err=True,
    )
    with cluster_session(scheduler, threads) as cluster:
        table, meta, result = explore_into(
            plan, out, force=force, echo=lambda line: typer.echo(line, err=True), cluster=cluster
        )
    typer.echo(f"wrote {out / 'explore.csv'}, {out / 'best.toml'} and {out / 'report.html'}")
    asked = [*(a.measure for a in plan.aims), *(r.measure for r in plan.requires)]
    for rank, candidate in enumerate(result.picks, start=1):
        label = candidate.rule_set.label(plan.knobs)
        figures = held_out_words(plan, candidate)
        versus = against_base(candidate, result.base, plan.aims, plan.requires)
        worse = [m for m in dict.fromkeys(asked) if versus.get(m) == "worse"]
        note = f"; worse than the base rules on {', '.join(worse)}" if worse else ""
        typer.echo(f"best {rank}: {label}: {figures} (held out){note}")
