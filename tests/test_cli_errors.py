"""Every mistake a user can make, through the console script's entry point: one ``error:``
line on stderr naming the bad value, exit code 2, no traceback, nothing written.

Each case runs in its own empty working folder (outputs are given as relative paths, and
a command without ``--out`` would write ``results/`` there), which must still be empty
afterwards. Every case runs in this process (``cli_helpers.run_main``: the entry point the
script calls, its exit status and streams); :data:`SCRIPT_CASES`, one of each kind of
mistake, also run through the installed ``cardsim`` script in a subprocess, two at a time.
"""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from cli_helpers import run_main

GOOD_STUDY = """\
game = "pis-yedili"
games = 100
seed = 1
[[variant]]
name = "adding"
[[variant]]
name = "doubling"
rules = { stack_growth = "double" }
"""

# (id, arguments with {in} for the folder of inputs, words the error line must contain)
CASES = [
    ("unknown game", ["simulate", "nosuchgame"], ["'nosuchgame'", "pis-yedili", "bmn"]),
    ("unknown preset", ["rules", "nosuchpreset"], ["'nosuchpreset'", "crazy-eights"]),
    ("unknown replay preset", ["replay", "uno", "--seed", "1"], ["'uno'", "openspiel"]),
    ("unknown knob", ["simulate", "pis-yedili", "--rule", "bogus=1"], ["'bogus'", "stacking"]),
    (
        "bad knob value",
        ["simulate", "pis-yedili", "--rule", "stacking=sometimes"],
        ["stacking", "'sometimes'", "same_rank"],
    ),
    ("bad penalty", ["simulate", "bmn", "--rule", "penalties.A=0"], ["penalties.A", "1 to"]),
    ("malformed --rule", ["simulate", "bmn", "--rule", "time_limit"], ["KNOB=VALUE"]),
    (
        "unknown strategy",
        ["simulate", "crazy-eights", "--strategy", "clever"],
        ["'clever'", "random, uniform, first"],
    ),
    (
        "--seats and --strategy",
        ["simulate", "crazy-eights", "--seats", "first", "--strategy", "first"],
        ["--seats", "--strategy", "not both"],
    ),
    ("players above range", ["simulate", "bmn", "--players", "5"], ["players", "2 to 4", "5"]),
    ("players below range", ["simulate", "pis-yedili", "--players", "1"], ["players", "1"]),
    (
        "too few cards",
        ["simulate", "pis-yedili", "--players", "8"],
        ["8 players x 7 cards", "decks=2"],
    ),
    ("zero games", ["simulate", "bmn", "--games", "0"], ["games", "at least 1", "0"]),
    (
        "games not a number",
        ["simulate", "bmn", "--games", "many"],
        ["--games", "whole number", "many"],
    ),
    ("missing game argument", ["simulate"], ["Missing argument", "--help"]),
    (
        "missing rule file",
        ["simulate", "bmn", "--config", "{in}/nope.toml"],
        ["nope.toml", "not found"],
    ),
    ("rule file is a folder", ["simulate", "bmn", "--config", "{in}"], ["is a folder"]),
    ("rule file not text", ["simulate", "bmn", "--config", "{in}/latin1.toml"], ["UTF-8"]),
    (
        "invalid TOML rule file",
        ["simulate", "pis-yedili", "--config", "{in}/invalid.toml"],
        ["invalid.toml line 3", "invalid TOML"],
    ),
    (
        "bad knob in rule file",
        ["simulate", "pis-yedili", "--config", "{in}/badknob.toml"],
        ["badknob.toml line 4", "effects.7", "draw"],
    ),
    ("--out is a file", ["simulate", "bmn", "--out", "{in}/latin1.toml"], ["is a file"]),
    (
        "resume a folder that is not a run",
        ["simulate", "bmn", "--out", "{in}", "--resume"],
        ["not a run folder", "run.json"],
    ),
    (
        "resume with settings",
        ["simulate", "bmn", "--out", "{in}/complete", "--resume", "--seed", "3"],
        ["--resume", "--seed"],
    ),
    ("resume without --out", ["simulate", "bmn", "--resume"], ["--resume needs --out"]),
    ("report of a folder that is not a run", ["report", "{in}"], ["run.json"]),
    ("report of a corrupt Parquet file", ["report", "{in}/corrupt"], ["games.parquet", "Parquet"]),
    ("missing study", ["sweep", "{in}/nope.toml", "--out", "s"], ["nope.toml", "not found"]),
    (
        "invalid study TOML",
        ["sweep", "{in}/invalid.toml", "--out", "s"],
        ["line 3", "invalid TOML"],
    ),
    (
        "unknown study key",
        ["sweep", "{in}/study-key.toml", "--out", "s"],
        ["study-key.toml line 4", "'colour'"],
    ),
    (
        "bad variant knob",
        ["sweep", "{in}/study-knob.toml", "--out", "s"],
        ["study-knob.toml line 8", "stack_growth", "'triple'"],
    ),
    (
        "sweep --games 0",
        ["sweep", "{in}/study.toml", "--out", "s", "--games", "0"],
        ["--games", "0"],
    ),
    (
        "sweep --resume with no study",
        ["sweep", "{in}/study.toml", "--out", "s", "--resume"],
        ["no study to resume"],
    ),
    (
        "sweep --out inside a file",
        ["sweep", "{in}/study.toml", "--out", "{in}/latin1.toml/s"],
        ["latin1.toml is a file"],
    ),
    ("compare one run", ["compare", "{in}/complete"], ["two or more"]),
    (
        "compare a folder that is not a run",
        ["compare", "{in}/complete", "{in}", "--out", "c"],
        ["not a run folder"],
    ),
    ("play an unknown game", ["play", "chess", "--deal", "J/3"], ["'chess'"]),
    (
        "replay a deal past its match's end",
        ["replay", "pis-yedili", "--seed", "1", "--players", "4", "--match", "0", "--deal", "4"],
        ["match 0 has 4 deals", "--deal 4"],
    ),
    (
        "resume keeping other records",
        ["simulate", "bmn", "--out", "{in}/complete", "--resume", "--records", "none"],
        ["--records none", "the run's: all"],
    ),
    # an output folder that cannot be written is found before any game is played
    (
        "explore --out inside a file",
        [
            "explore",
            "pis-yedili",
            "--vary",
            "hand_size=5..7",
            "--aim",
            "seat_spread",
            "--out",
            "{in}/latin1.toml/x",
        ],
        ["--out", "latin1.toml is a file"],
    ),  # fmt: skip
    (
        "tune --out inside a file",
        ["tune", "pis-yedili", "--budget", "10000", "--out", "{in}/latin1.toml/x.json"],
        ["--out", "latin1.toml is a file"],
    ),
    ("tune --out a folder", ["tune", "pis-yedili", "--out", "{in}"], ["--out", "is a folder"]),
    ("report --top 0", ["report", "{in}/complete", "--top", "0"], ["--top", "at least 1", "0"]),
    ("report --top -1", ["report", "{in}/complete", "--top", "-1"], ["--top", "-1"]),
    # An empty path (an unset shell variable) would name the current folder.
    *(
        (f"empty {name}: {args[0]}", args, [name, "empty path"])
        for args, name in [
            (["simulate", "bmn", "--games", "10", "--out", ""], "--out"),
            (["explore", "pis-yedili", "--vary", "hand_size=5:7", "--out", ""], "--out"),
            (["sweep", "{in}/study.toml", "--out", ""], "--out"),
            (["compare", "{in}/complete", "{in}/complete", "--out", ""], "--out"),
            (["tournament", "pis-yedili", "--strategies", "random,greedy", "--out", ""], "--out"),
            (["balance", "bmn", "--games", "10", "--out", ""], "--out"),
            (["tune", "pis-yedili", "--out", ""], "--out"),
            (["simulate", "bmn", "--games", "10", "--config", ""], "--config"),
            (["verify", ""], "DIR"),
            (["report", ""], "run_dir"),
            (["sweep", ""], "STUDY.toml"),
        ]
    ),
    # A URL would make a folder named after its scheme: no filesystem is installed for it.
    *(
        (f"url {name}: {args[0]}", args, [name, "is a URL", "s3://"])
        for args, name in [
            (["simulate", "bmn", "--games", "10", "--out", "s3://bucket/run"], "--out"),
            (["balance", "bmn", "--games", "10", "--out", "s3://bucket/run"], "--out"),
            (["report", "s3://bucket/run"], "run_dir"),
        ]
    ),
]


