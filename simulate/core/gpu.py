"""Which backend plays a run's games, and whether a CUDA GPU is there to play them.

Numba-free at import: ``numba.cuda`` (the ``numba-cuda`` package, ``pip install
'cardsim[cuda]'``) is imported only when a run asks for ``backend="cuda"``, through
:func:`load_cuda`, which every CUDA module of cardsim uses.
"""

from __future__ import annotations

import os

from .errors import CardsimError

BACKENDS = ("cpu", "cuda")
"""Where games are played: ``cpu`` (numba's parallel kernels) or ``cuda`` (an NVIDIA GPU)."""


def load_cuda():
    """``numba.cuda``, imported with the shim it needs on numpy without ``row_stack``.

    numba-cuda 0.30.4 registers an overload of ``np.row_stack``, which numpy 2.5 removed;
    ``np.vstack`` is what it always was. Raises ImportError without numba-cuda."""
    import numpy as np

    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
    from numba import cuda

    return cuda


def launch_grid(
    count: int, *, threads_per_block: int, blocks_per_sm: int, simulator: tuple[int, int]
) -> tuple[int, int]:
    """``(blocks, threads per block)`` of a launch of persistent threads that play ``count``
    games: ``blocks_per_sm`` blocks on each of the device's multiprocessors, no more
    than the games need; ``simulator`` under numba's CUDA simulator (each thread a Python
    thread)."""
    if simulated():
        return simulator
    sms = load_cuda().get_current_device().MULTIPROCESSOR_COUNT
    blocks = min(sms * blocks_per_sm, -(-count // threads_per_block))
    return max(1, blocks), threads_per_block


def simulated() -> bool:
    """Whether numba's CUDA simulator is asked for (``NUMBA_ENABLE_CUDASIM=1``): kernels
    then run as Python on the CPU, for tests."""
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0").strip() not in ("", "0")


def check_gpu() -> None:
    """Raise CardsimError with one line when no usable GPU is found (nor the simulator asked
    for)."""
    try:
        cuda = load_cuda()
    except ImportError:
        raise CardsimError(
            "backend cuda needs numba-cuda: pip install 'cardsim[cuda]' (and an NVIDIA driver)"
        ) from None
    if not cuda.is_available():
        raise CardsimError(
            "backend cuda: no usable CUDA GPU here (numba.cuda finds no device or driver); "
            "use backend cpu"
        )
