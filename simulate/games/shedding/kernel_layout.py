"""The shedding kernel's layout: the offsets of its scratch array, its codes and masks.

Every constant that mirrors a list elsewhere is derived from it: the choice codes from
:data:`.rules.CHOICES`, the end codes from :data:`.reference.END_REASONS`, the rule
offsets from :data:`.rules.R`. The kernel (:mod:`.kernel`) reads them as compile-time
constants.

numba's on-disk cache is keyed on the kernel's own source file, not on this one: after
changing a constant here (or ``rules.CHOICES``), touch ``kernel.py`` or run ``make clean``
so that the kernel is compiled again.
"""

from __future__ import annotations

import numpy as np

from .kernel_strategies import FEATURES, VIEW_SIZE
from .reference import END_REASONS
from .rules import CHOICES, MAX_PLAYERS, RULE_VECTOR_SIZE, R

DECK = 52
LANES = 16
"""The widest tension mark's vector (MAX_PLAYERS rounded up to a power of two): each seat's
hand size and deficit take LANES words, so that a mark reads and writes them whole."""
MAX_DECKS = 8
MAX_CARDS = DECK * MAX_DECKS

STRATEGY_CODES = {
    "random": 0, "uniform": 1, "first": 2, "weighted": 3, "user": 4, "pimc": 5, "ismcts": 6,
}  # fmt: skip
"""Strategy codes; ``greedy``, ``hold-wilds`` and ``attack`` are ``weighted`` (their weights)."""
STRAT_RANDOM, STRAT_UNIFORM, STRAT_FIRST, STRAT_WEIGHTED, STRAT_USER, STRAT_PIMC, STRAT_ISMCTS = (
    range(7)
)
STRAT_TREE = 7
"""A seat of an ``ismcts`` iteration that decides in the tree (:mod:`.tree`); the codes from
``STRAT_USER`` up call out of the kernel's own strategies (:func:`.kernel.choose`)."""

# End codes: indices into reference.END_REASONS; and a user strategy's invalid choice, which
# stops the game (the caller raises an error).
END_OUT, END_STOCK_OUT, END_BLOCKED, END_PLAY_CAP, END_TURN_CAP = (
    END_REASONS.index(reason) for reason in ("out", "stock_out", "blocked", "play_cap", "turn_cap")
)
END_INVALID = len(END_REASONS)


def _choices(knob: str, *values: str) -> tuple[int, ...]:
    """The codes of a choice knob's ``values``: their indices in ``rules.CHOICES``."""
    return tuple(CHOICES[knob].index(value) for value in values)


# Choice values, as the rule vector holds them.
(FIRST_RANDOM,) = _choices("first_seat", "random")
START_FLIP, START_LEAD_CLUB, START_ALL_LEAD_CLUB = _choices(
    "start", "flip", "lead_club", "all_lead_club"
)
WILD_ANY, WILD_DIFFERENT, WILD_OWN_SUIT, WILD_MATCH_SUIT = _choices(
    "wild_mode", "any", "different", "own_suit", "match_suit"
)
NO_PLAY_PASS, NO_PLAY_MAY_PLAY, NO_PLAY_UNTIL, NO_PLAY_UP_TO = _choices(
    "on_no_play", "draw_one_pass", "draw_one_may_play", "draw_until_playable", "draw_up_to:N"
)
STACK_NONE, STACK_SAME_RANK, STACK_ANY_DRAW = _choices("stacking", "none", "same_rank", "any_draw")
GROWTH_ADD, GROWTH_DOUBLE = _choices("stack_growth", "add", "double")
EMPTY_RESHUFFLE, EMPTY_END, EMPTY_PASS = _choices("stock_empty", "reshuffle", "end", "pass")
(BLOCKED_LOWEST,) = _choices("blocked_winner", "lowest_hand")
(REVERSE2_SKIP,) = _choices("reverse_two_players", "skip")
LAST_PENALTY, LAST_CANNOT_GO_OUT = _choices("last_card_rule", "penalty", "cannot_go_out")
SCORE_COLLECTS, SCORE_PENALTY, SCORE_MINUS = _choices(
    "scoring", "winner_collects", "penalty", "minus_hand"
)

