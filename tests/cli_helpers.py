"""Shared helpers for the tests that run the installed ``cardsim`` as a subprocess."""

import subprocess
import time
from pathlib import Path

from simulate.folder.manifest import read_manifest


def signal_after_first_chunk(proc: subprocess.Popen, folder: Path, signum: int) -> str:
    """Wait (at most 60 s) until the run folder ``folder``'s manifest lists a chunk, i.e. the
    run has finished one, then send ``signum`` and return the process's stderr once it
    exits. The process is killed if anything goes wrong on the way."""
    try:
        deadline = time.monotonic() + 60
        while not read_manifest(folder).entries:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no chunk finished within 60 s"
            time.sleep(0.05)
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return err
