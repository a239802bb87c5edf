"""Strategies of the shedding games: names, parameters and the ``weighted`` feature space.

A seat's strategy is written ``NAME[:PARAM=VALUE,...]``: ``random``, ``greedy:forget=0.1``,
``weighted:points=1,wild=-0.5,suit_left=0.2``. :func:`parse` turns it into a
:class:`StrategySpec`. Numba-free: the reference plays the specs directly; the kernel gets
them as numbers (a strategy code, a forget threshold and integer weights per seat).

``greedy``, ``hold-wilds`` and ``attack`` are points of the ``weighted`` space (RULES.md:
"the built-in heuristics are points in this space"); every ``weighted`` strategy plays the
legal card of best score, ties going to the first card in the fixed order (suits C, D, H, S;
ranks A..K), draws only when it holds no legal card, always plays a drawn card it may play,
and names the allowed suit it holds most cards of (ties: suit order). Weights are rounded to
multiples of 1/1024 (``WEIGHT_SCALE``) so that scores are exact integers, the same in the
reference and the kernel.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...core.errors import CardsimError
from .features import FEATURE_NAMES, FEATURES

WEIGHT_SCALE = 1024
"""Weights are stored as ``round(w * WEIGHT_SCALE)``."""
MAX_WEIGHT = 1e6

BUILT_IN_WEIGHTS = {
    # The most points first; among equal points a non-wild (points are whole numbers, so a
    # half point only breaks ties).
    "greedy": {"points": 1.0, "wild": -0.5},
    # A wild only when nothing else is legal (card_points are at most 10,000).
    "hold-wilds": {"points": 1.0, "wild": -100_000.0},
    # A draw, skip or reverse card when the next seat is close to going out.
    "attack": {"points": 1.0, "wild": -0.5, "attack": 1_000_000.0},
}
"""The heuristics of RULES.md as points of the ``weighted`` space."""

RANDOMISED = ("random", "uniform")
DETERMINISTIC = ("first", *BUILT_IN_WEIGHTS, "weighted")
SEARCHES = ("pimc", "ismcts")
"""Strong players: they search the game by rollouts (:mod:`.search`, :mod:`.tree`)."""
NAMES = (*RANDOMISED, *DETERMINISTIC, *SEARCHES)
ROLLOUT_POLICIES = ("random", "uniform", "first", *BUILT_IN_WEIGHTS)
"""What every seat plays in a search's rollouts."""
MAX_BUDGET = 4096
"""The most rollouts per option (``pimc:K``) or iterations (``ismcts:K``) a search may take
(an ``ismcts`` tree holds K + 1 nodes: 4,097 nodes, 256 KiB a thread at most)."""
DEFAULT_EXPLORE = 0.7
"""``ismcts``' exploration constant c in UCB1 (rewards are wins, 0 or 1), the value of
Cowling, Powley and Whitehouse (2012)."""
MAX_EXPLORE = 10.0
EXPLORE_SCALE = 1000
"""The exploration constant is rounded to thousandths (the kernel keeps it as an integer)."""


@dataclass(frozen=True)
class StrategySpec:
    """One seat's strategy: its name, last-card forget chance and ``weighted`` weights."""

    name: str
    forget: float = 0.0
    weights: tuple[float, ...] = ()
    """Per feature (``FEATURE_NAMES``); empty for strategies that score no cards."""
    function: object = field(default=None, compare=False)
    """A user strategy's numba function (``name == "user"``)."""
    budget: int = 0
    """A search's rollouts per option and determinization (``pimc:K``); 0 for the others."""
    rollout: str = ""
    """A search's rollout policy (``ROLLOUT_POLICIES``); empty for the others."""
    explore: float = 0.0
    """``ismcts``' exploration constant c; 0 for the others."""

    @property
    def searches(self) -> bool:
        return self.name in SEARCHES

    @property
    def weighted(self) -> bool:
        return bool(self.weights)

    def int_explore(self) -> int:
        """The exploration constant as the kernel and the reference use it (x 1000)."""
        return round(self.explore * EXPLORE_SCALE)

    def int_weights(self) -> tuple[int, ...]:
        """The weights as the kernel and the reference score with them."""
        return tuple(round(w * WEIGHT_SCALE) for w in self.weights)

    def __str__(self) -> str:
        if self.name == "user":
            return f"user:{getattr(self.function, '__name__', 'strategy')}"
        if self.searches:
            params = [f"rollout={self.rollout}"] * (self.rollout != "random")
            if self.name == "ismcts" and self.explore != DEFAULT_EXPLORE:
                params.append(f"c={_number(self.explore)}")
            if not params:
                return f"{self.name}:{self.budget}"
            return f"{self.name}:k={self.budget}," + ",".join(params)
        params = []
        if self.name == "weighted":
            params += [
                f"{feature}={_number(w)}"
                for feature, w in zip(FEATURE_NAMES, self.weights, strict=True)
                if w
            ]
        if self.forget:
            params.append(f"forget={_number(self.forget)}")
        return self.name + (":" + ",".join(params) if params else "")


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def parse(text: str) -> StrategySpec:
    """``"greedy:forget=0.1"`` -> ``StrategySpec``; a CardsimError names what is wrong."""
    if isinstance(text, StrategySpec):
        return text
    if callable(text):
        return user_strategy(text)
    if not isinstance(text, str):
        raise CardsimError(f"a strategy is a name such as 'greedy', got {text!r}")
    name, _, rest = text.strip().partition(":")
    name = name.strip()
    if name not in NAMES:
        raise CardsimError(f"unknown strategy '{name}'; strategies: {', '.join(NAMES)}")
    if name in SEARCHES:
        return _parse_search(text, name, rest)
    forget = 0.0
    weights = dict(BUILT_IN_WEIGHTS.get(name, {}))
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep:
            raise CardsimError(f"strategy '{text}': expected PARAM=VALUE, got '{item}'")
        number = _as_number(text, key, value)
        if key == "forget":
            if not 0 <= number <= 1:
                raise CardsimError(f"strategy '{text}': forget must be from 0 to 1, got {value}")
            forget = number
        elif name == "weighted" and key in FEATURES:
            if abs(number) > MAX_WEIGHT:
                raise CardsimError(
                    f"strategy '{text}': weights must be from -{MAX_WEIGHT:g} to "
                    f"{MAX_WEIGHT:g}, got {key}={value}"
                )
            weights[key] = number
        else:
            allowed = "forget" + (", " + ", ".join(FEATURES) if name == "weighted" else "")
            raise CardsimError(f"strategy '{text}': unknown parameter '{key}'; known: {allowed}")
    vector = tuple(float(weights.get(f, 0.0)) for f in FEATURE_NAMES) if weights else ()
    if name == "weighted" and not any(vector):
        raise CardsimError(
            f"strategy '{text}' gives no weights; e.g. weighted:points=1,wild=-0.5 "
            f"(features: {', '.join(FEATURES)})"
        )
    return StrategySpec(name, forget, vector)


