"""The shedding games' compiled side: a chunk of games or matches played by the kernels."""

from __future__ import annotations

import numpy as np

from ...core.errors import CardsimError
from ..spec import Chunk
from . import batch, records


class SheddingEngine:
    """Plays shedding games with the seats' strategies (``seating``: strategy specs)."""

    backends = ("cpu", "cuda")
    """Where :meth:`play` can play (``request.backend``); as the spec's ``backends``."""

    def play(self, request, seating: tuple, first: int, count: int, row: int) -> Chunk:
        names = [str(spec) for spec in seating]
        log = max(0, min(getattr(request, "log", 0) - first, count))
        games = batch
        if getattr(request, "backend", "cpu") == "cuda":
            from . import cuda_batch as games  # the same functions, played on the GPU
        if request.match_play:
            columns, matches = games.play_match_batch(
                request.rules, request.players, list(seating), request.seed, first, count, log=log
            )
            return Chunk(
                records.to_table(row, columns, names, request.strategies),
                records.matches_table(matches, names, request.strategies),
                events=_match_events(columns, row) if log else None,
                trace=self._match_trace(request, seating, row, columns),
            )
        columns = games.play_random(
            request.rules, request.players, list(seating), request.seed, first, count, log=log
        )
        events = None
        if log:
            events = records.events_table(columns["event_games"], columns["events"])
        return Chunk(
            records.to_table(first, columns, names, request.strategies),
            events=events,
            trace=self.trace(request, seating, first, columns, count=request.trace - first),
        )

    def trace(self, request, seating: tuple, first: int, columns, *, count: int):
        """The win chances of games ``first .. first + count - 1`` of ``request`` with the
        seats' strategies ``seating`` (``columns``: their records, from game ``first``, a
        table or the kernel's columns: their ``turns``), traced on the CPU whatever the
        backend, at ``request.rollouts`` (:data:`simulate.core.chances.COLUMNS`); None for
        none."""
        turns = np.asarray(columns["turns"])
        count = max(0, min(count, len(turns)))
        if not count:
            return None
        from ...core.chances import trace_table

        starts, wins = batch.trace_random(
            request.rules,
            request.players,
            list(seating),
            request.seed,
            first,
            turns[:count],
            rollouts=request.rollouts,
        )
        return trace_table(first, starts, wins)

    def _match_trace(self, request, seating: tuple, row: int, columns: dict):
        """The win chances of the traced matches' deals (every deal of the run's first
        ``request.trace`` matches) among a match batch's deals (``columns``, whose first
        deal's record is ``row``): ``game`` the deal's row, with ``match`` and ``deal``."""
        traced = np.flatnonzero(columns["match"] < request.trace)
        if not len(traced):
            return None
        from ...core.chances import trace_table

        keys = {"match": columns["match"][traced], "deal": columns["deal"][traced]}
        starts, wins = batch.trace_random(
            request.rules,
            request.players,
            list(seating),
            request.seed,
            0,
            columns["turns"][traced],
            rollouts=request.rollouts,
            deals=np.stack([keys["match"], keys["deal"]], axis=1),
        )
        return trace_table(row + traced, starts, wins, keys)

    def device_chunk(self, request, seating: tuple, first: int, count: int):
        """:meth:`play`'s games played on the GPU, their records left in device memory: a
        :class:`~simulate.games.device_chunk.DeviceChunk`, which an aggregate-only run
        reduces there; or None, before playing anything, where the records go through the
        CPU: a CPU run, match play, or logged games among these."""
        cuda = getattr(request, "backend", "cpu") == "cuda"
        logged = max(getattr(request, "log", 0), getattr(request, "trace", 0)) > first
        if not cuda or request.match_play or count < 1 or logged:
            return None
        from . import cuda_batch

        return cuda_batch.device_chunk(
            request.rules,
            request.players,
            list(seating),
            request.seed,
            first,
            count,
            request.strategies,
        )

    def log_one(self, request, game: int, *, rotation: int = 0, row: int = 0, deal=None):
        """The events table of game ``game`` of ``request`` (a request of one seating), or
        with ``deal`` of deal ``deal`` of match ``game`` (its ``game`` column ``row``),
        played again by the logging kernel (as ``--log`` writes it)."""
        seating = list(request.specs) or list(request.strategies)
        if deal is None:
            columns = batch.play_random(
                request.rules, request.players, seating, request.seed, game, 1, log=1
            )
            return records.events_table(columns["event_games"], columns["events"])
        columns, _ = batch.play_match_batch(
            request.rules, request.players, seating, request.seed, game, 1, log=1
        )
        import pyarrow.compute as pc

        events = _match_events(columns, row - deal)
        deals = int(pc.max(events["deal"]).as_py()) + 1 if events.num_rows else 0
        if not 0 <= deal < deals:
            raise CardsimError(
                f"match {game:,} has {deals} deals, numbered from 0; --deal {deal} is not one"
            )
        return events.filter(pc.equal(events["deal"], deal))

    def replay_text(self, request, events, *, header: str, hands: bool = False) -> str:
        """One logged game (its ``events`` table) turn by turn, under ``header``."""
        from .trace import game_text

        return "\n".join([header, *game_text(request, events, hands=hands)])

    def replay(
        self, request, *, game: int = 0, match: int | None = None, deal: int = 0, hands=False
    ) -> str:
        """Game ``game`` of ``request`` (or deal ``deal`` of match ``match``) turn by turn,
        from the logging kernel's events (the text a run folder's log gives)."""
        from ...core.logs.header import header_line

        if match is None:
            events = self.log_one(request, game)
            which = f"game {game}"
        else:
            events = self.log_one(request, match, deal=deal)
            which = f"match {match}, deal {deal}"
        header = header_line(request, which)
        return self.replay_text(request, events, header=header, hands=hands)


def _match_events(columns: dict, row: int):
    """The events of a match batch's logged deals (``columns`` of
    :func:`.batch.play_match_batch`), ``game`` numbered from ``row`` (the first deal's)."""
    deal_rows = columns["event_rows"]
    keys = {
        "match": columns["match"][deal_rows],
        "deal": columns["deal"][deal_rows].astype(np.int32),
    }
    return records.events_table(row + deal_rows, columns["events"], keys)


ENGINE = SheddingEngine()
