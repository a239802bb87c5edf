"""``cardsim replay``: one shedding game turn by turn, as the reference plays it."""

from typer.testing import CliRunner

from simulate.app.cli import app
from simulate.games.shedding import reference
from simulate.games.shedding.rules import preset

runner = CliRunner()


def test_replay_prints_the_game_the_reference_plays():
    result = runner.invoke(
        app,
        [
            "replay",
            "pis-yedili",
            "--seed",
            "7",
            "--game",
            "3",
            "--players",
            "3",
            "--strategy",
            "first",
            "--rule",
            "stack_growth=double",
        ],
    )
    assert result.exit_code == 0, result.output
    rules = preset("pis-yedili").with_overrides({"stack_growth": "double"})
    lines: list[str] = []
    record = reference.play(rules, 3, ["first", "random", "random"], 7, 3, trace=lines)
    turns = [line for line in result.output.splitlines() if line.startswith("turn ")]
    assert len(turns) == record.turns
    assert f"{record.turns} turns, {record.plays} plays" in result.output
    assert f"scores {list(record.score)}" in result.output
    assert result.output.startswith("pis-yedili, 3 players (first, random, random), seed 7")


def test_replay_errors_exit_2():
    for args in (
        ["replay", "uno", "--seed", "1"],
        ["replay", "crazy-eights", "--seed", "1", "--strategy", "bogus"],
        ["replay", "pis-yedili", "--seed", "1", "--players", "8"],
        ["replay", "pis-yedili", "--seed", "1", "--rule", "stacking=all"],
        [
            "replay",
            "pis-yedili",
            "--seed",
            "1",
            "--players",
            "2",
            "--strategy",
            "first",
            "--strategy",
            "first",
            "--strategy",
            "first",
        ],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert result.output.count("error:") == 1


def test_replay_a_deal_of_a_match_run(tmp_path):
    """`cardsim replay --match M --deal K` plays deal K of match M as the match run did."""
    import simulate

    frame = simulate.run("pis-yedili", players=4, games=6, seed=21)
    row = frame[(frame["match"] == 4) & (frame["deal"] == 3)].iloc[0]
    result = runner.invoke(
        app, ["replay", "pis-yedili", "--seed", "21", "--match", "4", "--deal", "3"]
    )
    assert result.exit_code == 0, result.output
    assert "seed 21, match 4, deal 3" in result.output
    end = result.output.strip().splitlines()[-1]
    assert f"{row.turns} turns, {row.plays} plays, {row.draws} cards drawn" in end
    assert f"scores {[int(row[f'score_{s}']) for s in range(4)]}" in end
