"""One writer per folder: an advisory ``flock`` on ``DIR/.lock``.

Every command that writes into a run or study folder holds its lock while it writes. The
operating system releases a ``flock`` when its process dies, however it dies, so a stale
lock never blocks anyone: a run folder whose ``run.json`` says ``running`` while nobody
holds its lock is a run that crashed. The lock file holds the holder's pid and start time,
for the message the next writer gets.

Within one process the lock is re-entrant for the thread that holds it (``simulate`` holds
its run's lock while the report is written into it); another thread is refused as another
process would be.
"""

from __future__ import annotations

import fcntl
import os
import threading
from datetime import datetime
from pathlib import Path

from ...core.errors import CardsimError

LOCK_FILE = ".lock"

_held: dict[str, FolderLock] = {}
_held_guard = threading.Lock()


class FolderInUse(CardsimError):
    """Another process (or thread) holds the folder's lock."""


class FolderLock:
    """The lock of one folder; :func:`lock_folder` takes it."""

    def __init__(self, folder: Path, handle, owner: int, created: list[Path], new_file: bool):
        self.folder, self._handle, self._owner = folder, handle, owner
        self._depth = 1
        self._created, self._new_file = created, new_file

    @property
    def owner(self) -> int:
        """The thread (``threading.get_ident()``) that holds the lock."""
        return self._owner

    def hold_again(self) -> FolderLock:
        """One more hold by the owning thread (each is released once)."""
        self._depth += 1
        return self

    def release(self, *, failed: bool = False) -> None:
        """Release one hold; the last one unlocks the file. When the last hold ``failed``
        (a refusal, an error), what taking the lock created is removed: the lock file if
        it was new, and the folders it made if they are empty, so that a refused command
        leaves nothing behind."""
        with _held_guard:
            self._depth -= 1
            if self._depth > 0:
                return
            _held.pop(_key(self.folder), None)
        if failed and self._new_file:
            (self.folder / LOCK_FILE).unlink(missing_ok=True)
        fcntl.flock(self._handle, fcntl.LOCK_UN)
        self._handle.close()
        if failed:
            _remove_empty(self._created)

    def __enter__(self) -> FolderLock:
        return self

    def __exit__(self, exc_type, *exc) -> bool:
        self.release(failed=exc_type is not None)
        return False


def _key(folder: Path) -> str:
    return os.path.realpath(folder)


def lock_folder(folder: str | Path, *, create: bool = True) -> FolderLock:
    """Take ``folder``'s lock (creating the folder when ``create``), or raise
    :class:`FolderInUse` naming the holder: "D is in use by another run, pid N, since …"."""
    folder = Path(folder)
    created = [parent for parent in (folder, *folder.parents) if not parent.exists()]
    if create:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CardsimError(f"cannot create {folder}: {exc.strerror}") from None
    me = threading.get_ident()
    with _held_guard:
        mine = _held.get(_key(folder))
        if mine is not None:
            if mine.owner != me:
                raise FolderInUse(f"{folder} is in use by another thread of this process")
            return mine.hold_again()
        new_file = not (folder / LOCK_FILE).exists()
        try:
            handle = open(folder / LOCK_FILE, "a+", encoding="utf-8")  # noqa: SIM115
        except OSError as exc:
            _remove_empty(created if create else [])
            raise CardsimError(f"cannot write into {folder}: {exc.strerror}") from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip()
            handle.close()
            raise FolderInUse(
                f"{folder} is in use by another run, {holder or 'pid unknown'}; wait for it "
                "to finish or choose another folder"
            ) from None
        handle.seek(0)
        handle.truncate()
        since = datetime.now().astimezone().isoformat(timespec="seconds")
        handle.write(f"pid {os.getpid()}, since {since}\n")
        handle.flush()
        lock = FolderLock(folder, handle, me, created if create else [], new_file)
        _held[_key(folder)] = lock
        return lock


def _remove_empty(folders: list[Path]) -> None:
    """Remove ``folders`` (the deepest first) while they are empty: one that is not holds
    what the command wrote, and so do those above it."""
    for made in folders:
        try:
            made.rmdir()
        except OSError:
            break


def is_locked(folder: str | Path) -> bool:
    """Whether someone else holds ``folder``'s lock now: another process, or another
    thread of this one (the calling thread's own hold does not count)."""
    folder = Path(folder)
    with _held_guard:
        mine = _held.get(_key(folder))
        if mine is not None:
            return mine.owner != threading.get_ident()
    path = folder / LOCK_FILE
    if not path.exists():
        return False
    try:
        with open(path, "a+", encoding="utf-8") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(handle, fcntl.LOCK_UN)
            return False
    except OSError:
        return False
