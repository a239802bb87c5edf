"""The shedding kernel's differential grid: rule variants that together take every value of
every knob, each with the strategies that exercise it, and the reference's records over it.

``make_differential.py shedding-grid`` plays every game of the grid with the reference
(never the kernel) and stores its records; ``tests/test_shedding_differential.py`` checks
the kernel against all of them and plays a covering subset and a fresh sample of them with
the reference again.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from simulate.games.shedding import reference
from simulate.games.shedding.rules import SheddingRules, preset

from .store import HERE, source_hash

PATH = HERE / "shedding-grid.parquet"
REFERENCE = ("simulate.games.shedding.reference",)
"""The reference's module: its source and every project module it imports are hashed."""
EVERY_STRATEGY = (
    "random",
    "uniform",
    "first",
    "greedy",
    "hold-wilds",
    "attack",
    "weighted:points=-1,wild=3,action=2,draw=1,again=-4,suit_left=0.5,rank_left=-1",
)
"""One of each kind of strategy (a weighted one with every feature)."""
GAMES = 2_000
"""Games per configuration (at least 2,000, as round 1 asked). The reference plays about
1,100 games/s without its conservation check: only the grid's regeneration pays for that."""
SEED = 20241130
S = EVERY_STRATEGY


def mixed(players: int, shift: int) -> list[str]:
    """A table of different strategies, each seat's shifted by ``shift``."""
    return [S[(seat + 2 * shift + players) % len(S)] for seat in range(players)]


