"""Each seat's chance of winning through a game (``--trace``): the kernels' points equal
the references' (shedding games and Beggar-My-Neighbour), rollout for rollout, on rule
sets with every kind of turn; tracing a game never changes it; threads and chunks never
change a trace."""

import numba
import numpy as np
import pytest
from differential import shedding_grid as grid
from typer.testing import CliRunner

import simulate
from analysis.load import load_run
from simulate.app.cli import app
from simulate.games.beggar import batch as beggar_batch
from simulate.games.beggar import reference_chances as beggar_chances
from simulate.games.beggar.rules import BeggarRules
from simulate.games.shedding import batch, reference_chances
from simulate.games.shedding.rules import preset

CONFIGS = (
    "pis-yedili",
    "all-lead-club-short-hands-barred",
    "flip-pis-yedili",
    "wild-answers-draw",
    "draw-up-to-3",
    "openspiel-2",
)
"""Grid configurations with openings, a flipped starter, penalties, barred seats that
forgot their call, drawn cards played or kept, draws up to N and mixed strategies."""
ROLLOUTS = 3


def _trace(rules, players, strategies, seed, first, count, forget=None, rollouts=ROLLOUTS):
    columns = batch.play_random(rules, players, strategies, seed, first, count, forget)
    starts, wins = batch.trace_random(
        rules, players, strategies, seed, first, columns["turns"], rollouts=rollouts,
        forget=forget,
    )  # fmt: skip
    return columns, starts, wins


@pytest.mark.parametrize("name", CONFIGS)
def test_kernel_traces_as_the_reference(name):
    config = next(c for c in grid.CONFIGS if c[0] == name)
    _, _, _, players, strategies, forget = config
    rules = grid.rules_of(config)
    columns, starts, wins = _trace(rules, players, strategies, 7, 40, 3, forget)
    for i in range(3):
        expected = reference_chances.trace(
            rules, players, strategies, 7, 40 + i, rollouts=ROLLOUTS, forget=forget
        )
        assert wins[starts[i] : starts[i + 1]].tolist() == expected, (name, i)


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("limit", [None, 180])
def test_beggar_kernel_traces_as_the_reference(players, limit):
    """Packets shuffled seat by seat, the lead kept, the time left (a time limit's deals
    end by it)."""
    rules = BeggarRules(penalties={"J": 2, "Q": 1, "K": 4, "A": 3}, time_limit=limit)
    columns = beggar_batch.play_random(5, 10, 4, players, rules)
    starts, wins = beggar_batch.trace_random(
        5, 10, players, rules, columns["tricks"], columns["winner"], rollouts=3
    )
    assert np.array_equal(np.diff(starts), columns["tricks"].astype(np.int64) + 1)
    for i in range(4):
        expected = beggar_chances.trace(rules, players, 5, 10 + i, rollouts=3)
        assert wins[starts[i] : starts[i + 1]].tolist() == expected, i


def test_a_match_s_deals_trace_as_the_reference_deals_them():
    """Deal k of match m: the stream (seed, m, k), seat k % n first; its rollouts number
    their streams from it."""
    rules, seats = preset("pis-yedili"), ["random", "greedy", "random"]
    deals, _ = batch.play_match_batch(rules, 3, seats, 8, 5, 1)
    keys = np.stack([deals["match"], deals["deal"]], axis=1)
    starts, wins = batch.trace_random(
        rules, 3, seats, 8, 0, deals["turns"], rollouts=ROLLOUTS, deals=keys
    )
    for i, (match, deal) in enumerate(keys.tolist()):
        expected = reference_chances.trace(
            rules, 3, seats, 8, match, rollouts=ROLLOUTS, deal_no=deal
        )
        assert wins[starts[i] : starts[i + 1]].tolist() == expected, (match, deal)


def test_a_searching_seat_plays_its_rollout_policy_in_the_rollouts():
    rules, seats = preset("crazy-eights"), ["pimc:2", "greedy", "pimc:k=2,rollout=hold-wilds"]
    _, starts, wins = _trace(rules, 3, seats, 3, 0, 2)
    for i in range(2):
        expected = reference_chances.trace(rules, 3, seats, 3, i, rollouts=ROLLOUTS)
        assert wins[starts[i] : starts[i + 1]].tolist() == expected


