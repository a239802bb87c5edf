"""Shared helpers for the Beggar-My-Neighbour tests: kernel records as reference records."""

from simulate.games.beggar.batch import play_hands, play_random
from simulate.games.beggar.reference import BeggarRecord
from simulate.games.beggar.rules import END_NAMES


def kernel_records(columns) -> list[BeggarRecord]:
    """The kernel's raw columns as a list of reference-style records."""
    return [
        BeggarRecord(
            cards=int(columns["cards"][i]),
            tricks=int(columns["tricks"][i]),
            winner=int(columns["winner"][i]),
            end=END_NAMES[columns["end"][i]],
            cycle_cards=int(columns["cycle_cards"][i]),
            cycle_tricks=int(columns["cycle_tricks"][i]),
            cards_held=tuple(int(x) for x in columns["held"][i]),
            lead_changes=int(columns["lead_changes"][i]),
            winner_behind=int(columns["winner_behind"][i]),
        )
        for i in range(len(columns["cards"]))
    ]


def kernel_play(hands, rules) -> BeggarRecord:
    return kernel_records(play_hands([hands], rules))[0]


def kernel_random(seed, first, count, players, rules) -> list[BeggarRecord]:
    return kernel_records(play_random(seed, first, count, players, rules))