# (name, preset, overrides, players, strategies, forget)
CONFIGS = [
    ("pis-yedili", "pis-yedili", {}, 4, ["random"] * 4, None),
    ("pis-yedili-mixed-2", "pis-yedili", {}, 2, mixed(2, 1), None),
    ("crazy-eights-2-decks", "crazy-eights", {}, 5, mixed(5, 0), None),
    ("crazy-eights-plain", "crazy-eights-plain", {}, 3, ["random"] * 3, None),
    ("openspiel-2", "openspiel", {}, 2, mixed(2, 2), None),
    ("openspiel-6-decks", "openspiel", {}, 6, ["random"] * 6, None),
    ("lead-club", "crazy-eights", {"start": "lead_club"}, 3, mixed(3, 1), None),
    ("all-lead-club", "crazy-eights", {"start": "all_lead_club"}, 4, mixed(4, 2), None),
    (
        "all-lead-club-short-hands-barred",
        "pis-yedili",
        {"start": "all_lead_club", "hand_size": 2, "last_card_call": True},
        5,
        mixed(5, 0),
        [1.0, 0.5, 0.0, 0.25, 1.0],
    ),
    ("flip-pis-yedili", "pis-yedili", {"start": "flip"}, 2, ["random"] * 2, None),
    ("seat0-openspiel", "openspiel", {"first_seat": "seat0"}, 3, mixed(3, 0), None),
    ("wild-different", "crazy-eights", {"wild_mode": "different"}, 3, mixed(3, 0), None),
    ("wild-own-suit", "crazy-eights", {"wild_mode": "own_suit"}, 6, mixed(6, 1), None),
    (
        "wild-match-suit-no-wild-on-wild",
        "crazy-eights",
        {"wild_mode": "match_suit", "wild_on_wild": False},
        2,
        mixed(2, 2),
        None,
    ),
    (
        "draw-one-may-play",
        "crazy-eights",
        {"on_no_play": "draw_one_may_play"},
        4,
        mixed(4, 1),
        None,
    ),
    (
        "draw-until-playable",
        "crazy-eights",
        {"on_no_play": "draw_until_playable"},
        3,
        mixed(3, 2),
        None,
    ),
    ("draw-up-to-3", "crazy-eights", {"on_no_play": "draw_up_to:3"}, 4, mixed(4, 0), None),
    (
        "draw-up-to-1-compulsory",
        "crazy-eights",
        {"on_no_play": "draw_up_to:1", "voluntary_draw": False, "effects.A": "again"},
        3,
        mixed(3, 1),
        None,
    ),
    ("no-voluntary-draw", "crazy-eights", {"voluntary_draw": False}, 5, ["uniform"] * 5, None),
    ("stack-same-rank", "crazy-eights", {"stacking": "same_rank"}, 4, mixed(4, 1), None),
    (
        "stack-any-draw-double",
        "crazy-eights",
        {"stacking": "any_draw", "stack_growth": "double", "effects.7": "draw:3"},
        5,
        mixed(5, 2),
        None,
    ),
    ("pis-yedili-double", "pis-yedili", {"stack_growth": "double"}, 4, mixed(4, 0), None),
    ("wild-answers-draw", "pis-yedili", {"wild_answers_draw": True}, 4, mixed(4, 2), None),
    (
        "wild-answers-any-draw-again",
        "pis-yedili",
        {
            "wild_answers_draw": True,
            "wild_on_wild": True,
            "stacking": "any_draw",
            "effects.2": "draw:2+again",
        },
        3,
        mixed(3, 1),
        None,
    ),
    ("penalty-goes-on", "pis-yedili", {"penalty_ends_turn": False}, 4, mixed(4, 1), None),
    ("pis-yedili-reshuffle", "pis-yedili", {"stock_empty": "reshuffle"}, 5, mixed(5, 1), None),
    ("pis-yedili-pass", "pis-yedili", {"stock_empty": "pass"}, 6, mixed(6, 2), None),
    ("crazy-eights-end", "crazy-eights", {"stock_empty": "end"}, 4, ["random"] * 4, None),
    (
        "pass-blocked-no-winner",
        "crazy-eights",
        {"stock_empty": "pass", "blocked_winner": "none"},
        6,
        mixed(6, 0),
        None,
    ),
    (
        "openspiel-blocked-lowest",
        "openspiel",
        {"blocked_winner": "lowest_hand"},
        5,
        mixed(5, 1),
        None,
    ),
    ("max-plays", "crazy-eights", {"max_plays": 15}, 4, mixed(4, 2), None),
    ("max-turns", "crazy-eights", {"max_turns": 12}, 4, ["random"] * 4, None),
    ("reverse-two-skip", "crazy-eights", {"reverse_two_players": "skip"}, 2, mixed(2, 0), None),
    # Tables that fill the tension marks' vectors of 8 and 16 seats, and one of 9.
    ("eight-players", "pis-yedili", {"decks": 2}, 8, mixed(8, 1), None),
    ("nine-players", "crazy-eights", {}, 9, mixed(9, 0), None),
    ("fifteen-players", "openspiel", {}, 15, ["random"] * 15, None),
    (
        "last-card-penalty",
        "crazy-eights",
        {"last_card_call": True, "scoring": "minus_hand"},
        4,
        mixed(4, 1),
        [0.5, 0.0, 1.0, 0.3],
    ),
    (
        "last-card-cannot-go-out",
        "crazy-eights",
        {"last_card_call": True, "last_card_rule": "cannot_go_out", "scoring": "penalty"},
        3,
        mixed(3, 2),
        [1.0, 0.6, 1e-12],
    ),
    (
        "pis-yedili-last-card-penalty-4",
        "pis-yedili",
        {"last_card_call": True, "last_card_rule": "penalty", "last_card_penalty": 4},
        5,
        mixed(5, 0),
        [0.9, 0.9, 0.9, 0.9, 0.0],
    ),
    (
        "pis-yedili-winner-collects",
        "pis-yedili",
        {"scoring": "winner_collects"},
        3,
        mixed(3, 0),
        None,
    ),
    ("ace-all-draw-2", "crazy-eights", {"effects.A": "all_draw:2"}, 4, mixed(4, 1), None),
    (
        "mixed-effects",
        "crazy-eights",
        {"effects.A": "all_draw:1", "effects.K": "wild+skip", "effects.3": "draw:2+reverse"},
        5,
        mixed(5, 2),
        None,
    ),
    (
        "wild-draw-any-draw",
        "crazy-eights",
        {"effects.8": "wild+draw:2", "stacking": "any_draw"},
        3,
        mixed(3, 0),
        None,
    ),
    (
        "wild-draw-answers",
        "crazy-eights",
        {"effects.8": "wild+draw:2", "wild_answers_draw": True, "on_no_play": "draw_one_may_play"},
        3,
        mixed(3, 1),
        None,
    ),
    (
        "three-decks-again-draw",
        "crazy-eights-plain",
        {"decks": 3, "effects.5": "again+draw:1", "stacking": "same_rank"},
        6,
        mixed(6, 2),
        None,
    ),
    ("openspiel-special", "openspiel", {"special": True}, 4, mixed(4, 0), None),
]


