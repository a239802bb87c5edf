"""play_random runs the kernel chunk by chunk: the columns do not depend on where chunks end."""

import numpy as np
import pytest

from simulate.games.shedding import batch, records
from simulate.games.shedding.rules import preset


def test_chunked_columns_equal_one_chunk(monkeypatch):
    rules = preset("crazy-eights")
    whole = batch.play_random(rules, 3, ["random", "uniform", "first"], 4, 100, 700)
    monkeypatch.setattr(batch, "CHUNK", 256)
    chunked = batch.play_random(rules, 3, ["random", "uniform", "first"], 4, 100, 700)
    assert whole.keys() == chunked.keys()
    for name, column in whole.items():
        assert column.dtype == chunked[name].dtype, name
        assert np.array_equal(column, chunked[name]), name
    # Games are numbered from first_game in every chunk: a later part of the run is the
    # same games whatever the call it comes from.
    tail = batch.play_random(rules, 3, ["random", "uniform", "first"], 4, 600, 200)
    for name, column in tail.items():
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
def test_match_batches_do_not_change_records(monkeypatch, overrides):
    """Matches are played a batch at a time: the records do not depend on where batches end."""
    rules = preset("crazy-eights").with_overrides(overrides)
    seats = ["random", "greedy", "uniform"]
    whole = batch.play_match_batch(rules, 3, seats, 4, 20, 300)
    monkeypatch.setattr(batch, "MATCH_CHUNK", 7)
    pieces = batch.play_match_batch(rules, 3, seats, 4, 20, 300)
    for first, second in zip(whole, pieces, strict=True):
        assert first.keys() == second.keys()
        for name, column in first.items():
            assert column.dtype == second[name].dtype, name
            assert np.array_equal(column, second[name]), name
    deals, matches = whole
    assert len(deals["winner"]) == matches["deals"].sum()
