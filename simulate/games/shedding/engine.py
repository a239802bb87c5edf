"""The shedding games' compiled side: a chunk of games or matches played by the kernels."""

from __future__ import annotations

from ..spec import Chunk
from . import batch, records


class SheddingEngine:
    """Plays shedding games with the seats' strategies (``seating``: strategy specs)."""

    def play(self, request, seating: tuple, first: int, count: int, row: int) -> Chunk:
        names = [str(spec) for spec in seating]
        if request.match_play:
            columns, matches = batch.play_match_batch(
                request.rules, request.players, list(seating), request.seed, first, count
            )
            return Chunk(
                records.to_table(row, columns, names, request.strategies),
                records.matches_table(matches, names, request.strategies),
            )
        columns = batch.play_random(
            request.rules, request.players, list(seating), request.seed, first, count
        )
        return Chunk(records.to_table(first, columns, names, request.strategies))

    def replay(self, request, *, game: int = 0, match: int | None = None, deal: int = 0) -> str:
        """Game ``game`` of ``request`` (or deal ``deal`` of match ``match``) turn by turn,
        played by the readable reference from the run's random stream, then its record."""
        from . import reference

        names = list(request.strategies)
        lines: list[str] = []
        if match is None:
            record = reference.play(
                request.rules, request.players, names, request.seed, game, trace=lines
            )
            which = f"game {game}"
        else:
            record = reference.play_deal(
                request.rules, request.players, names, request.seed, match, deal, trace=lines
            )
            which = f"match {match}, deal {deal}"
        winner = "no winner" if record.winner < 0 else f"seat {record.winner} wins"
        header = (
            f"{request.game.name}, {request.players} players ({', '.join(names)}), "
            f"seed {request.seed}, {which}"
        )
        summary = (
            f"end: {record.end}, {winner}; {record.turns} turns, {record.plays} plays, "
            f"{record.draws} cards drawn, {record.passes} passes, {record.wilds} suits named, "
            f"{record.reshuffles} reshuffles; cards left {list(record.cards_left)}, "
            f"points {list(record.points)}, scores {list(record.score)}"
        )
        return "\n".join([header, *lines, summary])

    def tune(self, game: str, **options):
        """Weighted strategies' weights searched against opponents (:func:`.tune.tune`)."""
        from .tune import tune

        return tune(game, **options)


ENGINE = SheddingEngine()
