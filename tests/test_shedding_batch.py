"""The shedding batch API: typed columns, the same games whatever call plays them."""

import numpy as np
import pytest

from simulate.games.shedding import batch, records
from simulate.games.shedding.rules import preset


def test_a_later_part_of_the_run_is_the_same_games():
    """Games are numbered from first_game: a later part of the run is the same games
    whatever the call it comes from."""
    rules = preset("crazy-eights")
    whole = batch.play_random(rules, 3, ["random", "uniform", "first"], 4, 100, 700)
    tail = batch.play_random(rules, 3, ["random", "uniform", "first"], 4, 600, 200)
    for name, column in tail.items():
        assert column.dtype == whole[name].dtype, name
        assert np.array_equal(column, whole[name][500:]), name
    assert whole["cards_left"].shape == (700, 3)
    assert whole["winner"].dtype == np.int8 and whole["turns"].dtype == np.int32


def test_columns_are_narrow_and_wrapped_without_copies():
    """Each column is contiguous in the record's type, so Arrow takes it as it is."""
    rules = preset("pis-yedili")
    columns = batch.play_random(rules, 4, ["random"] * 4, 9, 0, 500)
    assert columns["cards_left"].dtype == np.int16
    assert columns["points"].dtype == columns["score"].dtype == np.int32
    assert columns["end"].dtype == np.int8 and columns["reshuffles"].dtype == np.int32
    table = records.to_table(0, columns, ["random"] * 4)
    for seat in range(4):
        for name in ("cards_left", "points", "score"):
            source = columns[name][:, seat]
            assert source.flags.c_contiguous, name
            buffer = table.column(f"{name}_{seat}").chunk(0).buffers()[1]
            assert buffer.address == source.ctypes.data, f"{name}_{seat} was copied"
    for name in ("turns", "draws", "winner", "first_seat"):
        buffer = table.column(name).chunk(0).buffers()[1]
        assert buffer.address == columns[name].ctypes.data, f"{name} was copied"


@pytest.mark.parametrize("overrides", [{"match_deals": 3}, {"target_score": 150}])
def test_matches_split_between_calls_are_the_same_matches(overrides):
    rules = preset("crazy-eights").with_overrides(overrides)
    seats = ["random", "greedy", "uniform"]
    deals, matches = batch.play_match_batch(rules, 3, seats, 4, 20, 300)
    first, first_matches = batch.play_match_batch(rules, 3, seats, 4, 20, 170)
    rest, rest_matches = batch.play_match_batch(rules, 3, seats, 4, 190, 130)
    for name, column in deals.items():
        assert np.array_equal(column, np.concatenate([first[name], rest[name]])), name
    for name, column in matches.items():
        joined = np.concatenate([first_matches[name], rest_matches[name]])
        assert np.array_equal(column, joined), name
    assert len(deals["winner"]) == matches["deals"].sum()
    assert (deals["deal"] < np.repeat(matches["deals"], matches["deals"])).all()
