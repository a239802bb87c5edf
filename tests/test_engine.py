"""The run API: determinism across threads and chunks, run folders, record consistency,
input validation, overwrite protection and interruption."""

from __future__ import annotations

import json
import os
import signal
from dataclasses import replace
from datetime import datetime

import numba
import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from run_helpers import RUN_FOLDER, assert_intact, assert_same_bytes, chunk_files, completed

import simulate
from analysis.load import load_run
from simulate.core.errors import CardsimError
from simulate.core.rng import MAX_SEED
from simulate.runs import engine
from simulate.runs.folder.manifest import read_manifest
from simulate.runs.folder.writer import RunWriter
from simulate.runs.request import make_request, request_from_meta

GAME = "beggar-my-neighbour"
END_VALUES = {"out", "cycle", "time_limit"}
BASE_COLUMNS = [
    "game",
    "cards",
    "tricks",
    "winner",
    "end",
    "cycle_cards",
    "cycle_tricks",
    "lead_changes",
    "winner_behind",
]


def assert_frame_equal(left: pd.DataFrame, right: pd.DataFrame, **options) -> None:
    """Records compared exactly, as equal records are (categoricals by their codes and
    categories, not value by value)."""
    pd.testing.assert_frame_equal(left, right, check_exact=True, **options)


def held_columns(players: int) -> list[str]:
    return [f"cards_held_{seat}" for seat in range(players)]


def held(frame: pd.DataFrame, players: int) -> np.ndarray:
    return frame[held_columns(players)].to_numpy(dtype=np.int64)


# --- determinism -----------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 4])
def test_parallel_equals_serial(players):
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("numba has fewer than 2 threads on this machine")
    serial = simulate.run(GAME, players=players, games=20_000, seed=123, threads=1)
    parallel = simulate.run(GAME, players=players, games=20_000, seed=123, threads=2)
    assert len(serial) == 20_000
    assert_frame_equal(serial, parallel)
    # and the default (all threads) too
    assert_frame_equal(serial, simulate.run(GAME, players=players, games=20_000, seed=123))


def test_chunk_size_does_not_change_records():
    kwargs = dict(players=2, games=20_000, seed=77, threads=None)
    default = simulate.run(GAME, **kwargs)
    for chunk_size in (1000, 7_777):
        chunked = simulate.run(GAME, **kwargs, chunk_size=chunk_size)
        assert_frame_equal(default, chunked, obj=f"chunk_size={chunk_size}")
    assert default["game"].tolist() == list(range(20_000))


def test_shorter_run_is_a_prefix_of_a_longer_one():
    longer = simulate.run(GAME, players=3, games=20_000, seed=9, chunk_size=7_777)
    k = 5_000
    shorter = simulate.run(GAME, players=3, games=k + 1, seed=9, chunk_size=1000)
    assert len(shorter) == k + 1
    assert_frame_equal(shorter, longer.iloc[: k + 1])


def test_alias_and_full_name_agree():
    assert_frame_equal(
        simulate.run("bmn", games=2_000, seed=4), simulate.run(GAME, games=2_000, seed=4)
    )


def test_missing_seed_is_drawn_recorded_and_reproducible():
    first = simulate.run(GAME, games=2_000)
    seed = first.attrs["seed"]
    assert isinstance(seed, int) and 0 <= seed <= MAX_SEED
    assert_frame_equal(first, simulate.run(GAME, games=2_000, seed=seed))


def test_same_seed_same_parquet_bytes_and_other_seed_differs(tmp_path):
    a = simulate.run(GAME, games=5_000, seed=21, out=tmp_path / "a", chunk_size=2_000)
    b = simulate.run(GAME, games=5_000, seed=21, out=tmp_path / "b", chunk_size=2_000)
    assert_frame_equal(a, b)
    # the same chunk files with the same bytes, and the same manifest (sizes, sha256s)
    assert_same_bytes(tmp_path / "a", tmp_path / "b")
    assert list(chunk_files(tmp_path / "a")) == [
        "games/000000000000.parquet",
        "games/000000002000.parquet",
        "games/000000004000.parquet",
    ]
    # the files hold what the API returned
    assert_frame_equal(load_run(tmp_path / "a").games, a)
    assert_frame_equal(load_run(tmp_path / "a").games, load_run(tmp_path / "b").games)

    other = simulate.run(GAME, games=5_000, seed=22)
    assert not a["cards"].equals(other["cards"])
    assert (a["cards"] != other["cards"]).mean() > 0.5


