"""Which project modules a module's source depends on: its imports, transitively (no
numba). Used to key numba's on-disk cache (:mod:`simulate.core.compiled.cache`) and the
stored differential grids (``tests/differential/store.py``) by everything a compiled
function or a reference reads: a constant of another module is frozen into the code that
reads it."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The directory holding the ``simulate`` package."""


def module_path(module: str) -> Path:
    """The source file of the project module ``module`` (dotted, e.g. ``simulate.core.rng``)."""
    base = ROOT.joinpath(*module.split("."))
    package = base / "__init__.py"
    return package if package.is_file() else base.with_suffix(".py")


def module_name(path: Path) -> str:
    """The dotted name of the project file ``path`` (the inverse of :func:`module_path`)."""
    parts = path.resolve().relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


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
    the imports that merely load it on the way are not the module's."""
    seen: set[str] = set()
    todo = list(modules)
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        todo += sorted(_imported(module, module_path(module)) - seen)
    return sorted({module_path(module) for module in seen})


@functools.cache
def closure_digest(path: Path) -> bytes:
    """SHA-256 over the relative path and bytes of every file of the project file
    ``path``'s closure (once per process: a file changed while a process runs is not
    seen)."""
    import hashlib

    digest = hashlib.sha256()
    for file in source_closure(module_name(path)):
        digest.update(f"{file.relative_to(ROOT)}\0".encode() + file.read_bytes() + b"\0")
    return digest.digest()
