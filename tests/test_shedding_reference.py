"""The shedding-game reference: scripted situations with named cards for every effect and
Fine point of RULES.md, then thousands of random games checked for their invariants."""

import random

import pytest

from simulate.core.rng import Stream
from simulate.games.shedding.reference import (
    END_REASONS,
    Game,
    cards,
    deal,
    names,
    play,
    play_from,
)
from simulate.games.shedding.rules import CHOICES, SWITCHES, preset

C, D, H, S = range(4)
PRESETS = ("pis-yedili", "crazy-eights", "crazy-eights-plain", "openspiel")


def table(game, hands, stock="", pile="", strategies=None, forget=None, **overrides):
    """A table of ``game`` (a preset name) with knobs overridden, cards given by name."""
    rules = preset(game).with_overrides(overrides)
    given = cards(" ".join([*hands, stock, pile]))
    assert max(given) < 52, "a scripted situation names a card twice"
    return Game(
        rules,
        [cards(hand) for hand in hands],
        cards(stock),
        cards(pile),
        strategies=strategies or ["first"] * len(hands),
        stream=Stream(0, 0),
        forget=forget,
        trace=[],
    )


def hand(game_table, seat):
    return names(game_table.hands[seat])


# --- draw penalties and stacking -------------------------------------------------------------


def test_stacked_sevens_add():
    t = table("pis-yedili", ["7C 2H", "7D 3S", "7H 9S", "KS"], "2C 3C 4C 6C 8C 9C 10C QC KC", "5C")
    assert t.take_turn(0) == 1 and t.pending == 3
    assert t.take_turn(1) == 2 and t.pending == 6 and t.suit == D  # the answer's suit in force
    assert t.take_turn(2) == 3 and t.pending == 9
    assert t.take_turn(3) == 0 and t.pending == 0
    assert len(t.hands[3]) == 10 and (t.turns, t.plays, t.draws) == (4, 3, 9)


def test_stacked_sevens_double():
    t = table(
        "pis-yedili",
        ["7C 2H 4H", "7D 3S", "7H 9S"],
        "2C 3C 4C 6C 8C 9C 10C JC QC KC 2D 3D 4D",
        "5C",
        stack_growth="double",
    )
    for seat, total in ((0, 3), (1, 6), (2, 12)):
        t.take_turn(seat)
        assert t.pending == total
    t.take_turn(0)  # no 7: draws the 12
    assert len(t.hands[0]) == 14 and t.draws == 12 and t.pending == 0


def test_double_growth_ignores_the_answering_cards_n():
    # Fine point: under any_draw the total doubles whatever the answering card's N.
    t = table(
        "pis-yedili",
        ["7C 2H", "2D 3S", "9S"],
        "3C 4C 6C 8C 9C",
        "5C",
        stacking="any_draw",
        stack_growth="double",
        **{"effects.2": "draw:2"},
    )
    t.take_turn(0)
    t.take_turn(1)
    assert t.pending == 6


def test_a_jack_cannot_answer_a_seven():
    t = table("pis-yedili", ["7C 2H", "JD 3S", "9S"], "2C 3C 4C 6C", "5C")
    t.take_turn(0)
    assert t.legal_cards(1, "answer") == []
    assert t.take_turn(1) == 2
    assert hand(t, 1) == "2C 3C 4C JD 3S" and t.pending == 0 and t.plays == 1


def test_a_wild_may_answer_when_the_knob_says_so():
    t = table("pis-yedili", ["7C 2H", "JD 3S", "9S"], "2C 3C 4C 6C", "5C", wild_answers_draw=True)
    t.take_turn(0)
    t.take_turn(1)
    assert t.pending == 0 and t.wilds == 1 and t.suit == C and hand(t, 1) == "3S"


def test_top_card_is_inert_once_the_penalty_is_drawn():
    t = table("pis-yedili", ["7C 2H", "3S 4S", "9C 9H"], "2D 3D 4D 5D", "5C")
    t.take_turn(0)
    t.take_turn(1)  # draws 3
    t.take_turn(2)  # plays 9C on the inert 7C, no penalty
    assert hand(t, 2) == "9H" and t.pending == 0 and t.draws == 3