def test_a_trace_runs_from_the_deal_to_the_outcome():
    rules, players = preset("crazy-eights"), 4
    columns, starts, wins = _trace(rules, players, ["random"] * players, 11, 0, 200, rollouts=8)
    assert np.array_equal(np.diff(starts), columns["turns"].astype(np.int64) + 1)
    assert (wins >= 0).all() and (wins.sum(axis=1) <= 8).all()
    last = wins[starts[1:] - 1]
    for i, winner in enumerate(columns["winner"].tolist()):
        assert last[i].tolist() == [8 * (seat == winner) for seat in range(players)]
    # Before the first turn every seat has a real chance; most rollouts have a winner.
    assert (wins[starts[:-1]] > 0).mean() > 0.5
    assert wins[starts[:-1]].sum() > 0.9 * 8 * 200


def test_threads_and_chunks_never_change_a_trace():
    rules, seats = preset("pis-yedili"), ["random", "greedy", "hold-wilds", "random"]
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        _, _, serial = _trace(rules, 4, seats, 5, 100, 30)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        _, _, parallel = _trace(rules, 4, seats, 5, 100, 30)
        _, _, first = _trace(rules, 4, seats, 5, 100, 11)
        _, _, rest = _trace(rules, 4, seats, 5, 111, 19)
    finally:
        numba.set_num_threads(threads)
    np.testing.assert_array_equal(serial, parallel)
    np.testing.assert_array_equal(serial, np.concatenate([first, rest]))


def test_a_record_that_is_not_the_game_s_is_refused():
    rules = preset("crazy-eights")
    columns = batch.play_random(rules, 3, ["random"] * 3, 1, 0, 2)
    wrong = columns["turns"] + np.array([0, 1], np.int32)
    with pytest.raises(Exception, match="game 1 had"):
        batch.trace_random(rules, 3, ["random"] * 3, 1, 0, wrong, rollouts=2)


# --- the trace in a run --------------------------------------------------------------------

RUN = {"players": 3, "games": 60, "seed": 9, "rules": {"hand_size": 5}}
"""A short Crazy Eights run whose traced games cross chunks of 7."""


def _folder_run(tmp_path, name, *, trace, rollouts=4, records="all", rotate=False):
    from simulate.runs.engine import play_run
    from simulate.runs.request import make_request

    request = make_request(
        "crazy-eights", threads=1, trace=trace, rollouts=rollouts, records=records,
        rotate_seats=rotate, strategies=["random", "greedy", "hold-wilds"], **RUN,
    )  # fmt: skip
    play_run(request, out=tmp_path / name, chunk_size=7, collect=False)
    return load_run(tmp_path / name)


def test_a_run_keeps_its_trace_and_load_run_reads_it(tmp_path):
    run = _folder_run(tmp_path, "run", trace=20)
    assert run.meta["trace"] == 20 and run.meta["rollouts"] == 4
    assert list(run.trace.columns) == ["game", "turn", "seat", "wins"]
    assert [str(t) for t in run.trace.dtypes] == ["int64", "int32", "int8", "int16"]
    # The points of the first 20 games, as the batch traces them; the records untouched.
    rules = preset("crazy-eights").with_overrides({"hand_size": 5})
    seats = ["random", "greedy", "hold-wilds"]
    columns, starts, wins = _trace(rules, 3, seats, 9, 0, 20, rollouts=4)
    assert run.trace["wins"].to_numpy().tolist() == wins.ravel().tolist()
    lengths = run.trace.groupby("game").size().to_numpy()
    assert lengths.tolist() == (3 * np.diff(starts)).tolist()
    untraced = _folder_run(tmp_path, "untraced", trace=0)
    assert untraced.trace is None and "trace" not in untraced.meta
    assert run.games.equals(untraced.games)
    memory = simulate.simulate(
        "crazy-eights", threads=1, trace=20, rollouts=4, strategies=seats, **RUN
    )
    assert memory.trace.equals(run.trace)


