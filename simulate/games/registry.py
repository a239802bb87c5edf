"""The games cardsim knows: the single place that maps a name or alias to (spec, preset).

The built-in games are listed in :data:`BUILTIN`; a game from another installed package
registers through the ``cardsim.games`` entry-point group, naming its
:class:`~simulate.games.spec.GameSpec`::

    [project.entry-points."cardsim.games"]
    highcard = "cardsim_highcard.spec:GAME_SPEC"

Nothing here imports a kernel: a spec loads its engine on first use.
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from importlib import metadata

from ..core.errors import CardsimError
from .spec import GameSpec, Preset, load

BUILTIN = (
    "simulate.games.beggar.spec:GAME_SPEC",
    "simulate.games.shedding.spec:GAME_SPEC",
)
ENTRY_POINT_GROUP = "cardsim.games"


@dataclass(frozen=True)
class GameInfo:
    """A game as a user names it: one preset of a game family's spec."""

    spec: GameSpec
    preset: Preset

    @property
    def name(self) -> str:
        return self.preset.name

    @property
    def aliases(self) -> tuple[str, ...]:
        return self.preset.aliases

    @property
    def title(self) -> str:
        return self.preset.title

    @property
    def family(self) -> str:
        return self.spec.family

    @property
    def default_players(self) -> int:
        return self.preset.default_players

    @property
    def min_players(self) -> int:
        return self.spec.min_players

    @property
    def max_players(self) -> int:
        return self.spec.max_players

    def base_rules(self):
        """The preset's default rules object."""
        return self.spec.base_rules(self.name)

    def label(self) -> str:
        """``name (alias, ...)``, as help and errors list it."""
        return self.name + (f" ({', '.join(self.aliases)})" if self.aliases else "")


@functools.cache
def specs() -> tuple[GameSpec, ...]:
    """Every game family: the built-in ones, then those of installed plugins. A plugin
    that cannot be loaded, or whose family or game names are taken, is left out with one
    line on stderr: the other games stay usable."""
    found = [load(path) for path in BUILTIN]
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            spec = entry.load()
        except Exception as exc:  # a broken plugin must not break every command
            _skip(entry, f"it cannot be loaded ({type(exc).__name__}: {exc})")
            continue
        if not isinstance(spec, GameSpec):
            _skip(entry, f"{entry.value} is a {type(spec).__name__}, not a GameSpec")
            continue
        names = {name for known in found for p in known.presets for name in (p.name, *p.aliases)}
        taken = [n for p in spec.presets for n in (p.name, *p.aliases) if n in names]
        if any(spec.family == known.family for known in found) or taken:
            _skip(entry, f"its family or names are taken ({spec.family}, {', '.join(taken)})")
            continue
        found.append(spec)
    return tuple(found)


def _skip(entry, why: str) -> None:
    print(f"cardsim: the game plugin {entry.name!r} is left out: {why}", file=sys.stderr)


def games(command: str | None = None) -> dict[str, GameInfo]:
    """Every game by its full name (or those that take ``command``: ``play``, ``search``,
    ``replay``, ``tune``, ``tournament`` and ``ladder``: a game whose seats have strategies)."""
    return {
        preset.name: GameInfo(spec, preset)
        for spec in specs()
        if command is None
        or command in spec.commands
        or (command in ("tournament", "ladder") and spec.takes_strategies)
        for preset in spec.presets
    }


def game_names(command: str | None = None) -> str:
    """The games as help and errors list them: ``beggar-my-neighbour (bmn, beggar), …``."""
    return ", ".join(info.label() for info in games(command).values())


def resolve_game(name: str, command: str | None = None) -> GameInfo:
    """The game called ``name`` (a full name or an alias, any case); with ``command``, one
    that takes that command."""
    key = name.strip().lower()
    for info in games().values():
        if key == info.name or key in info.aliases:
            if command is not None and info.name not in games(command):
                raise CardsimError(
                    f"{command} does not take {info.name}; it takes: {game_names(command)}"
                )
            return info
    raise CardsimError(f"unknown game '{name}'; known games: {game_names(command)}")


def info_of(game: str) -> GameInfo | None:
    """The game of a full name (as ``run.json`` stores it), or None for an unknown one."""
    return games().get(game)


def check_players(info: GameInfo, players: int) -> None:
    if (
        isinstance(players, bool)
        or not isinstance(players, int)
        or not (info.min_players <= players <= info.max_players)
    ):
        raise CardsimError(
            f"players must be {info.min_players} to {info.max_players} for {info.name}, "
            f"got {players!r}"
        )