# --- run folder -----------------------------------------------------------------------


def test_run_json_describes_the_run(tmp_path):
    out = tmp_path / "run"
    frame = simulate.run(
        "bmn",
        players=3,
        games=2_500,
        seed=314,
        out=out,
        rules={"time_limit": 400, "penalties.A": 5},
        chunk_size=1_000,
    )
    assert {p.name for p in out.iterdir()} == RUN_FOLDER
    meta = json.loads((out / "run.json").read_text())
    assert meta["format"] == 2
    assert meta["game"] == GAME
    assert meta["players"] == 3
    assert meta["seed"] == 314
    assert meta["games"] == 2_500
    assert meta["completed_games"] == 2_500
    assert meta["status"] == "complete"
    assert meta["rules"] == {"penalties": {"J": 1, "Q": 2, "K": 3, "A": 5}, "time_limit": 400}
    assert set(meta["versions"]) >= {"python", "numpy", "numba", "pandas", "pyarrow", "cardsim"}
    assert meta["versions"]["numba"] == numba.__version__
    assert meta["versions"]["cardsim"] == simulate.__version__
    assert all(isinstance(v, str) and v for v in meta["versions"].values())
    assert isinstance(meta["elapsed_s"], int | float) and meta["elapsed_s"] >= 0
    created = datetime.fromisoformat(meta["created"])
    assert created.tzinfo is not None
    # the DataFrame carries the same request
    for key in ("game", "players", "seed", "games", "rules"):
        assert frame.attrs[key] == meta[key]
    manifest = assert_intact(out, 2_500)
    assert [(entry.first, entry.count) for entry in manifest.entries] == [
        (0, 1_000),
        (1_000, 1_000),
        (2_000, 500),
    ]
    for entry in manifest.entries:
        table = pq.read_table(out / entry.parts["games"].file)
        assert table.num_rows == entry.parts["games"].rows == entry.count
        assert table.column_names == BASE_COLUMNS + held_columns(3)
    assert manifest.rows("games") == 2_500


def test_default_rules_recorded(tmp_path):
    simulate.run(GAME, games=2_000, seed=1, out=tmp_path / "r")
    meta = json.loads((tmp_path / "r" / "run.json").read_text())
    assert meta["rules"] == {"penalties": {"J": 1, "Q": 2, "K": 3, "A": 4}, "time_limit": None}
    assert meta["players"] == 2


def test_existing_run_refused_without_force_and_overwritten_with_it(tmp_path):
    out = tmp_path / "run"
    simulate.run(GAME, games=2_000, seed=1, out=out)
    files_before = chunk_files(out)
    manifest_before = (out / "manifest.jsonl").read_bytes()
    json_before = (out / "run.json").read_bytes()

    with pytest.raises(CardsimError, match="already holds a run"):
        simulate.run(GAME, games=3_000, seed=2, out=out)
    assert chunk_files(out) == files_before
    assert (out / "manifest.jsonl").read_bytes() == manifest_before
    assert (out / "run.json").read_bytes() == json_before

    again = simulate.run(GAME, games=3_000, seed=2, out=out, force=True)
    meta = json.loads((out / "run.json").read_text())
    assert meta["seed"] == 2 and meta["games"] == meta["completed_games"] == 3_000
    assert_frame_equal(load_run(out).games, again)
    assert_intact(out, 3_000)  # no chunk of the old run is left, no *.partial file


def test_out_that_is_a_file_is_refused(tmp_path):
    target = tmp_path / "file"
    target.write_text("x")
    with pytest.raises(CardsimError, match="file"):
        simulate.run(GAME, games=2_000, seed=1, out=target)
    assert target.read_text() == "x"


# --- record consistency ----------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_records_are_consistent(players):
    frame = simulate.run(GAME, players=players, games=20_000, seed=1000 + players)
    assert list(frame.columns) == BASE_COLUMNS + held_columns(players)
    assert frame["game"].tolist() == list(range(20_000))
    ends = frame["end"].astype(str)
    assert set(ends) <= END_VALUES
    assert (frame["cards"] >= 1).all()
    assert ((frame["tricks"] >= 1) & (frame["tricks"] <= frame["cards"])).all()

    hands = held(frame, players)
    winner = frame["winner"].to_numpy(dtype=np.int64)
    out = (ends == "out").to_numpy()
    assert out.any()
    assert ((winner[out] >= 0) & (winner[out] < players)).all()
    assert (winner >= -1).all() and (winner < players).all()
    rows = np.flatnonzero(out)
    assert (hands[rows, winner[rows]] == 52).all()
    assert (hands[out].sum(axis=1) == 52).all()
    assert ((hands[out] == 0).sum(axis=1) == players - 1).all()

    not_cycle = (ends != "cycle").to_numpy()
    assert (frame["cycle_cards"].to_numpy()[not_cycle] == 0).all()
    assert (frame["cycle_tricks"].to_numpy()[not_cycle] == 0).all()
    cycle = ~not_cycle
    assert (winner[cycle] == -1).all()
    assert (frame["cycle_cards"].to_numpy()[cycle] > 0).all()
    assert (frame["cycle_tricks"].to_numpy()[cycle] > 0).all()
    # with no time limit, no game ends on one
    assert not (ends == "time_limit").any()


