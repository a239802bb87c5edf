"""Tension columns: hand-traced games, and invariants over many games."""

import random

import pytest
from beggar_helpers import kernel_play, kernel_random
from shedding_helpers import kernel_records as shedding_records

from simulate.games.beggar import reference
from simulate.games.beggar.deal import parse_deal
from simulate.games.beggar.rules import BeggarRules
from simulate.games.shedding.batch import play_random as shedding_random
from simulate.games.shedding.reference import play_from
from simulate.games.shedding.rules import preset


def bmn(deal: str, rules: BeggarRules | None = None):
    rules = rules or BeggarRules()
    hands = parse_deal(deal)
    expected = reference.play(hands, rules)
    assert kernel_play(hands, rules) == expected
    return expected


def test_bmn_two_tricks_traced():
    # J/3J: 3 pays seat 0's J (marks 2-1: seat 0 leads, seat 1 one behind); then seat 1's
    # J beats seat 0's J and takes all 3 cards (0-3: seat 1 leads, one change).
    record = bmn("J/3J")
    assert (record.winner, record.tricks) == (1, 2)
    assert (record.lead_changes, record.winner_behind) == (1, 1)


def test_bmn_lead_swaps_and_the_winner_was_behind():
    # J24/3JA: after the tricks seat 0 holds 4, 2, 4, 6 cards, seat 1 2, 4, 2, 0: the lead
    # goes 0, 1, 0 (two changes) and the winner, seat 0, was 2 behind after trick 2.
    record = bmn("J24/3JA")
    assert (record.winner, record.tricks, record.cards) == (0, 4, 12)
    assert (record.lead_changes, record.winner_behind) == (2, 2)


def test_bmn_cycle_marks_stop_at_the_recorded_tricks():
    # J23/4J5 repeats after trick 3 (4-2, 2-4, 4-2): two changes, though the loop goes on
    # swapping the lead while the engine notices it.
    record = bmn("J23/4J5")
    assert (record.end, record.tricks) == ("cycle", 3)
    assert (record.lead_changes, record.winner_behind) == (2, -1)


def test_bmn_time_limit_marks_the_end():
    # Stopped on trick 2's last card: 2-4, the lead went 0 then 1; seat 1 was 2 behind.
    record = bmn("J24/3JA", BeggarRules(time_limit=5))
    assert (record.end, record.winner) == ("time_limit", 1)
    assert (record.lead_changes, record.winner_behind) == (1, 2)
    # Stopped within trick 2 (pile out of the hands): 3-2, seat 0 led throughout.
    record = bmn("J24/3JA", BeggarRules(time_limit=3))
    assert (record.end, record.winner) == ("time_limit", 0)
    assert (record.lead_changes, record.winner_behind) == (0, 0)


def test_bmn_a_tie_is_no_leader():
    # --/--, stopped after 2 cards: 1-1 at the only mark, nobody leads, nobody wins.
    record = bmn("--/--", BeggarRules(time_limit=2))
    assert (record.end, record.winner) == ("time_limit", -1)
    assert (record.lead_changes, record.winner_behind) == (0, -1)


def test_bmn_a_tie_keeps_the_lead():
    # --J-/---Q: the marks are 7-1, 4-4, 7-1, 8-0. The tie leaves seat 0 leading (no
    # change), and seat 0, never behind, wins with winner_behind 0.
    record = bmn("--J-/---Q")
    assert (record.winner, record.tricks) == (0, 4)
    assert (record.lead_changes, record.winner_behind) == (0, 0)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_bmn_invariants(players):
    records = kernel_random(99, 0, 3_000, players, BeggarRules())
    for record in records:
        assert record.lead_changes >= 0
        if record.winner >= 0:
            assert record.winner_behind >= 0
        else:
            assert record.winner_behind == -1
        assert record.lead_changes <= record.tricks


def test_bmn_winner_ahead_throughout_was_never_behind():
    rng = random.Random(5)
    seen = 0
    for _ in range(2_000):
        deck = [0] * 20 + [1, 2, 3, 4] * 2
        rng.shuffle(deck)
        hands = [deck[0::2], deck[1::2]]
        game = reference._Game(hands, BeggarRules())
        record = game.run()
        if record.winner >= 0 and record.lead_changes == 0 and game.leader == record.winner:
            assert record.winner_behind == 0
            seen += 1
    assert seen > 0


# --- shedding games ----------------------------------------------------------------------------


def test_shedding_game_traced():
    # 5C up; seat 0 holds 6C 7C 9C, seat 1 KH. Turn ends: 2-1 (seat 1 leads, seat 0 one
    # behind), 2-2 after seat 1's draw (a tie: seat 1 still leads), 1-2 (seat 0 leads: one
    # change), 1-3, and seat 0 goes out with its 9C.
    record = play_from(preset("crazy-eights"), ["6C 7C 9C", "KH"], "2D 3S 4S", "5C")
    assert (record.winner, record.end, record.turns) == (0, "out", 5)
    assert (record.lead_changes, record.winner_behind) == (1, 1)


def test_shedding_winner_ahead_at_every_turn_end():
    # 6C 7C against KH 9D 5D: 1-3, 1-4 after a draw, then out; never behind.
    record = play_from(preset("crazy-eights"), ["6C 7C", "KH 9D 5D"], "2D 3S", "5C")
    assert (record.winner, record.turns) == (0, 3)
    assert (record.lead_changes, record.winner_behind) == (0, 0)


def test_shedding_no_winner():
    # Stopped by the turn cap after turn 1 (1-3: seat 0 leads), with no winner.
    rules = preset("crazy-eights").with_overrides({"max_turns": 1})
    record = play_from(rules, ["6C 7C", "KH 9D 5D"], "2D 3S", "5C")
    assert (record.end, record.winner) == ("turn_cap", -1)
    assert (record.lead_changes, record.winner_behind) == (0, -1)


@pytest.mark.parametrize("name", ["pis-yedili", "crazy-eights"])
def test_shedding_invariants(name):
    columns = shedding_random(preset(name), 4, ["random"] * 4, 11, 0, 2_000, None)
    for record in shedding_records(columns):
        assert record.lead_changes >= 0
        if record.winner >= 0:
            assert record.winner_behind >= 0
        else:
            assert record.winner_behind == -1
        assert record.lead_changes <= record.turns