def test_penalty_ends_turn_off_lets_the_seat_play_on():
    t = table("pis-yedili", ["7C 2H", "3S 4S", "9S"], "5D 6D 8C", "5C", penalty_ends_turn=False)
    t.take_turn(0)
    t.take_turn(1)  # draws 5D 6D 8C, then plays 8C (clubs) on the inert 7C: 8 skips seat 2
    assert hand(t, 1) == "5D 6D 3S 4S" and t.skip_next and t.turns == 2


# --- wilds -----------------------------------------------------------------------------------


def test_no_jack_on_a_jack():
    t = table("pis-yedili", ["JH 5S 9C 2H", "KS"], "3D", "5H JC")
    t.suit = H  # hearts were named with the JC
    assert names(t.legal_cards(0)) == "2H"


def test_eight_on_eight_in_crazy_eights():
    t = table("crazy-eights", ["8H 5S 2H", "KS"], "3D", "5D 8C")
    t.suit = H
    assert names(t.legal_cards(0)) == "2H 8H"


def test_wild_modes():
    def named(mode):
        t = table("crazy-eights", ["8H 2S", "KS 3S", "4S"], "3D", "5C", wild_mode=mode)
        t.take_turn(0)
        return t.suit, t.wilds

    assert named("any") == (C, 1)  # `first` names the lowest suit, the current one allowed
    assert named("different") == (D, 1)  # not the suit in force
    assert named("own_suit") == (H, 0)  # nothing named
    t = table("crazy-eights", ["8H 2S", "KS"], "3D", "5C", wild_mode="match_suit")
    assert t.legal_cards(0) == []
    t = table("crazy-eights", ["8C 2S", "KS"], "3D", "5C", wild_mode="match_suit")
    assert names(t.legal_cards(0)) == "8C"


def test_wild_starter_goes_back_below_the_top_card():
    t = table("crazy-eights", ["KS", "QS"], "8H 5C 9D 2S")
    t.turn_starter()
    position = 1 + Stream(0, 0).bounded(3)
    assert names(t.pile) == "5C" and t.suit == C
    assert t.stock.index(cards("8H")[0]) == position - 1  # the 5C above it was turned


def test_a_wild_played_last_names_no_suit():
    record = play_from(preset("crazy-eights"), ["8H", "KS 3S"], "2D 3D", "5C")
    assert (record.winner, record.end, record.wilds, record.finish_rank) == (0, "out", 0, 7)


# --- the ace's extra play ----------------------------------------------------------------------


def test_ace_extra_play_with_a_match():
    t = table("pis-yedili", ["AD 3D 9S", "KS QS"], "2C 3C", "5D")
    assert t.take_turn(0) == 1
    assert hand(t, 0) == "9S" and (t.turns, t.plays, t.draws) == (1, 2, 0)


def test_ace_extra_play_without_a_match_draws_until_playable():
    t = table("pis-yedili", ["AD 9S 9H", "KS QS"], "4C 6D 2S", "5D")
    t.take_turn(0)
    assert hand(t, 0) == "4C 9H 9S" and names(t.pile) == "AD 5D 6D"
    assert (t.turns, t.plays, t.draws) == (1, 2, 2)


def test_ace_extra_play_under_draw_one_may_play():
    t = table("pis-yedili", ["AD 9S 9H", "KS QS"], "4C 6D 2S", "5D", on_no_play="draw_one_may_play")
    t.take_turn(0)
    assert hand(t, 0) == "4C 9H 9S" and (t.plays, t.draws) == (1, 1)
    t = table("pis-yedili", ["AD 9S 9H", "KS QS"], "6D 4C", "5D", on_no_play="draw_one_may_play")
    t.take_turn(0)  # the drawn 6D is legal: it must be played
    assert hand(t, 0) == "9H 9S" and (t.plays, t.draws) == (2, 1)


