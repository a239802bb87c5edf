"""The kernels' dynamic work sharing: every block is taken exactly once, by any number of
workers, and the records do not depend on who took what."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit, prange

from simulate.core.compiled.work_sharing import fetch_add
from simulate.games.shedding import batch
from simulate.games.shedding.rules import preset


@njit(parallel=True)
def _take_blocks(items, block, workers, taken, taken_by):
    """Workers take blocks of ``block`` items from the counter ``taken``; ``taken_by[i]``
    counts the times item ``i`` was taken."""
    blocks = (items + block - 1) // block
    for _ in prange(workers):
        b = fetch_add(taken, 0, 1)
        while b < blocks:
            for i in range(b * block, min(items, (b + 1) * block)):
                taken_by[i] += 1
            b = fetch_add(taken, 0, 1)


@pytest.mark.parametrize("workers", [1, 2, 5])
@pytest.mark.parametrize("items, block", [(0, 4), (1, 4), (1000, 7), (4096, 256)])
def test_every_block_is_taken_once(workers, items, block):
    taken_by = np.zeros(items, np.int64)
    taken = np.zeros(1, np.int64)
    _take_blocks(items, block, workers, taken, taken_by)
    assert (taken_by == 1).all()
    # each worker draws once more than the blocks it plays, to learn there are none left
    assert taken[0] == (items + block - 1) // block + workers


def test_kernel_records_do_not_depend_on_the_workers(monkeypatch):
    """More workers than threads, or one: the same games."""
    rules = preset("pis-yedili")
    seats = ["random", "greedy", "uniform"]
    one = batch.play_random(rules, 3, seats, 5, 40, 3000)
    monkeypatch.setattr(batch, "sharing", lambda **_: (7, np.zeros(1, np.int64)))
    many = batch.play_random(rules, 3, seats, 5, 40, 3000)
    for name, column in one.items():
        assert np.array_equal(column, many[name]), name
    monkeypatch.undo()
    deals, matches = batch.play_match_batch(rules, 3, seats, 5, 10, 300)
    monkeypatch.setattr(batch, "sharing", lambda **_: (3, np.zeros(1, np.int64)))
    deals_again, matches_again = batch.play_match_batch(rules, 3, seats, 5, 10, 300)
    for first, second in ((deals, deals_again), (matches, matches_again)):
        for name, column in first.items():
            assert np.array_equal(column, second[name]), name


def test_a_kernel_in_flight_shows_how_far_it_got():
    """The progress bar reads the share of a kernel call's games taken up while it runs
    (the kernels release the GIL): values strictly between 0 and 1 show up mid-call."""
    import threading
    import time

    from simulate.core.compiled.work_sharing import share_taken
    from simulate.games.shedding import batch
    from simulate.games.shedding.rules import preset

    rules = preset("crazy-eights").with_overrides({"match_deals": None})
    batch.play_random(rules, 4, ["random"] * 4, 1, 0, 1000)  # compiled before timing
    seen = []
    worker = threading.Thread(
        target=batch.play_random, args=(rules, 4, ["random"] * 4, 2, 0, 600_000)
    )
    worker.start()
    while worker.is_alive():
        seen.append(share_taken())
        time.sleep(0.005)
    worker.join()
    assert any(0 < share < 1 for share in seen), seen[:5]
    assert seen == sorted(seen) and share_taken() == 1.0
