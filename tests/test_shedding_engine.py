"""Shedding games through the engine: simulate.run and cardsim simulate for the presets."""

import json

import pytest
from pandas.testing import assert_frame_equal
from run_helpers import assert_intact, completed
from typer.testing import CliRunner

import simulate
from analysis.load import load_run
from simulate.app.cli import app
from simulate.core.errors import CardsimError
from simulate.games.shedding import reference
from simulate.games.shedding.rules import preset


@pytest.mark.parametrize("name", ["pis-yedili", "crazy-eights", "openspiel"])
def test_run_records_equal_the_reference_across_chunks(name):
    strategies = ["first", "uniform", "random"]
    single = {"match_deals": None}  # pis-yedili's preset plays 4-deal matches
    frame = simulate.run(
        name, players=3, games=90, seed=12, strategies=strategies[:2], chunk_size=40, rules=single
    )
    assert frame["game"].tolist() == list(range(90))
    assert "match" not in frame.columns
    assert frame["strategy_2"].unique().tolist() == ["random"]
    rules = preset(name).with_overrides(single)
    for row in frame.itertuples():
        expected = reference.play(rules, 3, strategies, 12, row.game)
        assert (row.winner, row.end, row.turns, row.plays, row.draws, row.passes) == (
            expected.winner,
            expected.end,
            expected.turns,
            expected.plays,
            expected.draws,
            expected.passes,
        )
        assert (row.score_0, row.score_1, row.score_2) == expected.score
        assert row.first_seat == expected.first_seat
    assert frame.attrs["strategies"] == strategies


@pytest.mark.parametrize(
    ("name", "overrides", "players"),
    [
        ("pis-yedili", {}, 4),  # the preset: 4-deal matches, penalty scoring
        ("crazy-eights", {"target_score": 60}, 3),  # winner collects: highest total wins
        ("openspiel", {"target_score": 40}, 2),  # minus hand: the size of a total counts
    ],
)
def test_match_runs_equal_the_reference(tmp_path, name, overrides, players):
    """Match play in bulk: one record per deal tagged with match and deal, then one row per
    match in the run folder's matches, equal to reference.play_match across chunks."""
    strategies = ["first", "uniform", "random", "random"][:players]
    out = tmp_path / "run"
    frame = simulate.run(
        name,
        players=players,
        games=30,
        seed=5,
        rules=overrides,
        strategies=strategies,
        out=out,
        chunk_size=40,
    )
    run = load_run(out)
    matches = run.matches
    assert_frame_equal(run.games, frame)
    manifest = assert_intact(out, 30)
    assert len(manifest.entries) > 1  # across chunks
    assert manifest.rows("matches") == 30 and manifest.rows("games") == len(frame)
    meta = json.loads((out / "run.json").read_text())
    assert (meta["unit"], meta["completed_games"], meta["completed_deals"]) == (
        "match",
        30,
        len(frame),
    )
    assert frame["game"].tolist() == list(range(len(frame)))
    assert matches["match"].tolist() == list(range(30))
    rules = preset(name).with_overrides(overrides)
    rows = frame.groupby("match")
    for m in range(30):
        expected = reference.play_match(rules, players, strategies, 5, m)
        deals = rows.get_group(m)
        assert deals["deal"].tolist() == list(range(len(expected.deals)))
        assert matches["deals"][m] == len(expected.deals)
        for row, record in zip(deals.itertuples(), expected.deals, strict=True):
            assert (row.winner, row.end, row.turns, row.draws, row.first_seat) == (
                record.winner,
                record.end,
                record.turns,
                record.draws,
                record.first_seat,
            )
            assert tuple(getattr(row, f"score_{i}") for i in range(players)) == record.score
        totals = tuple(int(matches[f"total_{i}"][m]) for i in range(players))
        assert totals == expected.totals
        shares = [matches[f"share_{i}"][m] for i in range(players)]
        assert shares == pytest.approx(expected.share)
    assert matches[[f"share_{i}" for i in range(players)]].sum(axis=1).tolist() == (
        pytest.approx([1.0] * 30)
    )


def test_an_interrupted_match_run_resumes_to_the_same_records(tmp_path):
    from simulate.runs import engine
    from simulate.runs.folder.writer import RunWriter
    from simulate.runs.request import make_request, request_from_meta

    out = tmp_path / "run"
    request = make_request("pis-yedili", players=3, games=900, seed=17, rules={"target_score": 80})

    def consume(chunk):
        if chunk.matches["match"][0].as_py() == 200:
            raise KeyboardInterrupt

    with RunWriter(out, request.meta()) as writer, pytest.raises(engine.RunInterrupted):
        engine.stream(request, writer, consume, chunk_size=400)
    stopped = json.loads((out / "run.json").read_text())
    assert stopped["completed_games"] == 300 and stopped["status"] == "interrupted"
    assert completed(out) == 300
    writer, meta = RunWriter.resume(out)
    with writer:
        assert meta["completed_games"] == 300 and writer.todo(900) == [(300, 900)]
        engine.stream(request_from_meta(meta), writer, chunk_size=1200)
    full = tmp_path / "full"
    simulate.run("pis-yedili", players=3, games=900, seed=17, rules={"target_score": 80}, out=full)
    assert_intact(out, 900)
    resumed, whole = load_run(out), load_run(full)
    assert_frame_equal(resumed.games, whole.games)
    assert_frame_equal(resumed.matches, whole.matches)


