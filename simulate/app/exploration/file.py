"""Explore files: a search written down, which ``cardsim explore FILE.toml`` runs.

::

    title = "The fairest quick 4-player Pis Yedili"    # optional
    game = "pis-yedili"
    players = 4                      # default: the game's
    budget = 600000                  # deals, at most
    seed = 12
    method = "auto"                  # optional: auto, exhaustive, search
    first_round = 1000               # optional: games (matches) per rule set in round 1
    rules = { }                      # optional: the base rules, as --rule / --config
    strategies = ["random"]          # optional: the seats, as --seats
    skill = "hold-wilds"             # optional: the skilled strategy, when skill is aimed
    aim = ["first_seat_advantage", "turns=min"]          # as --aim
    require = ["first_seat_advantage<=1pt"]              # optional: as --require
    [vary]                                               # as --vary, one key per knob
    hand_size = "5..8"
    stacking = ["none", "same_rank"]

Every mistake is one line naming the file and the line of the key.
"""

from __future__ import annotations

from pathlib import Path

from ...core.errors import CardsimError
from ..studies.file import located_error, read_toml
from ..studies.tomlines import KeyLines

FILE_KEYS = (
    "title",
    "game",
    "players",
    "budget",
    "seed",
    "method",
    "first_round",
    "rules",
    "strategies",
    "skill",
    "aim",
    "require",
    "vary",
)
SETTINGS = ("players", "budget", "seed", "method", "first_round", "rules", "strategies", "skill")
"""Keys passed to :func:`simulate.app.exploration.plan.plan_explore` as they are."""


def is_explore_file(name: str) -> bool:
    """Whether ``cardsim explore NAME`` names a file (rather than a game)."""
    return name.lower().endswith(".toml")


def read_explore_file(path: str | Path) -> tuple[str, dict, str | None]:
    """``(game, settings, title)`` of an explore file: ``settings`` are keyword arguments
    of :func:`simulate.app.exploration.plan.plan_explore` (``vary``, ``aim`` and those of
    :data:`SETTINGS` the file gives). The settings are checked by the plan, whose errors
    :func:`locate` places at their line."""
    path = Path(path)
    text, data = read_toml(path, "explore file")
    lines = KeyLines(text)

    def fail(key: tuple, message: str) -> CardsimError:
        return located_error(path, lines.line_of(key), message)

    for key in data:
        if key not in FILE_KEYS:
            raise fail((key,), f"unknown key '{key}'; an explore file has: {', '.join(FILE_KEYS)}")
    for key in ("game", "vary", "aim"):
        if key not in data:
            raise fail((), f"no '{key}'; an explore file needs game, vary and aim")
    if not isinstance(data["game"], str):
        raise fail(("game",), f"game must be a name in quotes, got {data['game']!r}")
    if not isinstance(data["vary"], dict) or not data["vary"]:
        raise fail(("vary",), 'vary must be a table of knobs, as [vary] hand_size = "5..8"')
    aim = data["aim"]
    if isinstance(aim, str):
        aim = [aim]
    if not (isinstance(aim, list) and all(isinstance(a, str) for a in aim)) and not isinstance(
        aim, dict
    ):
        raise fail(("aim",), 'aim must be a list of aims, as ["first_seat_advantage", "turns=min"]')
    if "rules" in data and not isinstance(data["rules"], dict):
        raise fail(("rules",), 'rules must be a table of knobs, as { stacking = "none" }')
    strategies = data.get("strategies")
    if isinstance(strategies, str):
        from ..studies.file import split_seats

        data["strategies"] = split_seats(strategies)
    require = data.get("require", [])
    if isinstance(require, str):
        require = [require]
    if not (isinstance(require, list) and all(isinstance(r, str) for r in require)):
        raise fail(("require",), 'require must be a list of bounds, as ["turns<=40"]')
    settings = {key: data[key] for key in SETTINGS if key in data}
    settings.update(vary=data["vary"], aim=aim, require=require)
    title = data.get("title")
    if title is not None and not isinstance(title, str):
        raise fail(("title",), f"title must be text in quotes, got {title!r}")
    return data["game"], settings, title


def locate(path: str | Path, exc: CardsimError) -> CardsimError:
    """``exc`` (from checking an explore file's settings) with the file's name and, where
    found, the line of the key it names."""
    path = Path(path)
    message = str(exc)
    try:
        lines = KeyLines(path.read_text(encoding="utf-8"))
    except OSError:
        return CardsimError(f"{path}: {message}")
    key: tuple = ()
    for option, where in (
        ("--vary ", "vary"),
        ("--aim", "aim"),
        ("--require", "require"),
        ("--budget", "budget"),
        ("--method", "method"),
        ("--first-round", "first_round"),
        ("--skill", "skill"),
        ("seed", "seed"),
        ("players", "players"),
    ):
        if message.startswith(option):
            key = (where,)
            if where == "vary":
                knob = message[len(option) :].split("=")[0].split(":")[0].strip()
                key = ("vary", knob) if lines.line_of(("vary", knob)) else ("vary",)
            break
    else:
        key = ("rules",)
    return located_error(path, lines.line_of(key), message)
