"""Rule files: a TOML file of knob overrides, as ``--config FILE.toml`` reads it.

The file holds knobs at the top level and tables for per-rank knobs, e.g.::

    stacking = "any_draw"
    stack_growth = "double"
    hand_size = "2:7,5"

    [effects]
    A = "skip"
    7 = "draw:3"

Every error (missing or unreadable file, invalid TOML with its line) is one CardsimError.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from .errors import CardsimError


def load_overrides(path: str | Path) -> dict:
    """The knob overrides in a TOML file, as a dict for ``with_overrides``."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CardsimError(f"rule file {path} not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CardsimError(f"cannot read rule file {path}: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CardsimError(f"invalid TOML in {path}: {exc}") from None
    if "rules" in data and isinstance(data["rules"], dict):
        data = data["rules"]
    return data
