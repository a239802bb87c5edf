"""Golden records: every committed small run (tests/golden/) is played again and must give the
same records, row by row and column by column.

The committed files hold the columns the records had when they were made; a run may have
more columns now (later additions), which are ignored. Each committed column must be in the
new records with the same dtype and the same values in the same row order; a categorical
(dictionary) column must hold the same values (as strings) and the same categories in the
same order. The same holds for the matches table in match play. To change the records on
purpose, regenerate with ``python tests/golden/make_golden.py`` (see tests/golden/README.md).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from golden.cases import CASES, FOLDER, case_json, games_path, matches_path, run_case


def _strings(series: pd.Series) -> list[str | None]:
    return [None if pd.isna(value) else str(value) for value in series.tolist()]


def _first_difference(golden: list, new: list) -> str:
    for row, (g, n) in enumerate(zip(golden, new, strict=True)):
        if g != n and not (g is None and n is None):
            return f"row {row}: committed {g!r}, now {n!r}"
    return "no differing row"


def _column_problem(column: str, golden: pd.Series, new: pd.Series) -> str | None:
    """What differs in ``column`` between the committed and the new records, or None."""
    if isinstance(golden.dtype, pd.CategoricalDtype):
        if not isinstance(new.dtype, pd.CategoricalDtype):
            return f"{column}: committed categorical, now {new.dtype}"
        g_categories = [str(c) for c in golden.cat.categories]
        n_categories = [str(c) for c in new.cat.categories]
        if n_categories != g_categories:
            return f"{column}: categories committed {g_categories}, now {n_categories}"
        if new.cat.ordered != golden.cat.ordered:
            return f"{column}: ordered committed {golden.cat.ordered}, now {new.cat.ordered}"
        g_values, n_values = _strings(golden), _strings(new)
        if n_values != g_values:
            return f"{column}: values differ, {_first_difference(g_values, n_values)}"
        return None
    if str(new.dtype) != str(golden.dtype):
        return f"{column}: dtype committed {golden.dtype}, now {new.dtype}"
    g_array, n_array = golden.to_numpy(), new.to_numpy()
    if not np.array_equal(g_array, n_array, equal_nan=golden.dtype.kind == "f"):
        differing = np.flatnonzero(~((g_array == n_array) | (pd.isna(g_array) & pd.isna(n_array))))
        row = int(differing[0])
        return (
            f"{column}: values differ in {len(differing)} rows, first row {row}: "
            f"committed {g_array[row]!r}, now {n_array[row]!r}"
        )
    return None


def assert_same_records(golden: pd.DataFrame, new: pd.DataFrame, what: str) -> None:
    """``new`` holds ``golden``'s records: same rows in the same order, and for each of
    ``golden``'s columns the same dtype and values (extra columns in ``new`` are ignored)."""
    assert len(new) == len(golden), f"{what}: {len(golden)} rows committed, now {len(new)}"
    missing = [column for column in golden.columns if column not in new.columns]
    assert not missing, f"{what}: columns missing now: {missing}"
    new = new.reset_index(drop=True)
    golden = golden.reset_index(drop=True)
    problems = [
        problem
        for column in golden.columns
        if (problem := _column_problem(column, golden[column], new[column])) is not None
    ]
    assert not problems, f"{what} differ from the committed records:\n" + "\n".join(problems)


def _read_golden(path, case: dict) -> pd.DataFrame:
    assert path.is_file(), f"{path.name} missing: run python tests/golden/make_golden.py"
    stored = (pq.read_schema(path).metadata or {}).get(b"golden_case")
    assert stored is not None and json.loads(stored) == json.loads(case_json(case)), (
        f"{path.name} was made for another case than cases.py's {case['name']!r}: "
        "regenerate it with python tests/golden/make_golden.py (if the change is meant)"
    )
    return pd.read_parquet(path)


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_records_unchanged(case, tmp_path):
    games, matches = run_case(case, tmp_path / "run")
    assert_same_records(_read_golden(games_path(case), case), games, f"{case['name']}: games")
    golden_matches = matches_path(case)
    if golden_matches.exists():
        assert matches is not None, f"{case['name']}: committed matches, but the run has none"
        assert_same_records(_read_golden(golden_matches, case), matches, f"{case['name']}: matches")
    else:
        assert matches is None, f"{case['name']}: the run has matches, but none are committed"


def test_every_golden_file_belongs_to_a_case():
    expected = {games_path(case).name for case in CASES} | {
        matches_path(case).name for case in CASES if matches_path(case).exists()
    }
    found = {path.name for path in FOLDER.glob("*.parquet")}
    assert found == expected, f"stray or missing golden files: {sorted(found ^ expected)}"


def test_cases_cover_what_they_promise():
    names = [case["name"] for case in CASES]
    assert len(names) == len(set(names)), "case names must be unique"
    bmn = {c["players"] for c in CASES if c["game"] == "beggar-my-neighbour"}
    assert bmn == {2, 3, 4}
    shedding = [c for c in CASES if c["game"] != "beggar-my-neighbour"]
    assert {c["game"] for c in shedding} == {
        "pis-yedili",
        "crazy-eights",
        "crazy-eights-plain",
        "openspiel",
    }
    assert {c["players"] for c in shedding} >= {2, 3, 4, 5, 6}
    specs = [spec for c in shedding for spec in c["strategies"] or ["random"]]
    named = {spec.split(":", 1)[0] for spec in specs}
    assert named >= {"random", "uniform", "first", "greedy", "hold-wilds", "attack", "weighted"}
    assert any("forget=" in spec for spec in specs)
    assert any(c["rotate_seats"] for c in CASES)
    assert any(matches_path(c).exists() for c in CASES)
