"""play_random runs the kernel chunk by chunk: the columns do not depend on where chunks end."""

import numpy as np

from simulate.games.shedding import batch
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