R_FIRST_SEAT = R["first_seat"]
R_START = R["start"]
R_WILD_MODE = R["wild_mode"]
R_WILD_ON_WILD = R["wild_on_wild"]
R_ON_NO_PLAY = R["on_no_play"]
R_DRAW_UP_TO = R["draw_up_to"]
R_VOLUNTARY = R["voluntary_draw"]
R_STACKING = R["stacking"]
R_GROWTH = R["stack_growth"]
R_WILD_ANSWERS = R["wild_answers_draw"]
R_PENALTY_ENDS = R["penalty_ends_turn"]
R_STOCK_EMPTY = R["stock_empty"]
R_BLOCKED_WINNER = R["blocked_winner"]
R_MAX_PLAYS = R["max_plays"]
R_MAX_TURNS = R["max_turns"]
R_REVERSE2 = R["reverse_two_players"]
R_LAST_CALL = R["last_card_call"]
R_LAST_RULE = R["last_card_rule"]
R_LAST_PENALTY = R["last_card_penalty"]
R_SCORING = R["scoring"]

# Kinds of legality check (the reference's NORMAL, ANSWER, OPENING).
NORMAL, ANSWER, OPENING = 0, 1, 2
# Decisions other than a card (and a user strategy's invalid answer); ``KEEP``: a card just
# drawn is kept (a search's option, see :mod:`.search`).
DRAW, PASS, INVALID, KEEP = -2, -3, -4, -5

# Offsets in ``g``: the state of the game being played (zeroed by every deal) ...
S_DIR = 0
S_SUIT = 1
S_PLEN = 2
S_SPOS = 3
S_SEND = 4
S_PENDING = 5
S_PSKIP = 6
S_SKIP_NEXT = 7
S_OPENINGS = 8
S_IDLE = 9
S_TURNS = 10
S_PLAYS = 11
S_DRAWS = 12
S_PASSES = 13
S_WILDS = 14
S_RESHUFFLES = 15
S_END = 16
S_WINNER = 17
S_FINISH = 18
S_FIRST = 19  # the seat that takes the first turn
# Tension marks: the leader's bit (0 before the first), the bits it flipped (1 for the first
# leader, 2 a change), and each seat's most cards behind the seat holding the fewest over the
# marks so far (LANES words, as the hand sizes: see the kernel's ``_mark``).
S_LEADER = 20
S_LEAD_FLIPS = 21
S_BEHIND = 22
S_BARRED = S_BEHIND + LANES
# A search's marks (see :mod:`.search`): 1 in a rollout's copy whose first turn resumes at a
# decision (``S_R_*`` below); the suit a searching seat's wild names, plus 1 (0: none
# chosen); the searched decisions of the game so far (they number its rollout streams).
S_RESUME = S_BARRED + MAX_PLAYERS
S_NAMED = S_RESUME + 1
S_DECISIONS = S_RESUME + 2
# The decision points of the game (every seat's, whatever its strategy): those with two
# options or more, their options summed, and those with one (see :func:`.kernel._tally`).
S_CHOICES = S_RESUME + 3
S_OPTIONS = S_RESUME + 4
S_ONE_OPTION = S_RESUME + 5
# A traced game (see :mod:`.chance_kernel`) pauses between turns: ``_play`` returns before
# turn ``S_PAUSE + 1`` (0: never pauses), the seat that takes it left in ``S_NEXT``.
S_PAUSE = S_RESUME + 6
S_NEXT = S_RESUME + 7
S_GAME_SIZE = S_RESUME + 8
S_HELD = S_GAME_SIZE
S_LEN = S_HELD + MAX_PLAYERS  # LANES words: lanes.PAD past the last seat
# ... and what stays from game to game of a run (set by :func:`_prepare`).
S_N = S_LEN + LANES
S_ONE_DECK = S_N + 1  # 1 when every identity has one copy
S_WILD_MASK = S_N + 2
S_DRAW_MASK = S_N + 3
S_STRATEGY = S_N + 4
S_FORGET = S_STRATEGY + MAX_PLAYERS
# A searching seat's budget (rollouts per option, or iterations), its rollout policy's code
# (its weights are the seat's ``G_WEIGHTS``) and ismcts' exploration constant; the game's
# stream (seed words, game, stream id: set by each deal); and where a rollout's copy
# resumes (the turn's mode, compulsory play, extra plays made, cards drawn, and the forced
# first decision).
S_BUDGET = S_FORGET + MAX_PLAYERS
S_ROLLOUT = S_BUDGET + MAX_PLAYERS
S_EXPLORE = S_ROLLOUT + MAX_PLAYERS  # ismcts: c x strategies.EXPLORE_SCALE
S_KEY0 = S_EXPLORE + MAX_PLAYERS
S_KEY1 = S_KEY0 + 1
S_GAME_NO = S_KEY0 + 2
S_STREAM_NO = S_KEY0 + 3
S_R_MODE = S_KEY0 + 4
S_R_COMPULSORY = S_KEY0 + 5
S_R_EXTRA = S_KEY0 + 6
S_R_DRAWN = S_KEY0 + 7
S_FORCED = S_KEY0 + 8
# The words of a worker's scratch past ``G_SIZE``: a search's own (0 when no seat
# searches), allocated with ``g`` once per worker thread (see :func:`.kernel.scratch_words`).
S_SCRATCH = S_KEY0 + 9
STATE_SIZE = S_KEY0 + 10
# The scratch of a run's games, ``g``: the state above, then the hands (copies held,
# ``g[G_HANDS + seat * DECK + identity]``), the stock, the pile, the rule vector and tables
# from it. One array keeps calls between the kernel's functions cheap (each array argument
# is several words).
G_HANDS = STATE_SIZE
G_STOCK = G_HANDS + MAX_PLAYERS * DECK
G_PILE = G_STOCK + MAX_CARDS
G_RULES = G_PILE + MAX_CARDS
# Per identity (``+ identity``), from the rule vector: its rank's effects and points.
G_FLAGS = G_RULES + RULE_VECTOR_SIZE
G_DRAW = G_FLAGS + DECK
G_ALL_DRAW = G_DRAW + DECK
G_POINTS = G_ALL_DRAW + DECK
# Each seat's ``weighted`` weights (``G_WEIGHTS + seat * FEATURES + feature``), and the view
# handed to a user strategy.
G_WEIGHTS = G_POINTS + DECK
G_VIEW = G_WEIGHTS + MAX_PLAYERS * FEATURES
G_SIZE = G_VIEW + VIEW_SIZE + MAX_PLAYERS

