"""Aggregate-only runs (``--records none``, a request's ``records="none"``) on the
engine's side: a chunk reduced to its statistics (:mod:`simulate.runs.folder.aggregates`, imported only
when asked)."""

from __future__ import annotations


def reduced_where_played(request, seatings: list, first: int, count: int, playing):
    """Games (matches) ``first .. first + count - 1`` in every seating reduced to their
    statistics where the game's engine plays them (on the GPU: the records its
    ``device_chunk`` leaves in device memory, reduced there by
    :func:`simulate.runs.gpu_aggregates.reduce_on_device`), as a reduced Chunk; None,
    before anything is played, where the engine leaves the reduction to :func:`reduced` (a
    CPU run, match play, logged games). ``playing`` hears which seating is being played.
    The seatings' statistics are merged, as the CPU reduces their interleaved records."""
    from ..games.spec import Chunk

    describe = getattr(request.game.spec.engine(), "device_chunk", None)
    if describe is None:
        return None
    meta, found = request.meta(), None
    for rotation, seating in enumerate(seatings):
        playing(count, rotation, len(seatings))
        device = describe(request, seating, first, count)
        if device is None:  # the engine's answer depends on the request, not the seating
            return None
        from .gpu_aggregates import reduce_on_device

        tag = rotation if request.rotate_seats else None
        part = reduce_on_device(device, meta, rotation=tag)
        found = part if found is None else found.merge(part)
    return Chunk(None, aggregates=found)


def reduced(chunk, meta: dict):
    """``chunk`` (a :class:`~simulate.games.spec.Chunk`) reduced to its statistics: a
    Chunk whose ``aggregates`` (:class:`simulate.runs.folder.aggregates.Aggregates`) stand for its
    records, which it no longer holds; its logged games' ``events`` and ``trace`` stay (itself when it
    is reduced already, as a cluster's task returns it). Compiled, on
    ``numba.get_num_threads()`` threads (:func:`.reduction.reduce_records`), equal to the
    readable :func:`~.folder.aggregates.aggregate_games`."""
    from ..games.spec import Chunk
    from .reduction import reduce_records

    if chunk.aggregates is not None:
        return chunk
    found = reduce_records(chunk.games, meta, chunk.matches)
    return Chunk(None, events=chunk.events, aggregates=found, trace=chunk.trace)