def make_inputs(folder: Path) -> None:
    """The files the cases name: rule files, studies, a complete run, a corrupt one."""
    folder.mkdir()
    (folder / "latin1.toml").write_bytes('stacking = "none" # caf\xe9\n'.encode("latin-1"))
    (folder / "invalid.toml").write_text('stacking = "none"\n\nstack_growth = double\n')
    (folder / "badknob.toml").write_text('stacking = "none"\n\n[effects]\n7 = "draw:0"\n')
    (folder / "study.toml").write_text(GOOD_STUDY)
    (folder / "study-key.toml").write_text(
        GOOD_STUDY.replace("seed = 1\n", "seed = 1\ncolour = 2\n")
    )
    (folder / "study-knob.toml").write_text(GOOD_STUDY.replace('"double"', '"triple"'))
    meta = {
        "game": "beggar-my-neighbour",
        "players": 2,
        "games": 10,
        "seed": 1,
        "rules": {"penalties": {"J": 1, "Q": 2, "K": 3, "A": 4}, "time_limit": None},
        "threads": 1,
        "status": "complete",
        "completed_games": 10,
    }
    for name in ("complete", "corrupt"):
        (folder / name).mkdir()
        (folder / name / "run.json").write_text(json.dumps(meta))
    (folder / "complete" / "games.parquet").write_bytes(b"")
    (folder / "corrupt" / "games.parquet").write_bytes(b"PAR1 not a parquet file \x00\xff" * 20)


