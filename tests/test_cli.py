"""The ``cardsim`` command line: play, simulate, report, search and rules, in process
(typer's CliRunner) and as the installed console script."""

from __future__ import annotations

import json
import re
import signal
import subprocess

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from chart_defaults import SMALL_CHARTS
from cli_helpers import signal_after_first_chunk
from pandas.testing import assert_frame_equal
from run_helpers import RUN_FOLDER, assert_intact, chunk_files
from typer.testing import CliRunner

import simulate
from analysis.load import load_run
from simulate.app.cli import app
from simulate.runs.folder.manifest import read_manifest

runner = CliRunner()

PAULHUS = "------------KAQ----J------/-JQQK---K----JK--QA-A-JA--"
KLEBER = "---JQ---K-A----A-J-K---QK-/-J-----------AJQA----K---Q"


def invoke(*args: str):
    return runner.invoke(app, list(args))


def play_json(deal: str, *extra: str) -> dict:
    result = invoke("play", "bmn", "--deal", deal, "--json", *extra)
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1, result.stdout
    return json.loads(lines[0])


def assert_user_error(result, *words: str) -> str:
    """Exit code 2 and one ``error:`` line on stderr naming ``words``; nothing on stdout."""
    assert result.exit_code == 2, (result.exit_code, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: "), lines[0]
    assert "Traceback" not in result.output
    assert result.stdout == ""
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def cli(exe: str, *args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([exe, *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def stderr_lines(proc: subprocess.CompletedProcess) -> list[str]:
    return proc.stderr.strip().splitlines()


# --- play ------------------------------------------------------------------------------


def test_play_json_is_exactly_the_record():
    result = invoke("play", "bmn", "--deal", "J/3J", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {
        "cards": 5,
        "tricks": 2,
        "winner": 1,
        "end": "out",
        "cycle_cards": 0,
        "cycle_tricks": 0,
    }
    assert result.stdout.strip() == (
        '{"cards": 5, "tricks": 2, "winner": 1, "end": "out", "cycle_cards": 0, "cycle_tricks": 0}'
    )


@pytest.mark.parametrize(
    ("deal", "expected"),
    [
        ("J24/3JA", {"cards": 12, "tricks": 4, "end": "out", "cycle_cards": 0, "cycle_tricks": 0}),
        (
            "J23/4J5",
            {
                "cards": 8,
                "tricks": 3,
                "end": "cycle",
                "winner": -1,
                "cycle_cards": 6,
                "cycle_tricks": 2,
            },
        ),
        (PAULHUS, {"cards": 4791, "tricks": 670, "end": "out"}),
        (KLEBER, {"cards": 5790, "tricks": 805, "end": "out"}),
        # 3 seats (worked by hand): J paid by 3, seat 1 is out; J paid by 4, seat 2 is out.
        ("J/3/4", {"cards": 4, "tricks": 2, "winner": 0, "end": "out"}),
        # 4 seats (by hand): 2+3+2+2 cards in four tricks, seat 1 ends with everything.
        ("J/3J/4/5", {"cards": 9, "tricks": 4, "winner": 1, "end": "out"}),
        # 4 seats: the debt of seat 2's Q runs past the empty seat 3 to seat 0, which runs
        # out with cards still owed, so seat 2 takes the pile and wins.
        ("J2/3/4Q/5", {"cards": 8, "tricks": 2, "winner": 2, "end": "out"}),
        # a seat called on to pay with no cards is out; the last seat in takes the pile
        ("-/A", {"cards": 2, "tricks": 1, "winner": 1, "end": "out"}),
        ("J/J", {"cards": 2, "tricks": 1, "winner": 1, "end": "out"}),
        # after the trick every seat with no cards is out, and the collector is alone
        ("-/J/-", {"cards": 3, "tricks": 1, "winner": 1, "end": "out"}),
    ],
)
def test_play_known_deals(deal, expected):
    record = play_json(deal)
    assert set(record) == {"cards", "tricks", "winner", "end", "cycle_cards", "cycle_tricks"}
    for key, value in expected.items():
        assert record[key] == value, (key, record)


def test_play_notation_variants_agree():
    """Plain cards as '-' or as ranks, any case, spaces around hands: the same deal."""
    assert play_json("J24/3JA") == play_json("J--/-JA") == play_json(" j2t / 9ja ")


def test_play_text_says_who_wins():
    result = invoke("play", "bmn", "--deal", "J/3J")
    assert result.exit_code == 0
    assert result.stdout.strip() == "Seat 1 wins after 5 cards and 2 tricks."

    result = invoke("play", "beggar-my-neighbour", "--deal", PAULHUS)
    assert result.exit_code == 0
    assert "Seat 0 wins" in result.stdout and "4,791 cards" in result.stdout

    result = invoke("play", "bmn", "--deal", "J23/4J5")
    assert result.exit_code == 0
    assert "never ends" in result.stdout


def test_play_with_rules():
    limited = play_json("J24/3JA", "--rule", "time_limit=3")
    assert limited["end"] == "time_limit" and limited["cards"] == 3
    assert limited["winner"] == 0  # seat 0 holds 3 cards, seat 1 holds 2
    # a jack that costs two cards: seat 1 pays 3 then J, and seat 0 pays for that jack
    record = play_json("J/3J", "--rule", "penalties.J=2")
    assert (record["cards"], record["tricks"], record["winner"]) == (3, 1, 1)


@pytest.mark.parametrize(
    ("deal", "words"),
    [
        ("J/3X", ["'X'", "position 2", "seat 1"]),
        ("AAAAA/3", ["5 cards 'A'"]),
        ("J3", ["got 1"]),
        ("J/3/4/5/6", ["got 5"]),
        ("J//3", ["seat 1 has no cards"]),
        ("-" * 37 + "/J", ["37 non-court cards"]),
        ("22222/3", ["5 cards '2'"]),
    ],
)
def test_play_malformed_deals(deal, words):
    assert_user_error(invoke("play", "bmn", "--deal", deal), *words)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--rule", "bogus=1"], ["bogus"]),
        (["--rule", "penalties.A=zero"], ["penalties.A", "zero"]),
        (["--rule", "noequals"], ["noequals"]),
        (["--rule", "penalties.A=0"], ["penalties.A", "got 0"]),
    ],
)
def test_play_bad_rules(args, words):
    assert_user_error(invoke("play", "bmn", "--deal", "J/3", *args), *words)


def test_play_unknown_game():
    assert_user_error(invoke("play", "chess", "--deal", "J/3"), "chess")


def test_rules_command():
    result = invoke("rules", "bmn", "--rule", "penalties.A=5")
    assert result.exit_code == 0
    assert "A 5" in result.stdout and "A 4" not in result.stdout
    default = invoke("rules", "beggar")
    assert default.exit_code == 0 and "A 4" in default.stdout
    limited = invoke("rules", "bmn", "--rule", "time_limit=250")
    assert "250" in limited.stdout
    assert_user_error(invoke("rules", "bmn", "--rule", "time_limit=-5"), "time_limit", "-5")


def test_simulate_in_process_bad_options(tmp_path):
    out = tmp_path / "x"
    for args, word in [
        (["--seed", "-1"], "seed"),
        (["--threads", "0"], "threads"),
        (["--players", "5"], "players"),
        (["--games", "-3"], "games"),
    ]:
        assert_user_error(invoke("simulate", "bmn", "--out", str(out), *args), word)
    assert not out.exists()
    assert_user_error(invoke("search", "bmn", "--games", "100", "--top", "0"), "--top")


# --- the installed console script ----------------------------------------------------------


def test_script_malformed_deal(cardsim_exe):
    proc = cli(cardsim_exe, "play", "bmn", "--deal", "J/3X")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = stderr_lines(proc)
    assert len(lines) == 1 and lines[0].startswith("error:") and "'X'" in lines[0]
    assert proc.stdout == ""


def test_script_simulate_force_and_report(cardsim_exe, tmp_path):
    run_dir = tmp_path / "run"
    args = (
        "simulate",
        "bmn",
        "--games",
        "3000",
        "--seed",
        "5",
        "--out",
        str(run_dir),
        "--no-report",
    )
    first = cli(cardsim_exe, *args)
    assert first.returncode == 0, first.stderr
    assert {p.name for p in run_dir.iterdir()} == RUN_FOLDER
    games = load_run(run_dir).games
    assert len(games) == 3000
    assert_intact(run_dir, 3000)
    meta = json.loads((run_dir / "run.json").read_text())
    assert (meta["seed"], meta["games"], meta["status"]) == (5, 3000, "complete")
    parquet_bytes = chunk_files(run_dir)
    manifest_bytes = (run_dir / "manifest.jsonl").read_bytes()
    json_bytes = (run_dir / "run.json").read_bytes()

    again = cli(cardsim_exe, *args)
    assert again.returncode == 2
    assert "Traceback" not in again.stderr
    assert stderr_lines(again)[-1].startswith("error:")
    assert "--force" in stderr_lines(again)[-1]
    assert chunk_files(run_dir) == parquet_bytes
    assert (run_dir / "manifest.jsonl").read_bytes() == manifest_bytes
    assert (run_dir / "run.json").read_bytes() == json_bytes

    forced = cli(cardsim_exe, *args, "--force")
    assert forced.returncode == 0, forced.stderr
    # same seed, same bytes: the same chunk files, and the manifest's sizes and sha256s
    assert chunk_files(run_dir) == parquet_bytes
    assert (run_dir / "manifest.jsonl").read_bytes() == manifest_bytes
    assert json.loads((run_dir / "run.json").read_text())["status"] == "complete"

    report = cli(cardsim_exe, "report", str(run_dir), *SMALL_CHARTS)
    assert report.returncode == 0, report.stderr
    assert (run_dir / "report.html").stat().st_size > 0
    markdown = (run_dir / "report.md").read_text()
    assert re.search(r"\|\s*seed\s*\|\s*5\s*\|", markdown)
    assert "3,000" in markdown
    assert "<html" in (run_dir / "report.html").read_text().lower()


def test_script_simulate_zero_games_creates_nothing(cardsim_exe, tmp_path):
    proc = cli(cardsim_exe, "simulate", "bmn", "--games", "0", cwd=tmp_path)
    assert proc.returncode == 2
    lines = stderr_lines(proc)
    assert len(lines) == 1 and lines[0].startswith("error:") and "games" in lines[0]
    assert list(tmp_path.iterdir()) == []


def test_script_report_errors(cardsim_exe, tmp_path):
    not_run = tmp_path / "empty"
    not_run.mkdir()
    proc = cli(cardsim_exe, "report", str(not_run))
    assert proc.returncode == 2
    lines = stderr_lines(proc)
    assert len(lines) == 1 and lines[0].startswith("error:") and "run.json" in lines[0]
    assert "Traceback" not in proc.stderr

    corrupt = tmp_path / "corrupt"
    corrupt.mkdir()
    (corrupt / "run.json").write_text(
        json.dumps(
            {
                "game": "beggar-my-neighbour",
                "players": 2,
                "seed": 1,
                "games": 10,
                "rules": {"penalties": {"J": 1, "Q": 2, "K": 3, "A": 4}, "time_limit": None},
            }
        )
    )
    (corrupt / "games.parquet").write_bytes(b"PAR1 this is not a parquet file \x00\xff" * 20)
    proc = cli(cardsim_exe, "report", str(corrupt))
    assert proc.returncode == 2
    lines = stderr_lines(proc)
    assert len(lines) == 1 and lines[0].startswith("error:") and "games.parquet" in lines[0]
    assert "Traceback" not in proc.stderr
    assert not (corrupt / "report.html").exists() and not (corrupt / "report.md").exists()


SEARCH_ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(-?\d+)\s+([-AKQJ/]+)\s*$")


def test_script_search_deals_replay(cardsim_exe):
    proc = cli(cardsim_exe, "search", "bmn", "--games", "20000", "--seed", "3", "--top", "3")
    assert proc.returncode == 0, proc.stderr
    rows = [m.groups() for line in proc.stdout.splitlines() if (m := SEARCH_ROW.match(line))]
    assert len(rows) == 3, proc.stdout
    lengths = [int(cards) for cards, *_ in rows]
    assert lengths == sorted(lengths, reverse=True)
    for cards, tricks, _game, winner, deal in rows:
        assert deal.count("/") == 1 and len(deal) == 53
        record = play_json(deal)
        assert record["cards"] == int(cards)
        assert record["tricks"] == int(tricks)
        assert record["winner"] == int(winner)


@pytest.mark.xdist_group("signal")
def test_script_ctrl_c_keeps_finished_chunks(cardsim_exe, tmp_path):
    """SIGINT during a long run: exit 130, whole chunks kept, run.json says interrupted."""
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(
        [
            cardsim_exe,
            "simulate",
            "bmn",
            "--games",
            "50000000",
            "--seed",
            "2",
            "--out",
            str(run_dir),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a shell without job control starts background children with SIGINT ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    err = signal_after_first_chunk(proc, run_dir, signal.SIGINT)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert "interrupted" in err.strip().splitlines()[-1]
    assert not list(run_dir.rglob("*.partial"))
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["status"] == "interrupted"
    manifest = assert_intact(run_dir)  # whole chunks, each listed with its checksum
    rows = manifest.rows("games")
    assert rows == manifest.completed
    assert rows > 0 and rows % (1 << 20) == 0 and rows < 50_000_000
    assert all(entry.count == 1 << 20 for entry in manifest.entries)
    assert meta["completed_games"] == rows
    assert f"interrupted after {meta['completed_games']:,} of 50,000,000" in err
    first_chunk = run_dir / manifest.entries[0].parts["games"].file
    first = pd.read_parquet(first_chunk, filters=[("game", "<", 2000)])
    assert_frame_equal(first, simulate.run("bmn", games=2000, seed=2))


def test_script_refused_folder_is_one_error_line(cardsim_exe, tmp_path):
    run_dir = tmp_path / "run"
    args = (
        "simulate",
        "bmn",
        "--games",
        "2000",
        "--seed",
        "1",
        "--out",
        str(run_dir),
        "--no-report",
    )
    assert cli(cardsim_exe, *args).returncode == 0
    again = cli(cardsim_exe, *args)
    assert again.returncode == 2
    assert len(stderr_lines(again)) == 1, again.stderr


def test_script_search_stdout_holds_only_results(cardsim_exe):
    proc = cli(cardsim_exe, "search", "bmn", "--games", "2000", "--seed", "3", "--top", "1")
    assert proc.returncode == 0
    assert proc.stdout.startswith("Beggar-My-Neighbour, 2 players: 2,000 random deals"), proc.stdout


@pytest.mark.xdist_group("signal")
def test_script_resume_after_ctrl_c_equals_an_uninterrupted_run(cardsim_exe, tmp_path):
    """Three chunks of 2**20 deals on one thread: SIGINT as soon as the first is listed
    leaves two to play (seconds), so the run stops before its end."""
    run_dir = tmp_path / "run"
    games = 3 * (1 << 20)
    proc = subprocess.Popen(
        [
            cardsim_exe,
            "simulate",
            "bmn",
            "--games",
            str(games),
            "--seed",
            "4",
            "--out",
            str(run_dir),
            "--threads",
            "1",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    err = signal_after_first_chunk(proc, run_dir, signal.SIGINT)
    assert proc.returncode == 130, err
    assert f"--out {run_dir} --resume" in err
    done = json.loads((run_dir / "run.json").read_text())["completed_games"]
    assert 0 < done < games
    assert read_manifest(run_dir).completed == done
    resumed = cli(cardsim_exe, "simulate", "bmn", "--out", str(run_dir), "--resume", "--no-report")
    assert resumed.returncode == 0, resumed.stderr
    meta = json.loads((run_dir / "run.json").read_text())
    assert (meta["status"], meta["completed_games"], meta["seed"]) == ("complete", games, 4)
    manifest = assert_intact(run_dir, games)
    table = pa.concat_tables(
        pq.read_table(run_dir / part.file, columns=["game", "cards", "winner"])
        for part in manifest.parts("games")
    )
    # compared as arrays: as Python lists, the 3.1 million games take seconds each
    assert np.array_equal(table["game"].to_numpy(), np.arange(games))
    fresh = simulate.run("bmn", games=games, seed=4)
    for column in ("cards", "winner"):
        assert np.array_equal(table[column].to_numpy(), fresh[column].to_numpy()), column
    again = cli(cardsim_exe, "simulate", "bmn", "--out", str(run_dir), "--resume")
    assert again.returncode == 2 and "holds a complete run; nothing to resume" in again.stderr


def test_help_keeps_the_extras_brackets(monkeypatch):
    """Rich reads ``[cluster]`` as markup and drops it: every command's help must show
    ``pip install 'cardsim[cluster]'`` and ``'cardsim[cuda]'`` whole."""
    import typer.main

    from simulate.app.cli import app

    monkeypatch.setenv("COLUMNS", "250")  # one option's help on one line
    shown = set()
    for command in typer.main.get_command(app).commands:
        result = CliRunner().invoke(app, [command, "--help"])
        assert result.exit_code == 0, result.output
        for tail in re.findall(r"pip install (\S+)", result.output):
            assert tail.startswith(("'cardsim[cluster]'", "'cardsim[cuda]'")), (command, tail)
            shown.add(tail[:16])
    assert shown == {"'cardsim[cluster", "'cardsim[cuda]';"}