def test_aces_chain_and_the_extra_cards_effects_apply():
    t = table("pis-yedili", ["AD AC 2C 9S", "KS"], "3H", "5D")
    t.take_turn(0)
    assert hand(t, 0) == "9S" and t.plays == 3 and t.turns == 1
    t = table("pis-yedili", ["AD 7D 9S", "KS QS", "4S"], "3H 4H 5H", "5D")
    assert t.take_turn(0) == 1 and t.pending == 3


def test_ace_variants_skip_and_all_draw():
    t = table("pis-yedili", ["AD 9S", "KS", "QS"], "2H 3H", "5D", **{"effects.A": "skip"})
    assert t.take_turn(0) == 2
    t = table(
        "pis-yedili", ["AD 3D 9S", "KS", "QS"], "2H 3H 4H", "5D", **{"effects.A": "all_draw:1"}
    )
    assert t.take_turn(0) == 1
    assert hand(t, 1) == "2H KS" and hand(t, 2) == "3H QS" and hand(t, 0) == "9S"
    assert (t.plays, t.draws, t.turns) == (2, 2, 1)


# --- skip and reverse ------------------------------------------------------------------------


def test_skip_with_two_players_gives_the_same_seat_a_new_turn():
    t = table("pis-yedili", ["8H 9H 2C", "KS QS"], "3D", "5H")
    assert t.take_turn(0) == 0  # the 8H skips seat 1
    assert t.take_turn(0) == 1  # a new turn: the 9H, no effect
    assert t.turns == 2 and t.plays == 2


def test_reverse_with_two_players():
    t = table("pis-yedili", ["10H 9S 2C", "KS QS"], "3D", "5H")
    assert t.take_turn(0) == 1 and t.direction == -1
    t = table("pis-yedili", ["10H 9S 2C", "KS QS"], "3D", "5H", reverse_two_players="skip")
    assert t.take_turn(0) == 0


def test_reverse_with_three_players():
    t = table("pis-yedili", ["10H 9S 2C", "KS QS", "JS"], "3D", "5H")
    assert t.take_turn(0) == 2 and t.direction == -1


def test_skip_and_draw_without_stacking_draws_at_once():
    three = ["2H 9S", "3S 4S", "KS"]
    t = table("crazy-eights", three, "2C 3C 4C 5C", "5H")
    assert t.take_turn(0) == 2  # seat 1 draws 2 and takes no turn
    assert hand(t, 1) == "2C 3C 3S 4S" and (t.turns, t.draws) == (1, 2)
    t = table("crazy-eights", ["2H 9S", "3S 4S"], "2C 3C 4C 5C", "5H")
    assert t.take_turn(0) == 0 and len(t.hands[1]) == 4


def test_skip_and_draw_with_stacking_gives_a_turn_to_answer():
    t = table("crazy-eights", ["2H 9S", "3S 4S", "KS"], "2C 3C 4C 5C", "5H", stacking="same_rank")
    assert t.take_turn(0) == 1 and t.pending == 2
    assert t.take_turn(1) == 2  # no 2: draws the total, its turn ends
    assert len(t.hands[1]) == 4 and t.turns == 2


# --- the club opening ------------------------------------------------------------------------


def test_club_opening():
    t = table("pis-yedili", ["9H 9C 3C", "4C 5D", "KS"], "2D")
    t.take_turn(0)
    assert names(t.pile) == "3C" and t.plays == 1 and t.suit == C


def test_club_opening_without_a_club_draws_until_one_comes():
    t = table("pis-yedili", ["9H JD", "3S 5D", "KS"], "2D 4C 6H")
    t.take_turn(0)  # a J of another suit may not open
    assert names(t.pile) == "4C" and hand(t, 0) == "2D JD 9H" and (t.draws, t.plays) == (2, 1)


def test_jack_of_clubs_opening_names_no_suit_and_counts_as_a_jack():
    t = table("pis-yedili", ["JC 5H", "JD 4C 4H", "KS"], "2D")
    t.take_turn(0)
    assert t.wilds == 0 and t.suit == C
    assert names(t.legal_cards(1)) == "4C"  # no J on the J


