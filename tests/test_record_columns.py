"""The record columns have one source, each game's spec: the records the engine writes have
exactly its columns and types, and the results-format document lists the same columns with
the same types and units."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import simulate
from analysis.load import load_run
from simulate.games.registry import resolve_game

DOC = Path(__file__).resolve().parents[1] / "docs" / "results-format.md"
SECTIONS = {
    ("beggar", "games"): "## games of Beggar-My-Neighbour",
    ("shedding", "games"): "## games of a shedding game",
    ("shedding", "matches"): "## matches (match play)",
}


def documented(heading: str) -> list[tuple[str, str, str]]:
    """``(column, type, unit)`` of the table under ``heading`` in the results format."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index(heading) :].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        match = re.match(r"\| `([^`]+)` \| ([^|]+?) \|\s*([^|]*?)\s*\|", line)
        if match:
            name, kind, unit = match.groups()
            rows.append((name, kind.replace("dictionary string", "dictionary<string>"), unit))
    return rows


@pytest.mark.parametrize(("family", "kind"), list(SECTIONS))
def test_the_document_lists_the_spec_columns(family, kind):
    game = {"beggar": "bmn", "shedding": "pis-yedili"}[family]
    spec = resolve_game(game).spec
    columns = spec.columns if kind == "games" else spec.match_columns
    assert documented(SECTIONS[family, kind]) == [(c.name, c.type, c.unit) for c in columns]


def _arrow_type(dtype) -> str:
    text = {"double": "float64", "float": "float32"}.get(str(dtype), str(dtype))
    return "dictionary<string>" if text.startswith("dictionary<values=string") else text


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("bmn", {"players": 3}),
        ("crazy-eights", {"players": 3, "rules": {"match_deals": None}}),
        ("pis-yedili", {"players": 3, "strategies": ["greedy"], "rotate_seats": True}),
    ],
)
def test_records_have_exactly_the_spec_columns_and_types(tmp_path, game, options):
    import pyarrow.parquet as pq

    from simulate.runs.folder.manifest import read_manifest

    simulate.run(game, games=60, seed=3, out=tmp_path / "run", **options)
    run = load_run(tmp_path / "run")
    spec, players = resolve_game(game).spec, run.players
    for kind, columns in (("games", spec.columns), ("matches", spec.match_columns)):
        parts = read_manifest(tmp_path / "run").parts(kind)
        if not parts:
            continue
        schema = pq.read_schema(tmp_path / "run" / parts[0].file)
        types = {c.name: c.type for c in columns}
        expected = [
            name
            for column in columns
            for name in column.names(players)
            if name in schema.names  # match play, rotation: columns only some runs have
        ]
        assert list(schema.names) == expected
        for field in schema:
            template = re.sub(r"_\d+$", "_<i>", field.name)
            assert _arrow_type(field.type) == types.get(field.name, types.get(template))
