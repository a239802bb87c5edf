"""Shedding-game rules objects: presets, overrides from strings/TOML, validation."""

import pytest
from typer.testing import CliRunner

from simulate.app.cli import app
from simulate.app.studies.file import read_rule_file
from simulate.core.errors import CardsimError
from simulate.games.shedding.rules import PRESETS, RankEffects, describe, preset

RANK = {name: index for index, name in enumerate("A 2 3 4 5 6 7 8 9 10 J Q K".split())}


def test_pis_yedili_preset_is_the_rule_book():
    rules = preset("pis-yedili")
    assert rules.rank_effects(RANK["J"]) == RankEffects(wild=True)
    assert rules.rank_effects(RANK["8"]) == RankEffects(skip=True)
    assert rules.rank_effects(RANK["10"]) == RankEffects(reverse=True)
    assert rules.rank_effects(RANK["7"]) == RankEffects(draw=3)
    assert rules.rank_effects(RANK["A"]) == RankEffects(again=True)
    assert rules.rank_effects(RANK["5"]) == RankEffects()
    assert (rules.start, rules.stacking, rules.stack_growth) == ("lead_club", "same_rank", "add")
    assert (rules.wild_on_wild, rules.voluntary_draw, rules.stock_empty) == (False, False, "end")
    assert rules.no_play_rule == "draw_until_playable"
    assert [rules.points(RANK[r]) for r in ("J", "7", "A", "K", "Q", "9", "2")] == [
        25,
        20,
        15,
        10,
        10,
        9,
        2,
    ]
    assert (rules.multiplier(RANK["7"]), rules.multiplier(RANK["J"]), rules.multiplier(0)) == (
        3,
        2,
        1,
    )
    assert rules.match_deals == 4 and rules.last_card_rule == "cannot_go_out"
    assert rules.hand_size_for(2) == rules.hand_size_for(7) == 7


def test_crazy_eights_presets():
    rules = preset("crazy-eights")
    assert rules.rank_effects(RANK["2"]) == RankEffects(skip=True, draw=2)
    assert rules.rank_effects(RANK["Q"]) == RankEffects(reverse=True)
    assert rules.rank_effects(RANK["A"]) == RankEffects(skip=True)
    assert [rules.decks_for(n) for n in (2, 4, 5, 8)] == [1, 1, 2, 2]
    assert rules.points(RANK["8"]) == 50 and rules.points(RANK["K"]) == 10
    plain = preset("crazy-eights-plain")
    assert [plain.rank_effects(r) for r in range(13)].count(RankEffects()) == 12


def test_openspiel_preset():
    rules = preset("openspiel")
    assert [rules.hand_size_for(n) for n in (2, 3, 5)] == [7, 5, 5]
    assert [rules.decks_for(n) for n in (5, 6, 15)] == [1, 2, 2]
    assert (rules.first_seat, rules.no_play_rule, rules.draw_up_to) == ("random", "draw_up_to", 5)
    assert (rules.stock_empty, rules.blocked_winner, rules.max_plays) == ("pass", "none", 100)
    assert rules.points(RANK["8"]) == 50 and rules.points(RANK["A"]) == 10
    special = rules.with_overrides({"special": "on"})
    assert special.rank_effects(RANK["2"]) == RankEffects(draw=2)
    assert special.rank_effects(RANK["Q"]) == RankEffects(skip=True)
    assert special.rank_effects(RANK["A"]) == RankEffects(reverse=True)
    assert special.stacking == "same_rank"


def test_overrides_from_strings_and_tables():
    rules = preset("pis-yedili").with_overrides(
        {
            "stacking": "any_draw",
            "stack_growth": "double",
            "effects.A": "skip",
            "effects.2": "skip+draw:2",
            "wild_on_wild": "on",
            "hand_size": "2:9,6",
            "decks": "5+:2,1",
            "max_plays": "200",
            "card_points.J": "30",
        }
    )
    assert rules.rank_effects(RANK["A"]) == RankEffects(skip=True)
    assert rules.rank_effects(RANK["2"]) == RankEffects(skip=True, draw=2)
    assert rules.wild_on_wild and rules.max_plays == 200 and rules.points(RANK["J"]) == 30
    assert [rules.hand_size_for(n) for n in (2, 3)] == [9, 6]
    assert [rules.decks_for(n) for n in (4, 5, 7)] == [1, 2, 2]
    none = rules.with_overrides({"effects.A": "none", "max_plays": "none"})
    assert none.rank_effects(RANK["A"]) == RankEffects() and none.max_plays is None


