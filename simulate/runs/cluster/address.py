"""What ``--scheduler`` (``scheduler=``) accepts, checked without importing Dask.

- ``tcp://HOST:PORT`` (or ``tls://``, ``ws://``, ``wss://``): a running Dask scheduler;
- ``local``: a ``LocalCluster`` here, one worker process per core;
- ``local:N``: a ``LocalCluster`` of N worker processes (1 to the cores here).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...core.errors import CardsimError
from ..request import max_threads

SCHEMES = ("tcp", "tls", "ws", "wss")
_REMOTE = re.compile(
    r"^(?P<scheme>[a-z]+)://(?P<host>\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]]+):(?P<port>\d+)$"
)


@dataclass(frozen=True)
class SchedulerAddress:
    """A checked scheduler address: ``workers`` local worker processes to start, or the
    ``url`` of a running scheduler (``workers`` None)."""

    text: str
    url: str | None = None
    workers: int | None = None

    @property
    def local(self) -> bool:
        return self.url is None


def parse_address(text) -> SchedulerAddress:
    """``text`` as a :class:`SchedulerAddress`; anything else is one line naming it and the
    forms allowed (:class:`~simulate.core.errors.CardsimError`)."""
    if isinstance(text, SchedulerAddress):
        return text
    cores = max_threads()
    allowed = (
        f"tcp://HOST:PORT (a running Dask scheduler), local (a local cluster, one worker per "
        f"core) or local:N (N worker processes, 1 to {cores} here)"
    )
    if not isinstance(text, str):
        raise CardsimError(f"the scheduler is {allowed}, got {text!r}")
    given = text.strip()
    if given == "local":
        return SchedulerAddress(given, workers=cores)
    if given.startswith("local:"):
        count = given.partition(":")[2]
        if not count.isdigit() or not 1 <= int(count) <= cores:
            raise CardsimError(f"the scheduler is {allowed}, got {text!r}")
        return SchedulerAddress(given, workers=int(count))
    match = _REMOTE.match(given)
    if match is None or match["scheme"] not in SCHEMES or not 0 < int(match["port"]) < 65536:
        raise CardsimError(f"the scheduler is {allowed}, got {text!r}")
    return SchedulerAddress(given, url=given)
