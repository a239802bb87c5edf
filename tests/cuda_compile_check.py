"""Compile every GPU kernel to PTX without a GPU, for tests/test_cuda.py.

numba's CUDA simulator runs a kernel as Python, so it never compiles the device code; this
script does, with numba-cuda's real compiler (NVVM) for a compute capability 9.0 device (an
H100 or H200): numba's typing, which the simulator skips, is checked for every kernel. For
the shedding games it proves that everything the kernels call (the CPU kernel's game, its
random stream, the strategies) compiles for the device with ``user=None``; for
Beggar-My-Neighbour, that its GPU twin does. numba-cuda asks
the current device for its compute capability when it compiles a called function, so a
stand-in device answers (9, 0). It needs numba-cuda and the CUDA toolkit's NVVM and NVRTC
libraries (``pip install 'numba-cuda[cu13]'``, or a system toolkit), not a GPU.

``python tests/cuda_compile_check.py`` prints JSON: ``{"toolkit": false, "why": ...}`` when
the libraries are missing, else each kernel's PTX size and local memory per thread.
"""

from __future__ import annotations

import json
import re
import sys
import types as pytypes

from numba import types

from simulate.core.gpu import load_cuda

CC = (9, 0)


def _toolkit(cuda) -> str | None:
    """Why PTX cannot be compiled here (None: it can)."""

    def empty(out):
        out[0] = 1

    try:
        cuda.compile_ptx(empty, (types.int64[::1],), cc=CC)
    except Exception as exc:  # the toolkit's libraries missing, in whatever words
        return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    return None


def main() -> dict:
    cuda = load_cuda()
    why = _toolkit(cuda)
    if why is not None:
        return {"toolkit": False, "why": why}
    import numba.cuda.dispatcher as dispatcher

    dispatcher.get_current_device = lambda: pytypes.SimpleNamespace(compute_capability=CC)
    return {"toolkit": True, **_compiled(cuda, _shedding()), **_compiled(cuda, _beggar())}


def _shedding() -> dict:
    """The shedding games' kernels and their argument types."""
    from simulate.games.shedding import cuda_kernel

    assert cuda_kernel.USER is None
    i64, column = types.int64, types.int64[::1]
    outputs = (
        types.int8[:, ::1],
        types.int32[:, ::1],
        types.int16[::1, :],
        types.int32[::1, :],
        types.int32[::1, :],
    )
    return {
        cuda_kernel.play_random_games: (column, i64, i64, i64, i64, i64, *outputs, column),
        cuda_kernel.play_matches: (
            column,
            *(i64,) * 8,
            column,
            i64,
            *outputs,
            types.int64[:, ::1],
            column,
            column,
        ),
    }


def _beggar() -> dict:
    """Beggar-My-Neighbour's GPU kernels and their argument types."""
    from simulate.games.beggar import cuda_kernel

    i32, i8 = types.int32[::1], types.int8[::1]
    columns = (i32, i32, i8, i8, i32, i32, types.int8[:, ::1], i32, i32, types.int64[::1])
    i64 = types.int64
    return {
        cuda_kernel.play_random_deals: (i64, i64, i64, i64, i64[::1], *columns),
        cuda_kernel.play_given_deals: (
            i64,
            i64[::1],
            types.int8[:, :, ::1],
            types.int64[:, ::1],
            *columns,
        ),
    }


def _compiled(cuda, kernels: dict) -> dict:
    """Each kernel's PTX size, entry point and local memory per thread (bytes)."""
    found = {}
    for kernel, signature in kernels.items():
        ptx, _ = cuda.compile_ptx(kernel.py_func, signature, cc=CC)
        depot = re.search(r"\.local \.align \d+ \.b8 \t?__local_depot\d*\[(\d+)\]", ptx)
        found[kernel.py_func.__name__] = {
            "ptx_bytes": len(ptx),
            "entry": f".entry {ptx.split('.entry ')[1].split('(')[0]}" if ".entry " in ptx else "",
            "local_bytes": int(depot.group(1)) if depot else 0,
        }
    return found


if __name__ == "__main__":
    print(json.dumps(main()))
    sys.exit(0)
