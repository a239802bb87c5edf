"""Arrow arrays from numpy arrays and string lists, built from their buffers.

``pa.array`` imports pandas the first time it is called (to check whether its argument is
a pandas object): a fifth of a second of every run's start-up, for records that are plain
numpy columns. These helpers wrap the numpy memory instead (no copy for a contiguous
column) and never touch pandas.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa


def numeric(values: np.ndarray, valid: np.ndarray | None = None) -> pa.Array:
    """A numeric Arrow array over ``values`` (1-D; copied only when not contiguous);
    ``valid``, bool[len(values)], marks the non-null entries (default: all)."""
    values = np.ascontiguousarray(values)
    validity = None
    if valid is not None and not valid.all():
        validity = pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(
        pa.from_numpy_dtype(values.dtype), len(values), [validity, pa.py_buffer(values)]
    )


def strings(values: Sequence[str]) -> pa.Array:
    """A string array of ``values``."""
    encoded = [value.encode() for value in values]
    offsets = np.zeros(len(encoded) + 1, np.int32)
    np.cumsum([len(value) for value in encoded], out=offsets[1:])
    data = b"".join(encoded)
    return pa.Array.from_buffers(
        pa.string(), len(encoded), [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )


def dictionary(
    codes: np.ndarray, names: pa.Array, valid: np.ndarray | None = None
) -> pa.DictionaryArray:
    """A dictionary array: ``codes`` (int8) index ``names`` (from :func:`strings`)."""
    return pa.DictionaryArray.from_arrays(numeric(codes.astype(np.int8, copy=False), valid), names)


def constant(value: int, count: int, dtype) -> pa.Array:
    """``count`` copies of ``value``."""
    return numeric(np.full(count, value, dtype))
