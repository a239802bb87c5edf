"""The ``cardsim`` command line (typer): simulate, sweep, compare, play, search, report,
rules, replay.

Every user mistake ends in one line on stderr naming the bad value and what is allowed,
and exit code 2 (usage mistakes that typer catches too: see :func:`main`); an interrupted
run keeps its finished games and exits with code 130.
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
ThreadsOpt = Annotated[
    int | None,
    typer.Option(
        help="Threads that play the games (default: all cores). With more than one, each "
        "chunk's records are written while the next is played; with 1 the run keeps to one core."
    ),
]


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


def rule_overrides(config: Path | None, rule: list[str] | None, game: str | None = None) -> dict:
    """Knob overrides from ``--config FILE.toml`` then ``--rule K=V`` (later ones win).

    With ``game``, the file's knobs are checked against that game's rules first, so that a
    bad knob or value in the file is reported with the file's name and the line.
    """
    overrides = {}
    if config is not None:
        from .study import read_rule_file

        rule_file = read_rule_file(config)
        if game is not None:
            rule_file.check(base_rules(game))
        overrides = dict(rule_file.overrides)
    overrides.update(parse_rules(rule))
    return overrides


def base_rules(game: str):
    """The default rules object of a game or preset (unknown names: CardsimError)."""
    from .games.registry import resolve_game

    info = resolve_game(game)
    if info.family == "beggar":
        from .games.beggar.rules import BeggarRules

        return BeggarRules()
    from .games.shedding.rules import preset

    return preset(info.name)


def seat_list(strategy: list[str] | None, seats: str | None) -> list[str] | None:
    """Seat strategies from repeated ``--strategy`` or one ``--seats a,b,c`` list."""
    if seats is None:
        return strategy
    if strategy:
        raise CardsimError("give --strategy (repeated) or --seats (a comma list), not both")
    from .study import split_seats

    names = split_seats(seats)
    if not all(names):
        raise CardsimError(f"--seats expects strategy names separated by commas, got {seats!r}")
    return names


StrategyOpt = Annotated[
    list[str] | None,
    typer.Option(
        help="Shedding games: each seat's strategy in seat order (repeatable; others play "
        "random): random, uniform, first, greedy, hold-wilds, attack, weighted:F=W,...; "
        "any takes :forget=P."
    ),
]
SeatsOpt = Annotated[
    str | None,
    typer.Option(help="Every seat's strategy at once, in seat order: e.g. first,random,random."),
]
ReportOpt = Annotated[
    bool,
    typer.Option("--report/--no-report", help="Write the report when the run is complete."),
]


@app.command()
@user_errors
def simulate(
    game: GameArg,
    players: PlayersOpt = None,
    games: Annotated[
        int | None, typer.Option(help="Number of games (deals) to play [default: 1000000].")
    ] = None,
    seed: SeedOpt = None,
    out: Annotated[
        Path | None, typer.Option(help="Run folder (default: results/<game>-<timestamp>).")
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
            "so that seat advantage cancels out.",
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
    skip_space_check: Annotated[
        bool,
        typer.Option(
            "--skip-space-check",
            help="Start even when the records' estimated size exceeds the disk's free space.",
        ),
    ] = False,
):
    """Play many games and write the run folder: DIR/run.json, the records chunk by chunk
    (DIR/games/, one row per game) under DIR/manifest.jsonl, and (unless --no-report) the
    report."""
    from .games.registry import resolve_game

    strategies = seat_list(strategy, seats)
    if resume:
        given = {
            "--players": players,
            "--games": games,
            "--seed": seed,
            "--rule": rule,
            "--config": config,
            "--strategy/--seats": strategies,
            "--rotate-seats": rotate_seats or None,
            "--force": force or None,
        }
        clash = [name for name, value in given.items() if value]
        if clash:
            raise CardsimError(
                f"--resume completes a run with its own settings; drop {', '.join(clash)}"
            )
        if out is None:
            raise CardsimError("--resume needs --out DIR, the folder of the interrupted run")
        from .engine import request_from_meta
        from .results import RunWriter, crashed, progress_text, read_meta

        info = resolve_game(game)
        meta = read_meta(out)
        request = request_from_meta(meta, threads)
        if request.game != info:
            raise CardsimError(f"{out} holds a run of {request.game.name}, not of {game}")
        was_crashed = crashed(out, meta)
        writer, meta = RunWriter.resume(out)
        done = progress_text(out, meta)
        if was_crashed:
            typer.echo(f"{out}: the run crashed after {done}; completing it", err=True)
        for problem in writer.damaged:
            typer.echo(f"{out}: damaged, played again: {problem}", err=True)
    else:
        # The game, its rules and the player count are checked before the engine (and
        # numba) is imported: most mistakes are reported in a fifth of a second.
        rules = base_rules(game).with_overrides(rule_overrides(config, rule, game))
        if players is not None:
            from .games.registry import check_players

            check_players(resolve_game(game), players)
            if hasattr(rules, "check_players"):
                rules.check_players(players)
        from .engine import make_request
        from .results import RunWriter

        request = make_request(
            game,
            players,
            1_000_000 if games is None else games,
            seed,
            threads,
            rules,
            strategies,
            rotate_seats,
        )
        if out is None:
            stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
            out = Path("results") / f"{request.game.name}-{stamp}"
        if not skip_space_check:
            from .results import check_space

            check_space(out, request.meta(), request.games)
        writer = RunWriter(out, request.meta(), force=force)
    with writer:
        run_and_report(request, writer, out, report_)


def run_and_report(request, writer, out: Path, report_: bool) -> None:
    """Stream a run into its folder, then (``report_``) write its report."""
    from .engine import RunInterrupted, stream

    units = "matches" if request.match_play else "games"
    typer.echo(
        f"{request.game.title}: {request.games:,} {units}, {request.players} players, "
        f"seed {request.seed}, {_count(request.threads, 'thread')} -> {out}",
        err=True,
    )
    try:
        stream(request, writer, progress=True)
    except RunInterrupted as exc:
        typer.echo(
            f"{exc}; resume with: cardsim simulate {request.game.name} --out {out} --resume",
            err=True,
        )
        raise typer.Exit(130) from None
    typer.echo(f"wrote {out / 'run.json'} and the records of {out}")
    if report_:
        from analysis.report import write_report

        html_path, md_path = write_report(out)
        typer.echo(f"wrote {html_path} and {md_path}")


@app.command()
@user_errors
def sweep(
    study_file: Annotated[
        Path,
        typer.Argument(
            metavar="STUDY.toml", help="A study file (see studies/ and the README's Studies)."
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(help="Folder of the study (default: results/<study>-<timestamp>)."),
    ] = None,
    games: Annotated[
        int | None, typer.Option(help="Games per cell, instead of the study's (a quick trial).")
    ] = None,
    threads: ThreadsOpt = None,
    report_: Annotated[
        bool,
        typer.Option("--report/--no-report", help="Write the comparison report at the end."),
    ] = True,
    force: Annotated[bool, typer.Option(help="Overwrite a folder that holds a study.")] = False,
    resume: Annotated[
        bool,
        typer.Option(help="Complete the study in --out: keep finished cells, resume the rest."),
    ] = False,
):
    """Run every variant x player count of a study (same seed: common random numbers) into
    OUT/<variant>-<players>p/, then write the comparison report."""
    from .study import load_study
    from .sweep import SweepInterrupted, plan_sweep, run_sweep

    study = load_study(study_file)
    if out is None:
        if resume:
            raise CardsimError("--resume needs --out DIR, the folder of the study")
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        out = Path("results") / f"{study_file.stem}-{stamp}"
    plan = plan_sweep(study, out, games, threads, force, resume)
    counts = sorted({cell.players for cell in plan.cells})
    first = plan.cells[0].request
    units = "matches" if first.match_play else "games"
    typer.echo(
        f"{study.title}: {len(study.variants)} variants x {_count(len(counts), 'player count')} "
        f"({', '.join(map(str, counts))}), {first.games:,} {units} each, "
        f"seed {study.seed} -> {out}",
        err=True,
    )
    try:
        written = run_sweep(plan, echo=lambda line: typer.echo(line, err=True), compare=report_)
    except SweepInterrupted as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(130) from None
    typer.echo(f"wrote {_count(len(plan.cells), 'run folder')} in {out}")
    for path in written:
        typer.echo(f"wrote {path}")


@app.command()
@user_errors
def compare(
    run_dirs: Annotated[
        list[Path],
        typer.Argument(metavar="DIR...", help="Two or more run folders of the same game."),
    ],
    out: Annotated[
        Path | None,
        typer.Option(help="Folder of the comparison (default: results/compare-<timestamp>)."),
    ] = None,
    base: Annotated[
        str | None,
        typer.Option(
            help="The run the others are compared with, by folder name (default: the first)."
        ),
    ] = None,
    title: Annotated[str | None, typer.Option(help="Title of the report.")] = None,
):
    """Compare runs side by side: write the comparison report (HTML and Markdown)."""
    from .results import read_meta
    from .sweep import comparison_writer

    if len(run_dirs) < 2:
        raise CardsimError(f"compare needs two or more run folders, got {len(run_dirs)}")
    names = [folder.name for folder in run_dirs]
    if len(set(names)) < len(names):
        names = [str(folder) for folder in run_dirs]
    if len(set(names)) < len(names):
        raise CardsimError(f"a folder is given twice: {', '.join(names)}")
    for folder in run_dirs:
        read_meta(folder)
    index = 0
    if base is not None:
        matches = [i for i, name in enumerate(names) if base in (name, str(run_dirs[i]))]
        if not matches:
            raise CardsimError(f"--base {base!r} is none of the runs; runs: {', '.join(names)}")
        index = matches[0]
    write_comparison = comparison_writer()
    if write_comparison is None:
        raise CardsimError("this installation has no comparison reports (analysis.compare)")
    if out is None:
        out = Path("results") / f"compare-{datetime.now().strftime('%Y%m%d-%H%M%S')}"
    from .lock import lock_folder

    with lock_folder(out):
        written = write_comparison(run_dirs, out, names=names, base=index, title=title)
    for path in written:
        typer.echo(f"wrote {path}")


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
    rules = BeggarRules().with_overrides(rule_overrides(config, rule, game))
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
    request = make_request(game, players, games, seed, threads, rule_overrides(config, rule, game))
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

    with folder_lock(run_dir):
        html_path, md_path = write_report(run_dir, top=top)
    typer.echo(f"wrote {html_path} and {md_path}")


def folder_lock(folder: Path):
    """The lock of an existing run folder; one in use by a run in progress is refused as
    "in progress: N of M games"."""
    from contextlib import nullcontext

    from .lock import FolderInUse, lock_folder
    from .results import META_FILE, progress_text, read_meta

    if not (folder / META_FILE).is_file():
        return nullcontext()  # not a run: the reader names what is missing, nothing written
    try:
        return lock_folder(folder, create=False)
    except FolderInUse:
        if (folder / META_FILE).exists() and read_meta(folder).get("status") == "running":
            meta = read_meta(folder)
            raise CardsimError(
                f"{folder} is in progress: {progress_text(folder, meta)}; try again when it is done"
            ) from None
        raise


@app.command()
@user_errors
def verify(
    run_dir: Annotated[Path, typer.Argument(metavar="DIR", help="A run folder.")],
    replay: Annotated[
        int,
        typer.Option(
            help="Games (matches) to replay against their stored records, drawn across the run."
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
    """Check a run folder: every chunk's checksum, and a replay of sampled games against
    their records. Exit code 0 when healthy, 1 when damaged (one line per problem)."""
    from .verify import verify_run

    verdict = verify_run(
        run_dir,
        replay=replay,
        repair=repair,
        threads=threads,
        echo=lambda line: typer.echo(line, err=True),
    )
    for note in verdict.notes:
        typer.echo(f"note: {note}")
    for repaired in verdict.repaired:
        typer.echo(f"repaired: {repaired}")
    for problem in verdict.problems:
        typer.echo(f"damaged: {problem}")
    replayed = f"{_count(verdict.replayed, 'game')} replayed equal to their records"
    if verdict.problems:
        typer.echo(
            f"{run_dir}: {_count(len(verdict.problems), 'problem')} found"
            + ("" if repair else f"; repair with: cardsim verify {run_dir} --repair")
        )
        raise typer.Exit(1)
    if repair and not verdict.repaired:
        typer.echo(f"{run_dir}: healthy, nothing to repair ({replayed})")
    else:
        typer.echo(f"{run_dir}: healthy ({replayed})")


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

    overrides = rule_overrides(config, rule, game)
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
    match: Annotated[
        int | None,
        typer.Option(help="Match play: the match (then --deal, not --game, names the deal)."),
    ] = None,
    deal: Annotated[int, typer.Option(help="Match play: the deal within the match.")] = 0,
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
    rules = preset(preset_name).with_overrides(rule_overrides(config, rule, preset_name))
    players = DEFAULT_PLAYERS[preset_name] if players is None else players
    rules.check_players(players)
    strategies = list(strategy or [])
    if len(strategies) > players:
        raise CardsimError(f"{len(strategies)} strategies given for {players} seats")
    strategies += ["random"] * (players - len(strategies))
    if game < 0 or not 0 <= seed < 2**64:
        raise CardsimError(f"seed must be 0 to 2**64-1 and game at least 0, got {seed}, {game}")
    lines: list[str] = []
    if match is None:
        record = reference.play(rules, players, strategies, seed, game, trace=lines)
        which = f"game {game}"
    else:
        if match < 0 or deal < 0:
            raise CardsimError(f"match and deal must be at least 0, got {match}, {deal}")
        record = reference.play_deal(rules, players, strategies, seed, match, deal, trace=lines)
        which = f"match {match}, deal {deal}"
    typer.echo(f"{preset_name}, {players} players ({', '.join(strategies)}), seed {seed}, {which}")
    typer.echo("\n".join(lines))
    winner = "no winner" if record.winner < 0 else f"seat {record.winner} wins"
    typer.echo(
        f"end: {record.end}, {winner}; {record.turns} turns, {record.plays} plays, "
        f"{record.draws} cards drawn, {record.passes} passes, {record.wilds} suits named, "
        f"{record.reshuffles} reshuffles; cards left {list(record.cards_left)}, "
        f"points {list(record.points)}, scores {list(record.score)}"
    )


@app.command()
@user_errors
def tournament(
    preset_name: Annotated[
        str,
        typer.Argument(
            metavar="PRESET", help="pis-yedili, crazy-eights, crazy-eights-plain or openspiel."
        ),
    ],
    strategies: Annotated[
        str,
        typer.Option(help="The strategies, comma-separated, e.g. random,greedy,hold-wilds."),
    ],
    players: PlayersOpt = None,
    games: Annotated[
        int, typer.Option(help="Deals (matches, in match play) per pairing.")
    ] = 100_000,
    seed: SeedOpt = None,
    out: Annotated[
        Path | None, typer.Option(help="Folder (default: results/tournament-<timestamp>).")
    ] = None,
    threads: ThreadsOpt = None,
    rule: RuleOpt = None,
    config: ConfigOpt = None,
    force: Annotated[bool, typer.Option(help="Overwrite a folder that holds one.")] = False,
):
    """Every strategy against every other (one seat against the rest, every seat in turn on
    the same deals): a win-share matrix, ratings and a heatmap in DIR/report.html."""
    from analysis.tournament import write_tournament_report

    from .tournament import run_tournament

    names = seat_list(None, strategies)
    if out is None:
        out = Path("results") / f"tournament-{datetime.now().strftime('%Y%m%d-%H%M%S')}"
    run_tournament(
        preset_name,
        names,
        players,
        games,
        seed,
        out,
        rule_overrides(config, rule, preset_name),
        threads,
        force,
        progress=True,
        echo=lambda line: typer.echo(line, err=True),
    )
    html_path, md_path = write_tournament_report(out)
    typer.echo(f"wrote {html_path} and {md_path}")


@app.command()
@user_errors
def tune(
    preset_name: Annotated[
        str,
        typer.Argument(
            metavar="PRESET", help="pis-yedili, crazy-eights, crazy-eights-plain or openspiel."
        ),
    ],
    opponents: Annotated[
        str, typer.Option(help="The other seats' strategies, comma-separated (cycled).")
    ] = "random",
    players: PlayersOpt = None,
    budget: Annotated[
        int, typer.Option(help="Training games in all (deals x seatings).")
    ] = 2_000_000,
    holdout: Annotated[
        int | None, typer.Option(help="Held-out deals for the final evaluation.")
    ] = None,
    seed: SeedOpt = None,
    threads: ThreadsOpt = None,
    rule: RuleOpt = None,
    config: ConfigOpt = None,
    out: Annotated[Path | None, typer.Option(help="Also write the result as JSON here.")] = None,
):
    """Search weighted strategies' weights against the opponents (cross-entropy method) and
    report the best with its held-out win share."""
    from .tune import tune as run_tune

    result = run_tune(
        preset_name,
        players,
        seat_list(None, opponents),
        budget,
        seed,
        rule_overrides(config, rule, preset_name),
        threads,
        holdout,
        echo=lambda line: typer.echo(line, err=True),
    )
    typer.echo(f"best: {result.spec}")
    typer.echo(
        f"held-out win share: {result.share:.2%} (95% CI {result.lo:.2%} to {result.hi:.2%}) "
        f"over {result.holdout_games:,} games; greedy on the same deals: "
        f"{result.greedy_share:.2%} ({result.greedy_lo:.2%} to {result.greedy_hi:.2%})"
    )
    if out is not None:
        from dataclasses import asdict

        from .results import write_atomic

        write_atomic(Path(out), (json.dumps(asdict(result), indent=2) + "\n").encode())
        typer.echo(f"wrote {out}")


def main() -> None:
    """Console-script entry point.

    Usage mistakes that typer finds itself (a missing argument, ``--games abc``, an unknown
    option) are printed as one ``error:`` line with exit code 2, like every other mistake.
    """
    import sys

    if len(sys.argv) < 2:
        app()  # the help
        return
    usage_error = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")
    try:
        code = app(standalone_mode=False)
    except usage_error as exc:
        message = " ".join(exc.format_message().split())
        context = getattr(exc, "ctx", None)
        hint = f" (see '{context.command_path} --help')" if context is not None else ""
        typer.echo(f"error: {message}{hint}", err=True)
        raise SystemExit(exc.exit_code) from None
    raise SystemExit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
