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
    family: str
    """``beggar`` (Beggar-My-Neighbour) or ``shedding`` (a shedding-game preset)."""


GAMES = {
    info.name: info
    for info in (
        GameInfo(
            "beggar-my-neighbour", ("bmn", "beggar"), 2, 4, 2, "Beggar-My-Neighbour", "beggar"
        ),
        GameInfo("pis-yedili", ("dirty-seven",), 2, 15, 4, "Pis Yedili", "shedding"),
        GameInfo("crazy-eights", ("c8",), 2, 15, 4, "Crazy Eights", "shedding"),
        GameInfo("crazy-eights-plain", (), 2, 15, 4, "Crazy Eights (plain)", "shedding"),
        GameInfo("openspiel", (), 2, 15, 5, "Crazy Eights (OpenSpiel's rules)", "shedding"),
    )
}


def resolve_game(name: str) -> GameInfo:
    """The game called ``name`` (a full name or an alias, any case)."""
    key = name.strip().lower()
    for info in GAMES.values():
        if key == info.name or key in info.aliases:
            return info
    known = ", ".join(
        info.name + (f" ({', '.join(info.aliases)})" if info.aliases else "")
        for info in GAMES.values()
    )
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
