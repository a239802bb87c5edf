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

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
FORMAT = 1
"""The layout of the stored files; raising it makes every stored grid stale."""
REGENERATE = "python tests/differential/make_differential.py"


class StaleGrid(Exception):
    """A stored grid that no longer matches the source or definition that would make it."""


def module_path(module: str) -> Path:
    """The source file of the project module ``module`` (dotted, e.g. ``simulate.core.rng``)."""
    base = ROOT.joinpath(*module.split("."))
    package = base / "__init__.py"
    return package if package.is_file() else base.with_suffix(".py")


def _imported(module: str, path: Path) -> set[str]:
    """The project modules (``simulate.…``) that ``path``'s source imports at any level,
    relative imports resolved against ``module``."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                stem = f"{base}.{node.module}" if node.module else base
            else:
                stem = node.module or ""
            # ``from . import strategies`` names a module; ``from .x import y`` a name in x.
            names = [
                f"{stem}.{alias.name}" if module_path(f"{stem}.{alias.name}").is_file() else stem
                for alias in node.names
            ]
        else:
            continue
        found |= {name for name in names if name.startswith("simulate")}
    return {name for name in found if module_path(name).is_file()}


def source_closure(*modules: str) -> list[Path]:
    """The files of ``modules`` and of every project module they import, transitively,
    sorted. A package's ``__init__`` counts only where a module imports the package itself:
    the imports that merely load it on the way are not the reference's."""
    seen: set[str] = set()
    todo = list(modules)
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        todo += sorted(_imported(module, module_path(module)) - seen)
    return sorted({module_path(module) for module in seen})


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
