"""Shared helpers for the shedding-game tests: kernel records as reference records."""

from differential.shedding_grid import EVERY_STRATEGY  # noqa: F401 (shared by the tests)

from simulate.games.shedding import reference


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
            decisions=rows["decisions"][i],
            forced=rows["forced"][i],
            options=rows["options"][i],
            **{key: tuple(rows[key][i]) for key in seats},
        )
        for i in range(len(rows["winner"]))
    ]
