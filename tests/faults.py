"""Run ``cardsim`` in a subprocess with a fault injected where the tests want it.

    python tests/faults.py [--chunk N] [--stop-at MOMENT:K] [--enospc-at K] [--ready FILE] \
        -- simulate bmn --games ... (the cardsim arguments)

``--chunk N`` plays N games a chunk (many small chunks: many moments to fail at).
``--stop-at MOMENT:K`` stops the process dead at the K-th chunk (from 1), at ``MOMENT``:

- ``played``: after the chunk's manifest line is durable (between chunks);
- ``mid-file``: half of the chunk's first file written under its temporary name;
- ``before-line``: the chunk's files renamed into place, its manifest line not written;
- ``mid-line``: half of the chunk's manifest line written.

There it writes FILE (``--ready``, so that the test knows it got there) and sleeps until the
test kills it with SIGKILL. ``--enospc-at K`` makes the K-th chunk's file write fail as a
full disk does (``OSError`` errno ENOSPC) after writing part of it.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
import time
from pathlib import Path

import simulate.runs.engine as engine
import simulate.runs.folder.manifest as manifest
import simulate.runs.folder.writer as writer


def set_chunk_size(games: int) -> int:
    """Make ``cardsim`` in this process play ``games`` records a chunk; the size it played
    before. (simulate reads the engine's ``stream``'s default, sweep the module's constant.)"""
    before = engine.DEFAULT_CHUNK
    engine.stream.__kwdefaults__["chunk_size"] = games
    engine.DEFAULT_CHUNK = games
    return before


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunk", type=int)
    parser.add_argument("--stop-at")
    parser.add_argument("--enospc-at", type=int)
    parser.add_argument("--ready", type=Path)
    options, rest = parser.parse_known_args()
    args = rest[1:] if rest[:1] == ["--"] else rest
    if options.chunk:
        set_chunk_size(options.chunk)
    moment, at = (options.stop_at.split(":") + ["0"])[:2] if options.stop_at else (None, "0")
    at = int(at)
    counts = {"file": 0, "line": 0}

    def hang():
        if options.ready is not None:
            options.ready.write_text(str(os.getpid()))
        while True:
            time.sleep(1)

    write_file, append_line = manifest.write_file, manifest.append_line

    def faulty_write_file(path, data, *, durable=True):
        is_part = path.parent.name in manifest.RECORD_KINDS
        if is_part and path.parent.name == "games":
            counts["file"] += 1
        chunk = counts["file"]
        if is_part and path.parent.name == "games" and options.enospc_at == chunk:
            with open(path.with_name(path.name + ".partial"), "wb") as handle:
                handle.write(bytes(data)[: len(data) // 2])
            path.with_name(path.name + ".partial").unlink()
            raise OSError(errno.ENOSPC, "No space left on device")
        if is_part and moment == "mid-file" and chunk == at:
            with open(path.with_name(path.name + ".partial"), "wb") as handle:
                handle.write(bytes(data)[: len(data) // 2])
                handle.flush()
                os.fsync(handle.fileno())
            hang()
        write_file(path, data, durable=durable)

    def faulty_append_line(folder, line, *, durable=True):
        counts["line"] += 1
        if moment == "before-line" and counts["line"] == at:
            hang()
        if moment == "mid-line" and counts["line"] == at:
            with open(folder / manifest.MANIFEST_FILE, "ab") as handle:
                handle.write(line.encode()[: len(line) // 2])
                handle.flush()
                os.fsync(handle.fileno())
            hang()
        append_line(folder, line, durable=durable)
        if moment == "played" and counts["line"] == at:
            hang()

    manifest.write_file = faulty_write_file
    manifest.append_line = faulty_append_line
    writer.mf.write_file = faulty_write_file  # the same module: RunWriter writes through it
    from simulate.app.cli import main as cardsim

    sys.argv = ["cardsim", *args]
    cardsim()


if __name__ == "__main__":
    main()
