"""High card's compiled side: a chunk of deals as typed columns, then an Arrow table."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from simulate.core import arrow
from simulate.core.compiled.work_sharing import sharing
from simulate.core.rng import seed_key
from simulate.games.spec import Chunk

from .kernel import play_deals

END_NAMES = ("out", "draw")


class HighCardEngine:
    def play(self, request, seating, first: int, count: int, row: int) -> Chunk:
        players = request.players
        winner, end = np.empty(count, np.int8), np.empty(count, np.int8)
        ties, won = np.empty(count, np.int32), np.empty((count, players), np.int16)
        key0, key1 = seed_key(request.seed)
        play_deals(
            key0,
            key1,
            first,
            players,
            request.rules.aces_high,
            winner,
            end,
            ties,
            won,
            *sharing(),
        )
        columns = {
            "game": arrow.numeric(np.arange(first, first + count, dtype=np.int64)),
            "winner": arrow.numeric(winner),
            "end": arrow.dictionary(end, arrow.strings(END_NAMES)),
            "tricks": arrow.constant(52 // players, count, np.int32),
            "ties": arrow.numeric(ties),
        }
        for seat in range(players):
            columns[f"won_{seat}"] = arrow.numeric(won[:, seat])
        return Chunk(pa.table(columns))


ENGINE = HighCardEngine()
