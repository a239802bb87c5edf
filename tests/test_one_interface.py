"""One interface for every game: outside ``simulate/games/`` no code branches on which family
or game it holds (a grep of the code, comments and docstrings left out), and every command
takes a game by every name ``simulate`` takes it by."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simulate.app.cli import app
from simulate.games.registry import games

ROOT = Path(__file__).resolve().parent.parent

EXEMPT = (
    "simulate/games/**/*.py",  # the games themselves
    "simulate/app/bench.py",  # benchmarks each family's kernels
    # each family's own commands that play runs (its spec's search_path and tune_path)
    "simulate/app/commands/beggar_search.py",
    "simulate/app/commands/shedding_tune.py",
    # each family's own report, where it lives now and where it may move to
    "analysis/shedding.py",
    "analysis/matches.py",
    "analysis/scores.py",
    "analysis/reports/beggar.py",
    "analysis/reports/shedding.py",
    "analysis/reports/matches.py",
    "analysis/reports/scores.py",
)


def exempt(relative: str) -> bool:
    if relative == "analysis/report.py":
        # Beggar-My-Neighbour's report lives here until it moves to analysis/reports/beggar.py
        return not (ROOT / "analysis/reports/beggar.py").exists()
    return any(matches(relative, pattern) for pattern in EXEMPT)


def matches(relative: str, pattern: str) -> bool:
    """Whether ``pattern`` (``**/``: any folders, ``*``: within one name) matches the whole
    path."""
    regex = re.escape(pattern).replace(r"\*\*/", "(?:.*/)?").replace(r"\*", "[^/]*")
    return re.fullmatch(regex, relative) is not None


def checked_files() -> list[Path]:
    files = sorted([*ROOT.glob("simulate/**/*.py"), *ROOT.glob("analysis/**/*.py")])
    return [path for path in files if not exempt(path.relative_to(ROOT).as_posix())]


FAMILIES = {"beggar", "shedding"}
GAME_WORDS = (
    FAMILIES
    | {name for name in games()}
    | {alias for info in games().values() for alias in info.aliases}
)
"""Every family id, game name and alias: compared with a value, it is a branch on a game."""
RULES_CLASSES = {"BeggarRules", "SheddingRules"}
GAME_MODULE = re.compile(r"(?:^|\.)games\.(?:beggar|shedding)\b")


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants that stand alone as statements (docstrings, and the
    attribute docstrings that follow an assignment)."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }


def mentions_family(node: ast.AST) -> bool:
    """``family``, ``x.family``, ``meta["family"]``, ``meta.get("family")``..."""
    for part in ast.walk(node):
        if isinstance(part, ast.Name) and "family" in part.id.lower():
            return True
        if isinstance(part, ast.Attribute) and "family" in part.attr.lower():
            return True
        if isinstance(part, ast.Constant) and part.value == "family":
            return True
    return False


def game_literals(node: ast.AST) -> list[str]:
    """The family, game or alias names that ``node`` (a constant, or a tuple, list or set of
    them) holds."""
    items = node.elts if isinstance(node, ast.Tuple | ast.List | ast.Set) else [node]
    return [
        item.value
        for item in items
        if isinstance(item, ast.Constant)
        and isinstance(item.value, str)
        and item.value in GAME_WORDS
    ]


def module_of(node: ast.ImportFrom, relative: str) -> str:
    """The absolute module an ``import from`` names (``from ..games.beggar import x``)."""
    if not node.level:
        return node.module or ""
    package = relative.removesuffix(".py").split("/")[: -node.level]
    return ".".join([*package, *([node.module] if node.module else [])])


def violations(path: Path) -> list[str]:
    relative = path.relative_to(ROOT).as_posix()
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=relative)
    skip = docstrings(tree)
    found = []

    def flag(node: ast.AST, what: str) -> None:
        found.append(f"{relative}:{node.lineno}: {what}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(mentions_family(operand) for operand in operands):
                flag(node, f"compares game families (ask the spec): {ast.unparse(node)}")
            for operand in operands:
                for word in game_literals(operand):
                    flag(node, f"compares with the game name {word!r}: {ast.unparse(node)}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in skip:
                continue
            if "beggar-my-neighbour" in node.value:
                flag(node, f"a 'beggar-my-neighbour' literal: {node.value!r}")
            if GAME_MODULE.search(node.value):
                flag(node, f"names a game's module: {node.value!r}")
        elif isinstance(node, ast.Name) and node.id in RULES_CLASSES:
            flag(node, f"uses {node.id}")
        elif isinstance(node, ast.Attribute) and node.attr in RULES_CLASSES:
            flag(node, f"uses {node.attr}")
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance":
            classes = node.args[1:2]
            if classes and isinstance(classes[0], ast.Tuple):
                classes = classes[0].elts
            for one in classes:
                name = ast.unparse(one)
                if name.endswith("Rules"):
                    flag(node, f"isinstance with a rules class: {ast.unparse(node)}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if GAME_MODULE.search(alias.name):
                    flag(node, f"imports {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            module = module_of(node, relative)
            names = [f"{module}.{alias.name}" for alias in node.names]
            hits = [name for name in [module, *names] if GAME_MODULE.search(name)]
            if hits or any(alias.name in RULES_CLASSES for alias in node.names):
                flag(node, f"imports from {module}: {', '.join(a.name for a in node.names)}")
    return found


def test_no_code_outside_the_games_branches_on_a_game():
    files = checked_files()
    assert ROOT / "simulate/runs/engine.py" in files and ROOT / "analysis/load.py" in files
    assert not any("simulate/games/" in path.as_posix() for path in files)
    found = [line for path in files for line in violations(path)]
    assert not found, "branches on a game outside simulate/games/:\n" + "\n".join(found)


def _violations_of(source: str, relative: str) -> list[str]:
    class Fake:
        def __init__(self, text):
            self.text = text

        def relative_to(self, root):
            return Path(relative)

        def read_text(self, encoding):
            return self.text

    return violations(Fake(source))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "source",
    [
        'if spec.family == "beggar":\n    pass\n',
        'x = meta["family"] != "shedding"\n',
        'x = meta.get("family") in ("beggar", "shedding")\n',
        'if game == "pis-yedili":\n    pass\n',
        'if name in {"bmn", "beggar"}:\n    pass\n',
        'GAME = "beggar-my-neighbour"\n',
        "from simulate.games.beggar.rules import COURTS\n",
        "from ..games.shedding import rules\n",
        "from ..games import beggar\n",
        "import simulate.games.shedding.kernel\n",
        'ENGINE = "simulate.games.beggar.engine:ENGINE"\n',
        "if isinstance(rules, BeggarRules):\n    pass\n",
        "if isinstance(rules, (rules_module.SheddingRules, int)):\n    pass\n",
        "same = run.family != base.family\n",
    ],
)
def test_the_grep_finds_a_branch_on_a_game(source):
    assert _violations_of(source, "simulate/example.py")


@pytest.mark.parametrize(
    "source",
    [
        '"""Beggar-My-Neighbour and the shedding games; beggar-my-neighbour == "beggar"."""\n',
        "x = 1  # if family == 'beggar'\n",
        'def f():\n    """from simulate.games.beggar import x"""\n',
        "same = run.spec is base.spec\n",
        "info = registry.resolve_game(game)\n",
        'if name == "time_limit":\n    pass\n',
    ],
)
def test_the_grep_leaves_comments_docstrings_and_generic_code_alone(source):
    assert _violations_of(source, "simulate/example.py") == []


def test_exempt_paths():
    assert exempt("simulate/games/beggar/kernel.py") and exempt("simulate/games/spec.py")
    assert exempt("simulate/app/bench.py") and exempt("analysis/reports/scores.py")
    assert not exempt("simulate/runs/engine.py") and not exempt("analysis/reports/generic.py")
    assert not exempt("simulate/app/cli/games.py")


# --- every command takes every name of the games it takes ---------------------------------

RUNNER = CliRunner()
ENV = {"COLUMNS": "200"}


def invoke(*args: str):
    return RUNNER.invoke(app, list(args), env=ENV)


def names_of(info) -> list[str]:
    """Every name ``simulate`` takes a game by: its full name, its aliases, in capitals."""
    return [info.name, *info.aliases, info.name.upper(), *(a.upper() for a in info.aliases)]


def every_name(command: str | None = None) -> list[tuple[str, str]]:
    """``(name, preset)`` for every name of every game ``command`` takes."""
    return [(name, info.name) for info in games(command).values() for name in names_of(info)]


def ids(pairs):
    return [name for name, _ in pairs]


@pytest.mark.parametrize(("name", "preset"), every_name(), ids=ids(every_name()))
def test_simulate_takes_every_name(name, preset, tmp_path):
    out = tmp_path / "run"
    result = invoke(
        "simulate", name, "--games", "3", "--seed", "1", "--out", str(out), "--no-report"
    )
    assert result.exit_code == 0, result.output
    assert json.loads((out / "run.json").read_text())["game"] == preset


@pytest.mark.parametrize(("name", "preset"), every_name(), ids=ids(every_name()))
def test_rules_takes_every_name(name, preset):
    result = invoke("rules", name)
    assert result.exit_code == 0, result.output
    info = games()[preset]
    assert result.output.startswith(f"{info.title}: ")
    assert result.output.split(": ", 1)[1] == info.base_rules().describe(None) + "\n"


@pytest.mark.parametrize(("name", "preset"), every_name("play"), ids=ids(every_name("play")))
def test_play_takes_every_name(name, preset):
    result = invoke("play", name, "--deal", "A/K")
    assert result.exit_code == 0, result.output
    assert result.output == "Seat 1 wins after 2 cards and 1 trick.\n"


@pytest.mark.parametrize(("name", "preset"), every_name("search"), ids=ids(every_name("search")))
def test_search_takes_every_name(name, preset):
    result = invoke("search", name, "--games", "50", "--seed", "1", "--top", "1")
    assert result.exit_code == 0, result.output
    assert f"{games()[preset].title}, 2 players: 50 random deals, seed 1" in result.output


@pytest.mark.parametrize(("name", "preset"), every_name("replay"), ids=ids(every_name("replay")))
def test_replay_takes_every_name(name, preset):
    result = invoke("replay", name, "--seed", "1")
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"{preset}, ")


@pytest.mark.parametrize(
    ("name", "preset"), every_name("tournament"), ids=ids(every_name("tournament"))
)
def test_tournament_takes_every_name(name, preset, tmp_path):
    # the game is resolved and its request checked before the strategies are: a repeated
    # strategy is the first mistake found
    result = invoke("tournament", name, "--strategies", "random,random", "--out", str(tmp_path))
    assert result.exit_code == 2
    assert "each strategy once, please" in result.output, result.output


@pytest.mark.parametrize(("name", "preset"), every_name("tune"), ids=ids(every_name("tune")))
def test_tune_takes_every_name(name, preset):
    # the game is resolved and its request checked before the budget is
    result = invoke("tune", name, "--budget", "1", "--seed", "1")
    assert result.exit_code == 2
    assert "--budget 1 is too small" in result.output, result.output


COMMAND_PROBES = {
    "play": ["--deal", "A/K"],
    "search": ["--games", "50", "--seed", "1"],
    # replay: every built-in game replays (Beggar-My-Neighbour trick by trick)
    "tournament": ["--strategies", "random,greedy"],
    "tune": ["--budget", "1"],
}


@pytest.mark.parametrize("command", sorted(COMMAND_PROBES))
def test_commands_refuse_every_name_of_a_game_they_do_not_take(command):
    taken = games(command)
    refused = [
        (name, info)
        for info in games().values()
        if info.name not in taken
        for name in names_of(info)
    ]
    assert refused
    for name, info in refused:
        result = invoke(command, name, *COMMAND_PROBES[command])
        assert result.exit_code == 2, result.output
        assert f"error: {command} does not take {info.name}; it takes: " in result.output, (
            result.output
        )


def game_help(command: str) -> str:
    result = invoke(command, "--help")
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


@pytest.mark.parametrize("command", ["play", "search"])
def test_play_and_search_list_only_beggar_my_neighbour(command):
    text = game_help(command)
    assert "beggar-my-neighbour (bmn, beggar)" in text
    for info in games().values():
        if info.name != "beggar-my-neighbour":
            assert info.name not in text, info.name


def test_replay_lists_only_the_games_that_replay():
    text = game_help("replay")
    for info in games().values():
        assert (info.label() in text) == ("replay" in info.spec.commands), info.name


def test_simulate_lists_every_game():
    text = game_help("simulate")
    for info in games().values():
        assert info.label() in text
