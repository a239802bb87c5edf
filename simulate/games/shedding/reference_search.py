"""Strong players of the readable reference: determinized Monte Carlo (``pimc:K``) and
information-set MCTS (``ismcts:K``).

The twins of the kernel's searches (:mod:`.search` and :mod:`.tree` say what they do: their
options and their order, determinizations, streams and tree); a seat's decision here must
be the kernel's, rollout for rollout. A rollout (an iteration) is a copy of the
:class:`.reference.Game` (its hidden cards dealt again, every seat playing the rollout
policy, or deciding in the tree) that resumes the turn at the decision with the option
forced (:meth:`.reference.Game.resume`).
"""

from __future__ import annotations

import copy
import math
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
    if spec.name == "ismcts":
        return IsmctsStrategy(stream, game, seat, spec)
    if spec.searches:
        return SearchStrategy(stream, game, seat, spec)
    return reference_strategies.make_strategy(spec, stream, game, seat)


class SearchStrategy(Strategy):
    """``pimc:K``: each option played on K times, from the same K determinizations."""

    def choose(self, legal: list[int], may_draw: bool, may_pass: bool):
        actions = [identity(card) for card in legal]
        options = [option for card in sorted(set(actions)) for option in self.card_options(card)]
        options += [(DRAW, None)] * may_draw + [(PASS, None)] * may_pass
        action = self.decide(options, CHOOSE)
        return legal[actions.index(action)] if isinstance(action, int) else action

    def play_drawn(self, card: int) -> bool:
        return self.decide([*self.card_options(identity(card)), (KEEP, None)], DRAWN) != KEEP

    def before_drawn_play(self, card: int) -> None:
        self.decide(self.card_options(identity(card)), SUIT)

    def card_options(self, card: int) -> list[tuple[int, int | None]]:
        """``card`` once, or once per suit it names when played now."""
        suits = self.game.naming(card, self.game.at[0])
        return [(card, suit) for suit in suits] or [(card, None)]

    def decide(self, options: list[tuple], kind: str) -> object:
        """The option whose rollouts this seat won most often (ties: the first); its suit,
        if any, is left in ``game.named``. ``kind``: the decision's (``CHOOSE``, ``DRAWN``
        or ``SUIT``)."""
        game, seat = self.game, self.seat
        best = 0
        if len(options) > 1:
            seed, number = self.streams()
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

    def streams(self) -> tuple[int, int]:
        """The seed and game number of this decision's streams (the game's decision count
        goes up by one)."""
        game = self.game
        origin = game.stream
        number = search_game(origin.game, origin.stream, game.decisions)
        game.decisions += 1
        return origin.key[0] | origin.key[1] << 32, number


class IsmctsStrategy(SearchStrategy):
    """``ismcts:K``: K iterations of single-observer information-set MCTS, one tree."""

    def decide(self, options: list[tuple], kind: str) -> object:
        """The root option visited most often (ties: the first); its suit, if any, is left
        in ``game.named``."""
        game, seat = self.game, self.seat
        best = 0
        if len(options) > 1:
            seed, number = self.streams()
            policy = strategy_specs.parse(self.spec.rollout)
            root = Node(seat=-1, parent=None)
            explore = self.spec.int_explore() / strategy_specs.EXPLORE_SCALE
            for j in range(self.spec.budget):
                stream = Stream(seed, number, SEARCH_STREAM + j)
                world = rollout_copy(game, stream, policy)
                determinize(world, seat)
                walk = Walk(root, explore)
                o = walk.step(seat, kind, options, stream)
                if not walk.out:
                    world.strategies = [
                        TreeStrategy(world, other, walk, world.strategies[other])
                        for other in range(world.n)
                    ]
                action, world.named = options[o]
                world.strategies[seat] = Forced(world, seat, action)
                walk.backpropagate(world.resume(seat, game.at).winner)
            visits = [
                getattr(root.children.get(key(seat, kind, option)), "visits", 0)
                for option in options
            ]
            best = visits.index(max(visits))
        action, game.named = options[best]
        return action


