"""Parsing knob values given as Python values or strings (``--rule K=V``), one-line errors."""

from __future__ import annotations

from .errors import CardsimError


def as_int(key: str, value) -> int:
    """``value`` as a whole number (``"5"`` and ``5`` alike); booleans are refused."""
    if isinstance(value, bool):
        raise CardsimError(f"{key} must be a whole number, got {value!r}")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise CardsimError(f"{key} must be a whole number, got {value!r}") from None


def check_whole(key: str, value, low: int, high: int) -> int:
    """``value`` as a whole number from ``low`` to ``high``, or a CardsimError naming ``key``."""
    number = as_int(key, value)
    if not low <= number <= high:
        raise CardsimError(f"{key} must be a whole number from {low} to {high}, got {value!r}")
    return number
