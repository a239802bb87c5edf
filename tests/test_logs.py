"""Game logs (``--log``): the kernel's events against the reference's trace, the events
against the records, and events.parquet in a run folder."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pyarrow as pa
import pytest
from beggar_helpers import kernel_records
from differential.beggar_grid import random_rules, short_deal
from typer.testing import CliRunner

import simulate
from analysis.load import load_run
from simulate.app.cli import app
from simulate.core.logs.events import (
    E_COUNT,
    E_END,
    E_EVENT,
    E_HAND,
    E_SEAT,
    E_TURN,
    EV_END,
    EV_OUT,
    EV_PLAY,
    EV_TAKE,
    W,
)
from simulate.games.beggar import batch, reference
from simulate.games.beggar.deal import DECK_SIZE, deal_hands
from simulate.games.beggar.records import events_table
from simulate.games.beggar.rules import END_NAMES, BeggarRules

RECORD_KEYS = ("cards", "tricks", "winner", "end", "cycle_cards", "cycle_tricks", "held")
RECORD_KEYS += ("lead_changes", "winner_behind")
GRID = [(players, rules) for players in (2, 3, 4) for rules in ("default", "changed")]


def rules_of(name: str) -> BeggarRules:
    if name == "default":
        return BeggarRules()
    return BeggarRules(penalties={"J": 2, "Q": 1, "K": 4, "A": 3}, time_limit=180)


def trace_rows(hands, rules) -> tuple[reference.BeggarRecord, np.ndarray]:
    trace: list = []
    record = reference.play(hands, rules, trace=trace)
    return record, np.array(trace, np.int32).reshape(-1, W)


@pytest.mark.parametrize(("players", "rules_name"), GRID)
def test_kernel_log_equals_reference_trace_and_leaves_records_alone(players, rules_name):
    rules, seed, first, count, logged = rules_of(rules_name), 91, 40, 400, 250
    with_log = batch.play_random(seed, first, count, players, rules, log=logged)
    without = batch.play_random(seed, first, count, players, rules)
    for key in RECORD_KEYS:  # the logged games' records are those played without a log
        assert np.array_equal(with_log[key], without[key]), key
    games = with_log["event_games"]
    assert set(np.unique(games)) == set(range(first, first + logged))
    records = kernel_records(with_log)
    for i in range(logged):
        record, expected = trace_rows(deal_hands(seed, first + i, players), rules)
        assert record == records[i]
        assert np.array_equal(with_log["events"][games == first + i], expected), i
        check_events_reproduce_record(
            expected,
            record,
            [
                DECK_SIZE // players + (1 if seat < DECK_SIZE % players else 0)
                for seat in range(players)
            ],
        )


def test_short_and_looping_deals_log_as_the_reference_traces():
    rng = random.Random(5)
    ends = set()
    for _ in range(600):
        hands, rules = short_deal(rng), random_rules(rng)
        record, expected = trace_rows(hands, rules)
        columns, rows = batch.log_hands(hands, rules)
        assert kernel_records(columns)[0] == record
        assert np.array_equal(rows, expected), (hands, rules)
        check_events_reproduce_record(rows, record, [len(hand) for hand in hands])
        ends.add(record.end)
    assert ends == {"out", "cycle", "time_limit"}


def check_events_reproduce_record(rows, record, dealt):
    """Recount the record from the events alone, and check that cards are conserved after
    every event (hands + pile = the cards dealt)."""
    held = list(dealt)
    total = sum(dealt)
    pile = 0
    plays = takes = 0
    for row in rows[:-1]:
        seat, event = row[E_SEAT], row[E_EVENT]
        if event == EV_PLAY:
            held[seat] -= 1
            pile += 1
            plays += 1
        elif event == EV_TAKE:
            assert row[E_COUNT] == pile
            held[seat] += pile
            pile = 0
            takes += 1
        else:
            assert event == EV_OUT and held[seat] == 0
        assert sum(held) + pile == total
        if event != EV_OUT:
            assert row[E_HAND] == held[seat]
    end = rows[-1]
    assert end[E_EVENT] == EV_END and end[E_TURN] == (rows[-2][E_TURN] if len(rows) > 1 else 0)
    assert (plays, takes) == (record.cards, record.tricks)
    assert END_NAMES[end[E_END]] == record.end and end[E_SEAT] == record.winner
    if record.end != "time_limit":  # time up mid-trick: the pile is in no hand
        assert tuple(held) == record.cards_held
    turns = rows[:-1, E_TURN]
    assert (np.diff(turns) >= 0).all() and (turns >= 1).all()


def test_a_game_too_long_for_its_buffer_is_played_again(monkeypatch):
    expected = batch.play_random(3, 0, 50, 3, BeggarRules(), log=50)
    monkeypatch.setattr(batch, "INITIAL_ROWS", 1)
    small = batch.play_random(3, 0, 50, 3, BeggarRules(), log=50)
    assert np.array_equal(small["events"], expected["events"])
    assert np.array_equal(small["event_games"], expected["event_games"])


def test_events_table_columns():
    record, rows = trace_rows(deal_hands(1, 0, 2), BeggarRules())
    table = events_table(np.zeros(len(rows), np.int64), rows)
    assert table.column_names == [
        "game", "seq", "turn", "seat", "event", "card", "cause", "count", "suit", "hand",
        "stock", "end",
    ]  # fmt: skip
    assert table["seq"].to_pylist() == list(range(len(rows)))
    cards = table["card"].to_pylist()
    assert set(cards) <= {"A", "K", "Q", "J", "-", None}
    assert cards.count(None) == record.tricks + 1 + sum(
        1 for event in table["event"].to_pylist() if event == "out"
    )
    assert table["stock"].null_count == len(rows)
    assert table["end"].to_pylist()[-1] == record.end


def test_run_folder_keeps_the_log_chunked_and_load_run_reads_it(tmp_path):
    from simulate.runs.engine import play_run
    from simulate.runs.request import make_request

    request = make_request("bmn", players=3, games=3_000, seed=8, threads=1, log=2_500)
    play_run(request, out=tmp_path / "run", chunk_size=1_000, collect=False)
    run = load_run(tmp_path / "run")
    assert run.meta["log"] == 2_500
    assert sorted(run.events["game"].unique()) == list(range(2_500))
    memory = simulate.simulate("bmn", players=3, games=3_000, seed=8, log=2_500)
    assert run.events.equals(memory.events)
    assert memory.games.equals(run.games)
    # each game's events end with its record's end, winner and length
    ends = run.events[run.events["event"] == "end"].set_index("game")
    games = run.games.set_index("game").loc[ends.index]
    assert (ends["end"].astype(str) == games["end"].astype(str)).all()
    assert (ends["seat"] == games["winner"]).all()
    plays = run.events[run.events["event"] == "play"].groupby("game").size()
    assert (plays == games["cards"]).all()
    assert simulate.simulate("bmn", games=100, seed=8).events is None


def test_resume_completes_the_log(tmp_path):
    from simulate.runs.engine import play_chunks, play_run, stream
    from simulate.runs.folder.writer import RunWriter
    from simulate.runs.request import make_request

    request = make_request("bmn", games=2_000, seed=4, threads=1, log=1_500)
    folder = tmp_path / "run"
    with RunWriter(folder, request.meta()) as writer:  # a crash after the first chunk
        first = next(iter(play_chunks(request, 800)))
        writer.write(first[0], first[1], {"games": first[2].games, "events": first[2].events})
    writer, _ = RunWriter.resume(folder)
    with writer:
        stream(request, writer, chunk_size=800)
    whole = tmp_path / "whole"
    play_run(request, out=whole, chunk_size=800, collect=False)
    assert load_run(folder).events.equals(load_run(whole).events)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--log", "-1"], ["--log", "-1", "whole number"]),
        (["--log", "lots"], ["--log", "lots"]),
        (["--log", "all", "--games", "200000"], ["at most 100,000"]),
    ],
)
def test_bad_log_is_one_line_and_writes_nothing(tmp_path, args, words):
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["simulate", "bmn", "--out", str(out), *args])
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1
    for word in words:
        assert word in result.output
    assert not out.exists()


def test_log_all_logs_every_game(tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        [
            "simulate",
            "bmn",
            "--games",
            "300",
            "--seed",
            "2",
            "--log",
            "all",
            "--out",
            str(out),
            "--no-report",
        ],  # fmt: skip
    )
    assert result.exit_code == 0, result.output
    run = load_run(out)
    assert run.events["game"].nunique() == 300


def test_report_log_section_of_a_beggar_run(tmp_path):
    """A logged Beggar-My-Neighbour run's report section: piles taken and turning tricks,
    checked against the records."""
    from analysis.load import open_run
    from analysis.reports.logs import log_section, pile_sizes, turning_tricks

    out = tmp_path / "run"
    result = CliRunner().invoke(
        app, ["simulate", "bmn", "--games", "200", "--seed", "6", "--log", "50",
              "--out", str(out), "--no-report"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    run = load_run(out)
    piles = pile_sizes(run.events)
    logged = run.games[run.games["game"] < 50]
    assert piles.sum() == logged["tricks"].sum()  # one pile taken per trick
    turning = turning_tricks(run.events, top=3)
    longest = logged[logged["winner"] >= 0].nlargest(3, "tricks")
    assert sorted(turning["tricks"]) == sorted(longest["tricks"])
    assert (turning["trick"] <= turning["tricks"]).all()
    blocks, figures = log_section(open_run(out))
    assert any("piles were taken" in getattr(block, "text", "") for block in blocks)


@pytest.mark.end_to_end
def test_an_aggregate_only_run_keeps_its_log(tmp_path):
    """--records none keeps the logged games' events, beside the aggregates of the chunks
    that hold them (later chunks merge into one file); they equal a full run's, the
    aggregates equal those of the full run's records, and --resume completes the log."""
    from simulate.runs.aggregate_runs import reduced
    from simulate.runs.engine import REDUCED_CHUNKS, play_chunks, play_run, stream
    from simulate.runs.folder.aggregates import aggregate_games
    from simulate.runs.folder.manifest import read_manifest
    from simulate.runs.folder.writer import RunWriter
    from simulate.runs.request import make_request

    request = make_request("crazy-eights", players=3, games=5_000, seed=9, threads=1, log=1_500)
    aggregate_only = replace(request, records="none")
    meta = aggregate_only.meta()
    full, aggregate = tmp_path / "full", tmp_path / "none"
    play_run(request, out=full, chunk_size=1_000, collect=False)
    # an aggregate-only run plays REDUCED_CHUNKS chunks' games at a time: chunks of 1,000
    play_run(aggregate_only, out=aggregate, chunk_size=1_000 // REDUCED_CHUNKS, collect=False)
    entries = read_manifest(aggregate).entries
    assert [("events" in e.parts, e.count) for e in entries] == [
        (True, 1_000),
        (True, 1_000),
        (False, 3_000),
    ]
    kept, whole = load_run(aggregate), load_run(full)
    assert kept.events.equals(whole.events)
    assert sorted(kept.events["game"].unique()) == list(range(1_500))
    records = pa.Table.from_pandas(whole.games, preserve_index=False)
    assert kept.aggregates.groups == aggregate_games(records, meta).groups

    # a crash after the first chunk; --resume completes the aggregates and the log
    crashed = tmp_path / "crashed"
    with RunWriter(crashed, meta) as writer:
        first, count, chunk = next(iter(play_chunks(request, 1_000)))
        chunk = reduced(chunk, meta)
        writer.write(first, count, {"aggregates": chunk.aggregates, "events": chunk.events})
    writer, _ = RunWriter.resume(crashed)
    with writer:
        stream(aggregate_only, writer, chunk_size=1_000)
    resumed = load_run(crashed)
    assert resumed.events.equals(whole.events)
    assert resumed.aggregates.groups == kept.aggregates.groups


@pytest.mark.end_to_end
def test_cli_aggregate_only_run_with_a_log_reports_and_replays_it(tmp_path):
    """The report of an aggregate-only run has the log section, and a replay of a logged
    game prints what the same run with its records prints."""
    texts = []
    for records in ("none", "all"):
        out = tmp_path / records
        result = CliRunner().invoke(
            app, ["simulate", "bmn", "--games", "3000", "--seed", "6", "--log", "20",
                  "--records", records, "--out", str(out)],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        assert "piles were taken" in (out / "report.md").read_text()
        replay = CliRunner().invoke(app, ["replay", str(out), "--game", "3"])
        assert replay.exit_code == 0, replay.output
        texts.append(replay.output)
    assert texts[0] == texts[1]
    assert "trick" in texts[0]


def test_rotated_match_play_logs_every_seating_of_the_logged_matches():
    """Match play with rotated seats: each logged deal's events carry its record's game,
    match, deal and rotation, and reproduce its plays and winner (the records' and the
    events' integer types differ: they are joined all the same)."""
    strategies = ["greedy", "random", "random", "random"]
    run = simulate.simulate(
        "pis-yedili", games=12, seed=1, rotate_seats=True, log=2, strategies=strategies
    )
    logged = run.games[run.games["match"] < 2].set_index("game")
    events = run.events
    assert sorted(events["game"].unique()) == sorted(logged.index)
    keys = events.groupby("game")[["match", "deal", "rotation"]].first()
    assert (keys.values == logged.loc[keys.index, ["match", "deal", "rotation"]].values).all()
    plays = events[events["event"] == "play"].groupby("game").size()
    assert (plays == logged.loc[plays.index, "plays"]).all()
    ends = events[events["event"] == "end"].set_index("game")
    assert (ends["seat"] == logged.loc[ends.index, "winner"]).all()