def test_opening_card_effect_is_ignored():
    t = table("pis-yedili", ["7C 5H", "4S", "KS"], "2D")
    assert t.take_turn(0) == 1 and t.pending == 0
    t = table("pis-yedili", ["AC 2C 5H", "4S", "KS"], "2D")
    assert t.take_turn(0) == 1 and t.plays == 1 and hand(t, 0) == "2C 5H"


def test_stock_running_out_during_the_club_search():
    record = play_from(preset("pis-yedili"), ["9H", "KH", "2S"], "2D 3D")
    assert (record.end, record.turns, record.draws, record.plays) == ("stock_out", 1, 2, 0)
    assert record.points == (14, 10, 2) and record.winner == 2


def test_all_lead_club_round():
    t = table(
        "pis-yedili", ["8C 5C 6H", "5D 9D", "7C KH 9H"], "3D 10C 4S 5S", start="all_lead_club"
    )
    assert t.take_turn(0) == 1  # 5C, the lowest club
    assert t.take_turn(1) == 2  # only clubs: the 5D may not follow; draws 3D, 10C, no reverse
    assert hand(t, 1) == "3D 5D 9D" and t.direction == 1
    assert t.take_turn(2) == 0 and t.pending == 0  # 7C: no effect in that round
    assert t.take_turn(0) == 2  # the first seat plays again, now with effects: 8C skips
    assert (t.turns, t.plays, t.draws) == (4, 4, 2)


# --- running out -----------------------------------------------------------------------------


def test_stock_out_mid_penalty_under_end():
    record = play_from(preset("pis-yedili"), ["7C 2H", "3S 4S", "9S"], "2D 3D", "5C")
    assert (record.end, record.draws, record.turns) == ("stock_out", 2, 2)
    assert record.points == (2, 12, 9) and record.winner == 0


def test_stock_out_tie_goes_to_the_seat_acting_soonest_from_the_drawer():
    record = play_from(preset("pis-yedili"), ["7C 9H", "3S 4S", "9S"], "2D 3D", "5C")
    assert record.points == (9, 12, 9) and record.winner == 2  # counted from seat 1


def test_penalty_emptying_the_stock_exactly_lets_the_game_go_on():
    record = play_from(preset("pis-yedili"), ["7C 2H", "3S 4S", "9S"], "2D 3D 4D", "5C")
    # seat 1 draws 3; seat 2 cannot play on the inert 7C and must draw: stock_out then.
    assert (record.end, record.draws, record.turns) == ("stock_out", 3, 3)
    assert record.winner == 0


def test_reshuffle_mid_penalty():
    t = table("pis-yedili", ["7C 2H", "3S 4S", "9S"], "2D", "4C 6C 5C", stock_empty="reshuffle")
    t.take_turn(0)
    t.take_turn(1)
    assert t.reshuffles == 1 and len(t.hands[1]) == 5 and names(t.pile) == "7C"
    assert len(t.stock) == 1 and t.passes == 0


def test_reshuffle_with_only_the_top_card_draws_as_far_as_the_cards_go():
    t = table("pis-yedili", ["2H", "3S 4S", "9S"], "2D", "7C", stock_empty="reshuffle")
    t.pending = 3
    t.take_turn(1)
    assert hand(t, 1) == "2D 3S 4S" and t.passes == 0 and t.reshuffles == 0


def test_pass_rule_mid_penalty():
    t = table("pis-yedili", ["7C 2H", "3S 4S", "9S"], "2D", "5C", stock_empty="pass")
    t.take_turn(0)
    t.take_turn(1)
    assert hand(t, 1) == "2D 3S 4S" and (t.draws, t.passes) == (1, 0)
    t.take_turn(2)  # no legal card, nothing to draw: passes (and may pass)
    assert t.passes == 1 and t.idle_passes == 1


def test_blocked_game():
    rules = preset("openspiel")
    record = play_from(rules, ["2H", "3D"], "", "5C")
    assert (record.end, record.winner, record.passes, record.turns) == ("blocked", -1, 3, 3)
    assert record.score == (-2, -3)
    rules = rules.with_overrides({"blocked_winner": "lowest_hand"})
    record = play_from(rules, ["2H", "3D"], "", "5C")
    assert (record.end, record.winner, record.score) == ("blocked", 0, (0, -3))


