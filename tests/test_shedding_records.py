"""Shedding-game records: the Arrow/Parquet columns built from raw columns."""

import pyarrow as pa
import pyarrow.parquet as pq

from simulate.games.shedding import records, reference
from simulate.games.shedding.rules import preset


def test_records_table_has_every_documented_column(tmp_path):
    strategies = ["random", "first", "uniform"]
    rules = preset("crazy-eights").with_overrides({"max_plays": 12})
    games = [reference.play(rules, 3, strategies, 5, game) for game in range(60)]
    table = records.to_table(100, records.reference_columns(games), strategies)
    match_only = ("match", "deal")
    expected = [name for name in records.COLUMNS if "<i>" not in name and name not in match_only]
    for per_seat in ("cards_left", "points", "score", "strategy"):
        expected += [f"{per_seat}_{seat}" for seat in range(3)]
    assert table.column_names == expected
    columns = records.reference_columns(games)
    columns.update(match=[7] * 60, deal=list(range(60)))
    assert records.to_table(0, columns, strategies).column_names == [*expected, *match_only]
    pq.write_table(table, tmp_path / "games.parquet")
    frame = pq.read_table(tmp_path / "games.parquet").to_pandas()
    assert frame["game"].tolist() == list(range(100, 160))
    for row, game in zip(frame.itertuples(), games, strict=True):
        assert (row.winner, row.end, row.turns, row.plays) == (
            game.winner,
            game.end,
            game.turns,
            game.plays,
        )
        assert (row.cards_left_1, row.points_2, row.score_0) == (
            game.cards_left[1],
            game.points[2],
            game.score[0],
        )
        if game.finish_rank < 0:
            assert row.finish_rank != row.finish_rank  # missing
        else:
            assert row.finish_rank == "A 2 3 4 5 6 7 8 9 10 J Q K".split()[game.finish_rank]
    assert set(frame["end"]) <= set(records.END_REASONS)
    assert "play_cap" in set(frame["end"])
    assert frame["strategy_2"].unique().tolist() == ["uniform"]
    assert pa.types.is_dictionary(table.schema.field("end").type)


def test_matches_table_has_every_documented_column():
    import numpy as np

    matches = {
        "match": np.array([3, 4]),
        "deals": np.array([4, 4]),
        "totals": np.array([[10, 0], [5, 5]]),
        "share": np.array([[0.0, 1.0], [0.5, 0.5]]),
    }
    table = records.matches_table(matches, ["greedy", "random"])
    expected = []
    for name in records.MATCH_COLUMNS:
        expected += [name.replace("<i>", str(s)) for s in range(2)] if "<i>" in name else [name]
    assert table.column_names == expected
    assert table["share_1"].to_pylist() == [1.0, 0.5]
    assert table["strategy_0"].to_pylist() == ["greedy", "greedy"]
