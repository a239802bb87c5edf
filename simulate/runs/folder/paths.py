"""Output paths checked before any work: a command that would find its folder unusable only
after minutes of play says so first, in one line, and writes nothing."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ...core.errors import CardsimError


def check_writable(path: str | Path, *, option: str = "--out", file: bool = False) -> None:
    """Refuse ``path`` (a folder, or with ``file`` a file to write) when it cannot be
    written: it, or the folder that would hold it, is a file; or the nearest existing folder
    on its way refuses a new file (tried with a temporary file, removed at once, so that
    read-only file systems and permissions count as they will when the command writes)."""
    path = Path(path)
    if file and path.is_dir():
        raise CardsimError(f"{option} {path} is a folder; give a file's name")
    folder = path.parent if file else path
    existing = next(parent for parent in (folder, *folder.parents) if parent.exists())
    if not existing.is_dir():
        raise CardsimError(f"{option} {path}: {existing} is a file, not a folder")
    try:
        handle, name = tempfile.mkstemp(dir=existing, prefix=".cardsim-check-")
        os.close(handle)
        os.unlink(name)
    except OSError as exc:
        raise CardsimError(
            f"{option} {path}: cannot write into {existing}: {exc.strerror}"
        ) from None