def test_draw_up_to_then_pass():
    t = table("openspiel", ["2H", "3D"], "2S 3S 4S 6S 7S 9S", "5C")
    t.take_turn(0)
    assert len(t.hands[0]) == 6 and (t.draws, t.passes) == (5, 1) and t.idle_passes == 0
    t = table("openspiel", ["2H", "3D"], "2S 3S 4C 6S 7S 9S", "5C")
    t.take_turn(0)  # the third card drawn is legal and `first` plays it
    assert (t.draws, t.plays, t.passes) == (3, 1, 0)


def test_play_cap_and_a_seat_going_out_on_the_last_play():
    rules = preset("openspiel").with_overrides({"max_plays": 2})
    record = play_from(rules, ["5H 6H", "7H 8S"], "2S 3S", "4H")
    assert (record.end, record.winner, record.plays) == ("play_cap", -1, 2)
    record = play_from(rules, ["5H 6H", "7H"], "2S 3S", "4H")
    assert (record.end, record.winner, record.plays) == ("out", 1, 2)


def test_turn_cap():
    rules = preset("crazy-eights").with_overrides({"max_turns": 1})
    record = play_from(rules, ["5H 6H", "7H 8S"], "2S 3S", "4H")
    assert (record.end, record.winner, record.turns) == ("turn_cap", -1, 1)
    assert record.score == record.points == (6, 7 + 50)


# --- scoring ---------------------------------------------------------------------------------


def test_going_out_on_a_seven_triples_and_on_a_jack_doubles():
    rules = preset("pis-yedili")
    record = play_from(rules, ["7C", "KS 2H", "9S"], "2D 3D", "5C")
    assert (record.end, record.winner, record.finish_rank) == ("out", 0, 6)
    assert record.points == (0, 12, 9) and record.score == (0, 36, 27)
    record = play_from(rules, ["JH", "KS 2H", "9S"], "2D 3D", "5C")
    assert record.score == (0, 24, 18) and record.wilds == 0


def test_winner_collects():
    record = play_from(preset("crazy-eights"), ["5C", "KS 2H", "8S"], "2D 3D", "4C")
    assert record.score == (12 + 50, 0, 0)


def test_stock_out_scores_have_no_multiplier():
    record = play_from(preset("pis-yedili"), ["7C 2H", "3S 4S", "9S"], "2D 3D", "5C")
    assert record.score == (0, 12, 9)


# --- the last-card call -------------------------------------------------------------------------


def test_forgotten_call_penalty():
    t = table(
        "crazy-eights",
        ["6H 9H", "KS QS"],
        "2C 3C 4C",
        "5H",
        forget=[1.0, 0.0],
        last_card_call=True,
    )
    assert t.take_turn(0) == 1
    assert hand(t, 0) == "2C 3C 9H" and (t.draws, t.turns) == (2, 1)


def test_called_last_card_costs_nothing_and_draws_no_random_word():
    t = table("crazy-eights", ["6H 9H", "KS QS"], "2C 3C 4C", "5H", last_card_call=True)
    t.take_turn(0)
    assert hand(t, 0) == "9H" and t.draws == 0 and t.stream.block == 0


def test_forgotten_call_cannot_go_out():
    hands, stock = ["6H 9H", "2H KS QS"], "3C 4H 5D 6D"
    t = table("pis-yedili", hands, stock, "5H", forget=[1.0, 0.0], last_card_call=True)
    t.take_turn(0)  # 6H, forgets
    t.take_turn(1)  # 2H
    t.take_turn(0)  # may not play its 9H: draws 3C, then 4H and plays it
    assert hand(t, 0) == "3C 9H" and t.barred[0] == 0
    t = table("pis-yedili", hands, stock, "5H", last_card_call=True)
    record = t.run()
    assert (record.end, record.winner, record.turns) == ("out", 0, 3)


# --- dealing and whole games -------------------------------------------------------------------


