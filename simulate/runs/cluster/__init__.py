"""Runs on a Dask cluster (``--scheduler ADDRESS``, ``scheduler=`` in Python).

A run on a cluster is a run on one machine whose chunks are played elsewhere: the client
cuts the games into tasks of one chunk each (:mod:`.task` is what a worker runs), keeps a
bounded number in flight, and hands the chunks in game order to
:func:`simulate.runs.engine.stream`, which writes the run folder exactly as it does for a run
played here (the same writer, manifest, lock and interruption handling). Every record is a
pure function of (seed, game index), so the records are those of a one-machine run.

- :mod:`.address`: what ``--scheduler`` accepts (no Dask needed to check it);
- :mod:`.task`: the worker's side: a picklable description of the request, the chunk
  played from it, the version check;
- :mod:`.session`: the client's side: connecting (or starting a ``LocalCluster``),
  refusing workers of other versions, the chunks in game order.

``distributed`` is an optional dependency (``pip install 'cardsim[cluster]'``): importing
this package does not import it, nor does ``import simulate``. ``docs/cluster.md`` tells
the whole story.
"""

from __future__ import annotations

from .address import SchedulerAddress, parse_address

__all__ = ["SchedulerAddress", "connect", "parse_address"]


def connect(address, *, threads: int | None = None, echo=None):
    """A context manager: the cluster at ``address`` (see :func:`.session.connect`)."""
    from .session import connect as connect_session

    return connect_session(address, threads=threads, echo=echo)
