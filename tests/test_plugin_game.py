"""A game from outside cardsim: the toy game in tests/plugins/cardsim_highcard, installed as a
plugin through the ``cardsim.games`` entry-point group (no pip: a site folder with its
``.dist-info`` on ``sys.path``), played, stored, read back, reported and checked like a
built-in game (docs/adding-a-game.md walks through it)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from chart_defaults import SMALL_CHARTS
from cli_helpers import cardsim_here
from plugin_helpers import PLUGINS, installed, make_site

import simulate
from simulate.games import registry


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """A site folder that holds the toy game's installed metadata (its entry point)."""
    return make_site(tmp_path_factory.mktemp("site"))


@pytest.fixture
def plugin(site):
    """The toy game installed in this process for one test, then removed again."""
    with installed(site):
        yield


@pytest.fixture(scope="module")
def plugin_env(site) -> dict[str, str]:
    """The environment of a ``cardsim`` subprocess that finds the toy game."""
    paths = [str(site), str(PLUGINS), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p), "COLUMNS": "200"}


def records(frame: pd.DataFrame, players: int) -> list[dict]:
    """The kernel's records in the reference's form."""
    return [
        {
            "winner": int(row.winner),
            "end": row.end,
            "tricks": int(row.tricks),
            "ties": int(row.ties),
            "won": [int(getattr(row, f"won_{seat}")) for seat in range(players)],
        }
        for row in frame.itertuples()
    ]


def test_the_plugin_is_registered_by_its_entry_point(plugin):
    info = registry.resolve_game("HC")
    assert (info.name, info.family, info.title) == ("highcard", "highcard", "High card")
    assert "highcard (hc)" in registry.game_names()
    assert [spec.family for spec in registry.specs()][:2] == ["beggar", "shedding"]


def test_without_the_entry_point_the_game_is_unknown():
    registry.specs.cache_clear()
    try:
        assert "highcard" not in registry.games()
    finally:
        registry.specs.cache_clear()


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("aces_high", [True, False])
def test_kernel_equals_the_reference(plugin, players, aces_high):
    from cardsim_highcard.reference import play

    games, seed = 300, 1000 + players
    frame = simulate.run(
        "highcard", players=players, games=games, seed=seed, rules={"aces_high": aces_high}
    )
    assert frame["game"].tolist() == list(range(games))
    expected = [play(seed, game, players, aces_high) for game in range(games)]
    assert records(frame, players) == expected
    assert frame.attrs["rules"] == {"aces_high": aces_high}
    # the knob matters: the other ranking gives other records on the same cards
    other = [play(seed, game, players, not aces_high) for game in range(games)]
    assert other != expected


def test_run_folder_reads_back_and_chunks_change_nothing(plugin, tmp_path):
    from analysis.load import load_run

    one = simulate.run("highcard", players=3, games=5000, seed=5, out=tmp_path / "one")
    many = simulate.run(
        "highcard", players=3, games=5000, seed=5, out=tmp_path / "many", chunk_size=1000
    )
    assert len((tmp_path / "many" / "manifest.jsonl").read_text().splitlines()) == 5
    assert len((tmp_path / "one" / "manifest.jsonl").read_text().splitlines()) == 1
    pd.testing.assert_frame_equal(one, many)
    for folder in ("one", "many"):
        run = load_run(tmp_path / folder)
        assert run.meta["game"] == "highcard" and run.meta["status"] == "complete"
        pd.testing.assert_frame_equal(run.games, one, check_categorical=False)


def test_an_interrupted_run_resumes_to_the_same_records(plugin, plugin_env, tmp_path, cardsim_exe):
    from analysis.load import load_run
    from simulate.runs.engine import RunInterrupted, stream
    from simulate.runs.folder.writer import RunWriter
    from simulate.runs.request import make_request

    request = make_request("hc", players=4, games=5000, seed=9)
    delivered = []

    def stop_after_two(chunk):
        delivered.append(chunk)
        if len(delivered) == 2:
            raise KeyboardInterrupt

    folder = tmp_path / "run"
    with RunWriter(folder, request.meta()) as writer, pytest.raises(RunInterrupted):
        stream(request, writer, stop_after_two, chunk_size=1000)
    assert len(load_run(folder).games) == 2000
    done = subprocess.run(
        [cardsim_exe, "simulate", "highcard", "--out", str(folder), "--resume", "--no-report"],
        capture_output=True,
        text=True,
        env=plugin_env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    whole = simulate.run("highcard", players=4, games=5000, seed=9)
    pd.testing.assert_frame_equal(load_run(folder).games, whole, check_categorical=False)


def cardsim(exe: str, env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [exe, *args], capture_output=True, text=True, env=env, timeout=300, check=False
    )


def test_command_line(site, plugin_env, cardsim_exe, tmp_path, monkeypatch):
    """The installed script finds the plugin by its entry point, plays it and writes its
    report; ``report``, ``verify`` and ``rules`` then take it like a built-in game."""
    monkeypatch.setenv("COLUMNS", "200")
    folder = tmp_path / "hc"
    done = cardsim(
        cardsim_exe,
        plugin_env,
        *("simulate", "hc", "--players", "3", "--games", "20000", "--seed", "1"),
        *("--out", str(folder), *SMALL_CHARTS),
    )
    assert done.returncode == 0, done.stderr
    assert "High card: 20,000 games, 3 players, seed 1" in done.stderr
    for name in ("run.json", "report.html", "report.md", "charts/win_share.png"):
        assert (folder / name).is_file(), name
    report = (folder / "report.md").read_text()
    assert report.startswith("# High card · 3 players · 20,000 deals")
    assert "one seat took the most tricks" in report  # the spec's end meanings
    assert "| tricks | 17 |" in report  # the spec's length column
    assert "\nTricks played. " in report
    assert "| rule: aces_high | on (default) |" in report

    # the commands on the folder, in this process: the entry point found the same way
    with installed(site):
        done = cardsim_here("report", folder, *SMALL_CHARTS)
        assert done.returncode == 0, done.stderr
        assert "report.html" in done.stdout

        done = cardsim_here("verify", folder)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "healthy (300 games replayed equal to their records)" in done.stdout

        done = cardsim_here("rules", "highcard")
        assert done.returncode == 0, done.stderr
        assert done.stdout == "High card: aces high; the highest card takes the trick\n"
        done = cardsim_here("rules", "hc", "--rule", "aces_high=off")
        assert done.stdout == "High card: aces low; the highest card takes the trick\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["simulate", "highcard", "--seats", "greedy"], "highcard has no decisions to make"),
        (["simulate", "hc", "--rule", "aces=low"], "unknown rule 'aces' for high card"),
        (["simulate", "hc", "--players", "5"], "players must be 2 to 4 for highcard"),
        (["replay", "hc", "--seed", "1"], "replay does not take highcard"),
        (["tournament", "hc", "--strategies", "random,greedy"], "tournament does not take"),
    ],
)
def test_command_line_mistakes_are_one_line(plugin, args, message, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    done = cardsim_here(*args)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert message in lines[0]


def test_help_lists_the_plugin(plugin_env, cardsim_exe):
    done = cardsim(cardsim_exe, plugin_env, "simulate", "--help")
    assert done.returncode == 0, done.stderr
    assert "highcard (hc)" in done.stdout
    done = cardsim(cardsim_exe, plugin_env, "play", "--help")
    assert "highcard" not in done.stdout  # the toy game takes no given deal