def test_three_players_hold_all_cards_when_a_seat_wins():
    frame = simulate.run(GAME, players=3, games=10_000, seed=5)
    out = (frame["end"].astype(str) == "out").to_numpy()
    hands = held(frame, 3)
    assert out.sum() > 9_000
    assert (hands[out].sum(axis=1) == 52).all()
    # the deal gives seat 0 one more card, but every seat wins some games
    assert set(frame.loc[out, "winner"]) == {0, 1, 2}


def test_cycle_record_fields():
    """Random deals almost never cycle, so the cycle fields are checked on RULES.md's deal."""
    from simulate.games.beggar.batch import play_hands
    from simulate.games.beggar.deal import parse_deal
    from simulate.games.beggar.rules import END_NAMES, BeggarRules

    columns = play_hands([parse_deal("J23/4J5"), parse_deal("J/3J")], BeggarRules())
    assert END_NAMES[columns["end"][0]] == "cycle"
    assert (columns["cards"][0], columns["tricks"][0]) == (8, 3)
    assert (columns["cycle_cards"][0], columns["cycle_tricks"][0]) == (6, 2)
    assert columns["winner"][0] == -1
    assert END_NAMES[columns["end"][1]] == "out"
    assert (columns["cycle_cards"][1], columns["cycle_tricks"][1]) == (0, 0)


@pytest.mark.parametrize("players", [2, 3])
def test_time_limit_records(players):
    limit = 100
    frame = simulate.run(
        GAME, players=players, games=20_000, seed=55 + players, rules={"time_limit": limit}
    )
    assert frame.attrs["rules"]["time_limit"] == limit
    ends = frame["end"].astype(str).to_numpy()
    cards = frame["cards"].to_numpy()
    assert (cards <= limit).all()
    limited = ends == "time_limit"
    assert limited.any() and (ends == "out").any()
    assert (cards[limited] == limit).all()
    assert (frame["cycle_cards"].to_numpy()[limited] == 0).all()

    hands = held(frame, players)[limited]
    winner = frame["winner"].to_numpy(dtype=np.int64)[limited]
    most = hands.max(axis=1)
    holders = (hands == most[:, None]).sum(axis=1)
    expected = np.where(holders == 1, hands.argmax(axis=1), -1)
    np.testing.assert_array_equal(winner, expected)
    assert (hands.sum(axis=1) <= 52).all()
    if players == 2:
        assert (winner == -1).any()  # ties happen at the limit
    assert (winner >= 0).any()

    # the games that ended before the limit are exactly those of the unlimited run
    free = simulate.run(GAME, players=players, games=20_000, seed=55 + players)
    early = ends == "out"
    assert_frame_equal(frame[early], free[early])
    assert (free["cards"].to_numpy()[limited] >= limit).all()


# --- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"game": "chess"}, ["chess"]),
        ({"players": 1}, ["players", "got 1"]),
        ({"players": 5}, ["players", "got 5"]),
        ({"games": 0}, ["games", "got 0"]),
        ({"games": -3}, ["games", "got -3"]),
        ({"seed": -1}, ["seed", "got -1"]),
        ({"seed": MAX_SEED + 1}, ["seed", str(MAX_SEED + 1)]),
        ({"threads": 0}, ["threads", "got 0"]),
        ({"rules": {"bogus": 1}}, ["bogus"]),
        ({"rules": {"penalties.A": 0}}, ["penalties.A", "got 0"]),
        ({"rules": {"time_limit": -5}}, ["time_limit", "got -5"]),
    ],
    ids=lambda v: repr(v) if isinstance(v, dict) else None,
)
def test_bad_input_raises_cardsim_error(tmp_path, kwargs, words):
    args = {"game": GAME, "players": 2, "games": 100, "seed": 1, "out": tmp_path / "out"}
    args.update(kwargs)
    game = args.pop("game")
    with pytest.raises(CardsimError) as info:
        simulate.run(game, **args)
    message = str(info.value)
    assert "\n" not in message
    for word in words:
        assert word in message, message
    assert not (tmp_path / "out").exists()


