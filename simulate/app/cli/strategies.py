"""``cardsim tournament``, ``ladder`` and ``tune``: which strategy wins, how deep skill goes,
and weights that win more."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from ...core.skill import DEFAULT_LADDER, LADDER_GAMES
from .common import (
    ConfigOpt,
    DpiOpt,
    FormatsOpt,
    PlayersOpt,
    PlayThreadsOpt,
    RuleOpt,
    SeedOpt,
    app,
    chart_options,
    count,
    count_option,
    game_argument,
    path_value,
    rule_overrides,
    seat_list,
    user_errors,
)
from .runs import SchedulerOpt, check_scheduler

DEFAULT_RUNGS = ",".join(DEFAULT_LADDER)

StrategiesGame = game_argument("tournament", "A game whose seats have strategies")
LadderGame = game_argument("ladder", "A game whose seats have strategies")
TuneGame = game_argument("tune", "A game with weighted strategies")


@app.command()
@user_errors
def tournament(
    game: StrategiesGame,
    strategies: Annotated[
        str,
        typer.Option(help="The strategies, comma-separated, e.g. random,greedy,hold-wilds."),
    ],
    players: PlayersOpt = None,
    games: Annotated[int, count_option("Deals (matches, in match play) per pairing.")] = 100_000,
    seed: SeedOpt = None,
    out: Annotated[
        Path | None,
        typer.Option(help="Folder (default: results/tournament-<timestamp>).", parser=path_value),
    ] = None,
    threads: PlayThreadsOpt = None,
    rule: RuleOpt = None,
    config: ConfigOpt = None,
    force: Annotated[bool, typer.Option(help="Overwrite a folder that holds one.")] = False,
    dpi: DpiOpt = None,
    formats: FormatsOpt = None,
    scheduler: SchedulerOpt = None,
):
    """Play every strategy against every other: win shares, ratings and a heatmap.

    One seat against the rest, every seat in turn on the same deals; the report is
    DIR/report.html."""
    from ..api import write_tournament

    dpi_, formats_ = chart_options(dpi, formats)
    check_scheduler(scheduler)
    if out is None:
        out = Path("results") / f"tournament-{datetime.now().strftime('%Y%m%d-%H%M%S')}"
    html_path, md_path = write_tournament(
        game,
        strategies=seat_list(None, strategies),
        players=players,
        games=games,
        seed=seed,
        out=out,
        rules=rule_overrides(config, rule, game),
        threads=threads,
        force=force,
        progress=True,
        scheduler=scheduler,
        dpi=dpi_,
        formats=formats_,
    )
    typer.echo(f"wrote {html_path} and {md_path}")


@app.command()
@user_errors
def ladder(
    game: LadderGame,
    strategies: Annotated[
        str,
        typer.Option(help=f"The rungs, weakest first, comma-separated (default: {DEFAULT_RUNGS})."),
    ] = DEFAULT_RUNGS,
    players: PlayersOpt = None,
    games: Annotated[int, count_option("Deals (matches, in match play) per step.")] = LADDER_GAMES,
    seed: SeedOpt = None,
    out: Annotated[
        Path | None,
        typer.Option(help="Folder (default: results/ladder-<timestamp>).", parser=path_value),
    ] = None,
    threads: PlayThreadsOpt = None,
    rule: RuleOpt = None,
    config: ConfigOpt = None,
    force: Annotated[bool, typer.Option(help="Overwrite a folder that holds one.")] = False,
    dpi: DpiOpt = None,
    formats: FormatsOpt = None,
    scheduler: SchedulerOpt = None,
):
    """A skill ladder: each rung against the one below, and how many steps are clear.

    One seat of each rung against the rung below in the others, every seat in turn on the
    same deals; the skill depth counts the steps whose win share is clearly above the fair
    share (Holm-corrected). The report is DIR/report.html, the steps DIR/ladder.csv."""
    from ..api import ladder as play_ladder

    dpi_, formats_ = chart_options(dpi, formats)
    check_scheduler(scheduler)
    if out is None:
        out = Path("results") / f"ladder-{datetime.now().strftime('%Y%m%d-%H%M%S')}"
    steps = play_ladder(
        game,
        strategies=seat_list(None, strategies),
        players=players,
        games=games,
        seed=seed,
        out=out,
        rules=rule_overrides(config, rule, game),
        threads=threads,
        force=force,
        progress=True,
        scheduler=scheduler,
        dpi=dpi_,
        formats=formats_,
    )
    for step in steps.itertuples():
        typer.echo(
            f"{step.strategy} over {step.below}: {100 * step.share:.1f}% "
            f"({100 * step.lo:.1f}-{100 * step.hi:.1f}%){' clear' if step.clear else ''}"
        )
    typer.echo(f"skill depth {int(steps['clear'].sum())} of {len(steps)} steps")
    typer.echo(f"wrote {out / 'report.html'} and {out / 'ladder.csv'}")


@app.command()
@user_errors
def tune(
    game: TuneGame,
    opponents: Annotated[
        str, typer.Option(help="The other seats' strategies, comma-separated (cycled).")
    ] = "random",
    players: PlayersOpt = None,
    budget: Annotated[int, count_option("Training games in all (deals x seatings).")] = 2_000_000,
    holdout: Annotated[
        int | None,
        count_option(
            "Held-out deals for the final evaluation (default: as many as one round's "
            "candidates play, at least 1,000)."
        ),
    ] = None,
    seed: SeedOpt = None,
    threads: PlayThreadsOpt = None,
    rule: RuleOpt = None,
    config: ConfigOpt = None,
    out: Annotated[
        Path | None,
        typer.Option(help="Also write the result as JSON here (default: none).", parser=path_value),
    ] = None,
    scheduler: SchedulerOpt = None,
):
    """Search a weighted strategy's weights that win most against the opponents.

    The cross-entropy method; the best is measured on held-out deals."""
    from ..api import tune as tune_weights

    check_scheduler(scheduler)
    result = tune_weights(
        game,
        opponents=seat_list(None, opponents),
        players=players,
        budget=budget,
        seed=seed,
        rules=rule_overrides(config, rule, game),
        threads=threads,
        holdout=holdout,
        out=out,
        progress=True,
        scheduler=scheduler,
    )
    typer.echo(f"best: {result.spec}")
    typer.echo(
        f"held-out win share: {result.share:.2%} (95% CI {result.lo:.2%} to {result.hi:.2%}) "
        f"over {count(result.holdout_games, 'game')}; greedy on the same deals: "
        f"{result.greedy_share:.2%} ({result.greedy_lo:.2%} to {result.greedy_hi:.2%})"
    )
    if out is not None:
        typer.echo(f"wrote {out}")