def test_deal_protocol():
    rules = preset("openspiel")
    stream = Stream(5, 3)
    first, hands, stock = deal(rules, 3, stream)
    check = Stream(5, 3)
    assert first == (check.bounded(3) + 1) % 3
    deck = list(range(52))
    check.shuffle(deck)
    assert hands[first] == deck[0:15:3] and hands[(first + 1) % 3] == deck[1:15:3]
    assert stock == deck[15:]


def _check_record(rules, players, record):
    assert record.end in END_REASONS
    dealt = players * rules.hand_size_for(players)
    assert sum(record.cards_left) == dealt + record.draws - record.plays
    assert record.turns <= rules.max_turns
    assert record.wilds <= record.plays
    if record.end == "out":
        assert record.cards_left[record.winner] == 0 and record.finish_rank >= 0
    else:
        assert record.finish_rank == -1
    if record.end in ("play_cap", "turn_cap"):
        assert record.winner == -1
    if record.winner >= 0 and rules.scoring != "winner_collects":
        assert record.score[record.winner] == 0
    if rules.max_plays is not None:
        assert record.plays <= rules.max_plays


@pytest.mark.parametrize("name", PRESETS)
def test_random_games_keep_their_invariants(name):
    rules = preset(name)
    strategies = ["random", "uniform", "first"]
    for players in range(2, 7):
        for game in range(120):
            seats = [strategies[(game + seat) % 3] for seat in range(players)]
            forget = [0.3 * (seat % 2) for seat in range(players)]
            record = play(rules, players, seats, 11, game, forget=forget)
            _check_record(rules, players, record)
            # Every turn does something, but the last one may end the game first.
            assert record.turns <= record.plays + record.draws + record.passes + 1
            if name == "pis-yedili":
                assert record.passes == 0 and record.end in ("out", "stock_out")
            if name == "openspiel":
                assert record.end in ("out", "blocked", "play_cap")


def test_same_seed_same_game_and_a_trace():
    rules = preset("crazy-eights")
    trace = []
    first = play(rules, 4, ["uniform"] * 4, 99, 7, trace=trace)
    assert play(rules, 4, ["uniform"] * 4, 99, 7) == first
    assert trace[0].startswith("seat 0") and trace[-1].startswith("game over")
    assert any("plays" in line for line in trace)


def _knob_values():
    values = {knob: list(allowed) for knob, allowed in CHOICES.items()}
    values["on_no_play"] = [
        "draw_one_pass",
        "draw_one_may_play",
        "draw_until_playable",
        "draw_up_to:3",
    ]
    values.update({switch: [True, False] for switch in SWITCHES})
    values["effects.A"] = ["again", "skip", "all_draw:1", "reverse"]
    values["effects.2"] = ["skip+draw:2", "draw:2", "draw:2+reverse"]
    values["effects.8"] = ["wild", "wild+skip", "wild+draw:2"]
    values["max_plays"] = [None, 20]
    values["max_turns"] = [25, 10_000]
    return values


def test_every_knob_value_keeps_the_invariants():
    chance = random.Random(3)
    for name in PRESETS:
        for knob, values in _knob_values().items():
            for value in values:
                rules = preset(name).with_overrides({knob: value})
                for game in range(6):
                    players = chance.randint(2, 6)
                    seats = [chance.choice(["random", "uniform", "first"]) for _ in range(players)]
                    forget = [chance.choice([0.0, 0.5, 1.0]) for _ in range(players)]
                    record = play(rules, players, seats, 5, game, forget=forget)
                    _check_record(rules, players, record)


# --- strategies and the randomness protocol -----------------------------------------------------


