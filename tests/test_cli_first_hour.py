"""The command line's rough edges a newcomer meets in the first hour, run as the installed
``cardsim`` would be: counts written as people write them, --version, every default in
--help, --resume after up-arrow, compare --out without --force."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import typer
from cli_helpers import cardsim_here as cli  # test_version runs the installed script
from pandas.testing import assert_frame_equal
from typer.testing import CliRunner

import simulate
from analysis.load import load_run
from simulate.app.cli import app

runner = CliRunner()


def one_error(done: subprocess.CompletedProcess, *words: str) -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in done.stderr, done.stderr
    for word in words:
        assert word in errors[0], (word, errors[0])
    return errors[0]


@pytest.mark.end_to_end
@pytest.mark.parametrize("written", ["3e3", "3_000", "3,000", "3000"])
def test_counts_are_read_as_people_write_them(tmp_path, written):
    out = tmp_path / "run"
    done = cli(
        "simulate", "bmn", "--games", written, "--seed", "1", "--out", str(out),
        "--no-report",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert len(load_run(out).games) == 3000
    assert "2 threads" in done.stderr or "1 thread " in done.stderr


def test_a_count_that_is_not_whole_is_one_error_line(tmp_path):
    for bad in ("1.5", "lots", "1e"):
        done = cli("simulate", "bmn", "--games", bad, "--out", str(tmp_path / "x"))
        one_error(done, "--games", bad)
        assert not (tmp_path / "x").exists()


def test_version(cardsim_exe):
    done = subprocess.run([cardsim_exe, "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == f"cardsim {simulate.__version__}"


def _options():
    group = typer.main.get_command(app)
    for name, command in group.commands.items():
        for param in command.params:
            if param.param_type_name == "option" and param.name != "help":
                yield name, param


def test_every_option_says_its_default_in_help():
    missing = []
    for command, param in _options():
        shown = param.show_default and param.default is not None
        if not param.required and not shown and "default" not in (param.help or ""):
            missing.append(f"{command} {param.opts[0]}")
    assert not missing, missing


def test_threads_help_of_commands_that_write_no_records_speaks_of_no_records():
    for command, param in _options():
        if param.name == "threads" and command in ("search", "tune", "tournament"):
            assert "records" not in param.help, (command, param.help)


@pytest.mark.end_to_end
def test_resume_accepts_the_same_command_and_names_what_differs(tmp_path):
    out = tmp_path / "run"
    args = ["simulate", "crazy-eights", "--games", "2000", "--seed", "4", "--players", "3"]
    args += ["--seats", "greedy,random,random", "--rule", "stacking=any_draw"]
    first = cli(*args, "--out", str(out), "--no-report")
    assert first.returncode == 0, first.stderr
    # the run as an interrupted one: its last chunk is lost
    from simulate.runs.folder import manifest as mf

    lines = (out / mf.MANIFEST_FILE).read_text().splitlines(keepends=True)
    (out / mf.MANIFEST_FILE).write_text("".join(lines[:-1]))
    meta = (out / "run.json").read_text().replace('"complete"', '"interrupted"')
    (out / "run.json").write_text(meta)
    differ = cli(
        *args[:-2], "--rule", "stacking=same_rank", "--seed", "5",
        "--players", "3", "--out", str(out), "--resume",
    )  # fmt: skip
    line = one_error(differ, "--seed 5 (the run's: 4)", "stacking", "same_rank", "any_draw")
    assert "players" not in line and "games" not in line
    same = cli(*args, "--out", str(out), "--resume", "--no-report")
    assert same.returncode == 0, same.stderr
    whole = simulate.run(
        "crazy-eights",
        players=3,
        games=2000,
        seed=4,
        strategies=["greedy", "random", "random"],
        rules={"stacking": "any_draw"},
    )
    assert_frame_equal(load_run(out).games, whole)


@pytest.mark.end_to_end
def test_compare_out_refuses_to_overwrite_without_force(tmp_path):
    runs = []
    for seed in (1, 2):
        folder = tmp_path / f"r{seed}"
        simulate.run("bmn", games=500, seed=seed, out=folder)
        runs.append(str(folder))
    out = tmp_path / "cmp"
    compare = ["compare", *runs, "--out", str(out)]
    assert cli(*compare).returncode == 0
    before = (out / "report.md").read_bytes()
    one_error(cli(*compare), str(out), "--force")
    assert (out / "report.md").read_bytes() == before
    assert cli(*compare, "--force").returncode == 0


@pytest.mark.end_to_end
def test_writing_a_report_says_which_step_it_is_at(tmp_path):
    from analysis.reports import write_report

    simulate.run("bmn", games=2000, seed=1, out=tmp_path / "run")
    steps = []
    write_report(tmp_path / "run", status=steps.append, formats="png")
    assert [step.split()[0] for step in steps] == ["reading", "drawing"]
    assert "2,000 records" in steps[0]


def test_an_interruption_counts_what_the_run_counts():
    from simulate.runs.engine import RunInterrupted

    midway = RunInterrupted(500, 2000, "D", unit="match")
    assert "after 500 of 2,000 matches" in str(midway) and not midway.complete
    assert "finished matches are in D" in str(midway)
    ended = RunInterrupted(2000, 2000, "D", unit="game")
    assert ended.complete and "all 2,000 games are done" in str(ended)
    assert "after" not in str(ended)


@pytest.mark.slow
def test_the_package_builds_without_deprecation_warnings(tmp_path):
    """The install's build (setuptools, in pip's isolated build environment) warns of
    nothing: ``project.license`` is an SPDX string, not a table."""
    import os
    import sys

    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path), str(root)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONWARNINGS": "default"},
    )
    assert done.returncode == 0, done.stderr
    output = done.stdout + done.stderr
    assert "deprecat" not in output.lower(), output
