"""What a run's ``run.json`` names, resolved: the game's spec (no pandas, no numba)."""

from __future__ import annotations

from analysis.errors import ReportError
from simulate.games.registry import info_of
from simulate.games.spec import GameSpec


def game_spec(meta: dict) -> GameSpec:
    """The spec of the game a ``run.json`` names (see :mod:`simulate.games.spec`)."""
    info = info_of(meta["game"])
    if info is None:
        raise ReportError(
            f"run.json names the game {meta['game']!r}, which this installation does not know"
        )
    return info.spec
