"""Test hooks of the cluster tests.

A Dask preload (``dask_setup``): every chunk a worker plays takes at least
``CARDSIM_TEST_TASK_S`` seconds (default 0.5), so that a test can kill a worker, the
scheduler or the client while a run is in progress::

    dask worker tcp://127.0.0.1:PORT --preload tests/cluster_hooks.py
    DASK_DISTRIBUTED__WORKER__PRELOAD='["tests/cluster_hooks.py"]'   (a LocalCluster's)

And a user strategy defined at the top level of an importable module (``first_legal``),
as the workers need one.
"""

from __future__ import annotations

import os
import time

from numba import njit

from simulate.games.shedding.kernel_strategies import DRAW, PASS, USER_SIGNATURE, VIEW_MAY_DRAW


@njit(USER_SIGNATURE)
def first_legal(hand, legal, view):
    """The legal card of lowest identity; draw (or pass) without one."""
    if legal == 0:
        return DRAW if view[VIEW_MAY_DRAW] else PASS
    card = 0
    while not (legal >> card) & 1:
        card += 1
    return card


def dask_setup(worker) -> None:
    import simulate.runs.engine as engine

    pause = float(os.environ.get("CARDSIM_TEST_TASK_S", "0.5"))
    play_chunk = engine.play_chunk

    def slow_play_chunk(*args, **kwargs):
        started = time.monotonic()
        chunk = play_chunk(*args, **kwargs)
        time.sleep(max(0.0, pause - (time.monotonic() - started)))
        return chunk

    engine.play_chunk = slow_play_chunk
