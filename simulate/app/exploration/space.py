"""The rule space of ``cardsim explore`` and its aims: ``--vary`` and ``--aim`` read and
checked, and the product of the varied knobs' values enumerated, each rule set checked by
:func:`simulate.runs.request.make_request` (those it refuses are skipped and counted by reason).

Everything here runs before a game is played, so a mistake costs a fraction of a second
and writes nothing.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...core.errors import CardsimError
from ...core.measures import MEASURES, SHARES

AIMED_AT_ZERO = ("first_seat_advantage", "seat_spread")
"""Measures that a bare ``--aim MEASURE`` aims at 0 (an advantage, a spread)."""
GOALS = ("max", "min")
MAX_RULE_SETS = 100_000
"""The most rule sets a space may hold (each is checked before anything is played)."""
MAX_RANGE = 1_000
"""The most values one range ``A..B`` may give."""

_WHOLE = re.compile(r"^[+-]?\d+$")
_RANGE = re.compile(r"^([+-]?\d+)\s*\.\.\s*([+-]?\d+)$")
_PER_PLAYERS = re.compile(r"^\s*\d+\s*:")


@dataclass(frozen=True)
class Aim:
    """What a designer wants of one measure: a ``target`` value, or its ``max`` or ``min``.

    Its *loss* is what the search makes small: ``|value − target|`` for a target,
    ``−value`` for ``max``, ``value`` for ``min``."""

    measure: str
    goal: str
    """``target``, ``max`` or ``min``."""
    target: float | None = None

    def loss(self, value: float) -> float:
        """The loss of a measured ``value`` (smaller is better)."""
        if self.goal == "max":
            return -value
        if self.goal == "min":
            return value
        return abs(value - self.target)

    def loss_range(self, lo: float, hi: float) -> tuple[float, float]:
        """The smallest and largest loss of a value in the interval ``lo .. hi``."""
        if self.goal == "max":
            return -hi, -lo
        if self.goal == "min":
            return lo, hi
        if lo <= self.target <= hi:
            return 0.0, max(self.target - lo, hi - self.target)
        ends = sorted((abs(lo - self.target), abs(hi - self.target)))
        return ends[0], ends[1]

    @property
    def text(self) -> str:
        """The aim as ``--aim`` takes it: ``turns=30``, ``skill=max``."""
        if self.goal == "target":
            return f"{self.measure}={number_text(self.target)}"
        return f"{self.measure}={self.goal}"

    @property
    def words(self) -> str:
        """The aim in words: ``turns as close to 30 as can be``, ``skill as high as can be``."""
        if self.goal == "max":
            return f"{self.measure} as high as can be"
        if self.goal == "min":
            return f"{self.measure} as low as can be"
        return f"{self.measure} as close to {number_text(self.target)} as can be"


def number_text(value: float) -> str:
    """A target as it is typed: ``30``, ``0.25``."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def parse_aim(text: str) -> Aim:
    """``MEASURE``, ``MEASURE=TARGET``, ``MEASURE=max`` or ``MEASURE=min`` as an
    :class:`Aim`; a bare measure aims at 0 for the advantage and the spread."""
    name, sep, goal = str(text).partition("=")
    name, goal = name.strip(), goal.strip()
    if name not in MEASURES:
        raise CardsimError(f"--aim: unknown measure {name!r}; measures: {', '.join(MEASURES)}")
    if not sep:
        if name in AIMED_AT_ZERO:
            return Aim(name, "target", 0.0)
        raise CardsimError(
            f"--aim {name} needs a target, max or min (as {name}=min or {name}=30); only "
            f"{' and '.join(AIMED_AT_ZERO)} aim at 0 when given bare"
        )
    if goal.lower() in GOALS:
        return Aim(name, goal.lower())
    try:
        target = float(goal)
    except ValueError:
        target = math.nan
    if not math.isfinite(target):
        raise CardsimError(
            f"--aim {name}: {goal!r} is not a target; give a number, max or min (as {name}=min)"
        )
    return Aim(name, "target", target)


def parse_aims(texts: Iterable[str] | Mapping[str, Any]) -> tuple[Aim, ...]:
    """Every ``--aim``, checked; a mapping ``{measure: target | "max" | "min" | None}``
    (Python, explore files) is read the same way. At least one, each measure once."""
    if isinstance(texts, Mapping):
        texts = [name if goal is None else f"{name}={goal}" for name, goal in texts.items()]
    elif isinstance(texts, str):
        texts = [texts]
    aims = [parse_aim(text) for text in texts]
    if not aims:
        raise CardsimError(
            "explore needs an aim: --aim MEASURE[=TARGET|max|min]; measures: " + ", ".join(MEASURES)
        )
    seen = Counter(aim.measure for aim in aims)
    twice = [name for name, n in seen.items() if n > 1]
    if twice:
        raise CardsimError(f"--aim names {twice[0]} twice; give each measure once")
    return tuple(aims)


