"""Differential tests: the compiled shedding kernel's records equal the reference's, game by
game, over a grid of rule variants that together takes every value of every knob."""

import numba
import numpy as np
import pytest
from shedding_helpers import EVERY_STRATEGY, kernel_records

from simulate.games.shedding import reference
from simulate.games.shedding.batch import play_random
from simulate.games.shedding.rules import preset

GAMES = 2_000
"""Games per configuration (the issue asks for at least 2,000): the reference's speed is the
limit (about 1,100 games/s without its conservation check, with the weighted strategies);
the 43 configurations take about 85 s."""
SEED = 20241130
S = EVERY_STRATEGY


def _mixed(players: int, shift: int) -> list[str]:
    return [S[(seat + 2 * shift + players) % len(S)] for seat in range(players)]


# (name, preset, overrides, players, strategies, forget)
CONFIGS = [
    ("pis-yedili", "pis-yedili", {}, 4, ["random"] * 4, None),
    ("pis-yedili-mixed-2", "pis-yedili", {}, 2, _mixed(2, 1), None),
    ("crazy-eights-2-decks", "crazy-eights", {}, 5, _mixed(5, 0), None),
    ("crazy-eights-plain", "crazy-eights-plain", {}, 3, ["random"] * 3, None),
    ("openspiel-2", "openspiel", {}, 2, _mixed(2, 2), None),
    ("openspiel-6-decks", "openspiel", {}, 6, ["random"] * 6, None),
    ("lead-club", "crazy-eights", {"start": "lead_club"}, 3, _mixed(3, 1), None),
    ("all-lead-club", "crazy-eights", {"start": "all_lead_club"}, 4, _mixed(4, 2), None),
    (
        "all-lead-club-short-hands-barred",
        "pis-yedili",
        {"start": "all_lead_club", "hand_size": 2, "last_card_call": True},
        5,
        _mixed(5, 0),
        [1.0, 0.5, 0.0, 0.25, 1.0],
    ),
    ("flip-pis-yedili", "pis-yedili", {"start": "flip"}, 2, ["random"] * 2, None),
    ("seat0-openspiel", "openspiel", {"first_seat": "seat0"}, 3, _mixed(3, 0), None),
    ("wild-different", "crazy-eights", {"wild_mode": "different"}, 3, _mixed(3, 0), None),
    ("wild-own-suit", "crazy-eights", {"wild_mode": "own_suit"}, 6, _mixed(6, 1), None),
    (
        "wild-match-suit-no-wild-on-wild",
        "crazy-eights",
        {"wild_mode": "match_suit", "wild_on_wild": False},
        2,
        _mixed(2, 2),
        None,
    ),
    (
        "draw-one-may-play",
        "crazy-eights",
        {"on_no_play": "draw_one_may_play"},
        4,
        _mixed(4, 1),
        None,
    ),
    (
        "draw-until-playable",
        "crazy-eights",
        {"on_no_play": "draw_until_playable"},
        3,
        _mixed(3, 2),
        None,
    ),
    ("draw-up-to-3", "crazy-eights", {"on_no_play": "draw_up_to:3"}, 4, _mixed(4, 0), None),
    (
        "draw-up-to-1-compulsory",
        "crazy-eights",
        {"on_no_play": "draw_up_to:1", "voluntary_draw": False, "effects.A": "again"},
        3,
        _mixed(3, 1),
        None,
    ),
    ("no-voluntary-draw", "crazy-eights", {"voluntary_draw": False}, 5, ["uniform"] * 5, None),
    ("stack-same-rank", "crazy-eights", {"stacking": "same_rank"}, 4, _mixed(4, 1), None),
    (
        "stack-any-draw-double",
        "crazy-eights",
        {"stacking": "any_draw", "stack_growth": "double", "effects.7": "draw:3"},
        5,
        _mixed(5, 2),
        None,
    ),
    ("pis-yedili-double", "pis-yedili", {"stack_growth": "double"}, 4, _mixed(4, 0), None),
    ("wild-answers-draw", "pis-yedili", {"wild_answers_draw": True}, 4, _mixed(4, 2), None),
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
        _mixed(3, 1),
        None,
    ),
    ("penalty-goes-on", "pis-yedili", {"penalty_ends_turn": False}, 4, _mixed(4, 1), None),
    ("pis-yedili-reshuffle", "pis-yedili", {"stock_empty": "reshuffle"}, 5, _mixed(5, 1), None),
    ("pis-yedili-pass", "pis-yedili", {"stock_empty": "pass"}, 6, _mixed(6, 2), None),
    ("crazy-eights-end", "crazy-eights", {"stock_empty": "end"}, 4, ["random"] * 4, None),
    (
        "pass-blocked-no-winner",
        "crazy-eights",
        {"stock_empty": "pass", "blocked_winner": "none"},
        6,
        _mixed(6, 0),
        None,
    ),
    (
        "openspiel-blocked-lowest",
        "openspiel",
        {"blocked_winner": "lowest_hand"},
        5,
        _mixed(5, 1),
        None,
    ),
    ("max-plays", "crazy-eights", {"max_plays": 15}, 4, _mixed(4, 2), None),
    ("max-turns", "crazy-eights", {"max_turns": 12}, 4, ["random"] * 4, None),
    ("reverse-two-skip", "crazy-eights", {"reverse_two_players": "skip"}, 2, _mixed(2, 0), None),
    # Tables that fill the tension marks' vectors of 8 and 16 seats, and one of 9.
    ("eight-players", "pis-yedili", {"decks": 2}, 8, _mixed(8, 1), None),
    ("nine-players", "crazy-eights", {}, 9, _mixed(9, 0), None),
    ("fifteen-players", "openspiel", {}, 15, ["random"] * 15, None),
    (
        "last-card-penalty",
        "crazy-eights",
        {"last_card_call": True, "scoring": "minus_hand"},
        4,
        _mixed(4, 1),
        [0.5, 0.0, 1.0, 0.3],
    ),
    (
        "last-card-cannot-go-out",
        "crazy-eights",
        {"last_card_call": True, "last_card_rule": "cannot_go_out", "scoring": "penalty"},
        3,
        _mixed(3, 2),
        [1.0, 0.6, 1e-12],
    ),
    (
        "pis-yedili-last-card-penalty-4",
        "pis-yedili",
        {"last_card_call": True, "last_card_rule": "penalty", "last_card_penalty": 4},
        5,
        _mixed(5, 0),
        [0.9, 0.9, 0.9, 0.9, 0.0],
    ),
    (
        "pis-yedili-winner-collects",
        "pis-yedili",
        {"scoring": "winner_collects"},
        3,
        _mixed(3, 0),
        None,
    ),
    ("ace-all-draw-2", "crazy-eights", {"effects.A": "all_draw:2"}, 4, _mixed(4, 1), None),
    (
        "mixed-effects",
        "crazy-eights",
        {"effects.A": "all_draw:1", "effects.K": "wild+skip", "effects.3": "draw:2+reverse"},
        5,
        _mixed(5, 2),
        None,
    ),
    (
        "wild-draw-any-draw",
        "crazy-eights",
        {"effects.8": "wild+draw:2", "stacking": "any_draw"},
        3,
        _mixed(3, 0),
        None,
    ),
    (
        "wild-draw-answers",
        "crazy-eights",
        {"effects.8": "wild+draw:2", "wild_answers_draw": True, "on_no_play": "draw_one_may_play"},
        3,
        _mixed(3, 1),
        None,
    ),
    (
        "three-decks-again-draw",
        "crazy-eights-plain",
        {"decks": 3, "effects.5": "again+draw:1", "stacking": "same_rank"},
        6,
        _mixed(6, 2),
        None,
    ),
    ("openspiel-special", "openspiel", {"special": True}, 4, _mixed(4, 0), None),
]


