"""The strong players' differential grid: ``pimc`` and ``ismcts`` seats on every rule
variant of the shedding grid, and the reference's records over it.

``make_differential.py search-grid`` plays every game with the reference (never the kernel)
and stores its records; ``tests/test_search.py`` checks the kernel against all of them and
plays a sample with the reference again. Small budgets (``pimc:2``, ``pimc:3``,
``ismcts:16``, ``ismcts:8``) keep the reference's rollouts affordable while every searched
decision still compares options (and ``ismcts``' trees grow past the root's children).
"""

from __future__ import annotations

from pathlib import Path

from . import shedding_grid
from .store import HERE, source_hash

PATH = HERE / "search-grid.parquet"
REFERENCE = ("simulate.games.shedding.reference",)
GAMES = 8
"""Games per configuration."""
SEED = 20261207
SEARCHERS = (
    "pimc:2",
    "ismcts:16",
    "pimc:k=3,rollout=greedy",
    "ismcts:k=8,rollout=uniform,c=1.5",
    "pimc:k=2,rollout=uniform",
)
SKIPPED = ("fifteen-players", "nine-players", "eight-players", "openspiel-6-decks")
"""Tables whose reference rollouts cost too much for a stored grid (long games, many seats)."""


def _seats(strategies: list[str], index: int) -> list[str]:
    """The config's strategies with searching seats: seat 0 and, at three seats or more,
    seat 2 (each config a different pair of budgets and rollout policies)."""
    seats = list(strategies)
    seats[0] = SEARCHERS[index % len(SEARCHERS)]
    if len(seats) >= 3:
        seats[2] = SEARCHERS[(index + 1) % len(SEARCHERS)]
    return seats


CONFIGS = [
    (name, preset, overrides, players, _seats(strategies, i), forget)
    for i, (name, preset, overrides, players, strategies, forget) in enumerate(
        shedding_grid.CONFIGS
    )
    if name not in SKIPPED
]


def definition() -> dict:
    """What the stored file must have been made from (JSON): the grid itself."""
    return {"games": GAMES, "seed": SEED, "configs": [list(config) for config in CONFIGS]}


def source() -> str:
    """The hash of the reference's source and of this definition."""
    return source_hash(REFERENCE, (Path(__file__).resolve(),))


def first_game(config) -> int:
    return 1_000 * CONFIGS.index(config)


def play_reference(config, game: int):
    """Game ``game`` of ``config`` played by the reference (a ``SheddingRecord``)."""
    from simulate.games.shedding import reference

    _, _, _, players, strategies, forget = config
    return reference.play(shedding_grid.rules_of(config), players, strategies, SEED, game, forget)