MET, FAILED, UNCLEAR = "met", "failed", "unclear"
"""A requirement's status on a rule set's 95% interval of its measure."""
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9_]+)\s*(<=|>=)\s*(\S+?)\s*$")
_POINTS = re.compile(r"^(.*?)\s*pts?$")


@dataclass(frozen=True)
class Requirement:
    """A bound a rule set must keep: ``measure <= bound`` (``op`` ``<=``) or ``>=``, the
    bound in the measure's unit (a fraction for shares and advantages)."""

    measure: str
    op: str
    bound: float
    text: str
    """As typed: ``first_seat_advantage<=1pt``."""

    def status(self, lo: float, hi: float) -> str:
        """:data:`MET` when the 95% interval ``lo .. hi`` lies wholly within the bound,
        :data:`FAILED` when wholly outside it, else :data:`UNCLEAR`."""
        if math.isnan(lo) or math.isnan(hi):
            return UNCLEAR
        inside, outside = (hi <= self.bound, lo > self.bound)
        if self.op == ">=":
            inside, outside = (lo >= self.bound, hi < self.bound)
        return MET if inside else FAILED if outside else UNCLEAR

    @property
    def words(self) -> str:
        """``first_seat_advantage at most 1 pt``, ``turns at least 20``."""
        most = "at most" if self.op == "<=" else "at least"
        if self.measure in SHARES:
            points = round(100 * self.bound, 10)
            unit = "pt" if abs(points) == 1 else "pts"
            return f"{self.measure} {most} {number_text(points)} {unit}"
        return f"{self.measure} {most} {number_text(self.bound)}"


def parse_requirement(text: str) -> Requirement:
    """``MEASURE<=X`` or ``MEASURE>=X``: X a number in the measure's unit (a fraction for a
    share or an advantage, or points with a ``pt`` suffix: ``1pt`` is 0.01)."""
    found = _REQUIREMENT.match(str(text))
    if not found:
        raise CardsimError(
            f"--require expects MEASURE<=X or MEASURE>=X (as first_seat_advantage<=1pt or "
            f"turns<=40), got {text!r}"
        )
    name, op, value = found.groups()
    if name not in MEASURES:
        raise CardsimError(f"--require: unknown measure {name!r}; measures: {', '.join(MEASURES)}")
    points = _POINTS.match(value)
    if points and name not in SHARES:
        raise CardsimError(
            f"--require {text.strip()}: {name} is not a share; points (pt) are for "
            f"{', '.join(SHARES)}"
        )
    try:
        bound = float(points.group(1) if points else value)
    except ValueError:
        bound = math.nan
    if not math.isfinite(bound):
        raise CardsimError(
            f"--require {text.strip()}: {value!r} is not a number; give a number, or points "
            "for a share (as 1pt)"
        )
    if points:
        bound /= 100
    return Requirement(name, op, bound, f"{name}{op}{value}")


def parse_requirements(texts: Iterable[str] | None) -> tuple[Requirement, ...]:
    """Every ``--require`` (none is fine), checked; two bounds of one measure that no value
    can keep together (``turns<=20`` and ``turns>=30``) are refused."""
    if texts is None:
        return ()
    requires = tuple(parse_requirement(t) for t in ([texts] if isinstance(texts, str) else texts))
    for name in dict.fromkeys(r.measure for r in requires):
        most = [r for r in requires if r.measure == name and r.op == "<="]
        least = [r for r in requires if r.measure == name and r.op == ">="]
        if most and least:
            low = max(least, key=lambda r: r.bound)
            high = min(most, key=lambda r: r.bound)
            if low.bound > high.bound:
                raise CardsimError(
                    f"--require {low.text} and --require {high.text} contradict each other: "
                    "no value keeps both"
                )
    return requires


@dataclass(frozen=True)
class Knob:
    """A varied knob and the values it takes, in the order given (numbers as ints)."""

    name: str
    values: tuple


def parse_values(name: str, given: Any) -> tuple:
    """A knob's values: ``"5..9"``, ``"none,same_rank"``, ``"5..7,9"`` or a list (whose
    strings may be ranges too). Whole numbers become ints; each value at most once."""
    items = given if isinstance(given, list | tuple) else str(given).split(",")
    values: list = []
    for item in items:
        if isinstance(item, bool) or (isinstance(item, int | float) and not isinstance(item, str)):
            values.append(item)
            continue
        text = str(item).strip()
        if not text:
            raise CardsimError(f"--vary {name}: an empty value in {given!r}")
        if _PER_PLAYERS.match(text):
            raise CardsimError(
                f"--vary {name}: {text!r} is a value per player count, which --vary does not "
                f"take (an exploration plays one number of players); give plain values, as "
                f"in {name}=5,7, and --players N"
            )
        found = _RANGE.match(text)
        if found:
            low, high = int(found.group(1)), int(found.group(2))
            if low > high or high - low + 1 > MAX_RANGE:
                raise CardsimError(
                    f"--vary {name}: the range {text} must go up, from a smaller number to a "
                    f"larger one, and give at most {MAX_RANGE} values"
                )
            values.extend(range(low, high + 1))
        else:
            values.append(int(text) if _WHOLE.match(text) else text)
    for value, n in Counter(map(str, values)).items():
        if n > 1:
            raise CardsimError(f"--vary {name} lists {value} twice")
    return tuple(values)


