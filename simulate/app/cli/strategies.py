"""``cardsim tournament`` and ``tune``: which strategy wins, and weights that win more."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from ..commands.runs import cluster_session
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

StrategiesGame = game_argument("tournament", "A game whose seats have strategies")
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
    from analysis.comparisons.tournament import write_tournament_report

    from ..studies.tournament import run_tournament

    dpi_, formats_ = chart_options(dpi, formats)
    check_scheduler(scheduler)
    names = seat_list(None, strategies)
    if out is None:
        out = Path("results") / f"tournament-{datetime.now().strftime('%Y%m%d-%H%M%S')}"
    with cluster_session(scheduler, threads) as cluster:
        run_tournament(
            game,
            strategies=names,
            players=players,
            games=games,
            seed=seed,
            out=out,
            rules=rule_overrides(config, rule, game),
            threads=threads,
            force=force,
            progress=True,
            echo=lambda line: typer.echo(line, err=True),
            cluster=cluster,
        )
    html_path, md_path = write_tournament_report(out, dpi=dpi_, formats=formats_)
    typer.echo(f"wrote {html_path} and {md_path}")


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
    from ...games.registry import resolve_game
    from ...games.spec import load

    check_scheduler(scheduler)
    tune_games = load(resolve_game(game, "tune").spec.tune_path)
    if out is not None:
        from ...runs.folder.paths import check_writable

        check_writable(out, file=True)  # before the search, not after it
    with cluster_session(scheduler, threads) as cluster:
        result = tune_games(
            game,
            opponents=seat_list(None, opponents),
            players=players,
            budget=budget,
            seed=seed,
            rules=rule_overrides(config, rule, game),
            threads=threads,
            holdout=holdout,
            echo=lambda line: typer.echo(line, err=True),
            cluster=cluster,
        )
    typer.echo(f"best: {result.spec}")
    typer.echo(
        f"held-out win share: {result.share:.2%} (95% CI {result.lo:.2%} to {result.hi:.2%}) "
        f"over {count(result.holdout_games, 'game')}; greedy on the same deals: "
        f"{result.greedy_share:.2%} ({result.greedy_lo:.2%} to {result.greedy_hi:.2%})"
    )
    if out is not None:
        from dataclasses import asdict

        from ...runs.folder.writer import write_atomic

        write_atomic(Path(out), (json.dumps(asdict(result), indent=2) + "\n").encode())
        typer.echo(f"wrote {out}")
