"""Paths a user gives (``--out``, a run folder): local or shared filesystem paths only.

A URL (``s3://bucket/run``, ``gs://…``, ``file://…``) would otherwise be taken for a
relative path and make a folder named after its scheme (``s3:``) in the current folder:
cardsim reads and writes its run folders through the filesystem (a rename, an append and
a lock each chunk relies on), and no other filesystem (fsspec's object stores) is installed
for it, so a URL is refused in one line before anything is written.
"""

from __future__ import annotations

import re

from .errors import CardsimError

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def check_local(value: str, *, what: str = "") -> None:
    """Raise :class:`CardsimError` naming ``value`` (``what`` before it, if given) when it
    is a URL (``scheme://…``)."""
    found = _SCHEME.match(str(value).strip())
    if found:
        named = f"{what} {value!r}" if what else repr(value)
        raise CardsimError(
            f"{named} is a URL: no filesystem is installed for {found.group(1)}://; "
            "give a local or shared folder (a mounted network drive serves a cluster)"
        )
