"""Strong players of the readable reference (``pimc:K``): determinized Monte Carlo.

The twin of the kernel's search (:mod:`.search` says what it does: its options and their
order, its determinizations, its streams); a seat's decision here must be the kernel's,
rollout for rollout. A rollout is a copy of the :class:`.reference.Game` (its hidden cards
dealt again, every seat playing the rollout policy) that resumes the turn at the decision
with the option forced (:meth:`.reference.Game.resume`).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

from ...core.rng import Stream
from ...core.search_streams import SEARCH_STREAM, search_game
from . import reference_strategies
from . import strategies as strategy_specs
from .reference_cards import DRAW, KEEP, PASS, identity
from .reference_strategies import Strategy

if TYPE_CHECKING:
    from .reference import Game

CHOOSE, DRAWN, SUIT = "choose", "drawn", "suit"


def make_strategy(spec: strategy_specs.StrategySpec, stream: Stream, game: Game, seat: int):
    """The strategy object that decides for ``seat`` (a search, or one of
    :func:`.reference_strategies.make_strategy`'s)."""
    if spec.searches:
        return SearchStrategy(stream, game, seat, spec)
    return reference_strategies.make_strategy(spec, stream, game, seat)


class SearchStrategy(Strategy):
    """``pimc:K``: each option played on K times, from the same K determinizations."""

    def choose(self, legal: list[int], may_draw: bool, may_pass: bool):
        actions = [identity(card) for card in legal]
        options = [option for card in sorted(set(actions)) for option in self.card_options(card)]
        options += [(DRAW, None)] * may_draw + [(PASS, None)] * may_pass
        action = self.decide(options)
        return legal[actions.index(action)] if isinstance(action, int) else action

    def play_drawn(self, card: int) -> bool:
        return self.decide([*self.card_options(identity(card)), (KEEP, None)]) != KEEP

    def before_drawn_play(self, card: int) -> None:
        self.decide(self.card_options(identity(card)))

    def card_options(self, card: int) -> list[tuple[int, int | None]]:
        """``card`` once, or once per suit it names when played now."""
        game = self.game
        mode = game.at[0]
        effects = game.effects(card)
        names = (
            mode != "opening"
            and effects.wild
            and not (effects.draw > 0 and game.pending > 0)
            and game.rules.wild_mode != "own_suit"
        )
        if not names:
            return [(card, None)]
        different = game.rules.wild_mode == "different"
        return [(card, suit) for suit in range(4) if not different or suit != game.suit]

    def decide(self, options: list[tuple]) -> object:
        """The option whose rollouts this seat won most often (ties: the first); its suit,
        if any, is left in ``game.named``."""
        game, seat = self.game, self.seat
        best = 0
        if len(options) > 1:
            origin = game.stream
            seed = origin.key[0] | origin.key[1] << 32
            number = search_game(origin.game, origin.stream, game.decisions)
            game.decisions += 1
            policy = strategy_specs.parse(self.spec.rollout)
            wins = [0] * len(options)
            for j in range(self.spec.budget):
                stream = Stream(seed, number, SEARCH_STREAM + j)
                world = rollout_copy(game, stream, policy)
                determinize(world, seat)
                for o, (action, suit) in enumerate(options):
                    twin = rollout_copy(world, copy.deepcopy(stream), policy)
                    twin.strategies[seat] = Forced(twin, seat, action)
                    twin.named = suit
                    wins[o] += twin.resume(seat, game.at).winner == seat
            best = wins.index(max(wins))
        action, game.named = options[best]
        return action


class Forced(Strategy):
    """A rollout's first decision: the option being tried (then the rollout policy)."""

    def __init__(self, game: Game, seat: int, action):
        super().__init__(game.stream, game, seat)
        self.inner, self.action = game.strategies[seat], action

    def choose(self, legal: list[int], may_draw: bool, may_pass: bool):
        self.game.strategies[self.seat] = self.inner
        if isinstance(self.action, int):
            return next(card for card in legal if identity(card) == self.action)
        return self.action


def rollout_copy(game: Game, stream: Stream, policy: strategy_specs.StrategySpec) -> Game:
    """A copy of ``game`` for a rollout: its own lists, drawing from ``stream``, every seat
    playing ``policy``, no forgotten calls, no trace or events."""
    twin = copy.copy(game)
    twin.hands = [list(hand) for hand in game.hands]
    twin.stock, twin.pile = list(game.stock), list(game.pile)
    twin.barred, twin.behind = list(game.barred), list(game.behind)
    twin.stream, twin.trace, twin.events = stream, None, None
    twin.forget = [0.0] * game.n
    twin.strategies = [
        reference_strategies.make_strategy(policy, stream, twin, seat) for seat in range(game.n)
    ]
    return twin


def determinize(game: Game, seat: int) -> None:
    """Deal what ``seat`` cannot see (the other hands, then the stock) at random back into
    them, every size kept: the pool (each other hand upward, copies adjacent, in seat order,
    then the stock top first) shuffled from the game's stream, then dealt in that order."""
    others = [other for other in range(game.n) if other != seat]
    pool = [card for other in others for card in sorted(game.hands[other], key=_order)]
    pool += game.stock
    game.stream.shuffle(pool)
    for other in others:
        size = len(game.hands[other])
        game.hands[other], pool = sorted(pool[:size], key=_order), pool[size:]
    game.stock = pool


def _order(card: int) -> tuple[int, int]:
    return identity(card), card
