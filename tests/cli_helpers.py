"""Shared helpers for the tests that run ``cardsim``: as a subprocess, or in this process
through the console script's own entry point."""

import contextlib
import io
import subprocess
import sys
import time
import traceback
from pathlib import Path
from unittest import mock

from simulate.runs.folder.manifest import read_manifest


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


def run_main(args: list[str], *, cwd: Path) -> subprocess.CompletedProcess:
    """``cardsim ARGS`` run in this process, in the folder ``cwd``, through the console
    script's entry point (:func:`simulate.app.cli.main`, which turns usage mistakes into one
    ``error:`` line): its exit status, stdout and stderr as a CompletedProcess. An exception
    that escapes ``main`` is written to stderr as Python would print it (a traceback) with
    status 1, so a test sees what a user of the real script would."""
    from simulate.app.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with (
        contextlib.chdir(cwd),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        mock.patch.object(sys, "argv", ["cardsim", *args]),
    ):
        try:
            main()
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
        except BaseException:  # noqa: BLE001 (what the real script would print)
            traceback.print_exc()
            code = 1
    return subprocess.CompletedProcess(["cardsim", *args], code, out.getvalue(), err.getvalue())


def cardsim_here(*args: object, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``cardsim ARGS`` (each argument as text) run in this process by :func:`run_main`, in
    ``cwd`` (default: the current folder): for the tests of what a command writes or says,
    where no real process, signal or exit status of the installed script is under test."""
    return run_main([str(arg) for arg in args], cwd=Path.cwd() if cwd is None else cwd)