# --- interruption -----------------------------------------------------------------------


def test_interrupt_keeps_finished_chunks(tmp_path):
    out = tmp_path / "run"
    request = make_request(GAME, players=2, games=10_000, seed=8)
    seen = []

    def consume(chunk):
        seen.append(chunk.games.num_rows)
        if len(seen) == 3:
            raise KeyboardInterrupt

    with (
        RunWriter(out, request.meta()) as writer,
        pytest.raises(engine.RunInterrupted) as info,
    ):
        engine.stream(request, writer, consume, chunk_size=1000)

    # stream writes each chunk before handing it to consume, so the chunk during which
    # the interrupt came is already in the folder: 3 chunks of 1000.
    written = 3 * 1000
    assert info.value.completed == written
    assert info.value.games == 10_000
    assert completed(out) == written
    assert len(assert_intact(out).entries) == 3  # and no *.partial file anywhere
    kept = load_run(out).games
    assert len(kept) == written
    assert kept["game"].tolist() == list(range(written))
    meta = json.loads((out / "run.json").read_text())
    assert meta["status"] == "interrupted"
    assert meta["completed_games"] == written
    assert meta["games"] == 10_000 and meta["seed"] == 8

    full = simulate.run(GAME, players=2, games=10_000, seed=8)
    assert_frame_equal(kept, full.iloc[:written])

    # the interrupted folder holds a run: it is protected like a finished one
    with pytest.raises(CardsimError, match="already holds a run"):
        RunWriter(out, request.meta())


@pytest.mark.xdist_group("signal")
def test_signal_during_a_write_stops_after_the_chunk(tmp_path, monkeypatch):
    # SIGINT arriving while a chunk is being written only asks the run to stop: the chunk is
    # finished and counted, and the run stops at the end of the chunk being played then.
    from simulate.runs.folder import writer as writer_module

    real_writer = writer_module.pq.ParquetWriter
    calls = []

    class SignalledWriter(real_writer):
        def write_table(self, table, *args, **kwargs):
            if len(calls) == 1:
                os.kill(os.getpid(), signal.SIGINT)
            super().write_table(table, *args, **kwargs)
            calls.append(table.num_rows)

    monkeypatch.setattr(writer_module.pq, "ParquetWriter", SignalledWriter)
    out = tmp_path / "run"
    request = make_request(GAME, players=2, games=10_000, seed=8)
    with (
        RunWriter(out, request.meta()) as writer,
        pytest.raises(engine.RunInterrupted) as info,
    ):
        engine.stream(request, writer, None, chunk_size=1000)
    rows = assert_intact(out).rows("games")  # the chunks listed, each whole; no *.partial
    assert rows in (2_000, 3_000)
    meta = json.loads((out / "run.json").read_text())
    assert info.value.completed == rows == meta["completed_games"] == completed(out)
    assert meta["status"] == "interrupted"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_signal_while_opening_the_file_leaves_no_partial(tmp_path, monkeypatch, signum):
    from simulate.runs.folder import writer as writer_module

    real_writer = writer_module.pq.ParquetWriter
    opened = []

    class SignalledWriter(real_writer):
        # every chunk opens a writer of its own: the signal comes while the first opens (a
        # signal at every chunk would be a second signal, which stops the run at once)
        def __init__(self, *args, **kwargs):
            if not opened:
                os.kill(os.getpid(), signum)
            opened.append(True)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(writer_module.pq, "ParquetWriter", SignalledWriter)
    out = tmp_path / "run"
    request = make_request(GAME, players=2, games=3_000, seed=8)
    with RunWriter(out, request.meta()) as writer, pytest.raises(engine.RunInterrupted):
        engine.stream(request, writer, None, chunk_size=1000)
    meta = json.loads((out / "run.json").read_text())
    assert meta["status"] == "interrupted"
    assert meta["completed_games"] in (1000, 2000)
    assert completed(out) == meta["completed_games"]
    assert not list(out.rglob("*.partial"))
    assert_intact(out)