def parse_vary(items: Iterable[str] | Mapping[str, Any]) -> tuple[Knob, ...]:
    """Every ``--vary KNOB=V1,V2,…`` (or a mapping ``{knob: values}``) as :class:`Knob`\\ s,
    in order; each knob once, at least one."""
    pairs: list[tuple[str, Any]] = []
    if isinstance(items, Mapping):
        pairs = [(str(k).strip(), v) for k, v in items.items()]
    else:
        for item in [items] if isinstance(items, str) else items:
            name, sep, values = str(item).partition("=")
            if not sep or not name.strip() or not values.strip():
                raise CardsimError(f"--vary expects KNOB=V1,V2,... or KNOB=A..B, got {item!r}")
            pairs.append((name.strip(), values))
    if not pairs:
        raise CardsimError("explore needs a knob to vary: --vary KNOB=V1,V2,... (repeatable)")
    knobs = [Knob(name, parse_values(name, values)) for name, values in pairs]
    names = Counter(knob.name for knob in knobs)
    twice = [name for name, n in names.items() if n > 1]
    if twice:
        raise CardsimError(f"--vary names {twice[0]} twice; give all its values in one --vary")
    return tuple(knobs)


def check_knobs(knobs: Sequence[Knob], base) -> None:
    """Check every value of every knob alone on the base rules (``base``, a rules object):
    an unknown knob or a value outside its range is a mistake, not a rule set to skip. A
    value is a plain value: a per-player-count form (``2:7,5``) is refused."""
    for knob in knobs:
        for value in knob.values:
            try:
                rules = base.with_overrides({knob.name: value})
            except CardsimError as exc:
                raise CardsimError(f"--vary {knob.name}={value}: {exc}") from None
            if "." not in knob.name and isinstance(rules.to_dict().get(knob.name), dict):
                raise CardsimError(
                    f"--vary {knob.name}={value}: a value by player count is not taken by "
                    "--vary; give plain values (fix it for every rule set with --rule)"
                )


@dataclass(frozen=True)
class RuleSet:
    """One point of the space: ``values[i]`` of ``knobs[i]``; ``index`` is its position
    in the product (the first knob varies slowest)."""

    index: int
    values: tuple

    def overrides(self, knobs: Sequence[Knob]) -> dict:
        """The rule set as knob overrides, ``{knob: value}``."""
        return {knob.name: value for knob, value in zip(knobs, self.values, strict=True)}

    def label(self, knobs: Sequence[Knob]) -> str:
        """``hand_size=6, stacking=none``."""
        return ", ".join(f"{k.name}={v}" for k, v in zip(knobs, self.values, strict=True))


@dataclass
class Space:
    """The rule sets of the product of the knobs' values: those that can be played
    (``valid``, in product order) and how many were skipped for each reason."""

    knobs: tuple[Knob, ...]
    size: int
    valid: list[RuleSet]
    skipped: Counter = field(default_factory=Counter)

    def describe_skipped(self) -> str:
        """``3 skipped: 2 × "..."; 1 × "..."`` (empty when none was)."""
        if not self.skipped:
            return ""
        parts = [f'{n} × "{why}"' for why, n in self.skipped.most_common()]
        return f"{sum(self.skipped.values())} skipped: " + "; ".join(parts)


def space_size(knobs: Sequence[Knob]) -> int:
    return math.prod(len(knob.values) for knob in knobs)


def build_space(knobs: Sequence[Knob], check) -> Space:
    """Every rule set of the product, checked by ``check(overrides)`` (which raises
    :class:`CardsimError` for a rule set that cannot be played: it is skipped and its
    message counted). Raises when the space is too large or nothing in it can be played."""
    size = space_size(knobs)
    if size > MAX_RULE_SETS:
        raise CardsimError(
            f"the --vary lists make {size:,} rule sets; explore takes at most "
            f"{MAX_RULE_SETS:,}: vary fewer knobs or fewer values"
        )
    space = Space(tuple(knobs), size, [])
    for index, values in enumerate(itertools.product(*(knob.values for knob in knobs))):
        rule_set = RuleSet(index, values)
        try:
            check(rule_set.overrides(knobs))
        except CardsimError as exc:
            space.skipped[str(exc)] += 1
            continue
        space.valid.append(rule_set)
    if not space.valid:
        raise CardsimError(
            f"no rule set of the {size:,} that --vary makes can be played "
            f"({space.describe_skipped()}); change the --vary values or the base rules"
        )
    return space
