"""Study files and ``cardsim sweep``: the format and its located errors, the shipped studies,
cells as run folders with common random numbers, resuming and overwriting, and
``cardsim compare``; also ``simulate --seats`` and ``--report/--no-report``."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest
from cli_helpers import signal_after_first_chunk
from pandas.testing import assert_frame_equal
from run_helpers import RUN_FOLDER, assert_intact, assert_same_bytes, chunk_files, completed
from typer.testing import CliRunner

import simulate
from analysis.load import load_run
from simulate.app.api import playing
from simulate.app.cli import app
from simulate.app.studies.file import load_study, read_rule_file, split_seats
from simulate.app.studies.sweep import RESUME, RUN, SKIP, SweepInterrupted, plan_sweep, run_sweep
from simulate.app.studies.tomlines import KeyLines
from simulate.core.errors import CardsimError
from simulate.games.shedding import reference
from simulate.games.shedding.rules import preset

STUDIES = sorted((Path(__file__).parent.parent / "studies").glob("*.toml"))
runner = CliRunner()

SMALL = """\
title = "small"
game = "crazy-eights-plain"
players = [3, 4]
games = 1500
seed = 5

[[variant]]
name = "base"
rules = {}

[[variant]]
name = "own"
rules = { wild_mode = "own_suit" }
"""


def write(tmp_path: Path, text: str, name: str = "study.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def invoke(*args) -> object:
    return runner.invoke(app, [str(arg) for arg in args])


def one_error(result) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


# --- the file format ---------------------------------------------------------------------


def test_key_lines_follow_tables_arrays_dotted_and_inline_keys():
    text = (
        'game = "x"\n'  # 1
        "[rules]\n"  # 2
        'effects.A = "skip"\n'  # 3
        "[[variant]]\n"  # 4
        'name = "a"\n'  # 5
        "[[variant]]\n"  # 6
        'rules = { stacking = "none", effects = { "7" = "draw:2" }, x = [1, {a = 1}], y = 2 }\n'
        "[variant.rules]\n"  # 8
        "z = 1\n"  # 9
    )
    lines = KeyLines(text)
    assert lines.line_of(("game",)) == 1
    assert lines.line_of(("rules", "effects", "A")) == 3
    assert lines.line_of(("variant", 0)) == 4
    assert lines.line_of(("variant", 0, "name")) == 5
    assert lines.line_of(("variant", 1)) == 6
    assert lines.line_of(("variant", 1, "rules", "effects", "7")) == 7
    assert lines.line_of(("variant", 1, "rules", "y")) == 7
    assert lines.line_of(("variant", 1, "rules", "z")) == 9
    assert lines.line_of(("variant", 1, "nothing")) == 6  # falls back to the table
    assert lines.line_of(("nothing",)) is None


@pytest.mark.parametrize("path", STUDIES, ids=[p.stem for p in STUDIES])
def test_shipped_studies_are_valid(path):
    study = load_study(path)
    cells = study.cells(games=10)
    assert len(study.variants) >= 2 and study.seed >= 0 and study.games >= 100_000
    assert len(cells) == len(study.variants) * len(study.players)
    assert len({cell.folder_name for cell in cells}) == len(cells)
    assert all(cell.request.seed == study.seed for cell in cells)


def test_the_issue_asks_for_these_studies():
    assert {path.stem for path in STUDIES} >= {
        "pis-yedili-sevens",
        "pis-yedili-aces",
        "pis-yedili-no-play",
        "crazy-eights-wilds",
        "crazy-eights-decks",
        "crazy-eights-stacking",
    }
    rules = {
        variant.name: study.variant_rules(variant)
        for study in map(load_study, STUDIES)
        for variant in study.variants
    }
    assert rules["doubling"].stack_growth == "double" and rules["adding"].stack_growth == "add"
    assert rules["skip"].rank_effects(0).skip and rules["again"].rank_effects(0).again
    assert rules["all-draw"].rank_effects(0).all_draw == 1
    assert rules["draw-one"].on_no_play == "draw_one_may_play"
    assert {rules[n].wild_mode for n in ("any", "own-suit", "match-suit")} == {
        "any",
        "own_suit",
        "match_suit",
    }
    assert (rules["one-deck"].decks_for(6), rules["two-decks"].decks_for(6)) == (1, 2)
    assert (rules["no-stacking"].stacking, rules["stacking"].stacking) == ("none", "same_rank")


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        (
            'game = "pis-yedili"\ngames = 10\nseed = 1\nplayers = [4\n',
            4,
            ["invalid TOML", "Unclosed"],
        ),
        ('game = "pis-yedili"\ngames = = 10\n', 2, ["invalid TOML", "column 9"]),
        ('game = "uno"\ngames = 10\nseed = 1\n', 1, ["'uno'", "known games"]),
        ('games = 10\nseed = 1\n[[variant]]\nname = "a"\n', None, ["'game'"]),
        ('game = "c8"\ngames = 10\nseed = 1\ncolour = 1\n', 4, ["'colour'", "variant"]),
        ('game = "c8"\ngames = 0\nseed = 1\n', 2, ["games", "got 0"]),
        ('game = "c8"\ngames = 10\nseed = -4\n', 3, ["seed", "-4"]),
        ('game = "c8"\ngames = 10\nseed = 1\nplayers = []\n', 4, ["players"]),
        ('game = "c8"\ngames = 10\nseed = 1\nplayers = [4, 4]\n', 4, ["twice"]),
        ('game = "c8"\ngames = 10\nseed = 1\n', None, ["[[variant]]"]),
        ('game = "c8"\ngames = 10\nseed = 1\n[[variant]]\nname = "a"\n', 4, ["two or more"]),
        ('game = "c8"\ngames = 10\nseed = 1\n[[variant]]\nname = "a"\n[[variant]]\n', 6, ["name"]),
        (
            'game = "c8"\ngames = 10\nseed = 1\n[[variant]]\nname = "a"\n[[variant]]\nname = "A"\n',
            7,
            ["'A'", "two variants"],
        ),
        (
            'game = "c8"\ngames = 10\nseed = 1\n[[variant]]\nname = "a b"\n[[variant]]\nname = "b"\n',
            5,
            ["'a b'"],
        ),
        (
            'game = "c8"\ngames = 10\nseed = 1\n[[variant]]\nname = "a"\nrule = {}\n'
            '[[variant]]\nname = "b"\n',
            6,
            ["'rule'", "name, rules"],
        ),
    ],
)
def test_study_file_errors_name_the_line(tmp_path, text, line, words):
    path = write(tmp_path, text)
    with pytest.raises(CardsimError) as caught:
        load_study(path).cells()
    message = str(caught.value)
    assert "\n" not in message and str(path) in message
    if line is not None:
        assert f"{path} line {line}:" in message
    for word in words:
        assert word in message, message


HEAD = (
    'game = "pis-yedili"\ngames = 10\nseed = 1\n[[variant]]\nname = "a"\n[[variant]]\nname = "b"\n'
)


@pytest.mark.parametrize(
    ("tail", "line", "words"),
    [
        ('rules = { stacking = "always" }\n', 8, ["stacking", "'always'", "same_rank"]),
        ("rules = { stak = 1 }\n", 8, ["'stak'", "known rules"]),
        ('[variant.rules]\nstack_growth = "double"\neffects.A = "fly"\n', 10, ["'fly'"]),
        ('[variant.rules]\nmax_turns = 5\n"card_points.J" = "many"\n', 10, ["card_points.J"]),
        ('strategies = ["first", "clever"]\n', 8, ["'clever'", "random, uniform, first"]),
        ('strategies = "first,,random"\n', 8, ["strategies"]),
        ("rules = 3\n", 8, ["rules must be a table"]),
    ],
)
def test_variant_errors_name_the_line(tmp_path, tail, line, words):
    path = write(tmp_path, HEAD + tail)
    with pytest.raises(CardsimError) as caught:
        load_study(path).cells()
    message = str(caught.value)
    assert f"{path} line {line}:" in message, message
    for word in words:
        assert word in message, message


def test_common_rules_and_player_counts_errors_name_their_line(tmp_path):
    text = HEAD.replace("seed = 1\n", 'seed = 1\nrules = { max_turns = "lots" }\n')
    with pytest.raises(CardsimError, match=r"line 4: max_turns must be a whole number"):
        load_study(write(tmp_path, text)).cells()
    text = HEAD.replace("seed = 1\n", "seed = 1\nplayers = [4, 8]\n")
    with pytest.raises(CardsimError, match=r"line 4: variant 'a' with 8 players: 8 players x 7"):
        load_study(write(tmp_path, text)).cells()


def test_rule_file_errors_name_the_line(tmp_path):
    path = write(tmp_path, 'stacking = "any_draw"\n\n[effects]\nA = "skip"\n7 = "draw:0"\n')
    rules = preset("pis-yedili")
    with pytest.raises(CardsimError, match=rf"^{path} line 5: effects.7 \(draw\) must be"):
        read_rule_file(path).check(rules)
    nested = write(tmp_path, '[rules]\nstacking = "x"\n', "nested.toml")
    with pytest.raises(CardsimError, match=rf"^{nested} line 2: stacking must be one of"):
        read_rule_file(nested).check(rules)


# --- sweeps ----------------------------------------------------------------------------


def test_sweep_writes_a_run_folder_per_cell_with_common_random_numbers(tmp_path):
    study = write(tmp_path, SMALL)
    out = tmp_path / "out"
    result = invoke("sweep", study, "--out", out, "--no-report", "--threads", 1)
    assert result.exit_code == 0, result.output
    assert (out / "study.toml").read_text() == SMALL
    cells = ["base-3p", "own-3p", "base-4p", "own-4p"]
    # the study folder: its cells, its copy of the study, and its lock file
    assert {p.name for p in out.iterdir()} == {*cells, "study.toml", ".lock"}
    for cell in cells:
        meta = json.loads((out / cell / "run.json").read_text())
        assert (meta["seed"], meta["games"], meta["status"]) == (5, 1500, "complete")
        assert meta["rules"]["wild_mode"] == ("own_suit" if cell.startswith("own") else "any")
        assert {p.name for p in (out / cell).iterdir()} == RUN_FOLDER
        assert_intact(out / cell, 1500)
    base = load_run(out / "base-4p").games
    assert_frame_equal(base, simulate.run("crazy-eights-plain", players=4, games=1500, seed=5))
    own = load_run(out / "own-4p").games
    assert not own.equals(base)
    # common random numbers: game i of both variants starts from the same deal
    rules = load_study(study).variant_rules(load_study(study).variants[1])
    for game in (0, 7, 1499):
        deals = []
        for variant_rules in (rules.with_overrides({"wild_mode": "any"}), rules):
            trace: list[str] = []
            reference.play(variant_rules, 4, ["random"] * 4, 5, game, trace=trace)
            deals.append(trace[:5])
        assert deals[0] == deals[1] and deals[0][0].startswith("seat 0")


def test_sweep_games_override_and_identical_variants_give_identical_records(tmp_path):
    text = SMALL.replace('wild_mode = "own_suit"', 'wild_mode = "any"').replace("[3, 4]", "3")
    out = tmp_path / "out"
    result = invoke("sweep", write(tmp_path, text), "--out", out, "--games", 700, "--no-report")
    assert result.exit_code == 0, result.output
    first = load_run(out / "base-3p").games
    assert len(first) == 700 and completed(out / "base-3p") == 700
    assert_frame_equal(first, load_run(out / "own-3p").games)


def test_sweep_refuses_a_used_folder_then_force_overwrites(tmp_path):
    study = write(tmp_path, SMALL.replace("[3, 4]", "3"))
    out = tmp_path / "out"
    assert invoke("sweep", study, "--out", out, "--games", 300, "--no-report").exit_code == 0
    before = chunk_files(out / "base-3p")
    line = one_error(invoke("sweep", study, "--out", out, "--games", 300, "--no-report"))
    assert "already holds a study" in line and "--resume" in line and "--force" in line
    line = one_error(invoke("sweep", study, "--out", out, "--resume", "--no-report"))
    assert "games 300, not 1500" in line and "--games" in line
    result = invoke("sweep", study, "--out", out, "--games", 400, "--force", "--no-report")
    assert result.exit_code == 0, result.output
    assert len(load_run(out / "base-3p").games) == 400
    assert_intact(out / "base-3p", 400)
    assert chunk_files(out / "base-3p") != before
    line = one_error(invoke("sweep", study, "--out", out, "--force", "--resume"))
    assert "not both" in line
    line = one_error(invoke("sweep", study, "--out", tmp_path / "fresh", "--resume"))
    assert "no study to resume" in line and not (tmp_path / "fresh").exists()


def written_times(folder: Path) -> dict[str, int]:
    """The modification time of each record file, manifest and run.json of a run folder."""
    return {
        path.relative_to(folder).as_posix(): path.stat().st_mtime_ns
        for path in folder.rglob("*")
        if path.is_file() and path.name != ".lock"
    }


def test_interrupted_sweep_resumes_to_the_uninterrupted_result(tmp_path, monkeypatch):
    study = load_study(write(tmp_path, SMALL))
    out = tmp_path / "out"
    real_stream = playing.stream

    def stop_in_own_3p(request, writer, consume=None, **options):
        if writer.folder.name != "own-3p":
            return real_stream(request, writer, consume, **options)

        def stop(_chunk):
            raise KeyboardInterrupt

        return real_stream(request, writer, stop, **options)

    monkeypatch.setattr(playing, "stream", stop_in_own_3p)
    plan = plan_sweep(study, out, games=1200, threads=1)
    with pytest.raises(SweepInterrupted, match=r"resume with: cardsim sweep .* --resume --games"):
        run_sweep(plan, progress=False, compare=False, echo=lambda line: None, chunk_size=500)
    meta = json.loads((out / "own-3p" / "run.json").read_text())
    assert (meta["status"], meta["completed_games"]) == ("interrupted", 500)
    assert not (out / "base-4p").exists()
    monkeypatch.setattr(playing, "stream", real_stream)

    assert completed(out / "own-3p") == 500
    kept = written_times(out / "base-3p")
    assert any(name.startswith("games/") for name in kept)
    plan = plan_sweep(study, out, games=1200, threads=1, resume=True)
    assert plan.actions == [SKIP, RESUME, RUN, RUN]
    run_sweep(plan, progress=False, compare=False, echo=lambda line: None, chunk_size=500)
    assert written_times(out / "base-3p") == kept
    resumed = load_run(out / "own-3p").games
    fresh = simulate.run(
        "crazy-eights-plain", players=3, games=1200, seed=5, rules={"wild_mode": "own_suit"}
    )
    assert_frame_equal(resumed, fresh)
    meta = json.loads((out / "own-3p" / "run.json").read_text())
    assert (meta["status"], meta["completed_games"]) == ("complete", 1200)
    assert plan_sweep(study, out, games=1200, resume=True).actions == [SKIP] * 4
    # a resume that would change a cell's records is refused, naming what differs
    with pytest.raises(CardsimError, match=r"games 1200, not 1300 .*another --games"):
        plan_sweep(study, out, games=1300, resume=True)
    changed = load_study(write(tmp_path, SMALL.replace("own_suit", "match_suit"), "b.toml"))
    with pytest.raises(CardsimError, match=r"own-3p holds a run with rules .*'own_suit'"):
        plan_sweep(changed, out, games=1200, resume=True)


@pytest.mark.end_to_end
def test_sweep_comparison_reports(tmp_path):
    pytest.importorskip("analysis.comparisons.report")
    out = tmp_path / "out"
    result = invoke("sweep", write(tmp_path, SMALL), "--out", out, "--games", 800)
    assert result.exit_code == 0, result.output
    for players in (3, 4):
        written = sorted(p.suffix for p in (out / f"compare-{players}p").iterdir() if p.is_file())
        assert ".html" in written and ".md" in written
    single = tmp_path / "single"
    text = SMALL.replace("[3, 4]", "3")
    result = invoke("sweep", write(tmp_path, text, "one.toml"), "--out", single, "--games", 500)
    assert result.exit_code == 0, result.output
    assert any(p.suffix == ".md" for p in single.iterdir())


@pytest.mark.end_to_end
def test_compare_command(tmp_path):
    study = write(tmp_path, SMALL.replace("[3, 4]", "3"))
    out = tmp_path / "out"
    assert invoke("sweep", study, "--out", out, "--games", 400, "--no-report").exit_code == 0
    runs = [out / "base-3p", out / "own-3p"]
    line = one_error(invoke("compare", runs[0]))
    assert "two or more" in line
    line = one_error(invoke("compare", *runs, "--base", "nope", "--out", tmp_path / "c"))
    assert "'nope'" in line and "base-3p, own-3p" in line
    line = one_error(invoke("compare", runs[0], tmp_path, "--out", tmp_path / "c"))
    assert "not a run folder" in line
    assert not (tmp_path / "c").exists()
    pytest.importorskip("analysis.comparisons.report")
    result = invoke("compare", *runs, "--base", "own-3p", "--out", tmp_path / "c")
    assert result.exit_code == 0, result.output
    assert any(p.suffix == ".html" for p in (tmp_path / "c").iterdir())


# --- simulate: --seats, --report, --resume ------------------------------------------------


def test_seats_is_a_comma_list_of_strategies(tmp_path):
    args = ["simulate", "crazy-eights", "--players", 3, "--games", 300, "--seed", 2]
    seats = invoke(*args, "--seats", "first, uniform", "--out", tmp_path / "a", "--no-report")
    assert seats.exit_code == 0, seats.output
    repeated = invoke(
        *args,
        "--strategy",
        "first",
        "--strategy",
        "uniform",
        "--out",
        tmp_path / "b",
        "--no-report",
    )
    assert repeated.exit_code == 0, repeated.output
    meta = json.loads((tmp_path / "a" / "run.json").read_text())
    assert meta["strategies"] == ["first", "uniform", "random"]
    assert_same_bytes(tmp_path / "a", tmp_path / "b")
    line = one_error(invoke(*args, "--seats", "first", "--strategy", "first"))
    assert "not both" in line
    assert "'clever'" in one_error(invoke(*args, "--seats", "first,clever"))
    assert "--seats" in one_error(invoke(*args, "--seats", "first,,random"))


@pytest.mark.end_to_end
def test_report_is_written_unless_no_report(tmp_path):
    args = ["simulate", "bmn", "--games", 2000, "--seed", 3]
    result = invoke(*args, "--out", tmp_path / "with")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "with" / "report.html").exists()
    assert (tmp_path / "with" / "report.md").exists()
    assert invoke(*args, "--out", tmp_path / "without", "--no-report").exit_code == 0
    assert {p.name for p in (tmp_path / "without").iterdir()} == RUN_FOLDER


@pytest.mark.end_to_end
def test_resume_refuses_settings_that_differ_from_its_own(tmp_path):
    run = tmp_path / "run"
    assert invoke("simulate", "bmn", "--games", 300, "--seed", 2, "--out", run).exit_code == 0
    meta = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**meta, "status": "interrupted"}))
    line = one_error(invoke("simulate", "bmn", "--out", run, "--resume", "--games", 5))
    assert "--resume" in line and "--games 5 (the run's: 300)" in line
    line = one_error(invoke("simulate", "bmn", "--out", run, "--resume", "--force"))
    assert "not both" in line
    same = invoke("simulate", "bmn", "--games", 300, "--seed", 2, "--out", run, "--resume")
    assert same.exit_code == 0, same.output
    line = one_error(invoke("simulate", "bmn", "--out", tmp_path / "x", "--resume"))
    assert "not a run folder" in line
    assert not (tmp_path / "x").exists()


@pytest.mark.xdist_group("signal")
def test_script_sweep_sigterm_keeps_finished_chunks_and_says_how_to_resume(cardsim_exe, tmp_path):
    """SIGTERM during a cell: exit 130, whole chunks kept, the resume command printed."""
    games = 2 * (1 << 20) + 1
    text = SMALL.replace('"crazy-eights-plain"', '"bmn"').replace("[3, 4]", "3")
    study = write(tmp_path, text.replace('wild_mode = "own_suit"', "time_limit = 500"))
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [cardsim_exe, "sweep", str(study), "--out", str(out), "--games", str(games)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    err = signal_after_first_chunk(proc, out / "base-3p", signal.SIGTERM)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert f"resume with: cardsim sweep {study} --out {out} --resume --games {games}" in last
    meta = json.loads((out / "base-3p" / "run.json").read_text())
    assert meta["status"] == "interrupted"
    assert meta["completed_games"] % (1 << 20) == 0 and 0 < meta["completed_games"] < games
    assert completed(out / "base-3p") == meta["completed_games"]
    assert_intact(out / "base-3p")  # whole chunks, each listed with its checksum
    assert f"interrupted after {meta['completed_games']:,} of {games:,}" in last
    assert not list(out.rglob("*.partial")) and not (out / "own-3p").exists()


def test_seats_keep_the_parameters_of_a_strategy_spec(tmp_path):
    assert split_seats("weighted:points=1,wild=-0.5, random,greedy:forget=0.25") == [
        "weighted:points=1,wild=-0.5",
        "random",
        "greedy:forget=0.25",
    ]
    assert split_seats("first,,random") == ["first", "", "random"]
    args = ["simulate", "pis-yedili", "--players", 3, "--games", 200, "--seed", 4, "--no-report"]
    spec = "weighted:points=1,wild=-0.5"
    seats = invoke(*args, "--seats", f"{spec},first", "--out", tmp_path / "a")
    assert seats.exit_code == 0, seats.output
    repeated = invoke(*args, "--strategy", spec, "--strategy", "first", "--out", tmp_path / "b")
    assert repeated.exit_code == 0, repeated.output
    meta = json.loads((tmp_path / "a" / "run.json").read_text())
    assert (
        meta["strategies"][:2]
        == json.loads((tmp_path / "b" / "run.json").read_text())["strategies"][:2]
    )
    assert len(meta["strategies"]) == 3
    assert_same_bytes(tmp_path / "a", tmp_path / "b")
