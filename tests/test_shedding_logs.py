"""Game logs of the shedding games: the kernel's events against the reference's trace on the
differential grid, the events against the records, and ``--log`` in run folders."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest
from differential.shedding_grid import CONFIGS, SEED
from shedding_helpers import kernel_records
from typer.testing import CliRunner

import simulate
from analysis.load import load_run
from simulate.app.cli import app
from simulate.core.logs.events import (
    E_CARD,
    E_CAUSE,
    E_COUNT,
    E_EVENT,
    E_HAND,
    E_SEAT,
    E_STOCK,
    EV_NAME_SUIT,
    EVENT_NAMES,
    W,
)
from simulate.games.shedding import batch, reference
from simulate.games.shedding.records import events_table
from simulate.games.shedding.rules import preset
from simulate.games.shedding.trace import event_rows, recount

GAMES = 12
"""Logged games per configuration of the grid (the reference plays each one again)."""
RECORD_FIELDS = ("winner", "end", "turns", "plays", "draws", "passes", "wilds", "reshuffles")
RECORD_FIELDS += ("finish_rank", "cards_left", "points", "score")


@pytest.fixture
def fast_reference(monkeypatch):
    monkeypatch.setattr(reference.Game, "check_cards", lambda self: None)


def check_game(rows: np.ndarray, record: reference.SheddingRecord, rules, players: int, deck):
    """The record recounted from the events alone; cards conserved event by event: every
    row's ``hand`` is its seat's cards as the moves so far leave them, its ``stock`` the
    stock's, and hands + stock + pile always hold the whole deck."""
    table = events_table(np.zeros(len(rows), np.int64), rows)
    again = recount(event_rows(table), rules, players)
    for field in RECORD_FIELDS:
        assert again[field] == getattr(record, field), field
    held = [0] * players
    stock, pile = deck, 0
    for row in rows.tolist():
        event, seat = EVENT_NAMES[row[E_EVENT]], row[E_SEAT]
        if event in ("deal", "draw"):
            held[seat] += 1
            stock -= 1
        elif event == "start":
            stock, pile = stock - 1, pile + 1
        elif event == "play":
            held[seat] -= 1
            pile += 1
        elif event == "reshuffle":
            assert stock == 0 and row[E_COUNT] == pile - 1
            stock, pile = row[E_COUNT], 1
        if seat >= 0 and event != "end":
            assert row[E_HAND] == held[seat], row
        assert row[E_STOCK] == stock, row
        assert sum(held) + stock + pile == deck
    assert held == list(record.cards_left)