SEATS = ("cards_left", "points", "score")
"""The record's per-seat fields (tuples in a record, int lists in the table)."""
FIELDS = tuple(reference.SheddingRecord.__dataclass_fields__)


def definition() -> dict:
    """What the stored file must have been made from (JSON): the grid itself."""
    return {"games": GAMES, "seed": SEED, "configs": [list(config) for config in CONFIGS]}


def source() -> str:
    """The hash of the reference's source and of this definition."""
    return source_hash(REFERENCE, (Path(__file__).resolve(),))


def rules_of(config) -> SheddingRules:
    return preset(config[1]).with_overrides(config[2])


def first_game(config) -> int:
    """The first game index of ``config``'s games (they run ``GAMES`` from there)."""
    return 1_000 * CONFIGS.index(config)


def play_reference(config, game: int, rules: SheddingRules | None = None):
    """Game ``game`` of ``config`` (whose rules are ``rules``, when given), played by the
    reference: a :class:`reference.SheddingRecord`."""
    _, _, _, players, strategies, forget = config
    rules = rules_of(config) if rules is None else rules
    return reference.play(rules, players, strategies, SEED, game, forget)


def records_table(config, games: list[int], records, covering: set[int]) -> pa.Table:
    """The stored rows of ``config``: one per game, the record's fields as columns (per-seat
    fields as lists), and ``covering``, whether the game is in the set chosen to reach every
    branch of the reference that the config's games reach."""
    columns = {
        "config": pa.array([config[0]] * len(games)),
        "game": pa.array(games, pa.int64()),
        "covering": pa.array([game in covering for game in games]),
    }
    for key in FIELDS:
        values = [getattr(record, key) for record in records]
        columns[key] = pa.array([list(v) for v in values] if key in SEATS else values)
    return pa.table(columns)


def stored_record(row: dict) -> reference.SheddingRecord:
    """A stored row (``table.to_pylist()`` item) as the reference's record."""
    return reference.SheddingRecord(
        **{key: tuple(row[key]) if key in SEATS else row[key] for key in FIELDS}
    )


def stored_columns(rows: pa.Table, players: int) -> dict[str, np.ndarray]:
    """A config's stored rows as the kernel's columns (names, dtypes and shapes of
    ``simulate.games.shedding.batch.play_random``)."""
    frame = {key: rows.column(key).to_pylist() for key in FIELDS}
    columns = {
        key: np.asarray(frame[key], np.int8) for key in ("winner", "finish_rank", "first_seat")
    }
    columns["end"] = np.asarray([reference.END_REASONS.index(e) for e in frame["end"]], np.int8)
    for key in ("turns", "plays", "draws", "passes", "wilds", "reshuffles"):
        columns[key] = np.asarray(frame[key], np.int32)
    for key in ("lead_changes", "winner_behind", "decisions", "forced", "options"):
        columns[key] = np.asarray(frame[key], np.int32)
    columns["cards_left"] = np.asarray(frame["cards_left"], np.int16).reshape(-1, players)
    for key in ("points", "score"):
        columns[key] = np.asarray(frame[key], np.int32).reshape(-1, players)
    return columns
