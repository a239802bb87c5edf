"""``cardsim verify`` on run folders edited by hand (issue 32): records whose checksums hold
are never overwritten, a manifest line that contradicts its file is damage that a repair
heals without a game twice, and a run.json that does not give the run's settings is
damage, not health.

Each case runs ``cardsim verify`` in this process (``cli_helpers.run_main``: the console
script's entry point, its exit status and streams) on a copy of one small run of three
chunks.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from cli_helpers import run_main
from pandas.testing import assert_frame_equal

from analysis.load import load_run
from simulate.runs.engine import play_run
from simulate.runs.folder import manifest as mf
from simulate.runs.request import make_request

GAMES, CHUNK = 6_000, 2_000


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    """A complete Beggar-My-Neighbour run of three chunks, and Pis Yedili's matches."""
    root = tmp_path_factory.mktemp("pristine")
    request = make_request("bmn", players=2, games=GAMES, seed=3, threads=1)
    play_run(request, out=root / "bmn", chunk_size=CHUNK, collect=False)
    request = make_request("pis-yedili", players=3, games=600, seed=5, threads=1)
    play_run(request, out=root / "matches", chunk_size=200, collect=False)
    return root


def copy(pristine: Path, tmp_path: Path, name: str = "bmn") -> Path:
    folder = tmp_path / name
    shutil.copytree(pristine / name, folder)
    return folder


def verify(folder: Path, *args: str):
    return run_main(["verify", str(folder), *args], cwd=folder.parent)


