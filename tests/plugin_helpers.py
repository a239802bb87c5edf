"""The toy game of tests/plugins (high card) installed as a plugin without pip: a site
folder holding its ``.dist-info`` (with the ``cardsim.games`` entry point) on ``sys.path``."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from simulate.games import registry

PLUGINS = Path(__file__).parent / "plugins"
DIST_INFO = "cardsim_highcard-0.1.dist-info"
METADATA = "Metadata-Version: 2.1\nName: cardsim_highcard\nVersion: 0.1\n"
ENTRY_POINTS = "[cardsim.games]\nhighcard = cardsim_highcard.spec:GAME_SPEC\n"


def make_site(folder: Path) -> Path:
    """``folder``, now holding the toy game's installed metadata (its entry point)."""
    info = folder / DIST_INFO
    info.mkdir(parents=True)
    (info / "METADATA").write_text(METADATA)
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    return folder


@contextmanager
def installed(site: Path) -> Iterator[None]:
    """The toy game installed in this process (``site`` from :func:`make_site`), then
    removed again; the registry forgets its cached games on the way in and out."""
    added = [str(site), str(PLUGINS)]
    sys.path[:0] = added
    importlib.invalidate_caches()
    registry.specs.cache_clear()
    try:
        yield
    finally:
        for entry in added:
            sys.path.remove(entry)
        for name in [name for name in sys.modules if name.split(".")[0] == "cardsim_highcard"]:
            del sys.modules[name]
        importlib.invalidate_caches()
        registry.specs.cache_clear()
