"""The compiled reduction of a chunk (simulate.runs.reduction) equals the readable one
(simulate.runs.folder.aggregates.aggregate_games), on one thread and on two, for every
game family, rotated seats and match play; ties at the longest games' cut included."""

from __future__ import annotations

import numba
import numpy as np
import pyarrow as pa
import pytest

from simulate.runs import reduction
from simulate.runs.engine import play_run
from simulate.runs.folder.aggregates import LONGEST_KEPT, aggregate_games
from simulate.runs.reduction import reduce_records
from simulate.runs.request import make_request


def _records(game, players, games, **options):
    request = make_request(game, players=players, games=games, seed=13, threads=1, **options)
    played, matches = play_run(request, chunk_size=games)
    return played, matches, request.meta()


def _assert_equal(found, expected):
    assert found.records == expected.records
    assert found.groups == expected.groups
    assert list(found.groups) == list(expected.groups)
    assert found.longest.equals(expected.longest)
    assert found.first.equals(expected.first)
    assert found.lengths == expected.lengths and found.labels == expected.labels
    assert found.schema.equals(expected.schema)
    assert (found.matches is None) == (expected.matches is None)
    if expected.matches is not None:
        assert found.matches.records == expected.matches.records
        assert found.matches.groups == expected.matches.groups
    assert found.to_table().equals(expected.to_table())


CASES = [
    ("bmn", 2, 3000, {}),
    ("bmn", 4, 2000, {}),
    ("crazy-eights", 4, 3000, {}),  # scores and decision counts: every derived column
    ("crazy-eights", 3, 2000, {"rotate_seats": True}),
    ("pis-yedili", 4, 800, {}),  # matches of 4 deals
    ("crazy-eights", 3, 500, {"rules": {"target_score": 100}}),  # matches of any length
    ("openspiel", 2, 2000, {}),
]


@pytest.mark.parametrize(("game", "players", "games", "options"), CASES)
@pytest.mark.parametrize("threads", [1, 2])
def test_compiled_reduction_equals_the_readable_one(game, players, games, options, threads):
    played, matches, meta = _records(game, players, games, **options)
    expected = aggregate_games(played, meta, matches)
    before = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        found = reduce_records(played, meta, matches)
    finally:
        numba.set_num_threads(before)
    _assert_equal(found, expected)


def test_ties_at_the_cut_keep_the_first_games():
    """Beggar-My-Neighbour with a short time limit: hundreds of games end at the limit with
    the same length, so the longest kept are cut among ties (the lower games kept)."""
    played, _, meta = _records("bmn", 2, 4000, rules={"time_limit": 60})
    timed = played.filter(pa.compute.equal(played.column("end"), "time_limit"))
    tricks = timed.column("cards").to_numpy()
    assert (tricks == tricks.max()).sum() > LONGEST_KEPT  # the cut falls among ties
    _assert_equal(reduce_records(played, meta), aggregate_games(played, meta))


def test_rows_out_of_order_and_wide_columns_fall_back(monkeypatch):
    """Rows not in game order (never from the engine) and a histogram wider than allowed
    are left to the readable reduction, with the same result."""
    played, _, meta = _records("crazy-eights", 3, 1500)
    shuffled = played.take(pa.array(np.random.default_rng(1).permutation(played.num_rows)))
    _assert_equal(reduce_records(shuffled, meta), aggregate_games(shuffled, meta))
    monkeypatch.setattr(reduction, "MAX_BINS", 8)
    _assert_equal(reduce_records(played, meta), aggregate_games(played, meta))


def test_a_match_whose_shares_are_not_even_is_refused_as_the_readable_one_refuses():
    played, matches, meta = _records("pis-yedili", 3, 200)
    shares = matches.column("share_0").to_numpy().copy()
    shares[0] = 0.25  # no count of winners gives a quarter to each of three seats
    index = matches.schema.get_field_index("share_0")
    broken = matches.set_column(index, "share_0", pa.array(shares))
    with pytest.raises(ValueError, match="1/m"):
        aggregate_games(played, meta, broken)
    with pytest.raises(ValueError, match="1/m"):
        reduce_records(played, meta, broken)


def test_an_empty_chunk_counts_nothing_and_merges_as_nothing():
    played, _, meta = _records("bmn", 2, 100)
    empty = reduce_records(played.slice(0, 0), meta)
    assert empty.records == 0 and empty.groups == {} and empty.longest.num_rows == 0
    full = reduce_records(played, meta)
    _assert_equal(empty.merge(full), full)