def _parse_search(text: str, name: str, rest: str) -> StrategySpec:
    """``pimc:32`` (shorthand for ``pimc:k=32``), ``pimc:k=32,rollout=greedy``,
    ``ismcts:64``, ``ismcts:k=64,c=0.5``."""
    rest = rest.strip()
    if rest and "=" not in rest:
        rest = f"k={rest}"
    what = "rollouts per option" if name == "pimc" else "iterations per decision"
    known = "k, rollout" if name == "pimc" else "k, c, rollout"
    budget, rollout, explore = None, "random", DEFAULT_EXPLORE if name == "ismcts" else 0.0
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep:
            raise CardsimError(f"strategy '{text}': expected PARAM=VALUE, got '{item}'")
        if key == "k":
            if not value.isdigit() or not 1 <= int(value) <= MAX_BUDGET:
                raise CardsimError(
                    f"strategy '{text}': k ({what}) must be a whole number "
                    f"from 1 to {MAX_BUDGET}, got '{value}'"
                )
            budget = int(value)
        elif key == "rollout":
            if value not in ROLLOUT_POLICIES:
                raise CardsimError(
                    f"strategy '{text}': unknown rollout policy '{value}'; "
                    f"known: {', '.join(ROLLOUT_POLICIES)}"
                )
            rollout = value
        elif key == "c" and name == "ismcts":
            number = _as_number(text, key, value)
            if not 0 <= number <= MAX_EXPLORE:
                raise CardsimError(
                    f"strategy '{text}': c (the exploration constant) must be from 0 to "
                    f"{MAX_EXPLORE:g}, got {value}"
                )
            explore = round(number * EXPLORE_SCALE) / EXPLORE_SCALE
        else:
            raise CardsimError(f"strategy '{text}': unknown parameter '{key}'; known: {known}")
    if budget is None:
        raise CardsimError(
            f"strategy '{text}' needs a budget: {name}:K, K {what} "
            f"from 1 to {MAX_BUDGET} (e.g. {name}:32)"
        )
    return StrategySpec(name, 0.0, (), budget=budget, rollout=rollout, explore=explore)


def _as_number(text: str, key: str, value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise CardsimError(f"strategy '{text}': {key} must be a number, got '{value}'") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise CardsimError(f"strategy '{text}': {key} must be a finite number, got '{value}'")
    return number


def user_strategy(function) -> StrategySpec:
    """A user strategy: a function ``choose(hand, legal, view) -> int`` (see
    ``kernel_strategies`` and ``docs/user_strategies.md``). A plain Python function is
    compiled with numba (nopython) here; a numba function must have the signature
    ``kernel_strategies.USER_SIGNATURE``."""
    from numba import njit
    from numba.core.errors import NumbaError

    from .kernel_strategies import USER_SIGNATURE

    name = getattr(function, "__name__", repr(function))
    if not hasattr(function, "py_func"):  # not yet compiled: compile it once
        if id(function) in _COMPILED:
            return StrategySpec("user", 0.0, (), _COMPILED[id(function)][1])
        source = function
        try:
            function = njit(USER_SIGNATURE, cache=False)(function)
        except NumbaError as exc:
            lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
            reason = lines[1] if len(lines) > 1 else lines[0]  # the line after "Failed in..."
            raise CardsimError(
                f"user strategy '{name}' does not compile in nopython mode: {reason}"
            ) from None
        _COMPILED[id(source)] = (source, function)
    elif USER_SIGNATURE.args not in function.signatures:
        raise CardsimError(
            f"user strategy '{name}' must be compiled with the signature "
            f"{USER_SIGNATURE} (simulate.games.shedding.kernel_strategies.USER_SIGNATURE)"
        )
    return StrategySpec("user", 0.0, (), function)


_COMPILED: dict[int, tuple] = {}
"""Plain functions compiled as user strategies: id -> (the function, its compiled form)."""
