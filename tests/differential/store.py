"""Reading and writing a stored differential grid: one Parquet file of reference records,
with the hash of the source that played them and the grid's definition in its metadata.

A stored grid is only as good as the source that made it: :func:`load_grid` fails, naming
the command that regenerates it, when the reference's source (any module of the project it
imports, found by reading its imports), the grid's definition or the file's format has
changed since it was written.
"""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from simulate.core.source_closure import source_closure

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
FORMAT = 1
"""The layout of the stored files; raising it makes every stored grid stale."""
REGENERATE = "python tests/differential/make_differential.py"


class StaleGrid(Exception):
    """A stored grid that no longer matches the source or definition that would make it."""


def source_hash(modules: tuple[str, ...], extra: tuple[Path, ...] = ()) -> str:
    """SHA-256 over the relative path and syntax tree of every file of
    :func:`source_closure` and of ``extra`` (the grid's own definition).

    The tree (``ast.dump``), not the bytes: reformatting or a changed comment leaves the
    stored grids valid, while any changed token of code (or docstring) makes them stale."""
    digest = hashlib.sha256(f"format {FORMAT}\n".encode())
    for path in [*source_closure(*modules), *extra]:
        tree = ast.dump(ast.parse(path.read_text(encoding="utf-8")))
        digest.update(f"{path.relative_to(ROOT)}\0{tree}\0".encode())
    return digest.hexdigest()


def write_grid(path: Path, table: pa.Table, *, source: str, definition: object) -> None:
    """``table`` as zstd Parquet at ``path`` (written to a temporary name, then renamed),
    ``source`` (a :func:`source_hash`) and ``definition`` (JSON) in its metadata."""
    metadata = {
        b"cardsim_reference_hash": source.encode(),
        b"cardsim_grid": json.dumps(definition, sort_keys=True).encode(),
    }
    temporary = path.with_name(path.name + ".tmp")
    pq.write_table(table.replace_schema_metadata(metadata), temporary, compression="zstd")
    temporary.replace(path)


def load_grid(path: Path, *, source: str, definition: object) -> pa.Table:
    """The stored grid at ``path``, checked against the ``source`` hash and ``definition``
    the current tree gives. Raises :class:`StaleGrid`, with the command that regenerates
    the file, when the file is missing or either has changed."""
    hint = f"regenerate it from the references with `{REGENERATE} {path.stem}`"
    if not path.is_file():
        raise StaleGrid(f"{path.relative_to(ROOT)} is missing: {hint}")
    table = pq.read_table(path)
    metadata = table.schema.metadata or {}
    if metadata.get(b"cardsim_reference_hash", b"").decode() != source:
        raise StaleGrid(
            f"{path.relative_to(ROOT)} was played by another version of the reference (its "
            f"source, or a module it imports, has changed): {hint}"
        )
    if metadata.get(b"cardsim_grid", b"").decode() != json.dumps(definition, sort_keys=True):
        raise StaleGrid(f"{path.relative_to(ROOT)} holds another grid than the tests': {hint}")
    return table


def configs_of(grid) -> dict[str, pa.Table]:
    """A configuration grid's stored rows by configuration name (``grid``: a module with
    ``PATH``, ``CONFIGS``, ``source()`` and ``definition()``), checked as :func:`load_grid`
    checks it."""
    table = load_grid(grid.PATH, source=grid.source(), definition=grid.definition())
    names = np.asarray(table.column("config").to_pylist())
    return {config[0]: table.filter(names == config[0]) for config in grid.CONFIGS}
