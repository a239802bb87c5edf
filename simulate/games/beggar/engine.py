"""Beggar-My-Neighbour's compiled side: chunks of deals, one given deal, a record hunt."""

from __future__ import annotations

import numpy as np

from ..spec import Chunk
from . import batch, records
from .deal import parse_deal
from .rules import END_NAMES


class BeggarEngine:
    """Plays Beggar-My-Neighbour deals (no decisions: a ``seating`` is empty)."""

    backends = ("cpu", "cuda")
    """Where :meth:`play` can play (``request.backend``); as the spec's ``backends``."""

    def play(self, request, seating: tuple, first: int, count: int, row: int) -> Chunk:
        log = max(0, min(getattr(request, "log", 0) - first, count))
        if getattr(request, "backend", "cpu") == "cuda":
            columns = _play_on_gpu(request, first, count, log)
        else:
            columns = batch.play_random(
                request.seed, first, count, request.players, request.rules, log=log
            )
        events = None
        if log:
            events = records.events_table(columns["event_games"], columns["events"])
        return Chunk(
            records.to_table(first, columns, request.players),
            events=events,
            trace=self.trace(request, seating, first, columns, count=request.trace - first),
        )

    def trace(self, request, seating: tuple, first: int, columns, *, count: int):
        """The win chances of deals ``first .. first + count - 1`` of ``request``
        (``columns``: their records, from deal ``first``, a table or the kernel's columns:
        their ``tricks`` and ``winner``), traced on the CPU whatever the backend, at
        ``request.rollouts``; None for none."""
        tricks = np.asarray(columns["tricks"])
        count = max(0, min(count, len(tricks)))
        if not count:
            return None
        from ...core.chances import trace_table

        starts, wins = batch.trace_random(
            request.seed,
            first,
            request.players,
            request.rules,
            tricks[:count],
            np.asarray(columns["winner"])[:count],
            rollouts=request.rollouts,
        )
        return trace_table(first, starts, wins)

    def device_chunk(self, request, seating: tuple, first: int, count: int):
        """:meth:`play`'s games played on the GPU, their records left in device memory: a
        :class:`~simulate.games.device_chunk.DeviceChunk`, which an aggregate-only run
        reduces there; or None, before playing anything, where the records go through the
        CPU: a CPU run, or logged games among these."""
        if (
            getattr(request, "backend", "cpu") != "cuda"
            or count < 1
            or max(getattr(request, "log", 0), getattr(request, "trace", 0)) > first
        ):
            return None
        from . import cuda_batch

        return cuda_batch.device_chunk(request.seed, first, count, request.players, request.rules)

    def play_given(self, rules, deal: str) -> dict:
        """How the deal string ``deal`` ends under ``rules``: ``cards``, ``tricks``,
        ``winner``, ``end``, ``cycle_cards``, ``cycle_tricks`` and ``held`` (each seat's
        cards at the end)."""
        return self._result(batch.play_hands([parse_deal(deal)], rules))

    @staticmethod
    def _result(columns: dict) -> dict:
        return {
            "cards": int(columns["cards"][0]),
            "tricks": int(columns["tricks"][0]),
            "winner": int(columns["winner"][0]),
            "end": END_NAMES[columns["end"][0]],
            "cycle_cards": int(columns["cycle_cards"][0]),
            "cycle_tricks": int(columns["cycle_tricks"][0]),
            "held": [int(held) for held in columns["held"][0]],
        }

    def play_traced(self, rules, deal: str, *, hands: bool = False) -> tuple[dict, list[str]]:
        """:meth:`play_given` with the deal's trick-by-trick text (from its kernel log)."""
        from .trace import tricks_text

        parsed = parse_deal(deal)
        columns, rows = batch.log_hands(parsed, rules)
        events = records.events_table(np.zeros(len(rows), np.int64), rows)
        lines = tricks_text(events, [len(hand) for hand in parsed], hands=hands)
        return self._result(columns), lines

    def log_one(self, request, game: int, *, rotation: int = 0, row: int = 0):
        """The events table of game ``game`` of ``request``, played again by the logging
        kernel (as ``--log`` writes it)."""
        columns = batch.play_random(request.seed, game, 1, request.players, request.rules, log=1)
        return records.events_table(columns["event_games"], columns["events"])

    def replay_text(self, request, events, *, header: str, hands: bool = False) -> str:
        """One logged game (its ``events`` table) trick by trick, under ``header``."""
        from .deal import deal_string
        from .trace import tricks_text

        game = events["game"][0].as_py() if events.num_rows else 0
        deal = deal_string(request.seed, game, request.players)
        lines = tricks_text(events, [len(hand) for hand in deal.split("/")], hands=hands)
        return "\n".join([header, f"deal: {deal}", *lines])

    def replay(
        self, request, *, game: int = 0, match: int | None = None, deal: int = 0, hands=False
    ) -> str:
        """Game ``game`` of ``request`` trick by trick (Beggar-My-Neighbour has no matches)."""
        from ...core.logs.header import header_line

        events = self.log_one(request, game)
        return self.replay_text(request, events, header=header_line(request, game), hands=hands)

    def outcome_text(self, result: dict) -> str:
        """:meth:`play_given`'s result in words."""
        return outcome_text(result)


def _play_on_gpu(request, first: int, count: int, log: int) -> dict:
    """:func:`.batch.play_random`'s columns with the games played on the GPU, but for the
    first ``log`` (logged games are played on the CPU: the GPU kernel keeps no log)."""
    from . import cuda_batch

    rest = cuda_batch.play_random(
        request.seed, first + log, count - log, request.players, request.rules
    )
    if not log:
        return rest
    logged = batch.play_random(request.seed, first, log, request.players, request.rules, log=log)
    columns = {name: np.concatenate([logged[name], rest[name]]) for name in rest}
    columns["events"], columns["event_games"] = logged["events"], logged["event_games"]
    return columns


def outcome_text(result: dict) -> str:
    """One deal's outcome (:meth:`BeggarEngine.play_given`) in words."""
    played = f"{_count(result['cards'], 'card')} and {_count(result['tricks'], 'trick')}"
    holdings = ", ".join(f"seat {seat} {count}" for seat, count in enumerate(result["held"]))
    if result["end"] == "out":
        return f"Seat {result['winner']} wins after {played}."
    if result["end"] == "cycle":
        return (
            f"The deal never ends: after {played} the position repeats the one "
            f"{_count(result['cycle_tricks'], 'trick')} ({_count(result['cycle_cards'], 'card')}) "
            f"earlier, so play loops forever (cards held: {holdings})."
        )
    who = (
        "no single seat holds the most"
        if result["winner"] < 0
        else f"seat {result['winner']} holds the most and wins"
    )
    return f"Time limit: stopped after {played}; {who} (cards held: {holdings})."


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


ENGINE = BeggarEngine()