def test_an_error_leaves_no_partial_file(tmp_path):
    """An error mid-run (not an interrupt) keeps the finished chunks, listed in the
    manifest, and leaves no half-written file; run.json says interrupted."""

    def consume(chunk):
        raise RuntimeError("disk full")

    out = tmp_path / "run"
    request = make_request(GAME, players=2, games=3_000, seed=8)
    with RunWriter(out, request.meta()) as writer, pytest.raises(RuntimeError):
        engine.stream(request, writer, consume, chunk_size=1000)
    assert not list(out.rglob("*.partial"))
    # the first chunk was written before consume failed on it; no other was delivered
    manifest = assert_intact(out)
    assert [(entry.first, entry.count) for entry in manifest.entries] == [(0, 1000)]
    meta = json.loads((out / "run.json").read_text())
    assert meta["status"] == "interrupted"
    assert meta["completed_games"] == completed(out) == 1000
    full = simulate.run(GAME, players=2, games=3_000, seed=8)
    assert_frame_equal(load_run(out).games, full.iloc[:1000])


def test_force_removes_the_old_report(tmp_path):
    out = tmp_path / "run"
    simulate.run(GAME, games=500, seed=1, out=out)
    (out / "report.md").write_text("old report")
    (out / "charts").mkdir()
    simulate.run(GAME, games=500, seed=2, out=out, force=True)
    assert {p.name for p in out.iterdir()} == RUN_FOLDER


def test_resume_completes_an_interrupted_run(tmp_path):
    out = tmp_path / "run"
    request = make_request(GAME, players=3, games=10_000, seed=21)

    def consume(chunk):
        if chunk.games["game"][0].as_py() == 4_000:
            raise KeyboardInterrupt

    with RunWriter(out, request.meta()) as writer, pytest.raises(engine.RunInterrupted):
        engine.stream(request, writer, consume, chunk_size=1000)
    stopped = json.loads((out / "run.json").read_text())
    assert stopped["status"] == "interrupted" and completed(out) == 5_000
    writer, meta = RunWriter.resume(out)
    with writer:
        assert meta["completed_games"] == 5_000
        assert writer.todo(10_000) == [(5_000, 10_000)]
        resumed = request_from_meta(meta)
        assert resumed == make_request(
            GAME,
            players=3,
            games=10_000,
            seed=21,
            threads=resumed.threads,
            rules=request.rules,
        )
        engine.stream(resumed, writer, chunk_size=3000)
    full = simulate.run(GAME, players=3, games=10_000, seed=21)
    assert_frame_equal(load_run(out).games, full)
    assert_intact(out, 10_000)
    final = json.loads((out / "run.json").read_text())
    assert final["status"] == "complete" and final["completed_games"] == 10_000
    with pytest.raises(CardsimError, match="holds a complete run; nothing to resume"):
        RunWriter.resume(out)


# --- chunks and threads ------------------------------------------------------------------


@pytest.mark.parametrize(
    "start, stop, size",
    [
        (0, 0, 10),
        (0, 1, 10),
        (0, 10, 10),
        (3, 25, 10),
        (0, 1 << 20, 1 << 20),
        (0, 5_000_000, 1 << 20),
        (123, 3_000_001, 1 << 19),
    ],
)
def test_chunk_spans_cover_the_run_and_halve_the_tail(start, stop, size):
    spans = list(engine.chunk_spans(start, stop, size))
    firsts = [first for first, _ in spans]
    counts = [count for _, count in spans]
    assert firsts == [start + sum(counts[:k]) for k in range(len(spans))]
    assert sum(counts) == stop - start and all(0 < c <= size for c in counts)
    # full chunks first, then the last `size` or fewer games in halves, none below the
    # floor unless the whole tail is below it
    tail = [c for c in counts if c < size]
    assert counts[: len(counts) - len(tail)] == [size] * (len(counts) - len(tail))
    assert tail == sorted(tail, reverse=True)
    if tail:
        assert tail[-1] <= max(engine.TAIL_FLOOR * 2, 1)
        assert min(tail) >= min(engine.TAIL_FLOOR, sum(tail))


def test_tail_chunks_do_not_change_records(monkeypatch):
    default = simulate.run(GAME, players=2, games=9_000, seed=31)
    monkeypatch.setattr(engine, "TAIL_FLOOR", 100)
    halved = simulate.run(GAME, players=2, games=9_000, seed=31, chunk_size=4_000)
    assert_frame_equal(default, halved)
    assert [c for _, c in engine.chunk_spans(0, 9_000, 4_000)] == [4000, 4000, 500, 250, 125, 125]


