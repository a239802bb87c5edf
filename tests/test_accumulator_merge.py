"""Each accumulator owns its reduction: fed a run's records in parts, each part to its own
accumulator, and merged in game order (in any grouping), it holds what one pass over every
record gives. Cuts fall anywhere, inside a batch and inside a cluster of skill games."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import analysis
import simulate
from analysis.balance import BalanceCounts, SkillCounts, lead_of
from analysis.reports.scores import OthersByFinish
from analysis.statistics.convergence import Convergence
from analysis.statistics.tally import (
    FirstRows,
    LabelCounts,
    Longest,
    RowSums,
    Values,
    WinCounts,
    where_in,
    where_not,
)
from simulate.games.registry import resolve_game
from simulate.runs.folder.batch import from_record_batch

PLAYERS = 3


@pytest.fixture(scope="module")
def shedding() -> pa.Table:
    """Pis Yedili match play in every seating: clusters of many records (a match's deals
    in each rotation), a finishing multiplier, the balance measures' columns."""
    run = simulate.simulate(
        "pis-yedili", players=PLAYERS, games=400, seed=11, rotate_seats=True, threads=1
    )
    return pa.Table.from_pandas(run.games, preserve_index=False)


@pytest.fixture(scope="module")
def beggar() -> pa.Table:
    run = simulate.simulate("beggar-my-neighbour", players=2, games=1500, seed=5, threads=1)
    return pa.Table.from_pandas(run.games, preserve_index=False)


def shedding_accumulators(table: pa.Table) -> list:
    columns = table.column_names
    scores = [f"score_{seat}" for seat in range(PLAYERS)]
    lead = lead_of(columns, {})
    out = where_in("end", ["out"])
    return [
        WinCounts(PLAYERS, "first_seat"),
        WinCounts(PLAYERS),
        LabelCounts("end"),
        LabelCounts("finish_rank", out, needs=("end",)),
        Values("turns"),
        Values("turns", out, needs=("end",)),
        RowSums(scores),
        Longest(7, "turns", ("match", "deal", "rotation", "winner", "end")),
        FirstRows(9, ("turns", "winner"), where_in("end", ["stock_out"]), needs=("end",)),
        Convergence(table.num_rows, PLAYERS, "turns", lead="first_seat"),
        BalanceCounts(resolve_game("pis-yedili").spec, PLAYERS, columns, lead),
        SkillCounts(columns),
        OthersByFinish(PLAYERS, {"7": 3, "J": 2}),
    ]


def beggar_accumulators(table: pa.Table) -> list:
    ended = where_not("end", ["cycle"])
    return [
        WinCounts(2),
        Values("cards", ended, needs=("end",)),
        Longest(5, "cards", ("tricks", "winner", "end"), ended, needs=("end",)),
        FirstRows(4, ("cards", "tricks"), lambda batch: batch["winner"] == 1),
        Convergence(table.num_rows, 2, "cards", ended, needs=("end",)),
        BalanceCounts(resolve_game("beggar-my-neighbour").spec, 2, table.column_names, lead=None),
    ]


def fed(accumulators: list, table: pa.Table, start: int, stop: int, size: int) -> list:
    """``accumulators`` fed the records ``start:stop`` in batches of ``size``."""
    for at in range(start, stop, size):
        part = table.slice(at, min(size, stop - at)).combine_chunks().to_batches()[0]
        batch = from_record_batch(part, at)
        for accumulator in accumulators:
            accumulator.update(batch)
    return accumulators


def state(accumulator) -> object:
    """What the reports read of an accumulator."""
    match accumulator:
        case WinCounts():
            return accumulator.n, accumulator.seats.tolist(), _list(accumulator.positions)
        case LabelCounts():
            return list(accumulator.counts.items())
        case Values() | RowSums():
            return accumulator.dist.values.tolist(), accumulator.dist.counts.tolist()
        case Longest():
            return accumulator.rows.astype(str).to_dict("list")
        case FirstRows():
            return accumulator.count, accumulator.rows.astype(str).to_dict("list")
        case Convergence():
            return accumulator.table().to_dict("list")
        case BalanceCounts():
            a = accumulator
            return (
                a.n,
                a.wins.tolist(),
                a.decided,
                a.lengths.values.tolist(),
                a.lengths.counts.tolist(),
                a.leads.values.tolist(),
                a.leads.counts.tolist(),
                a.comebacks,
            )
        case SkillCounts():
            return accumulator.estimate(), accumulator.totals().tolist()
        case OthersByFinish():
            return accumulator.table().to_dict("list")
    raise AssertionError(f"no state read for {type(accumulator).__name__}")


def _list(values):
    return None if values is None else values.tolist()


CASES = {"shedding": shedding_accumulators, "beggar": beggar_accumulators}


@pytest.mark.parametrize("game", CASES)
@pytest.mark.parametrize("cuts", [(1, 2, 3), (137, 611, 1499), (5, 1004, 1005)])
def test_parts_merged_in_order_equal_one_pass(request, game, cuts):
    table = request.getfixturevalue(game)
    build = CASES[game]
    whole = fed(build(table), table, 0, table.num_rows, 500)
    bounds = [0, *cuts, table.num_rows]
    parts = [
        fed(build(table), table, start, stop, 113)
        for start, stop in zip(bounds, bounds[1:], strict=False)
    ]
    # ((p0 + p1) + (p2 + p3)): merging is associative, not only a left fold
    for left, right in ((0, 1), (2, 3), (0, 2)):
        for mine, theirs in zip(parts[left], parts[right], strict=True):
            mine.merge(theirs)
    for one, merged in zip(whole, parts[0], strict=True):
        assert _equal(state(merged), state(one)), type(one).__name__


def _equal(a, b) -> bool:
    """Equal, NaN equal to NaN (an interval of fewer than two clusters)."""
    return pd.Series([repr(a)]).equals(pd.Series([repr(b)]))


def test_the_skill_cluster_cut_between_parts_counts_once(shedding):
    """A match's records split between two parts: merged, one cluster, not two."""
    key = np.asarray(shedding.column("match"))
    middle = int(np.flatnonzero(key == key[len(key) // 2])[1])  # inside a cluster
    whole = fed([SkillCounts(shedding.column_names)], shedding, 0, shedding.num_rows, 64)[0]
    first = fed([SkillCounts(shedding.column_names)], shedding, 0, middle, 64)[0]
    second = fed([SkillCounts(shedding.column_names)], shedding, middle, shedding.num_rows, 64)
    first.merge(second[0])
    assert first.estimate() == whole.estimate()
    assert first.totals()[0] == len(np.unique(key))


def test_every_accumulator_in_analysis_merges_and_is_checked_here():
    """An accumulator added later (a class with ``update`` and ``columns``) must merge, and
    this module's cases must cover it."""
    found = set()
    for info in pkgutil.walk_packages(analysis.__path__, "analysis."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__ and callable(getattr(cls, "update", None)):
                found.add(cls)
    assert found, "no accumulator found"
    for cls in found:
        assert callable(getattr(cls, "merge", None)), f"{cls.__name__} has no merge"
    covered = {type(a) for build in CASES.values() for a in build(_fake())}
    assert found <= covered, sorted(c.__name__ for c in found - covered)


def _fake() -> pa.Table:
    """Columns enough to build every accumulator (no record is fed)."""
    names = ["game", "winner", "end", "turns", "first_seat", "rotation", "match", "cards"]
    return pa.table({name: pa.array([], pa.int64()) for name in names})