class Node:
    """A node of an ``ismcts`` tree: the seat that chose it, its children by key (the
    seat, kind, action and suit of the option that leads there), visits, availability and
    wins (:mod:`.tree`)."""

    def __init__(self, seat: int, parent: Node | None):
        self.seat, self.parent = seat, parent
        self.children: dict[tuple, Node] = {}
        self.visits = self.avail = self.wins = 0


def key(seat: int, kind: str, option: tuple) -> tuple:
    return (seat, kind, *option)


class Walk:
    """One iteration's way down the tree: where it stands, the last node it reached, and
    whether it has left the tree (then every seat plays the rollout policy)."""

    def __init__(self, root: Node, explore: float):
        self.current = self.leaf = root
        self.explore, self.out = explore, False

    def step(self, seat: int, kind: str, options: list[tuple], stream: Stream) -> int:
        """``seat``'s option at the current node (its index): a new node for an untried
        option (uniform among them; then out of the tree), else the best UCB1."""
        node = self.current
        keys = [key(seat, kind, option) for option in options]
        found = [node.children.get(k) for k in keys]
        untried = [o for o, child in enumerate(found) if child is None]
        if untried:
            o = untried[stream.bounded(len(untried))] if len(untried) >= 2 else untried[0]
            found[o] = node.children[keys[o]] = Node(seat, node)
            self.out = True
        else:
            values = [
                c.wins / c.visits + self.explore * math.sqrt(math.log(c.avail) / c.visits)
                for c in found
            ]
            o = values.index(max(values))
            self.current = found[o]
        for child in found:
            if child is not None:  # the options open here that have a node
                child.avail += 1
        self.leaf = found[o]
        return o

    def backpropagate(self, winner: int) -> None:
        """A visit to every node walked, a win to those chosen by ``winner``."""
        node = self.leaf
        while node.parent is not None:
            node.visits += 1
            node.wins += winner == node.seat
            node = node.parent


class TreeStrategy(SearchStrategy):
    """A seat of an ``ismcts`` iteration: it decides in the tree (:meth:`Walk.step`) until
    the iteration leaves it, then as the rollout policy (``inner``) does."""

    def __init__(self, game: Game, seat: int, walk: Walk, inner: Strategy):
        super().__init__(game.stream, game, seat)
        self.walk, self.inner = walk, inner

    def choose(self, legal: list[int], may_draw: bool, may_pass: bool):
        if self.walk.out:
            return self.inner.choose(legal, may_draw, may_pass)
        return super().choose(legal, may_draw, may_pass)

    def play_drawn(self, card: int) -> bool:
        if self.walk.out:
            return self.inner.play_drawn(card)
        return super().play_drawn(card)

    def before_drawn_play(self, card: int) -> None:
        if not self.walk.out:
            super().before_drawn_play(card)

    def name_suit(self, suits: list[int]) -> int:
        return self.inner.name_suit(suits)

    def decide(self, options: list[tuple], kind: str) -> object:
        o = self.walk.step(self.seat, kind, options, self.stream) if len(options) > 1 else 0
        action, self.game.named = options[o]
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
    """A copy of ``game`` for a search's rollout (:func:`world_copy`): every seat playing
    ``policy``, no forgotten calls."""
    return world_copy(game, stream, [policy] * game.n, [0.0] * game.n)


def world_copy(game: Game, stream: Stream, policies: list, forget: list[float]) -> Game:
    """A copy of ``game`` to play on: its own lists, drawing from ``stream``, seat s playing
    ``policies[s]`` (a spec) and forgetting its call with chance ``forget[s]``; no notes,
    events or pauses."""
    twin = copy.copy(game)
    twin.hands = [list(hand) for hand in game.hands]
    twin.stock, twin.pile = list(game.stock), list(game.pile)
    twin.barred, twin.behind = list(game.barred), list(game.behind)
    twin.stream, twin.trace, twin.events, twin.on_turn = stream, None, None, None
    twin.forget = list(forget)
    twin.strategies = [
        reference_strategies.make_strategy(policy, stream, twin, seat)
        for seat, policy in enumerate(policies)
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