@pytest.mark.parametrize("game", [GAME, "pis-yedili"])
def test_one_thread_writes_each_chunk_before_playing_the_next(tmp_path, monkeypatch, game):
    """With --threads 1 the run keeps to one core: play and write never overlap."""
    events = []
    write = RunWriter.write

    def logged_write(self, *tables):
        events.append("write")
        write(self, *tables)
        events.append("written")

    play = engine.play_chunks

    def logged_play(*args, **kwargs):
        for chunk in play(*args, **kwargs):
            events.append("played")
            yield chunk
            events.append("play")

    monkeypatch.setattr(RunWriter, "write", logged_write)
    monkeypatch.setattr(engine, "play_chunks", logged_play)
    request = make_request(game, players=3, games=3_000, seed=2, threads=1)
    with RunWriter(tmp_path / "run", request.meta()) as writer:
        engine.stream(request, writer, chunk_size=1_000)
    chunks = events.count("played")
    assert chunks > 2
    assert events == ["played", "write", "written", "play"] * chunks


def test_counting_columns_are_delta_encoded(tmp_path):
    simulate.run("pis-yedili", players=3, games=2_000, seed=3, out=tmp_path / "run")
    manifest = read_manifest(tmp_path / "run")
    for name in ("games", "matches"):
        parts = manifest.parts(name)
        assert parts and len(parts) == len(manifest.entries)
        for part in parts:
            meta = pq.ParquetFile(tmp_path / "run" / part.file).metadata
            assert meta.num_row_groups == 1
            columns = meta.row_group(0)
            for k in range(columns.num_columns):
                column = columns.column(k)
                where = (part.file, column.path_in_schema)
                counting = column.path_in_schema in ("game", "match")
                assert ("DELTA_BINARY_PACKED" in column.encodings) == counting, where
                assert column.dictionary_page_offset is not None or counting, where


def test_a_request_s_identity_is_what_decides_its_records():
    """Threads and backend never change a record and are not in the identity; every field
    that does is, and run.json gives it back whole."""
    request = make_request(
        "crazy-eights", players=3, games=500, seed=8, threads=1, strategies=["greedy"], log=20
    )
    assert request_from_meta(request.meta(), threads=2).identity() == request.identity()
    assert replace(request, threads=2, backend="cuda").identity() == request.identity()
    changed = {
        "players": make_request("crazy-eights", players=4, games=500, seed=8, log=20),
        "games": replace(request, games=501),
        "seed": replace(request, seed=9),
        "rules": replace(request, rules=request.rules.with_overrides({"hand_size": 6})),
        "strategies": make_request("crazy-eights", players=3, games=500, seed=8, log=20),
        "rotate_seats": replace(request, rotate_seats=True),
        "log": replace(request, log=21),
        "records": replace(request, records="none"),
    }
    for name, other in changed.items():
        differ = {k for k, v in other.identity().items() if v != request.identity()[k]}
        assert name in differ, name
    assert set(changed) | {"game"} == set(request.identity())


def test_staged_files_are_committed_by_renaming_and_a_missing_one_never(tmp_path):
    """A chunk a cluster's worker staged in incoming/ becomes the chunk's file by a rename,
    with the manifest line the worker computed (equal to the client writing the same
    records); a staged file that is not there raises StagedMissing and commits nothing;
    what nobody committed is gone when the run finishes, and --force removes it too."""
    from simulate.runs.folder.writer import StagedMissing, stage_table

    request = make_request("bmn", games=2_000, seed=9, threads=1)
    games = engine.play_chunk(request, 0, 2_000).games
    with RunWriter(tmp_path / "client", request.meta()) as writer:
        writer.write(0, 2_000, {"games": games})
    out = tmp_path / "workers"
    with RunWriter(out, request.meta()) as writer:
        staged = stage_table(out, "000000000000-a", "games", games, "worker tcp://w")
        assert (out / staged.file).is_file()
        writer.write(0, 2_000, {"games": staged})
        assert not (out / "incoming" / "000000000000-a").exists()  # the attempt's folder
        lost = stage_table(out, "000000002000-b", "games", games)
        (out / lost.file).unlink()
        with pytest.raises(StagedMissing, match="is not here"):
            writer.write(2_000, 2_000, {"games": lost})
        stage_table(out, "000000002000-c", "games", games)  # a late attempt, never committed
        assert len(read_manifest(out).entries) == 1
        writer.finish({"status": "interrupted"})
    assert not (out / "incoming").exists()
    assert_same_bytes(out, tmp_path / "client")
    stage_table(out, "000000002000-d", "games", games)
    with RunWriter(out, request.meta(), force=True):
        assert not (out / "incoming").exists()
