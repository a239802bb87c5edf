"""Aggregate-only studies (``cardsim sweep --records none``): the variants of one player
count played together, so that their comparison stays paired.

The cells of one player count share their deals (common random numbers: the same seed,
the same game indices). Each range of games ``[first, first + count)`` is played for every
variant in turn (:func:`play_together`, here or in one task on a cluster); from the
records still in memory each cell's aggregates are taken (:func:`.aggregate_runs.reduced`)
and, for each variant whose deals are the base's, its paired counts against the base (the
first variant; :func:`analysis.paired_counts.count_pairs`); then the rows are dropped. So
memory holds a range's records of every variant (two ranges while one is reduced and
written as the next is played), a range being a chunk shared among the variants, and
nothing grows with the games.

The cells' run folders are written together through :class:`CellsWriter`, which
:func:`simulate.runs.engine.stream` drives as it drives one run's writer: each folder is an
ordinary aggregate-only run folder (``aggregates`` under its manifest), a variant's also
holding its ``paired`` counts, merged chunk by chunk in the same manifest entry. Ctrl-C,
SIGTERM and a full disk stop every cell at the same chunk, and ``--resume`` plays the
ranges any cell lacks (the base too, where a variant needs it for its pairs).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..games.spec import Chunk
from .folder.writer import RunWriter
from .request import Request


@dataclass(frozen=True)
class PlayedTogether:
    """One range of games of every cell of a player count, reduced: ``aggregates`` each
    cell's :class:`simulate.runs.folder.aggregates.Aggregates` (in the cells' order, the base first)
    and ``paired`` each cell's :class:`analysis.paired_counts.PairedCounts` against the
    base (None for the base, and for a variant that does not deal as the base does).
    It travels in a :class:`~simulate.games.spec.Chunk`'s ``aggregates``."""

    aggregates: tuple
    paired: tuple

    @property
    def records(self) -> int:
        """The base's records of the range (what the chunk stands for)."""
        return self.aggregates[0].records

    def reduce(self) -> PlayedTogether:
        return self

    def shifted(self, rows: int) -> PlayedTogether:
        """Itself: in match play each cell's deals are numbered by :class:`CellsWriter`
        (the cells' deals before a range differ in number), not by the cluster's client."""
        return self


@dataclass(frozen=True)
class Played:
    """One range of games of every cell, played here and not yet reduced: ``chunks`` (one
    per request, the base first). :class:`CellsWriter` reduces it in
    :func:`simulate.runs.engine.stream`'s delivery thread, while the next range is played."""

    chunks: tuple
    requests: tuple

    @property
    def records(self) -> int:
        return self.chunks[0].games.num_rows

    def reduce(self) -> PlayedTogether:
        return reduce_together(self.chunks, self.requests)


def play_range(requests: Sequence[Request], first: int, count: int) -> Played:
    """Games (matches) ``first .. first + count - 1`` of every request (the base first),
    with the threads numba has in this thread."""
    from .engine import play_chunk

    return Played(tuple(play_chunk(r, first, count, 0) for r in requests), tuple(requests))


def play_together(requests: Sequence[Request], first: int, count: int) -> PlayedTogether:
    """:func:`play_range`, reduced to :class:`PlayedTogether` (a cluster's task)."""
    return play_range(requests, first, count).reduce()


def reduce_together(chunks: Sequence[Chunk], requests: Sequence[Request]) -> PlayedTogether:
    """The :class:`PlayedTogether` of one range's ``chunks``, one per request (the base
    first): every cell's aggregates, and each variant's paired counts against the base."""
    from .aggregate_runs import reduced
    from .folder.paired import count_pairs

    metas = [request.meta() for request in requests]
    paired = [None]
    for chunk, meta in zip(chunks[1:], metas[1:], strict=True):
        paired.append(count_pairs(chunks[0], chunk, metas[0], meta))
    aggregates = [reduced(c, m).aggregates for c, m in zip(chunks, metas, strict=True)]
    return PlayedTogether(tuple(aggregates), tuple(paired))


