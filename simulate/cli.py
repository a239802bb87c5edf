"""The ``cardsim`` command line (typer): simulate, play, search, report, rules, replay.

Every user mistake ends in one line on stderr naming the bad value and what is allowed,
and exit code 2; an interrupted run keeps its finished games and exits with code 130.
"""

from __future__ import annotations

import functools
import json
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from .errors import CardsimError

app = typer.Typer(
    name="cardsim",
    help="Monte Carlo simulation and statistics for card games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

GameArg = Annotated[
    str,
    typer.Argument(
        help="Game: beggar-my-neighbour (bmn), or a shedding preset: pis-yedili, crazy-eights, "
        "crazy-eights-plain, openspiel."
    ),
]
RuleOpt = Annotated[
    list[str] | None,
    typer.Option("--rule", help="Change a rule knob, KNOB=VALUE (repeatable), e.g. penalties.A=5."),
]
PlayersOpt = Annotated[int | None, typer.Option(help="Number of players (default: the game's).")]
SeedOpt = Annotated[
    int | None, typer.Option(help="Run seed, 0 to 2**64-1 (default: drawn at random and shown).")
]
ThreadsOpt = Annotated[int | None, typer.Option(help="Worker threads (default: all cores).")]


def user_errors(command):
    """Turn user mistakes into one line and exit code 2, and interruptions into code 130."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        from analysis.errors import ReportError

        try:
            return command(*args, **kwargs)
        except (CardsimError, ReportError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            typer.echo("interrupted", err=True)
            raise typer.Exit(130) from None

    return wrapper


def parse_rules(rules: list[str] | None) -> dict[str, str]:
    """``["penalties.A=5", "time_limit=100"]`` -> ``{"penalties.A": "5", ...}``."""
    overrides = {}
    for item in rules or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise CardsimError(f"--rule expects KNOB=VALUE, got {item!r}")
        overrides[key.strip()] = value.strip()
    return overrides


ConfigOpt = Annotated[
    Path | None, typer.Option("--config", help="A TOML file of rule knobs (--rule wins over it).")
]


def rule_overrides(config: Path | None, rule: list[str] | None) -> dict:
    """Knob overrides from ``--config FILE.toml`` then ``--rule K=V`` (later ones win)."""
    from .config import load_overrides

    overrides = load_overrides(config) if config is not None else {}
    overrides.update(parse_rules(rule))
    return overrides


@app.command()
@user_errors
def simulate(
    game: GameArg,
    players: PlayersOpt = None,
    games: Annotated[int, typer.Option(help="Number of games (deals) to play.")] = 1_000_000,
    seed: SeedOpt = None,
    out: Annotated[
        Path | None, typer.Option(help="Run folder (default: results/<game>-<timestamp>).")
    ] = None,
    threads: ThreadsOpt = None,
    rule: RuleOpt = None,
    config: ConfigOpt = None,
    strategy: Annotated[
        list[str] | None,
        typer.Option(
            help="Shedding games: each seat's strategy in seat order (repeatable; "
            "others play random)."
        ),
    ] = None,
    force: Annotated[bool, typer.Option(help="Overwrite a folder that holds a run.")] = False,
    resume: Annotated[
        bool, typer.Option(help="Complete the interrupted run in --out (its own settings).")
    ] = False,
):
    """Play many games and write DIR/games.parquet (one row per game) and DIR/run.json."""
    from .engine import RunInterrupted, make_request, request_from_meta, stream
    from .games.registry import resolve_game
    from .results import RunWriter

    start = 0
    if resume:
        if out is None:
            raise CardsimError("--resume needs --out DIR, the folder of the interrupted run")
        writer, meta = RunWriter.resume(out)
        request = request_from_meta(meta, threads)
        if request.game != resolve_game(game):
            raise CardsimError(f"{out} holds a run of {request.game.name}, not of {game}")
        start = meta["completed_games"]
    else:
        request = make_request(
            game, players, games, seed, threads, rule_overrides(config, rule), strategy
        )
        if out is None:
            stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
            out = Path("results") / f"{request.game.name}-{stamp}"
        writer = RunWriter(out, force)
    typer.echo(
        f"{request.game.title}: {request.games:,} games, {request.players} players, "
        f"seed {request.seed}, {request.threads} threads -> {out}",
        err=True,
    )
    try:
        stream(request, writer, progress=True, start=start)
    except RunInterrupted as exc:
        typer.echo(
            f"{exc}; resume with: cardsim simulate {request.game.name} --out {out} --resume",
            err=True,
        )
        raise typer.Exit(130) from None
    typer.echo(f"wrote {out / 'games.parquet'} and {out / 'run.json'}")


@app.command()
@user_errors
def play(
    game: GameArg,
    deal: Annotated[
        str, typer.Option(help="The deal, one hand per seat separated by '/', top card first.")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    rule: RuleOpt = None,
    config: ConfigOpt = None,
):
    """Play one given deal and print how it ends."""
    from .games.beggar.batch import play_hands
    from .games.beggar.deal import parse_deal
    from .games.beggar.rules import END_NAMES, BeggarRules
    from .games.registry import resolve_game

    if resolve_game(game).family != "beggar":
        raise CardsimError("play --deal is for beggar-my-neighbour; for a shedding game use replay")
    rules = BeggarRules().with_overrides(rule_overrides(config, rule))
    hands = parse_deal(deal)
    columns = play_hands([hands], rules)
    result = {
        "cards": int(columns["cards"][0]),
        "tricks": int(columns["tricks"][0]),
        "winner": int(columns["winner"][0]),
        "end": END_NAMES[columns["end"][0]],
        "cycle_cards": int(columns["cycle_cards"][0]),
        "cycle_tricks": int(columns["cycle_tricks"][0]),
    }
    if as_json:
        typer.echo(json.dumps(result))
    else:
        typer.echo(describe_outcome(result, [int(h) for h in columns["held"][0]]))


def describe_outcome(result: dict, held: list[int]) -> str:
    """One deal's outcome in words."""
    played = f"{_count(result['cards'], 'card')} and {_count(result['tricks'], 'trick')}"
    holdings = ", ".join(f"seat {seat} {count}" for seat, count in enumerate(held))
    if result["end"] == "out":
        return f"Seat {result['winner']} wins after {played}."
    if result["end"] == "cycle":
        return (
            f"The deal never ends: after {played} the position repeats the one "
            f"{_count(result['cycle_tricks'], 'trick')} ({_count(result['cycle_cards'], 'card')}) "
            "earlier, "
            f"so play loops forever (cards held: {holdings})."
        )
    who = (
        "no single seat holds the most"
        if result["winner"] < 0
        else (f"seat {result['winner']} holds the most and wins")
    )
    return f"Time limit: stopped after {played}; {who} (cards held: {holdings})."


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


@app.command()
@user_errors
def search(
    game: GameArg,
    games: Annotated[int, typer.Option(help="Number of random deals to play.")] = 1_000_000,
    players: PlayersOpt = None,
    seed: SeedOpt = None,
    top: Annotated[int, typer.Option(help="How many of the longest deals to print.")] = 10,
    threads: ThreadsOpt = None,
    rule: RuleOpt = None,
    config: ConfigOpt = None,
):
    """Hunt for records: play random deals, print the longest and any that never end."""
    from .engine import make_request
    from .search import find_records

    if top < 1:
        raise CardsimError(f"--top must be at least 1, got {top}")
    request = make_request(game, players, games, seed, threads, rule_overrides(config, rule))
    if request.game.family != "beggar":
        raise CardsimError(
            "search hunts for long Beggar-My-Neighbour deals; not for shedding games"
        )
    found = find_records(request, top, progress=True)
    typer.echo(found.text())


@app.command()
@user_errors
def report(
    run_dir: Annotated[Path, typer.Argument(help="A run folder written by 'cardsim simulate'.")],
    top: Annotated[int, typer.Option(help="How many of the longest deals to list.")] = 10,
):
    """Write DIR/report.html (self-contained) and DIR/report.md with charts in DIR/charts."""
    from analysis.report import write_report

    html_path, md_path = write_report(run_dir, top=top)
    typer.echo(f"wrote {html_path} and {md_path}")


@app.command()
@user_errors
def rules(
    game: Annotated[
        str,
        typer.Argument(
            help="beggar-my-neighbour (bmn), or a shedding preset: pis-yedili, crazy-eights, "
            "crazy-eights-plain, openspiel."
        ),
    ],
    players: PlayersOpt = None,
    rule: RuleOpt = None,
    config: ConfigOpt = None,
):
    """Print the resolved rules in plain words."""
    from .games.shedding.rules import PRESETS, describe, preset

    overrides = rule_overrides(config, rule)
    if game in PRESETS:
        resolved = preset(game).with_overrides(overrides)
        if players is not None:
            resolved.check_players(players)
        typer.echo(describe(resolved, players))
        return
    from .games.beggar.rules import BeggarRules
    from .games.registry import resolve_game

    try:
        info = resolve_game(game)
    except CardsimError:
        raise CardsimError(
            f"unknown game or preset '{game}'; known: beggar-my-neighbour (bmn), "
            + ", ".join(PRESETS)
        ) from None
    typer.echo(f"{info.title}: {BeggarRules().with_overrides(overrides).describe()}")


@app.command()
@user_errors
def replay(
    preset_name: Annotated[
        str,
        typer.Argument(
            metavar="PRESET", help="pis-yedili, crazy-eights, crazy-eights-plain or openspiel."
        ),
    ],
    seed: Annotated[int, typer.Option(help="The run's seed.")],
    game: Annotated[int, typer.Option(help="The game's index in the run.")] = 0,
    players: PlayersOpt = None,
    strategy: Annotated[
        list[str] | None,
        typer.Option(help="Strategy of each seat in seat order (repeatable; others: random)."),
    ] = None,
    rule: RuleOpt = None,
    config: ConfigOpt = None,
):
    """Print one shedding game turn by turn (hands, plays, draws, suits, penalties)."""
    from .games.shedding import reference
    from .games.shedding.rules import DEFAULT_PLAYERS, PRESETS, preset

    if preset_name not in PRESETS:
        raise CardsimError(f"unknown preset '{preset_name}'; presets: {', '.join(PRESETS)}")
    rules = preset(preset_name).with_overrides(rule_overrides(config, rule))
    players = DEFAULT_PLAYERS[preset_name] if players is None else players
    rules.check_players(players)
    strategies = list(strategy or [])
    if len(strategies) > players:
        raise CardsimError(f"{len(strategies)} strategies given for {players} seats")
    strategies += ["random"] * (players - len(strategies))
    if game < 0 or not 0 <= seed < 2**64:
        raise CardsimError(f"seed must be 0 to 2**64-1 and game at least 0, got {seed}, {game}")
    lines: list[str] = []
    record = reference.play(rules, players, strategies, seed, game, trace=lines)
    typer.echo(
        f"{preset_name}, {players} players ({', '.join(strategies)}), seed {seed}, game {game}"
    )
    typer.echo("\n".join(lines))
    winner = "no winner" if record.winner < 0 else f"seat {record.winner} wins"
    typer.echo(
        f"end: {record.end}, {winner}; {record.turns} turns, {record.plays} plays, "
        f"{record.draws} cards drawn, {record.passes} passes, {record.wilds} suits named, "
        f"{record.reshuffles} reshuffles; cards left {list(record.cards_left)}, "
        f"points {list(record.points)}, scores {list(record.score)}"
    )


def main() -> None:
    """Console-script entry point."""
    app()
