"""``cardsim replay DIR``: a game of a run folder from its log or played again, and
``cardsim play bmn --trace``."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from simulate.app.cli import app
from simulate.games.registry import resolve_game


def invoke(*args: str):
    return CliRunner().invoke(app, [str(arg) for arg in args])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The same Beggar-My-Neighbour run (3 players, penalties changed), with and without a
    log of its first 20 games, and a small match-play run of Pis Yedili."""
    root = tmp_path_factory.mktemp("runs")
    common = ["--games", "200", "--seed", "12", "--players", "3", "--rule", "penalties.A=5"]
    for name, extra in (("logged", ["--log", "20"]), ("plain", [])):
        result = invoke("simulate", "bmn", *common, *extra, "--out", root / name, "--no-report")
        assert result.exit_code == 0, result.output
    result = invoke(
        "simulate", "pis-yedili", "--games", "3", "--seed", "3", "--rule", "match_deals=2",
        "--out", root / "matches", "--no-report",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return root


@pytest.mark.parametrize("game", [0, 7, 19])
def test_replay_from_the_log_reads_as_the_replay_played_again(runs, game):
    logged = invoke("replay", runs / "logged", "--game", game)
    plain = invoke("replay", runs / "plain", "--game", game)
    assert logged.exit_code == 0 and plain.exit_code == 0, logged.output + plain.output
    assert logged.output == plain.output
    lines = logged.output.splitlines()
    assert lines[0] == (
        f"beggar-my-neighbour, 3 players, seed 12, game {game}; rules changed: penalties.A=5"
    )
    assert lines[1].startswith("deal: ")
    assert lines[-1].startswith("end: ")
    tricks = [line for line in lines if line.startswith("trick ")]
    taken = sum(line.count(" takes ") for line in tricks)
    events = json.loads(
        invoke("replay", runs / "logged", "--game", game, "--format", "json").output
    )
    assert taken == sum(1 for event in events if event["event"] == "take")
    assert [event["seq"] for event in events] == list(range(len(events)))


def test_replay_of_a_game_past_the_log_matches_the_run_records(runs):
    import pandas as pd

    games = pd.read_parquet(runs / "logged" / "games")
    result = invoke("replay", runs / "logged", "--game", 150, "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = result.output.splitlines()
    assert rows[0].startswith("game,seq,turn,seat,event,card")
    plays = sum(1 for row in rows[1:] if row.split(",")[4] == "play")
    assert plays == games.loc[games["game"] == 150, "cards"].item()


def test_replay_by_name_prints_the_same_game(runs):
    by_name = invoke("replay", "bmn", "--seed", 12, "--players", 3, "--rule", "penalties.A=5",
                     "--game", 7)  # fmt: skip
    from_folder = invoke("replay", runs / "plain", "--game", 7)
    assert by_name.exit_code == 0, by_name.output
    assert by_name.output == from_folder.output


def test_hands_adds_each_seats_cards(runs):
    result = invoke("replay", runs / "logged", "--game", 3, "--hands")
    tricks = [line for line in result.output.splitlines() if line.startswith("trick ")]
    for line in tricks:
        held = [int(count) for count in line.rsplit("[", 1)[1].rstrip("]").split()]
        assert len(held) == 3 and sum(held) == 52  # every trick ends with the pile taken


def test_match_run_replays_a_deal_and_refuses_game(runs):
    refused = invoke("replay", runs / "matches", "--game", 1)
    assert refused.exit_code == 2
    assert "--match M --deal K" in refused.output
    assert len(refused.output.strip().splitlines()) == 1
    deal = invoke("replay", runs / "matches", "--match", 1, "--deal", 1)
    assert deal.exit_code == 0, deal.output
    assert "match 1, deal 1" in deal.output.splitlines()[0]
    by_name = invoke("replay", "pis-yedili", "--seed", 3, "--rule", "match_deals=2",
                     "--match", 1, "--deal", 1)  # fmt: skip
    assert by_name.output.splitlines()[1:] == deal.output.splitlines()[1:]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["logged", "--game", "200"], ["game 200 is not in the run", "200 games"]),
        (["logged", "--game", "-1"], ["--game must be at least 0"]),
        (["logged", "--match", "0"], ["single games", "--game"]),
        (["logged", "--seed", "3"], ["run folder", "--seed"]),
        (["logged", "--seed", "3", "--rule", "time_limit=5"], ["drop --seed, --rule/--config"]),
        (["logged", "--format", "xml"], ["--format", "xml"]),
        (["logged", "--rotation", "1"], ["--rotation"]),
    ],
)
def test_bad_replays_are_one_line(runs, args, words):
    result = invoke("replay", runs / args[0], *args[1:])
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    for word in words:
        assert word in result.output


