"""High card as cardsim sees it: the game's one description (numba-free)."""

from simulate.games.spec import Column, GameSpec, Preset

from .rules import HighCardRules

COLUMNS = (
    Column("game", "int64", "index", "index of the deal in the run"),
    Column("winner", "int8", "seat", "the seat with the most tricks, -1 for a draw"),
    Column("end", "dictionary<string>", "", "out: one seat took the most tricks; draw: a tie"),
    Column("tricks", "int32", "tricks", "tricks played"),
    Column("ties", "int32", "tricks", "tricks nobody took (a tie for the highest card)"),
    Column("won_<i>", "int16", "tricks", "tricks seat i took"),
)

GAME_SPEC = GameSpec(
    family="highcard",
    presets=(Preset("highcard", "High card", 2, ("hc",)),),
    min_players=2,
    max_players=4,
    base_rules=lambda preset: HighCardRules(),
    end_reasons=("out", "draw"),
    end_meanings={"out": "one seat took the most tricks", "draw": "a tie for the most tricks"},
    columns=COLUMNS,
    length=COLUMNS[3],
    required_columns=("game", "winner", "end", "tricks", "ties"),
    engine_path="cardsim_highcard.engine:ENGINE",
)