def test_toml_file(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text('stacking = "any_draw"\nhand_size = 6\n[effects]\nA = "skip"\n7 = "draw:2"\n')
    rules = preset("pis-yedili").with_overrides(read_rule_file(path).overrides)
    assert rules.stacking == "any_draw" and rules.hand_size_for(4) == 6
    assert rules.rank_effects(RANK["7"]) == RankEffects(draw=2)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"stacking": "all"}, "stacking must be one of none, same_rank, any_draw, got 'all'"),
        ({"colour": "red"}, "unknown rule 'colour'"),
        ({"effects.A": "skip+again"}, "effects.A cannot be both again and skip"),
        ({"effects.J": "wild+again"}, "effects.J cannot be both wild and again"),
        ({"effects.7": "draw"}, "effects.7: draw needs a number"),
        ({"effects.7": "explode"}, "unknown effect 'explode'"),
        ({"effects.Z": "skip"}, "unknown rank in effects.Z"),
        ({"wild_on_wild": "maybe"}, "wild_on_wild must be on or off"),
        ({"on_no_play": "draw_up_to:0"}, "draw_up_to:N"),
        ({"hand_size": "0"}, "hand_size must be a whole number from 1"),
        ({"match_deals": 4, "target_score": 100}, "match_deals and target_score exclude"),
    ],
)
def test_bad_overrides(overrides, message):
    with pytest.raises(CardsimError, match=message):
        preset("pis-yedili").with_overrides(overrides)


def test_too_few_cards_suggests_decks():
    with pytest.raises(CardsimError, match="; try decks=2$"):
        preset("pis-yedili").check_players(8)
    preset("pis-yedili").check_players(7)
    preset("pis-yedili").with_overrides({"decks": 2}).check_players(8)


def test_toml_errors_name_the_file_and_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("stacking = \n")
    with pytest.raises(CardsimError, match=r"bad.toml line 1: invalid TOML"):
        read_rule_file(bad)
    with pytest.raises(CardsimError, match="not found"):
        read_rule_file(tmp_path / "missing.toml")


@pytest.mark.parametrize("name", PRESETS)
def test_rules_command_prints_every_knob(name):
    result = CliRunner().invoke(app, ["rules", name, "--players", "4"])
    assert result.exit_code == 0, result.output
    for knob in ("stacking", "wild_mode", "on_no_play", "scoring", "effects"):
        assert f"{knob} = " in result.output
    assert describe(preset(name), 4).splitlines()[0] == f"preset {name}"


def test_rules_command_errors_exit_2():
    runner = CliRunner()
    for args in (
        ["rules", "pis-yedili", "--rule", "stacking=all"],
        ["rules", "pis-yedili", "--players", "8"],
        ["rules", "chess"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2
        assert result.output.count("error:") == 1


def test_rule_vector_holds_every_knob():
    from simulate.games.shedding import rules as R

    vector = preset("pis-yedili").with_overrides({"on_no_play": "draw_up_to:3"}).to_vector()
    assert vector.shape == (R.RULE_VECTOR_SIZE,)
    assert vector[R.R["start"]] == R.CHOICES["start"].index("lead_club")
    assert vector[R.R["on_no_play"]] == 3 and vector[R.R["draw_up_to"]] == 3
    assert vector[R.R["stock_empty"]] == R.CHOICES["stock_empty"].index("end")
    assert vector[R.R["wild_on_wild"]] == 0 and vector[R.R["max_turns"]] == 10_000
    assert vector[R.R["match_deals"]] == 4 and vector[R.R["max_plays"]] == 0
    assert vector[R.R_EFFECT_FLAGS + RANK["J"]] == R.FLAG_WILD
    assert vector[R.R_EFFECT_FLAGS + RANK["A"]] == R.FLAG_AGAIN
    assert vector[R.R_DRAW + RANK["7"]] == 3
    assert vector[R.R_POINTS + RANK["J"]] == 25 and vector[R.R_MULTIPLIER + RANK["7"]] == 3
    eights = preset("crazy-eights").to_vector()
    assert eights[R.R_EFFECT_FLAGS + RANK["2"]] == R.FLAG_SKIP and eights[R.R_DRAW + 1] == 2
    assert eights[R.R["on_no_play"]] == 0


def test_a_stock_that_could_hold_only_wilds_is_refused():
    # openspiel, 5 players x 10 cards: a stock of 2 could be two 8s, and a wild starter
    # would go back for another card forever.
    rules = preset("openspiel").with_overrides({"hand_size": 10})
    with pytest.raises(CardsimError, match="could hold only wilds"):
        rules.check_players(5)
    rules.check_players(4)  # a stock of 12 always holds a card that is not an 8
    preset("openspiel").with_overrides({"hand_size": 10, "start": "lead_club"}).check_players(5)
