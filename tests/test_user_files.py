"""A user's own files are never overwritten or removed (issue 32, cases 3 and 5): ``--force``
removes only what a cardsim run wrote, a folder without a run that holds names a run would
write is refused with or without it, and a refusal leaves nothing behind, lock included.

Each case runs ``cardsim`` in this process (``cli_helpers.run_main``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from cli_helpers import run_main
from pandas.testing import assert_frame_equal

from analysis.load import load_run
from simulate.runs.folder.writer import remove_run

RUN = ["simulate", "bmn", "--games", "1000", "--seed", "5", "--threads", "1"]


def contents(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (the lock file too) and its SHA-256."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def users_folder(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def one_error_line(proc) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("files", "force"),
    [
        (
            {"games/mydata.parquet": "x", "charts/mychart.png": "y", "notes.txt": "n"},
            True,
        ),
        ({"report.html": "<p>mine</p>", "summary.csv": "a,b\n"}, False),
        ({"report.html": "<p>mine</p>", "summary.csv": "a,b\n"}, True),
        ({"games/mydata.parquet": "x"}, False),
        ({"manifest.jsonl": "mine\n"}, True),
    ],
    ids=["force-games-charts", "report-files", "force-report-files", "games-folder", "manifest"],
)
def test_a_folder_of_the_users_files_is_refused_and_left_as_it_was(tmp_path, files, force):
    folder = users_folder(tmp_path / "U", files)
    before = contents(folder)
    proc = run_main([*RUN, "--out", "U", *(["--force"] if force else [])], cwd=tmp_path)
    line = one_error_line(proc)
    assert "no cardsim run wrote" in line and "already holds a run" not in line
    assert all(name.split("/")[0] in line for name in files if name != "notes.txt")
    assert contents(folder) == before  # no file changed, none added (no .lock either)


@pytest.mark.end_to_end
def test_force_over_a_run_removes_only_what_the_run_wrote(tmp_path):
    assert run_main([*RUN, "--out", "R"], cwd=tmp_path).returncode == 0
    fresh = tmp_path / "fresh"
    assert run_main([*RUN, "--out", "fresh"], cwd=tmp_path).returncode == 0
    mine = {"charts/mine.png": "m", "games/notes.md": "n", "notes.txt": "t"}
    users_folder(tmp_path / "R", mine)
    again = run_main([*RUN, "--out", "R", "--force"], cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    for name, text in mine.items():
        assert (tmp_path / "R" / name).read_text() == text
    assert_frame_equal(load_run(tmp_path / "R").games, load_run(fresh).games)


@pytest.mark.end_to_end
def test_remove_run_leaves_empty_folders_out_and_others_in(tmp_path):
    assert run_main([*RUN, "--out", "R"], cwd=tmp_path).returncode == 0
    folder = tmp_path / "R"
    (folder / "games" / "mine.txt").write_text("m")
    remove_run(folder)
    assert sorted(path.name for path in folder.iterdir()) == [".lock", "games"]
    assert [path.name for path in (folder / "games").iterdir()] == ["mine.txt"]


def test_a_refused_command_leaves_no_folder_and_no_lock(tmp_path):
    # compare refused (runs of two games): its --out folder is not created
    for game, name in (("bmn", "B"), ("pis-yedili", "P")):
        run = ["simulate", game, "--games", "200", "--threads", "1", "--no-report"]
        assert run_main([*run, "--out", name], cwd=tmp_path).returncode == 0
    one_error_line(run_main(["compare", "B", "P", "--out", "C/deep"], cwd=tmp_path))
    assert not (tmp_path / "C").exists()
    # into an existing folder: its lock file is not left behind
    (tmp_path / "E").mkdir()
    one_error_line(run_main(["compare", "B", "P", "--out", "E"], cwd=tmp_path))
    assert list((tmp_path / "E").iterdir()) == []
    # a run refused by its folder: the folder it would have made is not made either
    users_folder(tmp_path / "U", {"report.md": "mine"})
    one_error_line(run_main([*RUN, "--out", "U"], cwd=tmp_path))
    assert sorted(path.name for path in (tmp_path / "U").iterdir()) == ["report.md"]


def test_the_space_check_counts_the_event_log(tmp_path, monkeypatch):
    """A disk with 3 MB free takes 20,000 deals' records but not their event log (about
    600 bytes a deal): refused before anything is written (issue 32: it started, then ran
    out of space)."""
    from collections import namedtuple

    from simulate.runs.folder import writer

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(writer.shutil, "disk_usage", lambda path: usage(10**9, 0, 3 * 10**6))
    args = ["simulate", "bmn", "--games", "20000", "--threads", "1", "--no-report", "--out"]
    line = one_error_line(run_main([*args, "logged", "--log", "all"], cwd=tmp_path))
    assert "needs about" in line and "3.0 MB free" in line
    assert not (tmp_path / "logged").exists()
    assert run_main([*args, "plain"], cwd=tmp_path).returncode == 0
