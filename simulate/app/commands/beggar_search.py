"""``cardsim search`` for Beggar-My-Neighbour (its spec's ``search_path``): record hunting,
the longest deals of many random ones, and any that never end."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...games.beggar.deal import deal_string
from ...games.spec import Chunk
from ...runs.request import Request
from ..api.playing import stream

MAX_CYCLES_KEPT = 1000


@dataclass
class Found:
    """The longest terminating deals and the non-terminating ones of a search."""

    request: Request
    top: int
    longest: list[tuple[int, int, int, int, str]] = field(default_factory=list)
    """(cards, tricks, game, winner, end) of the longest deals, longest first."""
    cycles: list[tuple[int, int, int, int]] = field(default_factory=list)
    """(game, cards, cycle_cards, cycle_tricks) of non-terminating deals, in game order."""
    cycle_count: int = 0

    def add(self, chunk: Chunk) -> None:
        """Take in one chunk of records."""
        table = chunk.games
        games = table["game"].to_numpy()
        cards = table["cards"].to_numpy()
        end = table["end"].combine_chunks()
        codes = end.indices.to_numpy()
        names = end.dictionary.to_pylist()
        is_cycle = codes == names.index("cycle")
        cyc = np.flatnonzero(is_cycle)
        self.cycle_count += len(cyc)
        cycle_cards, cycle_tricks = (
            table["cycle_cards"].to_numpy(),
            table["cycle_tricks"].to_numpy(),
        )
        for i in cyc[: max(0, MAX_CYCLES_KEPT - len(self.cycles))]:
            self.cycles.append(
                (int(games[i]), int(cards[i]), int(cycle_cards[i]), int(cycle_tricks[i]))
            )
        ended = np.flatnonzero(~is_cycle)
        # The longest, ties to the lowest game: the same deals however the run is chunked
        # (a cluster's tasks are cut otherwise than this machine's chunks).
        ended = ended[np.lexsort((games[ended], -cards[ended]))[: self.top]]
        tricks, winners = table["tricks"].to_numpy(), table["winner"].to_numpy()
        merged = self.longest + [
            (int(cards[i]), int(tricks[i]), int(games[i]), int(winners[i]), names[codes[i]])
            for i in ended
        ]
        merged.sort(key=lambda row: (-row[0], row[2]))
        self.longest = merged[: self.top]

    def text(self) -> str:
        r = self.request
        lines = [
            f"{r.game.title}, {r.players} players: {r.games:,} random deals, seed {r.seed}",
            "",
            f"The {len(self.longest)} longest deals that end:",
            f"{'cards':>6} {'tricks':>6} {'game':>10} {'winner':>6}  deal",
        ]
        for cards, tricks, game, winner, end in self.longest:
            note = "" if end == "out" else f"  ({end})"
            lines.append(
                f"{cards:>6} {tricks:>6} {game:>10} {winner:>6}  "
                f"{deal_string(r.seed, game, r.players)}{note}"
            )
        lines.append("")
        if not self.cycle_count:
            lines.append("No deal that never ends was found.")
        else:
            lines.append(f"{self.cycle_count:,} deals never end (state repeats):")
            lines.append(f"{'cards':>6} {'loop':>6} {'tricks':>6} {'game':>10}  deal")
            for game, cards, cycle_cards, cycle_tricks in self.cycles:
                lines.append(
                    f"{cards:>6} {cycle_cards:>6} {cycle_tricks:>6} {game:>10}  "
                    f"{deal_string(r.seed, game, r.players)}"
                )
            if self.cycle_count > len(self.cycles):
                lines.append(f"... and {self.cycle_count - len(self.cycles):,} more")
        return "\n".join(lines)


def find_records(request: Request, top: int = 10, progress: bool = False, *, cluster=None) -> Found:
    """Play ``request`` without writing records, keeping the longest and looping deals.
    ``cluster`` (:class:`simulate.runs.cluster.session.Cluster`): the deals are played on its
    workers in tasks of chunks, whose records come back here in game order and are sifted
    as this machine's are: the same deals found."""
    found = Found(request, top)
    play = None if cluster is None else cluster.play_chunks
    stream(request, None, found.add, progress=progress, play=play)
    return found


def search(request: Request, *, top: int = 10, progress: bool = False, cluster=None) -> str:
    """The longest of ``request``'s deals and any that never end, in words (played on
    ``cluster``, a :class:`simulate.runs.cluster.session.Cluster`, where given)."""
    return find_records(request, top, progress=progress, cluster=cluster).text()