@pytest.fixture
def fast_reference(monkeypatch):
    """The reference without its per-turn card-conservation assertion (its own tests keep
    it): records are unchanged, and the reference runs about twice as fast."""
    monkeypatch.setattr(reference.Game, "check_cards", lambda self: None)


@pytest.mark.parametrize("config", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_kernel_matches_reference(config, fast_reference):
    _, name, overrides, players, strategies, forget = config
    rules = preset(name).with_overrides(overrides)
    first = 1_000 * CONFIGS.index(config)
    columns = play_random(rules, players, strategies, SEED, first, GAMES, forget)
    assert {key: (column.dtype, column.shape) for key, column in columns.items()} == {
        **{key: (np.int8, (GAMES,)) for key in ("winner", "end", "finish_rank", "first_seat")},
        **{
            key: (np.int32, (GAMES,))
            for key in (
                "turns",
                "plays",
                "draws",
                "passes",
                "wilds",
                "reshuffles",
                "lead_changes",
                "winner_behind",
            )
        },
        "cards_left": (np.int16, (GAMES, players)),
        **{key: (np.int32, (GAMES, players)) for key in ("points", "score")},
    }
    got = kernel_records(columns)
    for i, record in enumerate(got):
        expected = reference.play(rules, players, strategies, SEED, first + i, forget)
        assert record == expected, f"game {first + i}"


def test_every_end_reason_is_reached():
    """The grid exercises every way a game ends (so the comparisons above mean something)."""
    ends = set()
    for _, name, overrides, players, strategies, forget in CONFIGS:
        rules = preset(name).with_overrides(overrides)
        columns = play_random(rules, players, strategies, SEED, 0, 300, forget)
        ends |= {reference.END_REASONS[e] for e in np.unique(columns["end"])}
    assert ends == set(reference.END_REASONS)


def test_parallel_equals_serial():
    rules = preset("crazy-eights")
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        serial = play_random(rules, 4, _mixed(4, 1), 99, 12_345, 3_000)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        parallel = play_random(rules, 4, _mixed(4, 1), 99, 12_345, 3_000)
    finally:
        numba.set_num_threads(threads)
    for key, column in serial.items():
        assert column.dtype == parallel[key].dtype
        np.testing.assert_array_equal(column, parallel[key], err_msg=key)


def test_runaway_chain_of_extra_plays_ends_turn_cap(fast_reference):
    """A chain of extra plays that could go on forever within one turn (every ace and 2 makes
    the others draw and plays again; a seat that always forgets its last-card call draws 2
    each time it is down to one card) is cut by ``max_turns``: the game ends ``turn_cap``
    before that many turns, the same in the kernel and the reference."""
    rules = preset("pis-yedili").with_overrides(
        {
            "effects.A": "all_draw:3",
            "effects.2": "all_draw:3",
            "last_card_call": True,
            "last_card_rule": "penalty",
            "decks": 2,
            "stock_empty": "reshuffle",
            "max_turns": 150,
        }
    )
    forget = [1.0] * 7
    columns = play_random(rules, 7, ["random"] * 7, 5, 0, 40, forget)
    cut = np.flatnonzero((columns["end"] == 4) & (columns["turns"] < 150))
    assert len(cut) > 0
    for i in [*cut[:3], 0]:
        expected = reference.play(rules, 7, ["random"] * 7, 5, int(i), forget)
        assert kernel_records({k: v[i : i + 1] for k, v in columns.items()})[0] == expected