@pytest.mark.parametrize("config", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_kernel_log_equals_reference_trace(config, fast_reference):
    _, name, overrides, players, strategies, forget = config
    rules = preset(name).with_overrides(overrides)
    first = 1_000 * CONFIGS.index(config) + 7
    logged = batch.play_random(rules, players, strategies, SEED, first, 40, forget, log=GAMES)
    plain = batch.play_random(rules, players, strategies, SEED, first, 40, forget)
    for key, column in plain.items():  # logging changes no record
        np.testing.assert_array_equal(logged[key], column, err_msg=key)
    records = kernel_records(plain)
    deck = 52 * rules.decks_for(players)
    for i in range(GAMES):
        rows = []
        expected = reference.play(rules, players, strategies, SEED, first + i, forget, events=rows)
        assert expected == records[i]
        got = logged["events"][logged["event_games"] == first + i]
        assert [tuple(row) for row in got.tolist()] == rows, f"game {first + i}"
        check_game(got, expected, rules, players, deck)


def test_grid_logs_every_event():
    """The grid's logs hold every event and every draw cause (so the equality above covers
    them all)."""
    seen, causes = set(), set()
    for _, name, overrides, players, strategies, forget in CONFIGS:
        rules = preset(name).with_overrides(overrides)
        columns = batch.play_random(rules, players, strategies, SEED, 0, 30, forget, log=30)
        seen |= {EVENT_NAMES[e] for e in np.unique(columns["events"][:, E_EVENT])}
        causes |= set(np.unique(columns["events"][:, E_CAUSE]).tolist())
    assert seen == set(EVENT_NAMES) - {"take", "out"}
    assert causes == {-1, 0, 1, 2, 3, 4, 5}


def test_match_deals_log_as_the_reference_traces(fast_reference):
    rules = preset("pis-yedili").with_overrides({"match_deals": 3})
    strategies = ["random", "greedy", "uniform"]
    deals, matches = batch.play_match_batch(rules, 3, strategies, 5, 10, 6, log=2)
    assert sorted(set(deals["event_rows"].tolist())) == list(range(6))  # 2 matches x 3 deals
    for i in range(2):
        traces: list = []
        match = reference.play_match(rules, 3, strategies, 5, 10 + i, events=traces)
        for k, rows in enumerate(traces):
            got = deals["events"][deals["event_rows"] == 3 * i + k]
            assert [tuple(row) for row in got.tolist()] == rows
            check_game(got, match.deals[k], rules, 3, 52)


def test_a_game_too_long_for_its_buffer_is_played_again(monkeypatch):
    rules = preset("crazy-eights")
    expected = batch.play_random(rules, 4, ["random"] * 4, 3, 0, 20, log=20)
    monkeypatch.setattr(batch, "INITIAL_ROWS", 1)
    small = batch.play_random(rules, 4, ["random"] * 4, 3, 0, 20, log=20)
    assert np.array_equal(small["events"], expected["events"])
    assert np.array_equal(small["event_games"], expected["event_games"])


def test_events_table_names_cards_and_suits():
    rules = preset("crazy-eights")
    columns = batch.play_random(rules, 3, ["random"] * 3, 1, 0, 5, log=5)
    table = events_table(columns["event_games"], columns["events"])
    assert table["stock"].null_count == 0
    cards = [card for card in table["card"].to_pylist() if card is not None]
    assert set(cards) <= {reference.name(code) for code in range(52)}
    named = columns["events"][:, E_EVENT] == EV_NAME_SUIT
    assert table["suit"].null_count == len(table) - named.sum()
    moves = np.isin(columns["events"][:, E_EVENT], [0, 1, 2, 3, 4])  # deal .. draw
    assert (columns["events"][~moves, E_CARD] == -1).all()
    assert (columns["events"][moves, E_CARD] >= 0).all()
    assert columns["events"].shape[1] == W


def test_run_folder_log_equals_memory_and_resume_completes_it(tmp_path):
    from simulate.runs.engine import play_chunks, play_run, stream
    from simulate.runs.folder.writer import RunWriter
    from simulate.runs.request import make_request

    options = dict(players=4, games=600, seed=8, log=450)
    request = make_request("crazy-eights", threads=1, **options)
    play_run(request, out=tmp_path / "run", chunk_size=200, collect=False)
    run = load_run(tmp_path / "run")
    memory = simulate.simulate("crazy-eights", **options)
    assert run.events.equals(memory.events)
    assert sorted(run.events["game"].unique()) == list(range(450))
    ends = run.events[run.events["event"] == "end"].set_index("game")
    games = run.games.set_index("game").loc[ends.index]
    assert (ends["end"].astype(str) == games["end"].astype(str)).all()
    assert (ends["turn"] == games["turns"]).all()
    folder = tmp_path / "resumed"
    with RunWriter(folder, request.meta()) as writer:  # a crash after the first chunk
        first = next(iter(play_chunks(request, 200)))
        writer.write(first[0], first[1], {"games": first[2].games, "events": first[2].events})
    writer, _ = RunWriter.resume(folder)
    with writer:
        stream(request, writer, chunk_size=200)
    assert load_run(folder).events.equals(run.events)


def test_match_run_logs_matches_with_their_deals(tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        ["simulate", "pis-yedili", "--games", "20", "--seed", "3", "--rule", "match_deals=2",
         "--log", "4", "--out", str(out), "--no-report"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    run = load_run(out)
    events = run.events
    assert sorted(events["match"].unique()) == [0, 1, 2, 3]
    keys = events.groupby("game")[["match", "deal"]].first()
    games = run.games.set_index("game").loc[keys.index]
    assert (keys["match"] == games["match"]).all() and (keys["deal"] == games["deal"]).all()
    plays = events[events["event"] == "play"].groupby("game").size()
    assert (plays == games["plays"]).all()
    rotated = simulate.simulate(
        "crazy-eights", players=3, games=30, seed=2, rotate_seats=True, log=5
    )
    seatings = rotated.events.groupby("game")["rotation"].nunique()
    assert len(seatings) == 5 and (seatings == 3).all()
    assert Counter(rotated.events["event"])["end"] == 15


def test_report_of_a_logged_run_has_the_log_section(tmp_path):
    """The report's "Inside the game" section, checked against the events it is built from."""
    from analysis.load import open_run
    from analysis.reports import build_report
    from analysis.reports.logs import hand_sizes_by_turn, penalty_stacks, stock_timeline

    out = tmp_path / "run"
    args = ["simulate", "pis-yedili", "--players", "4", "--games", "40", "--seed", "9",
            "--log", "15", "--out", str(out), "--no-report"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    run = load_run(out)
    events = run.events
    sizes = hand_sizes_by_turn(events)
    deal = sizes[sizes["turn"] == 0]
    assert set(deal["mean"]) == {7.0}  # every seat holds its 7 dealt cards at turn 0
    assert deal["seats"].sum() == 4 * 60 == 4 * events["game"].nunique()  # 15 matches of 4
    stacks = penalty_stacks(events, run.meta["rules"])
    owed = events[events["event"] == "penalty"]
    assert len(stacks) == len(owed) and (stacks["owed"] == owed["count"].to_numpy()).all()
    assert (stacks["paid"] <= stacks["owed"]).all() and (stacks["length"] >= 1).all()
    # Pis Yedili's 7s stack by adding 3: what is owed is 3 per draw card in the stack
    assert (stacks["owed"] == 3 * stacks["length"]).all()
    paid = events[(events["event"] == "draw") & (events["cause"] == "penalty")]
    assert stacks["paid"].sum() == len(paid)
    dry, _ = stock_timeline(events)
    ends = run.games.set_index("game").loc[dry.index]
    assert (dry <= ends["turns"]).all()
    blocks, figures = build_report(open_run(out))
    headings = [getattr(block, "text", "") for block in blocks]
    assert "Inside the game (logged games)" in headings
    assert "log_hand_sizes" in figures
    plain = tmp_path / "plain"
    args = ["simulate", "pis-yedili", "--games", "50", "--out", str(plain), "--no-report"]
    assert CliRunner().invoke(app, args).exit_code == 0
    blocks, figures = build_report(open_run(plain))
    assert "log_hand_sizes" not in figures


def _events(rows: list[tuple]) -> pd.DataFrame:
    """A hand-built event table: rows of (turn, seat, event, card, cause, count) of game 0."""
    frame = pd.DataFrame(rows, columns=["turn", "seat", "event", "card", "cause", "count"])
    frame.insert(0, "game", 0)
    for column in ("event", "card", "cause"):
        frame[column] = frame[column].astype("category")
    return frame


def test_a_penalty_counts_its_draws_across_a_reshuffle():
    """The stock runs dry in the middle of a penalty: the pile is shuffled into a new stock
    and drawing goes on; every draw made for the penalty is counted, and none after it."""
    from analysis.reports.logs import penalty_stacks

    rules = {"effects": {"2": ["skip", "draw:2"]}, "start": "flip"}
    events = _events(
        [
            (0, 0, "deal", "4C", None, None),
            (0, 1, "deal", "9S", None, None),
            (1, 0, "play", "2H", None, None),
            (2, 1, "play", "2S", None, None),
            (3, 0, "penalty", None, None, 4),
            (3, 0, "draw", "5D", "penalty", None),
            (3, -1, "reshuffle", None, None, 30),
            (3, 0, "draw", "6D", "penalty", None),
            (3, -1, "reshuffle", None, None, 2),  # a second one, nothing drawn between
            (3, 0, "draw", "7D", "penalty", None),
            (3, 0, "draw", "8D", "penalty", None),
            (4, 1, "draw", "KD", "no_play", None),  # the next turn's draw is not the penalty's
            (5, 0, "penalty", None, None, 2),
            (5, 0, "draw", "QD", "penalty", None),
            (5, 0, "pass", None, None, None),  # nothing left to draw: one of two paid
        ]
    )
    stacks = penalty_stacks(events, rules)
    assert stacks[["turn", "seat", "owed", "paid", "length"]].values.tolist() == [
        [3, 0, 4, 4, 2],
        [5, 0, 2, 1, 0],
    ]


def test_penalty_draws_in_a_real_run_equal_the_events():
    """A Crazy Eights run where the stock runs dry during penalties: the penalties' paid cards
    add up to the events' penalty draws, and none is over what was owed."""
    from analysis.reports.logs import penalty_stacks

    run = simulate.simulate("crazy-eights", players=3, games=400, seed=1, log=400)
    events = run.events
    kinds = events["event"].astype(str).to_numpy()
    causes = events["cause"].astype(str).to_numpy()
    penalty_draw = (kinds == "draw") & (causes == "penalty")
    between = np.flatnonzero((kinds[1:-1] == "reshuffle") & penalty_draw[:-2] & penalty_draw[2:])
    assert between.size > 0  # the case under test happens in this run
    stacks = penalty_stacks(events, run.meta["rules"])
    assert stacks["paid"].sum() == penalty_draw.sum()
    assert (stacks["paid"] <= stacks["owed"]).all()
