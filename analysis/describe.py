"""Words for a run: game names, rules that differ from the defaults, chart titles, numbers."""

from __future__ import annotations

import math
from typing import Any

from simulate.games.beggar.rules import GAME as BEGGAR
from simulate.games.beggar.rules import BeggarRules
from simulate.games.registry import GAMES

GAME_NAMES = {name: info.title for name, info in GAMES.items()}

#: Rules as the engine resolves them when none are given, per game (simulate's numba-free
#: rules modules are the one source of them).
DEFAULT_RULES: dict[str, dict[str, Any]] = {BEGGAR: BeggarRules().to_dict()}

_COURT_ORDER = "JQKA"
_NUMBER_WORDS = {2: "two", 3: "three", 4: "four"}


def game_name(game: str) -> str:
    """Display name of a game id, e.g. ``"Beggar-My-Neighbour"``."""
    return GAME_NAMES.get(game, game.replace("-", " ").title())


def players_adjective(players: int) -> str:
    """``"two-player"``, ``"three-player"``, ... (digits beyond four)."""
    return f"{_NUMBER_WORDS.get(players, str(players))}-player"


def rule_text(name: str, value: Any) -> str:
    """One rule in words, e.g. ``"penalties J1 Q2 K3 A4"`` or ``"time limit 5,000 cards"``."""
    if name == "penalties" and isinstance(value, dict):
        known = [c for c in _COURT_ORDER if c in value]
        order = known + sorted(set(value) - set(known))
        return "penalties " + " ".join(f"{card}{value[card]}" for card in order)
    if name == "time_limit":
        return "no time limit" if value is None else f"time limit {fmt_int(value)} cards"
    words = name.replace("_", " ")
    return f"no {words}" if value is None else f"{words} {value}"


def is_default_rule(game: str, name: str, value: Any) -> bool:
    """Whether rule ``name`` of ``game`` has its default value (False when unknown)."""
    defaults = DEFAULT_RULES.get(game, {})
    return name in defaults and defaults[name] == value


def non_default_rules(meta: dict[str, Any]) -> list[str]:
    """The run's rules that differ from the game's defaults, in words (all of them for a
    game without known defaults)."""
    return [
        rule_text(name, value)
        for name, value in meta.get("rules", {}).items()
        if not is_default_rule(meta["game"], name, value)
    ]


def rules_label(meta: dict[str, Any]) -> str:
    """``"default rules"`` or the non-default rules joined by commas."""
    return ", ".join(non_default_rules(meta)) or "default rules"


def chart_title(meta: dict[str, Any], games: int) -> str:
    """E.g. ``"Beggar-My-Neighbour · 2 players · 1,000,000 deals · default rules"``."""
    parts = (
        game_name(meta["game"]),
        f"{meta['players']} players",
        f"{fmt_int(games)} deals",
        rules_label(meta),
    )
    return " · ".join(parts)


def fmt_int(value: float) -> str:
    """Integer with thousands separators: ``1,000,000``."""
    return f"{int(value):,}"


def fmt_num(value: float, digits: int = 1) -> str:
    """Number with thousands separators and ``digits`` decimals, none when it rounds to a
    whole number; NaN as an en dash."""
    if math.isnan(value):
        return "–"
    value = round(float(value), digits)
    return fmt_int(value) if value.is_integer() else f"{value:,.{digits}f}"


def fmt_pct(fraction: float, digits: int = 1) -> str:
    """Fraction as a percentage: ``0.5012`` → ``"50.1%"``; NaN as an en dash."""
    return "–" if math.isnan(fraction) else f"{100 * fraction:.{digits}f}%"


def fmt_ci(lo: float, hi: float, digits: int = 1) -> str:
    """Interval of fractions as percentages: ``"50.0–50.2%"``."""
    if math.isnan(lo) or math.isnan(hi):
        return "–"
    return f"{100 * lo:.{digits}f}–{100 * hi:.{digits}f}%"
