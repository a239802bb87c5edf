"""``python -m simulate.bench --only runs`` times whole ``cardsim simulate`` runs."""

from __future__ import annotations

import re

import pytest

from simulate import bench


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