def test_a_folder_that_is_not_a_run_is_refused(tmp_path):
    result = invoke("replay", tmp_path, "--game", 0)
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1


def test_play_trace_prints_the_deal_trick_by_trick():
    result = invoke("play", "bmn", "--deal", "J23/4J5", "--trace")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    engine = resolve_game("bmn").spec.engine()
    outcome = engine.play_given(resolve_game("bmn").base_rules(), "J23/4J5")
    assert lines[-1] == engine.outcome_text(outcome)
    assert sum(1 for line in lines if line.startswith("trick ")) == outcome["tricks"]
    assert lines[0] == "trick 1: 0:J 1:-; seat 0 takes 2"  # J, then one card paid


@pytest.fixture(scope="module")
def shedding_runs(tmp_path_factory):
    """The same Crazy Eights run (3 seats, a rule changed, last-card calls forgotten), with
    and without a log of its first 10 games; a logged match run of Pis Yedili."""
    root = tmp_path_factory.mktemp("shedding")
    common = ["--games", "60", "--seed", "5", "--players", "3", "--rule", "last_card_call=true",
              "--strategy", "random:forget=0.8", "--strategy", "greedy"]  # fmt: skip
    for name, extra in (("logged", ["--log", "10"]), ("plain", [])):
        result = invoke("simulate", "crazy-eights", *common, *extra, "--out", root / name,
                        "--no-report")  # fmt: skip
        assert result.exit_code == 0, result.output
    result = invoke("simulate", "pis-yedili", "--games", "4", "--seed", "3", "--rule",
                    "match_deals=2", "--log", "2", "--out", root / "matches", "--no-report")  # fmt: skip
    assert result.exit_code == 0, result.output
    return root


@pytest.mark.parametrize("game", [0, 9])
def test_shedding_replay_from_the_log_reads_as_played_again(shedding_runs, game):
    import pandas as pd

    logged = invoke("replay", shedding_runs / "logged", "--game", game)
    plain = invoke("replay", shedding_runs / "plain", "--game", game)
    assert logged.exit_code == 0 and plain.exit_code == 0, logged.output + plain.output
    assert logged.output == plain.output
    lines = logged.output.splitlines()
    assert lines[0].endswith(f"game {game}; rules changed: last_card_call=True")
    record = pd.read_parquet(shedding_runs / "plain" / "games").set_index("game").loc[game]
    assert lines[-1].startswith(f"end: {record['end']}")
    assert f"{record['turns']} turns, {record['plays']} plays" in lines[-1]
    assert f"scores {[int(record[f'score_{s}']) for s in range(3)]}" in lines[-1]
    events = json.loads(
        invoke("replay", shedding_runs / "logged", "--game", game, "--format", "json").output
    )
    turns = [line for line in lines if line.startswith("turn ")]
    plays = sum(len(re.findall(r"plays (?!again)\S+", line)) for line in turns)
    assert plays == sum(1 for event in events if event["event"] == "play") == record["plays"]


def test_shedding_replay_hands_and_match_deals(shedding_runs):
    result = invoke("replay", shedding_runs / "logged", "--game", 2, "--hands")
    turns = [line for line in result.output.splitlines() if line.startswith("turn ")]
    assert turns and all(line.count(" | ") == 2 for line in turns)
    logged = invoke("replay", shedding_runs / "matches", "--match", 1, "--deal", 1)
    again = invoke("replay", shedding_runs / "matches", "--match", 3, "--deal", 1)
    assert logged.exit_code == 0 and again.exit_code == 0
    by_name = invoke("replay", "pis-yedili", "--seed", 3, "--rule", "match_deals=2",
                     "--match", 1, "--deal", 1)  # fmt: skip
    assert by_name.output.splitlines()[1:] == logged.output.splitlines()[1:]
    csv = invoke("replay", shedding_runs / "matches", "--match", 1, "--deal", 1, "--format", "csv")
    assert csv.output.splitlines()[0].startswith("game,match,deal,seq,turn,seat,event,card")


def test_a_deal_past_its_matchs_end_is_one_error_line(runs, tmp_path):
    """Matches of two deals (match_deals=2): deal 2 is not one, from the run folder's log or
    played again, and the error names how many deals the match has."""
    logged = tmp_path / "logged-matches"
    made = invoke(
        "simulate", "pis-yedili", "--games", "3", "--seed", "3", "--rule", "match_deals=2",
        "--log", "all", "--out", logged, "--no-report",
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    for folder in (runs / "matches", logged):
        assert invoke("replay", folder, "--match", 1, "--deal", 1).exit_code == 0
        past = invoke("replay", folder, "--match", 1, "--deal", 2)
        assert past.exit_code == 2 and "Traceback" not in past.output, past.output
        assert "match 1 has 2 deals" in past.output and "--deal 2" in past.output