def chunk_share(chunk_size: int, cells: int) -> int:
    """Records per cell in a range played together: ``chunk_size`` shared among the
    ``cells``, so that a range of every cell takes about one chunk's memory."""
    return max(1, chunk_size // cells)


def play_here(requests: Sequence[Request]) -> Callable[..., Iterator[tuple[int, int, Chunk]]]:
    """A source of chunks for :func:`simulate.runs.engine.stream` (called as
    :func:`simulate.runs.engine.play_chunks` is) that plays ``requests`` together on this
    machine: for each range, a Chunk whose ``aggregates`` is its :class:`Played` records,
    which the writer reduces."""
    import numba

    from .engine import ProgressBar, chunk_spans, games_per_chunk

    def play(request, chunk_size, progress=False, spans=None, rows_before=None):
        numba.set_num_threads(request.threads)
        spans = [(0, request.games)] if spans is None else spans
        size = games_per_chunk(request, chunk_share(chunk_size, len(requests)))
        done = request.games - sum(stop - first for first, stop in spans)
        with ProgressBar(request, progress, done) as bar:
            for span_first, span_stop in spans:
                for first, count in chunk_spans(span_first, span_stop, size):
                    played = play_range(requests, first, count)
                    yield first, count, Chunk(None, aggregates=played)
                    bar.advance(count)

    return play


class CellsWriter:
    """The run folders of the cells of one player count, written together: what
    :func:`simulate.runs.engine.stream` asks of a :class:`~simulate.runs.folder.writer.RunWriter`,
    for ``writers`` (one per cell, the base first; None for a cell already complete).

    :meth:`todo` names the ranges some cell lacks, cut where the set of cells lacking them
    changes; :meth:`write` gives each cell lacking a range its aggregates and paired counts
    (:class:`PlayedTogether`), so a cell that holds the range (after a crash between two
    cells' writes) keeps it as it is. In match play each range's deals are numbered from
    0 (``game``, the deal's row in the run); the writer numbers them after the cell's
    deals before the range, as one run's chunks are numbered."""

    def __init__(self, writers: Sequence[RunWriter | None], out: Path):
        self.writers = list(writers)
        self.lead = next(w for w in self.writers if w is not None)
        self.folder = out
        """Where the finished games are (messages name it): the study's folder."""

    @property
    def meta(self) -> dict:
        return self.lead.meta

    @property
    def manifest(self):
        return self.lead.manifest

    def _lacking(self, games: int) -> list[list[tuple[int, int]]]:
        return [[] if w is None else w.todo(games) for w in self.writers]

    def todo(self, games: int) -> list[tuple[int, int]]:
        """``(first, stop)`` of the games some cell lacks, cut where the cells lacking them
        change (so that no chunk is lacked by some cells in part only)."""
        lacking = self._lacking(games)
        cuts = sorted({0, games, *(edge for gaps in lacking for gap in gaps for edge in gap)})
        spans: list[tuple[int, int]] = []
        previous = None
        for first, stop in zip(cuts, cuts[1:], strict=False):
            who = frozenset(i for i, gaps in enumerate(lacking) if _within(gaps, first, stop))
            if not who:
                previous = None
                continue
            if who == previous and spans[-1][1] == first:
                spans[-1] = (spans[-1][0], stop)
            else:
                spans.append((first, stop))
            previous = who
        return spans

    def write(self, first: int, count: int, tables: dict) -> None:
        """Write one range into every cell that lacks it: ``tables["aggregates"]`` is its
        :class:`PlayedTogether` (or its :class:`Played` records, reduced here first)."""
        together = tables["aggregates"].reduce()
        games = int(self.meta["games"])
        for i, writer in enumerate(self.writers):
            if writer is None or not _within(writer.todo(games), first, first + count):
                continue
            found = together.aggregates[i]
            if self.meta.get("unit") == "match":
                found = found.shifted(writer.manifest.rows_before(first))
            parts = {"aggregates": found}
            if together.paired[i] is not None:
                parts["paired"] = together.paired[i]
            writer.write(first, count, parts)

    def finish(self, meta: dict) -> int:
        """Finish every cell's ``run.json`` with ``meta``; returns the games (matches) every
        cell holds."""
        return min(w.finish(meta) for w in self.writers if w is not None)


def _within(gaps: Sequence[tuple[int, int]], first: int, stop: int) -> bool:
    """Whether ``[first, stop)`` lies in one of ``gaps``."""
    return any(a <= first and stop <= b for a, b in gaps)
