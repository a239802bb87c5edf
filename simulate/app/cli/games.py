"""``cardsim rules``, ``play``, ``replay`` and ``search``: one game's rules, one game in
words, and a hunt for long deals. Each is the game's own function (its spec or engine);
the command checks the request and prints."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from ...core.errors import CardsimError
from ...games.registry import game_names
from .common import (
    ConfigOpt,
    GameArg,
    PlayersOpt,
    PlayThreadsOpt,
    RuleOpt,
    SeedOpt,
    StrategyOpt,
    app,
    count_option,
    game_argument,
    rule_overrides,
    user_errors,
)
from .runs import SchedulerOpt, check_scheduler

PlayGame = game_argument("play", "A game that plays a given deal")
ReplayGame = Annotated[
    str,
    typer.Argument(
        metavar="GAME|DIR",
        help=f"A run folder, or a game that replays in words: {game_names('replay')}.",
    ),
]
HandsOpt = Annotated[
    bool, typer.Option("--hands", help="Print every seat's hand after each turn (trick).")
]
SearchGame = game_argument("search", "A game whose long deals can be hunted")


@app.command()
@user_errors
def rules(
    game: GameArg,
    players: PlayersOpt = None,
    rule: RuleOpt = None,
    config: ConfigOpt = None,
):
    """Print the resolved rules in plain words."""
    from ..api import describe_rules

    typer.echo(describe_rules(game, players=players, rules=rule_overrides(config, rule, game)))


@app.command()
@user_errors
def play(
    game: PlayGame,
    deal: Annotated[
        str, typer.Option(help="The deal, one hand per seat separated by '/', top card first.")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    trace: Annotated[
        bool, typer.Option("--trace", help="Print the deal trick by trick before its end.")
    ] = False,
    hands: HandsOpt = False,
    rule: RuleOpt = None,
    config: ConfigOpt = None,
):
    """Play one given deal and print how it ends."""
    from ..api import play_deal

    if trace and as_json:
        raise CardsimError("give --trace (the deal in words) or --json, not both")
    played = play_deal(
        game, deal=deal, rules=rule_overrides(config, rule, game), trace=trace, hands=hands
    )
    if as_json and not hands:
        outcome = {key: value for key, value in played.outcome.items() if key != "held"}
        typer.echo(json.dumps(outcome))
    else:
        typer.echo(played.text)


@app.command()
@user_errors
def replay(
    game: ReplayGame,
    seed: Annotated[
        int | None,
        typer.Option(
            help="The run's seed (needed with a game's name; default: a run folder's own)."
        ),
    ] = None,
    index: Annotated[
        int | None, typer.Option("--game", help="The game's index in the run (default: 0).")
    ] = None,
    match: Annotated[
        int | None,
        typer.Option(
            help="Match play: the match (then --deal, not --game, names the deal) "
            "(default: single games)."
        ),
    ] = None,
    deal: Annotated[
        int | None, typer.Option(help="Match play: the deal within the match (default: 0).")
    ] = None,
    rotation: Annotated[
        int, typer.Option(help="A run folder with rotated seats: the seating (default: 0).")
    ] = 0,
    hands: HandsOpt = False,
    form: Annotated[
        str,
        typer.Option(
            "--format", help="text (the game in words), json or csv (its events; a run folder)."
        ),
    ] = "text",
    players: PlayersOpt = None,
    strategy: StrategyOpt = None,
    rule: RuleOpt = None,
    config: ConfigOpt = None,
):
    """Print one game turn by turn (hands, plays, draws, suits, penalties), from a run
    folder (its rules, seats and seed; its log when it holds the game) or a game's name."""
    from ..api import replay as replay_game
    from ..replay import is_run_folder

    if is_run_folder(game):  # its own rules stand: any given reach the API to be refused
        rules = {"--rule": rule, "--config": config} if rule or config else None
    else:
        rules = rule_overrides(config, rule, game)
    text = replay_game(
        game,
        game=index,
        match=match,
        deal=deal,
        rotation=rotation,
        hands=hands,
        form=form,
        seed=seed,
        players=players,
        strategies=strategy,
        rules=rules,
    )
    typer.echo(text)


@app.command()
@user_errors
def search(
    game: SearchGame,
    games: Annotated[int, count_option("Number of random deals to play.")] = 1_000_000,
    players: PlayersOpt = None,
    seed: SeedOpt = None,
    top: Annotated[int, typer.Option(help="How many of the longest deals to print.")] = 10,
    threads: PlayThreadsOpt = None,
    rule: RuleOpt = None,
    config: ConfigOpt = None,
    scheduler: SchedulerOpt = None,
):
    """Hunt for records: play random deals, print the longest and any that never end."""
    from ..api import search as hunt

    check_scheduler(scheduler)
    text = hunt(
        game,
        games=games,
        players=players,
        seed=seed,
        top=top,
        threads=threads,
        rules=rule_overrides(config, rule, game),
        scheduler=scheduler,
        progress=True,
    )
    typer.echo(text)
