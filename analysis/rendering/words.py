"""Words for a run: game names, rules that differ from the defaults, chart titles, numbers."""

from __future__ import annotations

import json
import math
from typing import Any

from simulate.games.registry import games


def default_rules(game: str) -> dict[str, Any]:
    """The rules a game (or preset) has when none are given, in the JSON form run.json
    stores (the games' numba-free specs are the one source of them); {} when unknown."""
    info = games().get(game)
    return json.loads(json.dumps(info.base_rules().to_dict())) if info else {}


_NUMBER_WORDS = {2: "two", 3: "three", 4: "four"}


def game_name(game: str) -> str:
    """Display name of a game id, e.g. ``"Beggar-My-Neighbour"``."""
    info = games().get(game)
    return info.title if info else game.replace("-", " ").title()


def players_adjective(players: int) -> str:
    """``"two-player"``, ``"three-player"``, ... (digits beyond four)."""
    return f"{_NUMBER_WORDS.get(players, str(players))}-player"


def knob_text(value: Any) -> str:
    """A shedding knob's value in words: ``on``/``off``, ``none``, ``skip+draw:2``,
    ``5+ players: 2, otherwise 1``, ``10,000``."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if value is None:
        return "none"
    if isinstance(value, int):
        return fmt_int(value)
    if isinstance(value, list | tuple):
        return "+".join(map(str, value)) or "none"
    if isinstance(value, dict):
        return ", ".join(
            f"otherwise {knob_text(v)}" if k == "default" else f"{k} players: {knob_text(v)}"
            for k, v in value.items()
        )
    return str(value)


def shedding_rules(meta: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """The knobs of a run as ``(knob, value in words, is_default)``, leaving out the
    ``preset`` entry. With known defaults a table knob (a value by rank: effects,
    card_points, penalties...) gives only its changed entries, as dotted knobs the way
    ``--rule`` takes them (``effects.A``, ``penalties.K``); without, every knob counts as
    changed."""
    rules = meta.get("rules", {})
    defaults = default_rules(rules.get("preset", meta["game"]))
    out = []
    for name, value in rules.items():
        if name == "preset":
            continue
        base = defaults.get(name)
        if isinstance(value, dict) and isinstance(base, dict) and _is_table(value, base):
            for rank in sorted(set(value) | set(base), key=_rank_order):
                new, old = value.get(rank), base.get(rank)
                if new != old and not (name == "effects" and not new and not old):
                    empty = [] if name == "effects" else None
                    out.append(
                        (f"{name}.{rank}", knob_text(new if new is not None else empty), False)
                    )
            continue
        if isinstance(value, dict) and _is_table(value, {}):
            out.append((name, _rank_table_text(value), False))
            continue
        out.append((name, knob_text(value), name in defaults and base == value))
    return out


def _is_table(value: dict, base: dict) -> bool:
    """Whether a dict knob is a table by rank (not a value per player count)."""
    return all(key in _RANKS for key in (*value, *base))


_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def _rank_order(rank: str) -> int:
    order = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    return order.index(rank) if rank in order else len(order)


def _rank_table_text(table: dict) -> str:
    return (
        ", ".join(f"{rank} {knob_text(table[rank])}" for rank in sorted(table, key=_rank_order))
        or "none"
    )


def changed_rules(meta: dict[str, Any]) -> list[str]:
    """A run's knobs that differ from its preset's defaults, as ``knob = value`` (tables by
    rank entry by entry: ``effects.A = skip``, ``penalties.A = 5``)."""
    return [f"{name} = {text}" for name, text, default in shedding_rules(meta) if not default]


def strategies_text(strategies: list[str], rotated: bool = False) -> str:
    """``"random in every seat"`` or ``"first in seat 0, random in seats 1–3"``; with
    ``rotated`` (``--rotate-seats``) the first seating, turned through every seat."""
    if not strategies:
        return "strategies not recorded"
    if rotated and len(set(strategies)) > 1:
        return (
            f"{strategies_text(strategies)} in the first seating, every deal played once "
            "per cyclic seating"
        )
    if len(set(strategies)) == 1:
        return f"{strategies[0]} in every seat"
    parts = []
    for name in dict.fromkeys(strategies):
        seats = [i for i, s in enumerate(strategies) if s == name]
        parts.append(f"{name} in {_seats_text(seats)}")
    return ", ".join(parts)


def _seats_text(seats: list[int]) -> str:
    if len(seats) == 1:
        return f"seat {seats[0]}"
    if seats == list(range(seats[0], seats[-1] + 1)):
        return f"seats {seats[0]}–{seats[-1]}"
    return "seats " + ", ".join(map(str, seats))


def is_default_rule(game: str, name: str, value: Any) -> bool:
    """Whether rule ``name`` of ``game`` has its default value (False when unknown)."""
    defaults = default_rules(game)
    return name in defaults and defaults[name] == value


def non_default_rules(meta: dict[str, Any]) -> list[str]:
    """The run's rules that differ from its preset's defaults (all of them for a game
    without known defaults), as :func:`changed_rules` words them."""
    return changed_rules(meta)


def rules_label(meta: dict[str, Any]) -> str:
    """``"default rules"`` or the non-default rules joined by commas."""
    return ", ".join(non_default_rules(meta)) or "default rules"


def chart_title(meta: dict[str, Any], games: int, unit: str = "deals") -> str:
    """E.g. ``"Beggar-My-Neighbour · 2 players · 1,000,000 deals · default rules"``; ``unit``
    names what ``games`` counts (``"matches"`` for a match chart; singular or plural, the
    count decides: ``"1 deal"``)."""
    parts = (
        game_name(meta["game"]),
        f"{meta['players']} players",
        count_text(games, singular(unit)),
        rules_label(meta),
    )
    return " · ".join(parts)


def fmt_int(value: float) -> str:
    """Integer with thousands separators: ``1,000,000``."""
    return f"{int(value):,}"


def plural(noun: str) -> str:
    """``"deal"`` → ``"deals"``, ``"match"`` → ``"matches"`` (the last word of a phrase:
    ``"longest deal"`` → ``"longest deals"``)."""
    return noun + ("es" if noun.endswith(("ch", "sh", "s", "x")) else "s")


def singular(noun: str) -> str:
    """The inverse of :func:`plural` for a unit in the plural (``"matches"`` → ``"match"``,
    ``"turns"`` → ``"turn"``); a word not ending in ``s`` is returned as it is."""
    if noun.endswith(("ches", "shes", "sses", "xes")):
        return noun[:-2]
    if noun.endswith("s") and not noun.endswith("ss"):
        return noun[:-1]
    return noun


def count_text(n: float, noun: str) -> str:
    """A count with its noun agreeing: ``"1 deal"``, ``"1,200 deals"``, ``"2 matches"``
    (``noun`` in the singular)."""
    return f"{fmt_int(n)} {noun if int(n) == 1 else plural(noun)}"


def all_count_text(n: float, noun: str) -> str:
    """``"all 1,200 deals"``, or ``"the 1 deal"`` when there is one (``noun`` singular)."""
    return f"the {count_text(n, noun)}" if int(n) == 1 else f"all {count_text(n, noun)}"


def fmt_quantity(value: float, noun: str, digits: int = 1) -> str:
    """A number (:func:`fmt_num`) with its noun agreeing with what prints: ``"1 card"``,
    ``"28.5 turns"``, ``"0 cards"`` (``noun`` in the singular)."""
    text = fmt_num(value, digits)
    return f"{text} {noun if text == '1' else plural(noun)}"


def fmt_signed(value: float, digits: int = 1) -> str:
    """A signed figure with thousands separators: ``"+2.1"``, ``"-0.30"``; one that rounds
    to zero at ``digits`` decimals has no sign (``"0.0"``, never ``"-0.0"``); NaN as an
    en dash."""
    if math.isnan(value):
        return "–"
    text = f"{value:+,.{digits}f}"
    return text[1:] if float(text.replace(",", "")) == 0 else text


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


def fmt_p(p: float | None) -> str:
    """A p-value in a table: ``"0.042"``, ``"< 0.001"``; None or NaN as an en dash."""
    if p is None or math.isnan(p):
        return "–"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def fmt_ci(lo: float, hi: float, digits: int = 1) -> str:
    """Interval of fractions as percentages: ``"50.0–50.2%"``."""
    if math.isnan(lo) or math.isnan(hi):
        return "–"
    return f"{100 * lo:.{digits}f}–{100 * hi:.{digits}f}%"


def pct_digits(lo: float, hi: float) -> int:
    """Decimals that show the half-width of the interval ``lo``–``hi`` (fractions), as a
    percentage, to one significant digit: 1 for ± 0.6%, 2 for ± 0.03%; 1 to 4."""
    half = 100 * (hi - lo) / 2
    if not half > 0:
        return 1
    return max(1, min(4, -math.floor(math.log10(half))))


#: An interval counts as symmetric about its estimate when its two half-widths differ by
#: less than this fraction of the larger one (or by less than the last printed digit).
SYMMETRY_TOLERANCE = 0.1


def is_symmetric(value: float, lo: float, hi: float, resolution: float = 0.0) -> bool:
    """Whether the interval ``lo``–``hi`` is symmetric about ``value`` to within
    :data:`SYMMETRY_TOLERANCE` of its larger half-width, or to within ``resolution`` (the
    last printed digit, in the units of ``value``)."""
    below, above = value - lo, hi - value
    if below < 0 or above < 0:
        return False
    return abs(below - above) < max(SYMMETRY_TOLERANCE * max(below, above), resolution)


def _share_symmetric(share: float, lo: float, hi: float, digits: int) -> bool:
    return is_symmetric(share, lo, hi, 10.0**-digits / 100)


def fmt_share_pm(share: float, lo: float, hi: float, digits: int | None = None) -> str:
    """A share with its interval: ``"27.1% ± 0.6%"`` (half the interval's length) when the
    interval is symmetric about the share (:func:`is_symmetric`), else the interval as a
    range, ``"16.7% (4.7–44.8%)"``. ``digits`` defaults to :func:`pct_digits`."""
    if math.isnan(share) or math.isnan(lo) or math.isnan(hi):
        return "–"
    digits = pct_digits(lo, hi) if digits is None else digits
    if not _share_symmetric(share, lo, hi, digits):
        return f"{100 * share:.{digits}f}% ({fmt_ci(lo, hi, digits)})"
    return f"{100 * share:.{digits}f}% ± {100 * (hi - lo) / 2:.{digits}f}%"


def fmt_share_lead(share: float, lo: float, hi: float, digits: int | None = None) -> str:
    """A share for a sentence that gives its interval right after (``"wins 25.1% ± 0.1% of
    deals (95% Wilson interval 25.0–25.2%)"``): with ``± half-width`` when the interval is
    symmetric about it, else the share alone (``"16.7%"``), the range following."""
    if math.isnan(share) or math.isnan(lo) or math.isnan(hi):
        return "–"
    digits = pct_digits(lo, hi) if digits is None else digits
    if not _share_symmetric(share, lo, hi, digits):
        return f"{100 * share:.{digits}f}%"
    return fmt_share_pm(share, lo, hi, digits)


def fmt_range(lo: float, hi: float, digits: int | None = None) -> str:
    """An interval of plain numbers: ``"252.1–255.9"``, ``"31.0–31.2"``; ``digits``
    decimals, by default enough to show half its width to one significant digit (at least
    1, at most 4: ``"254.77–254.83"``); NaN as an en dash."""
    if math.isnan(lo) or math.isnan(hi):
        return "–"
    if digits is None:
        half = (hi - lo) / 2
        digits = 1 if not half > 0 else max(1, min(4, -math.floor(math.log10(half))))
    return f"{lo:,.{digits}f}–{hi:,.{digits}f}"


def fmt_points(diff: float, digits: int = 1) -> str:
    """A difference of shares in percentage points: ``"+2.1 pts"``, ``"0.0 pts"`` (no sign
    when it rounds to zero); NaN as an en dash."""
    return "–" if math.isnan(diff) else f"{fmt_signed(100 * diff, digits)} pts"


def fmt_wilson(lo: float, hi: float) -> str:
    """An interval of shares with :func:`pct_digits` decimals: ``"26.5–27.7%"``."""
    return fmt_ci(lo, hi, pct_digits(lo, hi))