def test_strategy_option_orders():
    from simulate.games.shedding.reference_cards import DRAW, PASS
    from simulate.games.shedding.reference_strategies import (
        FirstStrategy,
        RandomStrategy,
        UniformStrategy,
    )

    legal = sorted(cards("5H 5H 2C"), key=lambda c: (c % 52, c))  # two decks' 5H
    assert (
        RandomStrategy(Stream(1, 1)).choose(legal, False, False) == legal[Stream(1, 1).bounded(3)]
    )
    options = [legal[0], legal[1], DRAW, PASS]  # distinct identities 2C, 5H, then draw, pass
    assert (
        UniformStrategy(Stream(1, 1)).choose(legal, True, True) == options[Stream(1, 1).bounded(4)]
    )
    assert FirstStrategy(Stream(1, 1)).choose(legal, True, True) == legal[0]
    one = Stream(1, 1)
    assert UniformStrategy(one).choose([], True, False) == DRAW and one.block == 0
    assert RandomStrategy(Stream(2, 2)).name_suit([0, 1, 3]) == [0, 1, 3][Stream(2, 2).bounded(3)]


def test_uniform_may_draw_by_choice():
    t = table("crazy-eights", ["5H 9S", "KS"], "2C 3C", "4H", strategies=["uniform", "first"])
    t.take_turn(0)
    if Stream(0, 0).bounded(2) == 0:  # options: 5H, draw
        assert hand(t, 0) == "9S" and t.draws == 0
    else:
        assert hand(t, 0) == "2C 5H 9S" and t.draws == 1


def test_draw_one_pass_ends_the_turn_even_on_a_legal_card():
    t = table("crazy-eights", ["9S", "KS"], "4C 3C", "4H")
    t.take_turn(0)
    assert hand(t, 0) == "4C 9S" and (t.draws, t.plays, t.passes) == (1, 0, 0)


def test_stock_out_tie_counts_in_the_current_direction():
    record = play_from(preset("pis-yedili"), ["10C 4H", "4S", "9S"], "", "5C")
    assert record.end == "stock_out" and record.points == (4, 4, 9)
    assert record.winner == 1  # from seat 2 counter-clockwise: 2, 1, 0


def test_trace_names_the_events():
    trace = []
    rules = preset("pis-yedili").with_overrides({"stock_empty": "reshuffle"})
    play_from(rules, ["7C 10S 8S JS 2H", "7D 10D", "9D 6D"], "2S", "4C 6C 5C", trace=trace)
    text = "\n".join(trace)
    for event in ("faces a penalty of 6", "takes the penalty", "reshuffle", "names", "passes"):
        assert event in text, event
    trace = []
    for game in range(20):
        play(preset("crazy-eights"), 4, ["random"] * 4, 1, game, trace=trace)
    text = "\n".join(trace)
    for event in ("starter", "reverses", "is skipped", "draws 2 at once", "game over"):
        assert event in text, event


# --- matches -------------------------------------------------------------------------------


def test_match_deals_rotate_the_first_seat_and_add_up():
    from simulate.games.shedding.reference import play_match

    rules = preset("pis-yedili")
    trace: list[str] = []
    match = play_match(rules, 3, ["random"] * 3, seed=9, match=2, trace=trace)
    assert len(match.deals) == rules.match_deals == 4
    firsts = [line for line in trace if "(acts first)" in line]
    assert [line.split()[1] for line in firsts] == ["0", "1", "2", "0"]
    assert match.totals == tuple(map(sum, zip(*(d.score for d in match.deals), strict=True)))
    best = min(match.totals)
    winners = [seat for seat, total in enumerate(match.totals) if total == best]
    assert match.share == tuple(1 / len(winners) if s in winners else 0.0 for s in range(3))
    assert sum(match.share) == pytest.approx(1.0)
    again = play_match(rules, 3, ["random"] * 3, seed=9, match=2)
    assert again == match


def test_target_score_ends_the_match_when_reached():
    from simulate.games.shedding.reference import play_match

    rules = preset("crazy-eights").with_overrides({"target_score": 150})
    for match_index in range(20):
        match = play_match(rules, 3, ["random"] * 3, seed=4, match=match_index)
        partial = [0, 0, 0]
        for k, record in enumerate(match.deals):
            partial = [a + b for a, b in zip(partial, record.score, strict=True)]
            assert (max(partial) >= 150) == (k == len(match.deals) - 1)
        assert match.share[match.totals.index(max(match.totals))] > 0
