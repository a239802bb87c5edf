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
    expected = [name for name in records.COLUMNS if "<i>" not in name]
    for per_seat in ("cards_left", "points", "score", "strategy"):
        expected += [f"{per_seat}_{seat}" for seat in range(3)]
    assert table.column_names == expected
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
