"""Beggar-My-Neighbour in bulk: the compiled kernel behind numpy-in, columns-out calls."""

from __future__ import annotations

import numpy as np

from ...compiled.work_sharing import sharing
from ...rng import seed_key
from .deal import DECK_SIZE
from .kernel import BLOCK, Outputs, Run, Table, play_given_deals, play_random_deals
from .rules import MAX_PLAYERS, BeggarRules


def _empty_outputs(count: int, players: int) -> Outputs:
    return Outputs(
        cards=np.zeros(count, np.int32),
        tricks=np.zeros(count, np.int32),
        winner=np.zeros(count, np.int8),
        end=np.zeros(count, np.int8),
        cycle_cards=np.zeros(count, np.int32),
        cycle_tricks=np.zeros(count, np.int32),
        held=np.zeros((count, players), np.int8),
        lead_changes=np.zeros(count, np.int32),
        winner_behind=np.zeros(count, np.int32),
    )


def play_random(seed: int, first_game: int, count: int, players: int, rules: BeggarRules):
    """Deal and play games ``first_game .. first_game+count-1`` of the run with this seed.

    Returns raw columns: ``cards``, ``tricks``, ``cycle_cards``, ``cycle_tricks`` int32[count],
    ``lead_changes``, ``winner_behind`` int32[count], ``winner``, ``end`` (codes into
    ``END_NAMES``) int8[count], ``held`` int8[count, players].
    """
    key0, key1 = seed_key(seed)
    out = _empty_outputs(count, players)
    table = Table(players, rules.to_vector())
    play_random_deals(table, Run(key0, key1, first_game), out, *sharing(block=BLOCK, games=count))
    return out._asdict()


def play_hands(deals: list[list[list[int]]], rules: BeggarRules):
    """Play given deals (each a list of hands of kinds, all with the same number of seats)."""
    players = len(deals[0])
    hands = np.zeros((len(deals), MAX_PLAYERS, DECK_SIZE), np.int8)
    lengths = np.zeros((len(deals), MAX_PLAYERS), np.int64)
    for g, deal in enumerate(deals):
        for seat, hand in enumerate(deal):
            hands[g, seat, : len(hand)] = hand
            lengths[g, seat] = len(hand)
    out = _empty_outputs(len(deals), players)
    play_given_deals(Table(players, rules.to_vector()), hands, lengths, out)
    return out._asdict()