def test_rule_overrides_reach_the_kernel():
    base = simulate.run("pis-yedili", players=4, games=300, seed=3)
    doubled = simulate.run(
        "pis-yedili", players=4, games=300, seed=3, rules={"stack_growth": "double"}
    )
    assert doubled.attrs["rules"]["stack_growth"] == "double"
    assert not base["draws"].equals(doubled["draws"])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"strategies": ["random", "bogus"]}, "unknown strategy 'bogus'"),
        ({"strategies": ["random"] * 5}, "5 strategies given for 4 seats"),
        ({"players": 8}, "try decks=2"),
        ({"rules": {"stacking": "all"}}, "stacking must be one of"),
    ],
)
def test_bad_shedding_requests(kwargs, message):
    args = {"players": 4, "games": 10, "seed": 1, **kwargs}
    with pytest.raises(CardsimError, match=message):
        simulate.run("pis-yedili", **args)


def test_beggar_takes_no_strategies():
    with pytest.raises(CardsimError, match="takes no strategies"):
        simulate.run("bmn", games=10, seed=1, strategies=["random"])


@pytest.mark.end_to_end
def test_cli_simulate_a_preset(tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        [
            "simulate",
            "crazy-eights",
            "--players",
            "3",
            "--games",
            "500",
            "--seed",
            "8",
            "--strategy",
            "first",
            "--rule",
            "stacking=same_rank",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    meta = json.loads((out / "run.json").read_text())
    assert meta["strategies"] == ["first", "random", "random"]
    assert meta["rules"]["stacking"] == "same_rank" and meta["rules"]["preset"] == "crazy-eights"
    assert meta["completed_games"] == 500 and meta["status"] == "complete"


def test_rotated_seats_play_the_same_deals_in_every_seating():
    """--rotate-seats: deal g is played once per cyclic seating (rotation r moves seat i's
    strategy to seat i + r), each equal to the reference with that seating."""
    strategies = ["first", "uniform:forget=0.5", "random"]
    rules = {"match_deals": None, "last_card_call": True, "last_card_rule": "penalty"}
    frame = simulate.run(
        "pis-yedili",
        players=3,
        games=40,
        seed=9,
        rules=rules,
        strategies=strategies,
        rotate_seats=True,
        chunk_size=30,
    )
    assert len(frame) == 120 and frame.attrs["rotate_seats"] is True
    assert list(zip(frame["game"], frame["rotation"], strict=True)) == [
        (g, r) for g in range(40) for r in range(3)
    ]
    resolved = preset("pis-yedili").with_overrides(rules)
    for row in frame.sample(30, random_state=1).itertuples():
        seating = [strategies[(i - row.rotation) % 3] for i in range(3)]
        assert [getattr(row, f"strategy_{i}") for i in range(3)] == seating
        expected = reference.play(resolved, 3, seating, 9, row.game)
        assert (row.winner, row.turns, row.draws, row.score_1) == (
            expected.winner,
            expected.turns,
            expected.draws,
            expected.score[1],
        )


def test_a_rotated_run_counts_its_games_not_its_records(tmp_path):
    """With --rotate-seats run.json's completed_games counts deals (matches), not the rows
    of every seating; an interrupted rotated run resumes to the uninterrupted records."""
    from simulate.runs import engine
    from simulate.runs.folder.writer import RunWriter
    from simulate.runs.request import make_request, request_from_meta

    out = tmp_path / "run"
    seats = ["greedy", "random", "random"]
    request = make_request(
        "pis-yedili", players=3, games=600, seed=4, strategies=seats, rotate_seats=True
    )

    def consume(chunk):
        if chunk.matches["match"][0].as_py() == 200:
            raise KeyboardInterrupt

    with RunWriter(out, request.meta()) as writer, pytest.raises(engine.RunInterrupted):
        engine.stream(request, writer, consume, chunk_size=2400)  # 200 matches
    assert completed(out) == 400
    writer, meta = RunWriter.resume(out)
    with writer:
        assert meta["completed_games"] == 400 and meta["rotate_seats"] is True
        engine.stream(request_from_meta(meta), writer, chunk_size=2400)
    meta = json.loads((out / "run.json").read_text())
    assert meta["completed_games"] == 600 and meta["completed_deals"] == 600 * 4 * 3
    assert completed(out) == 600 and assert_intact(out, 600).rows("games") == 600 * 4 * 3
    full = tmp_path / "full"
    simulate.run(
        "pis-yedili",
        players=3,
        games=600,
        seed=4,
        strategies=seats,
        rotate_seats=True,
        out=full,
    )
    resumed, whole = load_run(out), load_run(full)
    assert_frame_equal(resumed.games, whole.games)
    assert_frame_equal(resumed.matches, whole.matches)
