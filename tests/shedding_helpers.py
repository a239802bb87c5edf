"""Shared helpers for the shedding-game tests: kernel records as reference records."""

from simulate.games.shedding import reference

EVERY_STRATEGY = (
    "random",
    "uniform",
    "first",
    "greedy",
    "hold-wilds",
    "attack",
    "weighted:points=-1,wild=3,action=2,draw=1,again=-4,suit_left=0.5,rank_left=-1",
)
"""One of each kind of strategy (a weighted one with every feature)."""


def kernel_records(columns) -> list[reference.SheddingRecord]:
    """The kernel's columns as reference records."""
    seats = ("cards_left", "points", "score")
    rows = {key: value.tolist() for key, value in columns.items()}
    return [
        reference.SheddingRecord(
            winner=rows["winner"][i],
            end=reference.END_REASONS[rows["end"][i]],
            turns=rows["turns"][i],
            plays=rows["plays"][i],
            draws=rows["draws"][i],
            passes=rows["passes"][i],
            wilds=rows["wilds"][i],
            reshuffles=rows["reshuffles"][i],
            finish_rank=rows["finish_rank"][i],
            first_seat=rows["first_seat"][i],
            lead_changes=rows["lead_changes"][i],
            winner_behind=rows["winner_behind"][i],
            **{key: tuple(rows[key][i]) for key in seats},
        )
        for i in range(len(rows["winner"]))
    ]
