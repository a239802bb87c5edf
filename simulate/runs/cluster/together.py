"""Variants played together on a Dask cluster: each task plays its range of every variant
and returns their aggregates and paired counts, as :func:`simulate.runs.paired_runs.play_here`
does on this machine."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from ..paired_runs import chunk_share
from ..request import Request
from .task import Along, describe


def play_on(cluster, requests: Sequence[Request]) -> Callable[..., Iterator]:
    """:func:`simulate.runs.paired_runs.play_here` on a Dask cluster
    (:class:`simulate.runs.cluster.session.Cluster`): each task plays its range of every request
    and returns their :class:`~simulate.runs.paired_runs.PlayedTogether`
    (:func:`simulate.runs.cluster.task.play_task` with :class:`~simulate.runs.cluster.task.Along`)."""
    along = Along(tuple(describe(r, threads=cluster.threads) for r in requests[1:]))

    def play(request, chunk_size, progress=False, spans=None, rows_before=None):
        yield from cluster.play_chunks(
            request,
            chunk_share(chunk_size, len(requests)),
            progress,
            spans,
            rows_before,
            along=along,
        )

    return play
