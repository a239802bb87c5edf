"""Each seat's chance of winning through a shedding game (``--trace``), readably.

The twin of :mod:`.chance_kernel`, which says what a point is: before every turn (the
turn cap checked) the game pauses, and R copies of it, the hidden cards dealt again for a
spectator and every seat playing its own strategy (a searching seat its rollout policy),
are played on to the end; the last point is the game's outcome.
"""

from __future__ import annotations

from ...core.rng import Stream
from ...core.search_streams import TRACE_STREAM, search_game
from . import strategies as strategy_specs
from .reference import Game, GameOver, deal
from .reference_search import determinize, world_copy
from .rules import SheddingRules

SPECTATOR = -1
"""The seat whose cards a spectator's determinization keeps: none."""


def trace(
    rules: SheddingRules,
    players: int,
    strategies: list[str],
    seed: int,
    game: int,
    *,
    rollouts: int,
    forget: list[float] | None = None,
    deal_no: int | None = None,
) -> list[list[int]]:
    """The points of game ``game`` of run ``seed`` (with ``deal_no``: of deal ``deal_no``
    of match ``game``, as :func:`.reference.play_deal` deals it): for t = 0 .. T (its
    turns), the rollouts each seat won of ``rollouts`` from the state after turn t."""
    rules.check_players(players)
    stream_id = 0 if deal_no is None else deal_no
    stream = Stream(seed, game, stream=stream_id)
    given = None if deal_no is None else deal_no % players
    first, hands, stock = deal(rules, players, stream, given)
    table = Game(
        rules, hands, stock, strategies=strategies, stream=stream, first_seat=first, forget=forget
    )
    policies = [_policy(strategy.spec) for strategy in table.strategies]
    points: list[list[int]] = []

    def pause(paused: Game, seat: int) -> None:
        number = search_game(game, stream_id, paused.turns)
        points.append(chances(paused, seat, policies, seed, number, rollouts))

    table.on_turn = pause
    record = table.run()
    points.append([rollouts if seat == record.winner else 0 for seat in range(players)])
    return points


def chances(
    game: Game, seat: int, policies: list, seed: int, number: int, rollouts: int
) -> list[int]:
    """The rollouts each seat wins of ``rollouts`` from ``game``, paused before ``seat``'s
    turn; rollout r draws from the stream ``(seed, number, TRACE_STREAM + r)``."""
    wins = [0] * game.n
    for r in range(rollouts):
        world = world_copy(game, Stream(seed, number, TRACE_STREAM + r), policies, game.forget)
        determinize(world, SPECTATOR)
        try:
            world.play_turns(seat)
        except GameOver as over:
            if over.winner >= 0:
                wins[over.winner] += 1
    return wins


def _policy(spec: strategy_specs.StrategySpec) -> strategy_specs.StrategySpec:
    """What a seat plays in the rollouts: its strategy, or a searching seat's rollout policy."""
    return strategy_specs.parse(spec.rollout) if spec.searches else spec