def test_an_aggregate_only_run_keeps_the_same_trace(tmp_path):
    whole = _folder_run(tmp_path, "whole", trace=9)
    counts = _folder_run(tmp_path, "counts", trace=9, records="none")
    assert counts.trace.equals(whole.trace)


def test_rotated_seats_trace_every_seating(tmp_path):
    run = _folder_run(tmp_path, "run", trace=4, rotate=True)
    assert sorted(run.trace["rotation"].unique().tolist()) == [0, 1, 2]
    order = run.trace[["game", "rotation", "turn", "seat"]].to_records(index=False).tolist()
    assert order == sorted(order)
    first = run.trace[run.trace["rotation"] == 0].drop(columns="rotation").reset_index(drop=True)
    plain = _folder_run(tmp_path, "plain", trace=4)
    assert first.equals(plain.trace)


def test_a_beggar_run_keeps_its_trace(tmp_path):
    run = simulate.simulate(
        "bmn", games=30, seed=4, threads=1, trace=6, rollouts=4, out=tmp_path / "bmn"
    )
    assert sorted(run.trace["game"].unique()) == list(range(6))
    points = run.trace.groupby("game").size().to_numpy() // 2
    assert points.tolist() == (run.games["tricks"].to_numpy()[:6] + 1).tolist()
    last = run.trace.groupby(["game", "seat"])["wins"].last().unstack()
    for game, winner in enumerate(run.games["winner"].to_numpy()[:6]):
        assert last.loc[game].tolist() == [4 * (seat == winner) for seat in range(2)]


def test_match_play_traces_every_deal_of_the_first_matches(tmp_path):
    from simulate.runs.engine import play_run
    from simulate.runs.request import make_request

    request = make_request(
        "pis-yedili", players=3, games=12, seed=2, threads=1, trace=3, rollouts=2,
        rotate_seats=True,
    )  # fmt: skip
    play_run(request, out=tmp_path / "py", chunk_size=2, collect=False)
    run = load_run(tmp_path / "py")
    games = run.games.set_index("game")
    traced = games[games["match"] < 3]
    assert sorted(run.trace["game"].unique()) == sorted(traced.index)
    points = run.trace.groupby("game").size() // 3
    assert points.to_dict() == (traced["turns"] + 1).to_dict()
    first = run.trace.groupby("game")[["match", "deal", "rotation"]].first()
    assert first.equals(traced[["match", "deal", "rotation"]].astype(first.dtypes))
    memory = simulate.simulate(
        "pis-yedili", players=3, games=12, seed=2, threads=1, trace=3, rollouts=2,
        rotate_seats=True,
    )  # fmt: skip
    assert memory.trace.equals(run.trace)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["crazy-eights", "--trace", "5", "--rollouts", "0"], ["rollouts", "from 1 to 4096", "0"]),
        (["crazy-eights", "--trace", "5", "--rollouts", "5000"], ["rollouts", "5000"]),
        (["crazy-eights", "--trace", "-3"], ["trace", "whole number", "-3"]),
    ],
)
def test_bad_trace_is_one_line_and_writes_nothing(tmp_path, args, words):
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["simulate", *args, "--games", "10", "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    for word in words:
        assert word in result.output
    assert not out.exists()


def test_verify_plays_traced_games_again_and_compares_their_trace(tmp_path, monkeypatch):
    from simulate.app.commands.verify import verify_run

    out = tmp_path / "run"
    simulate.simulate("crazy-eights", players=3, games=40, seed=5, trace=40, rollouts=2, out=out)
    verdict = verify_run(out, replay=40)
    assert verdict.healthy, verdict.problems
    assert any("trace-check" in note for note in verdict.notes)
    # A trace that the code no longer gives (as after a change to the kernel) is named.
    real = batch.trace_random

    def shifted(*args, **kwargs):
        starts, wins = real(*args, **kwargs)
        return starts, wins[::-1].copy()

    monkeypatch.setattr(batch, "trace_random", shifted)
    problems = verify_run(out, replay=40).problems
    assert len(problems) >= 1 and "the trace of games 0, 1, 2 differs" in problems[0], problems
