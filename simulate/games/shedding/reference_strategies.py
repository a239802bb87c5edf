"""The strategies of the readable reference: how a seat decides, one class per family.

Each strategy draws from the game's random stream exactly as the kernel's twin does
(:mod:`.kernel_strategies`); :func:`make_strategy` builds the one a seat's spec names.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from ...core.cards import DECK_SIZE
from ...core.errors import CardsimError
from ...core.rng import Stream
from . import strategies as strategy_specs
from .features import ATTACK_THRESHOLD
from .reference_cards import DRAW, PASS, identity, rank_of, suit_of

if TYPE_CHECKING:
    from .reference import Game


class Strategy:
    """How one seat decides. ``legal`` is its legal physical cards, sorted by identity.

    ``choose`` returns a card code, ``DRAW`` or ``PASS``; ``play_drawn`` says whether a legal
    card just drawn under ``draw_one_may_play`` is played; ``name_suit`` picks among ``suits``.
    """

    def __init__(
        self,
        stream: Stream,
        game: Game | None = None,
        seat: int = 0,
        spec: strategy_specs.StrategySpec | None = None,
    ):
        """``game`` and ``seat``: what a strategy may look at (``weighted`` needs them)."""
        self.stream, self.game, self.seat, self.spec = stream, game, seat, spec

    def pick(self, k: int) -> int:
        """A uniform index among ``k`` options; one option costs no random draw."""
        return self.stream.bounded(k) if k >= 2 else 0

    def name_suit(self, suits: list[int]) -> int:
        return suits[self.pick(len(suits))]

    def before_drawn_play(self, card: int) -> None:
        """A drawn ``card`` is about to be played without a choice (only a search acts)."""


class RandomStrategy(Strategy):
    """``random``: a uniform legal card (physical cards, duplicates counted); draws or passes
    only when it holds no legal card; always plays a drawn card it may play."""

    def choose(self, legal: list[int], may_draw: bool, may_pass: bool):
        if legal:
            return legal[self.pick(len(legal))]
        return _forced(may_draw, may_pass)

    def play_drawn(self, card: int) -> bool:
        return True


class UniformStrategy(Strategy):
    """``uniform``: uniform over the distinct legal identities, then draw, then pass."""

    def choose(self, legal: list[int], may_draw: bool, may_pass: bool):
        options: list = sorted({identity(card) for card in legal})
        options += [DRAW] * may_draw + [PASS] * may_pass
        choice = options[self.pick(len(options))]
        if choice in (DRAW, PASS):
            return choice
        return next(card for card in legal if identity(card) == choice)

    def play_drawn(self, card: int) -> bool:
        # The options are [the drawn card, end the turn].
        return self.pick(2) == 0


class FirstStrategy(Strategy):
    """``first``: the lowest legal identity (suits C D H S, ranks A..K), the lowest suit."""

    def choose(self, legal: list[int], may_draw: bool, may_pass: bool):
        return legal[0] if legal else _forced(may_draw, may_pass)

    def play_drawn(self, card: int) -> bool:
        return True

    def name_suit(self, suits: list[int]) -> int:
        return suits[0]


class WeightedStrategy(Strategy):
    """``weighted`` (and ``greedy``, ``hold-wilds``, ``attack``, its points): the legal card
    of best score (the first such in card order); draws or passes only when it holds no
    legal card; plays a drawn card it may play; names the allowed suit it holds most of.
    Draws nothing from the stream."""

    def choose(self, legal: list[int], may_draw: bool, may_pass: bool):
        if not legal:
            return _forced(may_draw, may_pass)
        weights = self.spec.int_weights()
        return max(legal, key=lambda card: _dot(weights, self.features(card)))

    def features(self, card: int) -> tuple[int, ...]:
        """The card's ``strategies.FEATURES``, in order."""
        game, hand = self.game, self.game.hands[self.seat]
        effects = game.effects(card)
        draws = effects.draw + effects.all_draw
        hurts = draws > 0 or effects.skip or effects.reverse
        short = len(game.hands[game.next_seat(self.seat)]) <= ATTACK_THRESHOLD
        again = effects.again or effects.all_draw > 0
        return (
            game.rules.points(rank_of(card)),
            int(effects.wild),
            int(hurts or again),
            draws,
            int(hurts and short),
            int(again),
            sum(suit_of(other) == suit_of(card) for other in hand) - 1,
            sum(rank_of(other) == rank_of(card) for other in hand) - 1,
        )

    def play_drawn(self, card: int) -> bool:
        return True

    def name_suit(self, suits: list[int]) -> int:
        held = Counter(suit_of(card) for card in self.game.hands[self.seat])
        return max(suits, key=lambda suit: held[suit])  # the first of equals


class UserStrategy(WeightedStrategy):
    """A user's function ``choose(hand, legal, view)`` (``kernel_strategies``) picks the card,
    draws or passes; it names suits and plays drawn cards as the ``weighted`` strategies."""

    def choose(self, legal: list[int], may_draw: bool, may_pass: bool):
        import numpy as np

        from . import kernel_strategies as ks

        game = self.game
        hand = np.zeros(DECK_SIZE, np.int64)
        for card in game.hands[self.seat]:
            hand[identity(card)] += 1
        mask = 0
        for card in legal:
            mask |= 1 << identity(card)
        view = np.zeros(ks.VIEW_SIZE + game.n, np.int64)
        view[ks.VIEW_SEAT], view[ks.VIEW_PLAYERS] = self.seat, game.n
        view[ks.VIEW_TOP] = identity(game.pile[-1]) if game.pile else -1
        view[ks.VIEW_SUIT], view[ks.VIEW_PENDING] = game.suit, game.pending
        view[ks.VIEW_DIRECTION], view[ks.VIEW_STOCK] = game.direction, len(game.stock)
        view[ks.VIEW_MAY_DRAW], view[ks.VIEW_MAY_PASS] = may_draw, may_pass
        view[ks.VIEW_SIZES :] = [len(h) for h in game.hands]
        choice = int(self.spec.function(hand, mask, view))
        if choice == ks.DRAW and may_draw:
            return DRAW
        if choice == ks.PASS and may_pass:
            return PASS
        if 0 <= choice < DECK_SIZE and (mask >> choice) & 1:
            return next(card for card in legal if identity(card) == choice)
        raise CardsimError(
            f"{self.spec} chose {choice}, which is not among its options (legal mask "
            f"{mask:#x}, may draw {may_draw}, may pass {may_pass})"
        )


def _dot(weights: tuple[int, ...], features: tuple[int, ...]) -> int:
    return sum(w * f for w, f in zip(weights, features, strict=True))


def _forced(may_draw: bool, may_pass: bool):
    """With no legal card at most one of drawing and passing is open (see the turn rules)."""
    assert may_draw != may_pass, "a seat with no legal card must have exactly one way on"
    return DRAW if may_draw else PASS


STRATEGY_CLASSES = {"random": RandomStrategy, "uniform": UniformStrategy, "first": FirstStrategy}


def make_strategy(spec: strategy_specs.StrategySpec, stream: Stream, game: Game, seat: int):
    """The strategy object that decides for ``seat``."""
    if spec.name == "user":
        return UserStrategy(stream, game, seat, spec)
    cls = WeightedStrategy if spec.weighted else STRATEGY_CLASSES[spec.name]
    return cls(stream, game, seat, spec)
