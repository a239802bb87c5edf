"""The features of the ``weighted`` strategies (no numba): what the readable strategies
(:mod:`.strategies`) and the compiled ones (:mod:`.kernel_strategies`) both score, so that
neither imports the other."""

from __future__ import annotations

FEATURES = {
    "points": "the card's penalty points (card_points)",
    "wild": "1 for a wild card",
    "action": "1 for a card with an effect besides wild: skip, reverse, draw, again, all_draw",
    "draw": "cards it makes other seats draw (its draw:N, or all_draw:N)",
    "attack": "1 for a draw, skip or reverse card when the next seat holds 2 cards or fewer",
    "again": "1 for a card that makes its seat play again (again, all_draw)",
    "suit_left": "cards of its suit left in the hand once it is played",
    "rank_left": "cards of its rank left in the hand once it is played",
}
"""The ``weighted`` features of a legal card, in the order of the weight vector. Each is a
whole number; a card's score is the sum of weight x feature, and the best score is played.
The next seat's hand size enters through ``attack``."""

FEATURE_NAMES = tuple(FEATURES)
ATTACK_THRESHOLD = 2
"""``attack``: the next seat holds at most this many cards."""