def listing(folder: Path) -> dict[str, int | None]:
    """Every file and folder under ``folder``: a file's modification time (a folder's
    changes with its entries, which are listed themselves). The lock file of a run folder
    (``.lock`` beside ``run.json``) is not an input: any command that reads a run may take
    the folder's lock, and the file stays."""
    return {
        str(p.relative_to(folder)): None if p.is_dir() else p.stat().st_mtime_ns
        for p in folder.rglob("*")
        if not (p.name == ".lock" and (p.parent / "run.json").is_file())
    }


SCRIPT_CASES = [
    "unknown game",
    "bad knob value",
    "games not a number",
    "missing game argument",
    "rule file not text",
    "resume a folder that is not a run",
    "report of a corrupt Parquet file",
    "bad variant knob",
    "compare a folder that is not a run",
]
"""The cases also run through the real script: typer's own usage errors, the rules', the
files', the run folders', the studies' and the comparisons'."""
SCRIPTED = [case for case in CASES if case[0] in SCRIPT_CASES]


def run_cases(root: Path, cases: list, run, *, parallel: bool = False) -> dict:
    """Each case run once by ``run(args, cwd)`` (two at a time with ``parallel``): id ->
    (CompletedProcess, files left in its working folder); ``"inputs"``: the inputs' listing
    before and after."""
    inputs = root / "in"
    make_inputs(inputs)
    before = listing(inputs)

    def one(case):
        name, args, _ = case
        cwd = root / f"cwd{CASES.index(case)}"
        cwd.mkdir()
        proc = run([arg.replace("{in}", str(inputs)) for arg in args], cwd)
        return name, (proc, sorted(p.name for p in cwd.iterdir()))

    if parallel:
        with ThreadPoolExecutor(max_workers=2) as pool:
            results = dict(pool.map(one, cases))
    else:
        results = dict(one(case) for case in cases)
    results["inputs"] = (before, listing(inputs))
    return results


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    """Every case run once in this process."""
    return run_cases(
        tmp_path_factory.mktemp("errors"), CASES, lambda args, cwd: run_main(args, cwd=cwd)
    )


@pytest.fixture(scope="module")
def script_outcomes(cardsim_exe, tmp_path_factory):
    """The :data:`SCRIPT_CASES` run once each through the installed script."""

    def script(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
        return subprocess.run(
            [cardsim_exe, *args], capture_output=True, text=True, cwd=cwd, timeout=120
        )

    return run_cases(tmp_path_factory.mktemp("script-errors"), SCRIPTED, script, parallel=True)


def check_outcome(proc: subprocess.CompletedProcess, left: list, words: list[str]) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: "), lines[0]
    for word in words:
        assert word in lines[0], (word, lines[0])
    assert proc.stdout == ""
    assert left == [], left


@pytest.mark.parametrize(("name", "args", "words"), CASES, ids=[case[0] for case in CASES])
def test_user_error_is_one_line_exit_2_and_writes_nothing(outcomes, name, args, words):
    check_outcome(*outcomes[name], words)


@pytest.mark.parametrize(("name", "args", "words"), SCRIPTED, ids=[case[0] for case in SCRIPTED])
def test_script_user_error_is_one_line_exit_2_and_writes_nothing(
    script_outcomes, name, args, words
):
    check_outcome(*script_outcomes[name], words)


def test_every_script_case_is_a_case():
    assert len(SCRIPTED) == len(SCRIPT_CASES)


def test_no_error_changes_the_inputs(outcomes):
    before, after = outcomes["inputs"]
    assert after == before


def test_script_no_error_changes_the_inputs(script_outcomes):
    before, after = script_outcomes["inputs"]
    assert after == before