# Output columns of ``stats``.
(
    O_WINNER,
    O_END,
    O_TURNS,
    O_PLAYS,
    O_DRAWS,
    O_PASSES,
    O_WILDS,
    O_RESHUFFLES,
    O_FINISH,
    O_FIRST,
    O_LEAD_CHANGES,
    O_WINNER_BEHIND,
    O_DECISIONS,
    O_FORCED,
    O_OPTIONS,
) = range(15)
STATS = 15
BYTE_FIELDS = np.array([O_WINNER, O_END, O_FINISH, O_FIRST], np.int64)
"""The ``O_*`` fields kept as int8 columns (rows of the kernels' ``small`` output)."""
COUNT_FIELDS = np.array(
    [
        O_TURNS, O_PLAYS, O_DRAWS, O_PASSES, O_WILDS, O_RESHUFFLES, O_LEAD_CHANGES,
        O_WINNER_BEHIND, O_DECISIONS, O_FORCED, O_OPTIONS,
    ],
    np.int64,
)  # fmt: skip
"""The ``O_*`` fields kept as int32 columns (rows of the kernels' ``counts`` output)."""

SUIT_BITS = (1 << 13) - 1
"""The identities of clubs; suit s: ``SUIT_BITS << 13 * s``."""
RANK_BITS = sum(1 << (13 * s) for s in range(4))
"""The identities of aces; rank r: ``RANK_BITS << r``."""
RANKS_OF = np.array([RANK_BITS << (card % 13) for card in range(DECK)], np.int64)
"""The identities of the rank of each identity."""
MATCHES = np.array(
    [(SUIT_BITS << (card - card % 13)) | RANKS_OF[card] for card in range(DECK)], np.int64
)
"""The identities that match each identity by suit or rank."""
SEAT_BITS = (1 << MAX_PLAYERS.bit_length()) - 1
CARD_BITS = (1 << DECK.bit_length()) - 1
"""Masks that keep every seat and every identity: ``x & BITS`` changes no value but tells
LLVM that ``x`` is not negative, which spares the test for Python's negative indices at
every access."""
BLOCK = 256
"""Games per parallel work item. Blocks keep the threads' output rows apart: rows written
by two threads in one cache line make the line bounce between their cores."""
MATCH_BLOCK = 64
"""Matches per parallel work item (with one match per item, two threads played matches
only 1.5 times as fast as one)."""
SEARCH_BLOCK = 1
"""Games (or matches) per work item when a seat searches: each costs thousands of games'
work, so one at a time keeps every thread busy to the end of a chunk."""


# --- the entry points' arguments -------------------------------------------------------------
