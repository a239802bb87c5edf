"""The games cardsim knows, by name and alias; kernels are imported only when used."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import CardsimError


@dataclass(frozen=True)
class GameInfo:
    name: str
    aliases: tuple[str, ...]
    min_players: int
    max_players: int
    default_players: int
    title: str


GAMES = {
    "beggar-my-neighbour": GameInfo(
        name="beggar-my-neighbour",
        aliases=("bmn", "beggar"),
        min_players=2,
        max_players=4,
        default_players=2,
        title="Beggar-My-Neighbour",
    ),
}


def resolve_game(name: str) -> GameInfo:
    """The game called ``name`` (a full name or an alias, any case)."""
    key = name.strip().lower()
    for info in GAMES.values():
        if key == info.name or key in info.aliases:
            return info
    known = ", ".join(f"{info.name} (alias {', '.join(info.aliases)})" for info in GAMES.values())
    raise CardsimError(f"unknown game '{name}'; known games: {known}")


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