def file_hashes(folder: Path) -> dict[str, str]:
    """Every file's SHA-256 but the folder's lock (``.lock``, which holds its holder)."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name != ".lock"
    }


def edit_json(path: Path, **changes) -> None:
    path.write_text(json.dumps({**json.loads(path.read_text()), **changes}))


def edit_manifest_line(folder: Path, index: int, **changes) -> None:
    path = folder / mf.MANIFEST_FILE
    lines = path.read_text().splitlines()
    record = json.loads(lines[index])
    for key, value in changes.items():
        if key in ("first", "count"):
            record[key] = value
        else:  # a part's field, "games.rows"
            kind, field = key.split("__")
            record[kind][field] = value
    lines[index] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")


def damaged_lines(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("damaged:")]


def test_records_that_do_not_replay_under_an_edited_seed_are_never_overwritten(pristine, tmp_path):
    folder = copy(pristine, tmp_path)
    edit_json(folder / "run.json", seed=4)
    before = file_hashes(folder)
    found = verify(folder, "--replay", "60")
    assert found.returncode == 1, found.stdout + found.stderr
    lines = damaged_lines(found.stdout)
    # one line per chunk file, however many of its games differ, and what it means
    assert len(lines) == 4, found.stdout
    assert all("differs from its replay" in line for line in lines[:3])
    assert "intact" in lines[3] and "run.json" in lines[3] and "overwrites no" in lines[3]
    assert "--repair" not in found.stdout.splitlines()[-1]  # no repair is offered
    repaired = verify(folder, "--repair", "--replay", "60")
    assert repaired.returncode == 1, repaired.stdout + repaired.stderr
    assert "nothing repaired" in repaired.stdout and "healthy" not in repaired.stdout
    assert file_hashes(folder) == before


def test_intact_records_are_kept_while_another_chunk_is_damaged_under_an_edited_seed(
    pristine, tmp_path
):
    """A damaged chunk beside records that do not replay: the run's settings are in
    doubt, so nothing is played again with them."""
    folder = copy(pristine, tmp_path)
    edit_json(folder / "run.json", seed=4)
    (folder / mf.read_manifest(folder).entries[1].parts["games"].file).unlink()
    before = file_hashes(folder)
    repaired = verify(folder, "--repair", "--replay", "60")
    assert repaired.returncode == 1 and "nothing repaired" in repaired.stdout
    assert any("missing" in line for line in damaged_lines(repaired.stdout))
    assert file_hashes(folder) == before


@pytest.mark.parametrize(
    ("index", "changes", "words"),
    [
        (2, {"count": CHUNK - 500}, ["holds games 4,000-5,999", "says 4,000-5,499"]),
        (1, {"count": CHUNK + 500}, ["holds games 2,000-3,999", "overlaps"]),
        (0, {"first": 500}, ["holds games 0-1,999", "says 500-2,499"]),
        (1, {"games__rows": CHUNK - 1}, ["holds 2,000 rows", "says 1,999"]),
    ],
    ids=["count-smaller", "count-larger", "first-moved", "rows"],
)
def test_a_manifest_line_that_contradicts_its_file_is_repaired_without_a_game_twice(
    pristine, tmp_path, index, changes, words
):
    folder = copy(pristine, tmp_path)
    edit_manifest_line(folder, index, **changes)
    found = verify(folder, "--replay", "30")
    assert found.returncode == 1, found.stdout + found.stderr
    text = " ".join(damaged_lines(found.stdout))
    assert all(word in text for word in words), found.stdout
    repaired = verify(folder, "--repair", "--replay", "30")
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert "healthy" in repaired.stdout.splitlines()[-1]
    got, want = load_run(folder), load_run(pristine / "bmn")
    assert got.games["game"].is_unique and len(got.games) == GAMES
    assert_frame_equal(got.games, want.games)


def test_a_matches_line_that_contradicts_its_file_is_damage(pristine, tmp_path):
    folder = copy(pristine, tmp_path, "matches")
    entry = mf.read_manifest(folder).entries[1]
    edit_manifest_line(folder, 1, count=entry.count * 3)
    found = verify(folder, "--replay", "20")
    assert found.returncode == 1
    holds = f"holds matches {entry.first:,}-{entry.stop - 1:,}"
    assert holds in " ".join(damaged_lines(found.stdout)), found.stdout
    assert verify(folder, "--repair", "--replay", "20").returncode == 0
    got, want = load_run(folder), load_run(pristine / "matches")
    assert_frame_equal(got.games, want.games)
    assert_frame_equal(got.matches, want.matches)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("players-two", ["run.json does not give the run's settings", "players", "two"]),
        ('{"seed": ', ["cannot read", "run.json"]),
        ("[1, 2]", ["run.json holds no settings"]),
    ],
    ids=["players-two", "cut-short", "not-an-object"],
)
def test_a_run_json_without_the_runs_settings_is_damage(pristine, tmp_path, text, words):
    folder = copy(pristine, tmp_path)
    if text == "players-two":
        edit_json(folder / "run.json", players="two")
    else:
        (folder / "run.json").write_text(text)
    before = file_hashes(folder)
    for args in ([], ["--repair"]):
        found = verify(folder, *args)
        assert found.returncode == 1, found.stdout + found.stderr
        assert "healthy" not in found.stdout and "Traceback" not in found.stderr
        line = " ".join(damaged_lines(found.stdout))
        assert all(word in line for word in words), found.stdout
    assert "nothing repaired" in found.stdout
    assert file_hashes(folder) == before


def rewrite_chunk(folder: Path, index: int, change) -> None:
    """Chunk ``index``'s games file rewritten with ``change(table)``, its manifest line's
    size and checksum made to match: records that were wrong when written."""
    import pyarrow.parquet as pq

    from simulate.runs.folder.writer import parquet_bytes

    path = folder / mf.MANIFEST_FILE
    lines = path.read_text().splitlines()
    record = json.loads(lines[index])
    part = folder / record["games"]["file"]
    data = parquet_bytes(change(pq.read_table(part))).to_pybytes()
    part.write_bytes(data)
    record["games"].update(bytes=len(data), sha256=hashlib.sha256(data).hexdigest())
    lines[index] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("name", ["bmn", "matches"])
def test_replaying_every_game_finds_the_one_wrong_record(pristine, tmp_path, name):
    """``--replay`` past the run's games replays all of them, chunk by chunk in the
    kernels (issue 32: one at a time took over 10 minutes for 300,000 games), and still
    names the single record that is not what the rules give."""
    import pyarrow as pa

    folder = copy(pristine, tmp_path, name)
    whole = verify(folder, "--replay", "1e12")
    assert whole.returncode == 0, whole.stdout + whole.stderr
    units = len(load_run(folder).matches) if name == "matches" else GAMES
    assert f"({units:,} games replayed" in whole.stdout

    def change(table: pa.Table) -> pa.Table:
        winners = table["winner"].to_pylist()
        winners[37] = 1 if winners[37] == 0 else 0
        column = pa.array(winners, table.schema.field("winner").type)
        return table.set_column(table.schema.get_field_index("winner"), "winner", column)

    rewrite_chunk(folder, 1, change)
    key = "match" if name == "matches" else "game"
    import pyarrow.parquet as pq

    stored = pq.read_table(folder / mf.read_manifest(folder).entries[1].parts["games"].file)
    wrong = stored[key][37].as_py()
    found = verify(folder, "--replay", "1e12")
    assert found.returncode == 1
    lines = damaged_lines(found.stdout)
    assert f"{key} {wrong:,} differs from its replay (column winner)" in lines[0], found.stdout
    assert "more of the" not in lines[0]  # that record alone
