"""``python -m simulate.app.bench --only runs`` times whole ``cardsim simulate`` runs."""

from __future__ import annotations

import re

import pytest

from simulate.app import bench


def test_whole_runs_prints_each_run_with_its_ratio(capsys):
    bench.whole_runs(games=2_000, repeats=1, cores=2)
    lines = capsys.readouterr().out.splitlines()
    rows = [line for line in lines if re.search(r"s \(\d\.\d\d\) +\d+\.\d\d$", line)]
    assert [row.split(" --games")[0] for row in rows] == [
        "pis-yedili --rule match_deals=none",
        "pis-yedili",
        "bmn",
    ]
    assert "--games 500" in rows[1]  # matches: a quarter as many, four deals each
    for row in rows:
        one, every = (float(wall) for wall in re.findall(r"(\d+\.\d\d) s", row))
        assert one > 0 and every > 0
        assert float(row.split()[-1]) == pytest.approx(one / every, rel=0.02)


@pytest.mark.xdist_group("cluster")
@pytest.mark.slow
def test_cluster_bench_prints_runs_overhead_and_bytes(capsys):
    """``--only cluster`` on a real dask scheduler and two workers started for it: both
    runs of each kind, the task overhead, and the bytes of a task's result, an
    aggregate-only task's far fewer than one with every record."""
    pytest.importorskip("distributed")
    from simulate.runs.cluster.bench import MODES, cluster_bench

    cluster_bench(20_000, 1, 2, bytes_games=8_192, empty_tasks=200)
    out = capsys.readouterr().out
    labels = [label for label, _, _ in MODES]
    rows = {label: line for line in out.splitlines() for label in labels if line.startswith(label)}
    for row in rows.values():
        one, many = (float(wall) for wall in re.findall(r"(\d+\.\d\d) s", row))
        assert float(row.split()[-1]) == pytest.approx(one / many, rel=0.02)
    assert sorted(rows) == sorted(labels)  # both writers and the aggregate-only run
    assert re.search(r"round trip: \d+\.\d ms", out)
    assert re.search(r"empty tasks completed per second, 200 submitted at once: [\d,]+\n", out)
    sizes = dict(re.findall(r"(Pis Yedili, 4 players, --records \w+) +([\d,]+) bytes", out))
    assert int(sizes["Pis Yedili, 4 players, --records none"].replace(",", "")) < int(
        sizes["Pis Yedili, 4 players, --records all"].replace(",", "")
    )
    staged = re.search(r"Pis Yedili, 4 players, --records all, staged +([\d,]+) bytes", out)
    assert int(staged.group(1).replace(",", "")) < 4_096  # manifest lines, not records


def test_against_a_checkout_pairs_bursts_of_each_kernel(capsys):
    """``--against PATH``: a kernel's bursts played by one process per tree in turn; this
    tree against itself, so every rate is positive and the row has its ratio within the
    runs' range. One kernel is played here; which kernels ``--only`` names is checked
    without playing them."""
    root = bench.Path(bench.__file__).resolve().parents[2]
    seconds = bench.paired_bursts([root, root], "bmn:2", burst=200, rounds=4)
    assert [len(times) for times in seconds] == [4, 4]
    assert all(time > 0 for times in seconds for time in times)
    kernels = bench.against_kernels("bmn", 4_000)
    assert kernels == [("bmn", 2, 4_000), ("bmn", 3, 4_000), ("bmn", 4, 4_000)]
    bench.against(str(root), kernels[2:], repeats=2, rounds=3)
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[2:]]
    assert [row[1] for row in rows] == ["4p"]
    for row in rows:
        ratio, low, high = float(row[4]), float(row[5].strip("[,")), float(row[6].strip("]"))
        assert low <= ratio <= high
        assert row[-1] == "200"  # a 20th of the games each burst


def test_against_times_each_kernel_that_only_names():
    shedding = bench.against_kernels("shedding", 4_000)
    assert shedding == [(name, players, 1_000) for name in bench.PRESETS for players in (2, 4)]
    assert bench.against_kernels(None, 4_000) == bench.against_kernels("bmn", 4_000) + shedding
    assert bench.against_kernels("runs", 4_000) == []
