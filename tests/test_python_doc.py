"""docs/python.md runs from top to bottom: its Python examples, in the page's order, in one
namespace, in a fresh folder that holds the project's ``studies/`` (the page's examples run
from the project's folder). Every number of games and every budget is capped (:data:`CAPS`)
so that the page runs in seconds; everything else is the page's code as written, so a
folder that no earlier example creates, a name that none defines or a run folder written
twice fails here."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "python.md"

#: The most games (deals or matches) and the largest budget (deals) an example plays here.
CAPS = {"games": 1_500, "budget": 60_000}


def examples() -> list[tuple[int, str]]:
    """The page's Python examples: (line of the fence, code), in the page's order."""
    text = PAGE.read_text("utf-8")
    return [
        (text.count("\n", 0, m.start()) + 1, m.group(1))
        for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M)
    ]


def capped(code: str) -> str:
    """``code`` with every ``games=N`` and ``budget=N`` argument capped at :data:`CAPS`."""
    return re.sub(
        r"\b(games|budget)=(\d[\d_]*)\b",
        lambda m: f"{m[1]}=min({m[2]}, {CAPS[m[1]]})",
        code,
    )


def test_the_page_has_its_examples():
    found = examples()
    assert len(found) >= 14 and all(code.strip() for _, code in found)
    assert "games=min(100_000, 1500)" in capped('simulate.run("bmn", games=100_000)')


@pytest.mark.slow
def test_the_python_page_runs_top_to_bottom(tmp_path, monkeypatch):
    shutil.copytree(ROOT / "studies", tmp_path / "studies")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__python_doc__"}
    for line, code in examples():
        try:
            exec(compile(capped(code), f"docs/python.md:{line}", "exec"), namespace)
        except Exception as exc:  # noqa: BLE001 (named with the example's line)
            pytest.fail(f"the example at docs/python.md line {line} fails: {exc!r}")
        finally:
            plt.close("all")
    assert (tmp_path / "convergence.png").is_file()
    results = tmp_path / "results"
    for folder in ("bmn", "first-doubling", "balance-py4", "adding", "doubling", "tournament"):
        assert (results / folder / "run.json").is_file() or (results / folder).is_dir(), folder
    assert (results / "mine" / "explore.csv").is_file()
    assert (results / "c8-balance" / "balance.csv").is_file()
