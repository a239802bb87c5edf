"""What every command of the ``cardsim`` command line shares: the app, the one-line errors,
the options, and the game names (from the registry, the one place that lists them)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Annotated

import typer

from ...core.errors import CardsimError
from ...core.paths import check_local
from ...games.registry import game_names

app = typer.Typer(
    name="cardsim",
    help="Monte Carlo simulation and statistics for card games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(shown: bool) -> None:
    if shown:
        from ... import __version__

        typer.echo(f"cardsim {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
):
    """Monte Carlo simulation and statistics for card games."""


def user_errors(command):
    """Turn user mistakes into one line and exit code 2, and interruptions into code 130."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        from analysis.errors import ReportError

        try:
            return command(*args, **kwargs)
        except (CardsimError, ReportError) as exc:
            text = exc.for_command_line() if isinstance(exc, CardsimError) else str(exc)
            typer.echo(f"error: {text}", err=True)
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            typer.echo("interrupted", err=True)
            raise typer.Exit(130) from None

    return wrapper


def game_argument(command: str | None = None, what: str = "Game"):
    """The GAME argument of a command, its help listing the games the command takes."""
    return Annotated[str, typer.Argument(metavar="GAME", help=f"{what}: {game_names(command)}.")]


def whole_number(text: str | int) -> int:
    """A count as users write it: ``1000000``, ``1_000_000``, ``1,000,000`` or ``1e6``."""
    if isinstance(text, int):  # an option's default
        return text
    cleaned = text.strip().replace("_", "").replace(",", "")
    try:
        return int(cleaned)
    except ValueError:
        pass
    try:
        value = float(cleaned)
    except ValueError:
        raise typer.BadParameter(
            f"expected a whole number such as 1000000 or 1e6, got {text!r}"
        ) from None
    if not value.is_integer():
        raise typer.BadParameter(f"expected a whole number, got {text!r}")
    return int(value)


def path_value(value: str) -> Path:
    """A path given on the command line, refused when empty: ``--out ""`` (an unset shell
    variable, as often as not) would otherwise name the current folder."""
    if not str(value).strip():
        raise typer.BadParameter(
            "an empty path names no file or folder; give one (is a shell variable unset?)"
        )
    try:
        check_local(value)
    except CardsimError as exc:
        raise typer.BadParameter(str(exc)) from None
    return Path(value)


def count_option(help: str, *names: str):
    """An option that takes a count written as :func:`whole_number` reads it."""
    return typer.Option(*names, help=help, parser=whole_number, metavar="N")


GameArg = game_argument()
TraceOpt = Annotated[
    int | None,
    count_option(
        "Trace the first N games (single deals): each seat's chance of winning after the "
        "deal and after every turn, from --rollouts rollouts a point, into DIR/trace/ "
        "(docs/results-format.md) (default: none).",
        "--trace",
    ),
]
RolloutsOpt = Annotated[
    int | None,
    count_option(
        "Rollouts a traced point plays from states a spectator cannot tell apart, 1 to "
        "4,096 (default: 64).",
        "--rollouts",
    ),
]
RuleOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--rule",
        help="Change a rule knob, KNOB=VALUE (repeatable), e.g. penalties.A=5 "
        "(default: the game's rules).",
    ),
]
ConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--config",
        help="A TOML file of rule knobs; --rule wins over it (default: none).",
        parser=path_value,
    ),
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
PlayThreadsOpt = Annotated[
    int | None, typer.Option("--threads", help="Threads that play the games (default: all cores).")
]
StrategyOpt = Annotated[
    list[str] | None,
    typer.Option(
        help="Each seat's strategy in seat order (repeatable): random, uniform, first, greedy, "
        "hold-wilds, attack, weighted:F=W,... (each takes :forget=P), or the strong players "
        "pimc:K and ismcts:K (default: random)."
    ),
]
SeatsOpt = Annotated[
    str | None,
    typer.Option(
        help="Every seat's strategy at once, in seat order, e.g. first,random,random "
        "(default: random in every seat)."
    ),
]
DpiOpt = Annotated[
    str | None,
    typer.Option(
        "--dpi",
        metavar="N",
        help="Resolution of the PNG charts, 50 to 1200 dots per inch (default: 200).",
    ),
]
FormatsOpt = Annotated[
    str | None,
    typer.Option(
        "--formats",
        metavar="LIST",
        help="Chart files to write, comma-separated from png, svg, pdf (default: all three; "
        "report.html embeds PNG whatever this says).",
    ),
]


def chart_options(dpi: str | None, formats: str | None) -> tuple[int, tuple[str, ...]]:
    """``--dpi`` and ``--formats`` checked, before anything is run or written: a bad value
    is a one-line error naming it and what is allowed."""
    from analysis.errors import ReportError
    from analysis.rendering.output import chart_dpi, chart_formats

    try:
        return chart_dpi(dpi, "--dpi"), chart_formats(formats, "--formats")
    except ReportError as exc:
        raise CardsimError(str(exc)) from None


def parse_rules(rules: list[str] | None) -> dict[str, str]:
    """``["penalties.A=5", "time_limit=100"]`` -> ``{"penalties.A": "5", ...}``."""
    overrides = {}
    for item in rules or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise CardsimError(f"--rule expects KNOB=VALUE, got {item!r}")
        overrides[key.strip()] = value.strip()
    return overrides


def rule_overrides(config: Path | None, rule: list[str] | None, game: str | None = None) -> dict:
    """Knob overrides from ``--config FILE.toml`` then ``--rule K=V`` (later ones win).

    With ``game``, the file's knobs are checked against that game's rules first, so that a
    bad knob or value in the file is reported with the file's name and the line.
    """
    overrides = {}
    if config is not None:
        from ...games.registry import resolve_game
        from ..studies.file import read_rule_file

        rule_file = read_rule_file(config)
        if game is not None:
            rule_file.check(resolve_game(game).base_rules())
        overrides = dict(rule_file.overrides)
    overrides.update(parse_rules(rule))
    return overrides


def seat_list(strategy: list[str] | None, seats: str | None) -> list[str] | None:
    """Seat strategies from repeated ``--strategy`` or one ``--seats a,b,c`` list."""
    if seats is None:
        return strategy
    if strategy:
        raise CardsimError("give --strategy (repeated) or --seats (a comma list), not both")
    from ..studies.file import split_seats

    names = split_seats(seats)
    if not all(names):
        raise CardsimError(f"--seats expects strategy names separated by commas, got {seats!r}")
    return names


def count(number: int, noun: str) -> str:
    """``1 thread``, ``2 threads``, ``1,000 games``, ``1 match``, ``2 matches``."""
    if number == 1:
        return f"{number:,} {noun}"
    return f"{number:,} {noun}{'es' if noun.endswith(('ch', 'sh', 's', 'x')) else 's'}"
