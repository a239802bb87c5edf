"""Shedding-game rules (Crazy Eights, Pis Yedili and relatives): knobs, presets, validation.

A rules object holds every knob of RULES.md's "Shedding games" section, validated on
construction; presets give the games' defaults, and any knob can be overridden by name:
``preset("pis-yedili").with_overrides({"stacking": "any_draw", "effects.A": "skip"})``.
Values may be given as Python values (API, TOML) or as strings (``--rule K=V``).
Numba-free: the kernel receives the rules as an integer vector (a later step).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any, NamedTuple

import numpy as np

from ...core.cards import RANKS
from ...core.errors import CardsimError
from ...core.knobs import as_int, check_whole

PRESETS = ("pis-yedili", "crazy-eights", "crazy-eights-plain", "openspiel")
DEFAULT_PLAYERS = {"pis-yedili": 4, "crazy-eights": 4, "crazy-eights-plain": 4, "openspiel": 5}
MAX_PLAYERS = 15
CHOICES = {
    "first_seat": ("seat0", "random"),
    "start": ("flip", "lead_club", "all_lead_club"),
    "wild_mode": ("any", "different", "own_suit", "match_suit"),
    "on_no_play": ("draw_one_pass", "draw_one_may_play", "draw_until_playable", "draw_up_to:N"),
    "stacking": ("none", "same_rank", "any_draw"),
    "stack_growth": ("add", "double"),
    "stock_empty": ("reshuffle", "end", "pass"),
    "blocked_winner": ("lowest_hand", "none"),
    "reverse_two_players": ("none", "skip"),
    "last_card_rule": ("penalty", "cannot_go_out"),
    "scoring": ("winner_collects", "penalty", "minus_hand"),
}
SWITCHES = (
    "wild_on_wild",
    "voluntary_draw",
    "wild_answers_draw",
    "penalty_ends_turn",
    "last_card_call",
)
EFFECTS = ("wild", "skip", "reverse", "draw:N", "again", "all_draw:N")
# Effects that make no sense together on one rank.
INCOMPATIBLE = (
    ("draw", "all_draw"),
    ("again", "all_draw"),
    ("again", "skip"),
    ("again", "reverse"),
    ("skip", "reverse"),
    ("wild", "again"),
)


# Layout of the int64 rule vector read by the kernel. A choice knob is stored as the index
# of its value in CHOICES (on_no_play's draw_up_to:N as index 3, N in R_DRAW_UP_TO); a
# switch as 0/1; a missing number as 0. Per-rank tables take 13 entries (ace ... king).
_SCALARS = (
    "first_seat",
    "start",
    "wild_mode",
    "wild_on_wild",
    "on_no_play",
    "draw_up_to",
    "voluntary_draw",
    "stacking",
    "stack_growth",
    "wild_answers_draw",
    "penalty_ends_turn",
    "stock_empty",
    "blocked_winner",
    "max_plays",
    "max_turns",
    "reverse_two_players",
    "last_card_call",
    "last_card_rule",
    "last_card_penalty",
    "scoring",
    "match_deals",
    "target_score",
)
R = {name: index for index, name in enumerate(_SCALARS)}
"""Offset of each scalar knob in the rule vector."""
R_EFFECT_FLAGS = len(_SCALARS)
"""R_EFFECT_FLAGS + rank: the rank's effects as bits (FLAG_WILD | FLAG_SKIP | ...)."""
R_DRAW = R_EFFECT_FLAGS + 13
R_ALL_DRAW = R_DRAW + 13
R_POINTS = R_ALL_DRAW + 13
R_MULTIPLIER = R_POINTS + 13
RULE_VECTOR_SIZE = R_MULTIPLIER + 13
FLAG_WILD, FLAG_SKIP, FLAG_REVERSE, FLAG_AGAIN = 1, 2, 4, 8


class RankEffects(NamedTuple):
    """What a rank does when played (``draw``/``all_draw``: cards, 0 for none)."""

    wild: bool = False
    skip: bool = False
    reverse: bool = False
    draw: int = 0
    again: bool = False
    all_draw: int = 0


def _face_values() -> dict[str, int]:
    return {rank: (1 if rank == "A" else 10 if rank in "JQK" else int(rank)) for rank in RANKS}


@dataclass(frozen=True)
class SheddingRules:
    """Every knob of a shedding game (RULES.md); :func:`describe` words them with their
    meanings."""

    preset: str = "crazy-eights"
    decks: int | dict = 1
    hand_size: int | dict = 5
    first_seat: str = "seat0"
    start: str = "flip"
    effects: dict = field(default_factory=dict)
    wild_mode: str = "any"
    wild_on_wild: bool = True
    on_no_play: str = "draw_one_pass"
    voluntary_draw: bool = True
    stacking: str = "none"
    stack_growth: str = "add"
    wild_answers_draw: bool = False
    penalty_ends_turn: bool = True
    stock_empty: str = "reshuffle"
    blocked_winner: str = "lowest_hand"
    max_plays: int | None = None
    max_turns: int = 10_000
    reverse_two_players: str = "none"
    last_card_call: bool = False
    last_card_rule: str = "penalty"
    last_card_penalty: int = 2
    scoring: str = "winner_collects"
    card_points: dict = field(default_factory=_face_values)
    finish_multiplier: dict = field(default_factory=dict)
    match_deals: int | None = None
    target_score: int | None = None

    def __post_init__(self):
        for name, allowed in CHOICES.items():
            value = getattr(self, name)
            if name == "on_no_play" and value.startswith("draw_up_to:"):
                check_whole("on_no_play (draw_up_to:N)", value.split(":", 1)[1], 1, 52)
            elif value not in allowed:
                raise CardsimError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
        for name in SWITCHES:
            if not isinstance(getattr(self, name), bool):
                raise CardsimError(f"{name} must be on or off, got {getattr(self, name)!r}")
        _per_players("decks", self.decks, 1, 8)
        _per_players("hand_size", self.hand_size, 1, 52)
        for rank, effects in self.effects.items():
            _check_effects(rank, effects)
        check_whole("max_turns", self.max_turns, 1, 10**9)
        check_whole("last_card_penalty", self.last_card_penalty, 0, 52)
        for name in ("max_plays", "match_deals", "target_score"):
            if getattr(self, name) is not None:
                check_whole(name, getattr(self, name), 1, 10**9)
        if self.match_deals is not None and self.target_score is not None:
            raise CardsimError("match_deals and target_score exclude each other; give one")
        for table in ("card_points", "finish_multiplier"):
            for rank, value in getattr(self, table).items():
                _rank_key(f"{table}.{rank}", rank)
                check_whole(f"{table}.{rank}", value, 0, 10_000)

    # --- derived views -------------------------------------------------------------------

    def decks_for(self, players: int) -> int:
        return _for_players(self.decks, players)

    def hand_size_for(self, players: int) -> int:
        return _for_players(self.hand_size, players)

    @property
    def draw_up_to(self) -> int:
        """N for ``on_no_play = draw_up_to:N``, else 0."""
        if self.on_no_play.startswith("draw_up_to:"):
            return int(self.on_no_play.split(":", 1)[1])
        return 0

    @property
    def no_play_rule(self) -> str:
        """``on_no_play`` without its number: draw_one_pass, ..., draw_up_to."""
        return self.on_no_play.split(":", 1)[0]

    def rank_effects(self, rank: int) -> RankEffects:
        """The effects of rank index ``rank`` (0 ace ... 12 king)."""
        found: dict[str, Any] = {}
        for effect in self.effects.get(RANKS[rank], ()):
            name, _, amount = effect.partition(":")
            found[name] = int(amount) if amount else True
        return RankEffects(**found)

    def points(self, rank: int) -> int:
        return self.card_points.get(RANKS[rank], 0)

    def multiplier(self, rank: int) -> int:
        return self.finish_multiplier.get(RANKS[rank], 1)

    def check_players(self, players: int) -> None:
        """Refuse a player count for which the deal leaves no card in the stock."""
        if (
            isinstance(players, bool)
            or not isinstance(players, int)
            or not 2 <= players <= MAX_PLAYERS
        ):
            raise CardsimError(f"players must be 2 to {MAX_PLAYERS}, got {players!r}")
        decks, hand = self.decks_for(players), self.hand_size_for(players)
        if players * hand >= 52 * decks:
            raise CardsimError(
                f"{players} players x {hand} cards need more than {decks} deck(s) of 52 "
                "(the stock must keep a card)",
                rule=f"decks={decks + 1}",
            )
        wilds = 4 * decks * sum(self.rank_effects(rank).wild for rank in range(13))
        if self.start == "flip" and wilds >= 52 * decks - players * hand:
            # The stock could hold only wilds, and a wild starter goes back for another card
            # forever: refuse rather than risk a game that never starts.
            raise CardsimError(
                f"start=flip with {players} players x {hand} cards leaves a stock of "
                f"{52 * decks - players * hand}, which could hold only wilds ({wilds} in the "
                "deck); deal fewer cards",
                rule=f"decks={decks + 1}",
            )

    # --- changing knobs -------------------------------------------------------------------

    def with_overrides(self, overrides: dict) -> SheddingRules:
        """A copy with knobs changed: ``{"stacking": "any_draw", "effects.A": "skip"}``.

        Keys may be dotted (``effects.7``, ``card_points.J``, ``finish_multiplier.7``) or a
        table may be given whole (``{"effects": {"7": "draw:3"}}``, as in TOML).
        """
        changes: dict[str, Any] = {}
        for key, value in overrides.items():
            table, _, rank = key.partition(".")
            if table in ("effects", "card_points", "finish_multiplier"):
                current = dict(changes.get(table, getattr(self, table)))
                items = value.items() if not rank and isinstance(value, dict) else [(rank, value)]
                for item_rank, item_value in items:
                    item_rank = _rank_key(f"{table}.{item_rank}", str(item_rank))
                    if table == "effects":
                        current[item_rank] = _parse_effects(item_rank, item_value)
                    else:
                        current[item_rank] = as_int(f"{table}.{item_rank}", item_value)
                changes[table] = current
            elif key in CHOICES:
                changes[key] = str(value)
            elif key in SWITCHES:
                changes[key] = _as_switch(key, value)
            elif key in ("decks", "hand_size"):
                changes[key] = _parse_per_players(key, value)
            elif key in ("max_plays", "match_deals", "target_score"):
                changes[key] = None if _is_none(value) else as_int(key, value)
            elif key in ("max_turns", "last_card_penalty"):
                changes[key] = as_int(key, value)
            elif key == "special" and self.preset == "openspiel":
                # OpenSpiel's special cards: Q skips, A reverses, 2 draws 2 and stacks on 2s.
                effects = dict(changes.get("effects", self.effects))
                if _as_switch(key, value):
                    effects.update({"Q": ("skip",), "A": ("reverse",), "2": ("draw:2",)})
                    changes["stacking"] = "same_rank"
                else:
                    effects = {"8": ("wild",)}
                    changes["stacking"] = "none"
                changes["effects"] = effects
            else:
                known = sorted(
                    [
                        *CHOICES,
                        *SWITCHES,
                        "decks",
                        "hand_size",
                        "max_plays",
                        "max_turns",
                        "last_card_penalty",
                        "match_deals",
                        "target_score",
                        "effects.R",
                        "card_points.R",
                        "finish_multiplier.R",
                    ]
                )
                raise CardsimError(f"unknown rule '{key}'; known rules: {', '.join(known)}")
        # A match is played to a number of deals or to a target, not both: setting one
        # replaces the preset's other (giving both is still refused).
        for one, other in (("match_deals", "target_score"), ("target_score", "match_deals")):
            if changes.get(one) is not None and other not in changes:
                changes[other] = None
        return replace(self, **changes)

    def to_vector(self) -> np.ndarray:
        """The rules as the kernel reads them: int64[RULE_VECTOR_SIZE] (layout above)."""
        vector = np.zeros(RULE_VECTOR_SIZE, np.int64)
        for name in _SCALARS:
            if name == "draw_up_to":
                value = self.draw_up_to
            elif name == "on_no_play":
                value = CHOICES[name].index(
                    self.no_play_rule if self.draw_up_to == 0 else "draw_up_to:N"
                )
            elif name in CHOICES:
                value = CHOICES[name].index(getattr(self, name))
            else:
                value = getattr(self, name) or 0
            vector[R[name]] = int(value)
        for rank in range(13):
            effects = self.rank_effects(rank)
            vector[R_EFFECT_FLAGS + rank] = (
                FLAG_WILD * effects.wild
                | FLAG_SKIP * effects.skip
                | FLAG_REVERSE * effects.reverse
                | FLAG_AGAIN * effects.again
            )
            vector[R_DRAW + rank] = effects.draw
            vector[R_ALL_DRAW + rank] = effects.all_draw
            vector[R_POINTS + rank] = self.points(rank)
            vector[R_MULTIPLIER + rank] = self.multiplier(rank)
        return vector

    @property
    def match_play(self) -> bool:
        """Whether a run plays matches (``match_deals`` or ``target_score``): then ``games``
        counts matches, and each deal of a match is a record."""
        return self.match_deals is not None or self.target_score is not None

    def describe(self, players: int | None = None) -> str:
        """The rules in plain words, one knob a line (:func:`describe`)."""
        return describe(self, players)

    def to_dict(self) -> dict:
        """Plain JSON-ready form, as stored in run.json."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["effects"] = {rank: list(effects) for rank, effects in self.effects.items()}
        return out


# --- presets -----------------------------------------------------------------------------

_PIS_YEDILI_POINTS = {**_face_values(), "A": 15, "7": 20, "J": 25}
_OPENSPIEL_POINTS = {**_face_values(), "8": 50, "A": 10}


def preset(name: str) -> SheddingRules:
    """The rules of a preset: pis-yedili, crazy-eights, crazy-eights-plain, openspiel."""
    if name == "crazy-eights":
        return SheddingRules(
            preset=name,
            decks={"5+": 2, "default": 1},
            hand_size=5,
            effects={"8": ("wild",), "Q": ("reverse",), "A": ("skip",), "2": ("skip", "draw:2")},
            card_points={**_face_values(), "8": 50},
        )
    if name == "crazy-eights-plain":
        return replace(preset("crazy-eights"), preset=name, effects={"8": ("wild",)})
    if name == "pis-yedili":
        return SheddingRules(
            preset=name,
            decks=1,
            hand_size=7,
            start="lead_club",
            effects={
                "J": ("wild",),
                "8": ("skip",),
                "10": ("reverse",),
                "7": ("draw:3",),
                "A": ("again",),
            },
            wild_on_wild=False,
            on_no_play="draw_until_playable",
            voluntary_draw=False,
            stacking="same_rank",
            stock_empty="end",
            scoring="penalty",
            card_points=_PIS_YEDILI_POINTS,
            finish_multiplier={"7": 3, "J": 2},
            match_deals=4,
            last_card_rule="cannot_go_out",
        )
    if name == "openspiel":
        return SheddingRules(
            preset=name,
            decks={"6+": 2, "default": 1},
            hand_size={"2": 7, "default": 5},
            first_seat="random",
            effects={"8": ("wild",)},
            on_no_play="draw_up_to:5",
            stock_empty="pass",
            blocked_winner="none",
            max_plays=100,
            scoring="minus_hand",
            card_points=_OPENSPIEL_POINTS,
        )
    raise CardsimError(f"unknown preset '{name}'; presets: {', '.join(PRESETS)}")


# --- parsing and checking helpers ----------------------------------------------------------


def _is_none(value) -> bool:
    return value is None or (isinstance(value, str) and value.lower() in ("none", "off", ""))


def _as_switch(key: str, value) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).lower()
    if text in ("on", "true", "yes", "1"):
        return True
    if text in ("off", "false", "no", "0"):
        return False
    raise CardsimError(f"{key} must be on or off, got {value!r}")


def _rank_key(key: str, rank: str) -> str:
    rank = rank.upper()
    if rank not in RANKS:
        raise CardsimError(f"unknown rank in {key}; ranks: {', '.join(RANKS)}")
    return rank


def _parse_effects(rank: str, value) -> tuple[str, ...]:
    """``"skip+draw:2"``, ``["skip", "draw:2"]`` or ``"none"`` -> a checked tuple."""
    if isinstance(value, str):
        parts = [] if _is_none(value) else value.replace(",", "+").split("+")
    else:
        parts = list(value)
    effects = tuple(part.strip() for part in parts)
    _check_effects(rank, effects)
    return effects


def _check_effects(rank: str, effects) -> None:
    names = []
    for effect in effects:
        name, sep, amount = effect.partition(":")
        if name in ("draw", "all_draw"):
            if not sep:
                raise CardsimError(f"effects.{rank}: {name} needs a number, as in {name}:2")
            check_whole(f"effects.{rank} ({name})", amount, 1, 52)
        elif sep or name not in ("wild", "skip", "reverse", "again"):
            raise CardsimError(
                f"unknown effect '{effect}' for effects.{rank}; effects: {', '.join(EFFECTS)}, "
                "or none"
            )
        names.append(name)
    for first, second in INCOMPATIBLE:
        if first in names and second in names:
            raise CardsimError(f"effects.{rank} cannot be both {first} and {second}")
    if len(set(names)) != len(names):
        raise CardsimError(f"effects.{rank} names an effect twice: {'+'.join(effects)}")


def _parse_per_players(key: str, value):
    """A number, or one per player count: ``"2:7,5"`` (7 for two players, else 5),
    ``"5+:2,1"`` (2 from five players on, else 1), or the same as a dict
    (``{"2": 7, "default": 5}``, as in TOML)."""
    if isinstance(value, str) and ("," in value or ":" in value):
        table: dict = {}
        for part in value.split(","):
            players, sep, amount = part.strip().partition(":")
            table[players.strip() if sep else "default"] = amount if sep else players
        value = table
    if isinstance(value, dict):
        table = {}
        for players, amount in value.items():
            players = str(players).strip()
            if players != "default":
                check_whole(f"{key} (players)", players.rstrip("+"), 2, MAX_PLAYERS)
            table[players] = as_int(key, amount)
        return table
    return as_int(key, value)


def _per_players(key: str, value, low: int, high: int) -> None:
    if isinstance(value, dict):
        if "default" not in value:
            raise CardsimError(f"{key} per player count needs a default, as in {key}=2:7,5")
        for players, amount in value.items():
            if players != "default":
                check_whole(f"{key} (players)", str(players).rstrip("+"), 2, MAX_PLAYERS)
            check_whole(key, amount, low, high)
    else:
        check_whole(key, value, low, high)


def _for_players(value, players: int) -> int:
    """A per-player-count knob's value: the entry for exactly ``players``, else the largest
    ``"N+"`` entry with N <= players, else the default."""
    if not isinstance(value, dict):
        return int(value)
    if str(players) in value:
        return int(value[str(players)])
    from_counts = [int(k[:-1]) for k in value if k.endswith("+") and int(k[:-1]) <= players]
    return int(value[f"{max(from_counts)}+"]) if from_counts else int(value["default"])


KNOB_MEANINGS = {
    "decks": "52-card decks shuffled together",
    "hand_size": "cards dealt to each seat",
    "first_seat": "who acts first: seat 0, or the seat after a random dealer",
    "start": "how play starts: a flipped starter, or a club led by the first seat (or by all)",
    "effects": "what each rank does when played",
    "wild_mode": "which suit a wild may name, or when it may be played",
    "wild_on_wild": "whether a wild may be played on a wild",
    "on_no_play": "what a seat does when it plays no card",
    "voluntary_draw": "whether a seat holding a legal card may draw instead",
    "stacking": "which cards may answer a draw card",
    "stack_growth": "how answered draw cards add up",
    "wild_answers_draw": "whether a wild may answer (and cancel) a pending draw",
    "penalty_ends_turn": "whether drawing a penalty ends the turn",
    "stock_empty": "what happens when a seat must draw from an empty stock",
    "blocked_winner": "who wins when every seat passes in turn",
    "max_plays": "card plays after which the game ends with no winner",
    "max_turns": "safety cap on turns (the game is recorded as turn_cap)",
    "reverse_two_players": "what a reverse does with two players",
    "last_card_call": "whether a seat down to one card must call",
    "last_card_rule": "what a forgotten call costs",
    "last_card_penalty": "cards drawn for a forgotten call",
    "scoring": "how a deal is scored",
    "card_points": "penalty points of each rank left in hand",
    "finish_multiplier": "multiplier of the others' points by the winner's last card",
    "match_deals": "deals in a match",
    "target_score": "total at which a match ends",
}


def describe(rules: SheddingRules, players: int | None = None) -> str:
    """The rules in plain words, one knob a line."""
    lines = [f"preset {rules.preset}"]
    for name, meaning in KNOB_MEANINGS.items():
        value = getattr(rules, name)
        if name in ("decks", "hand_size") and players is not None:
            text = f"{_for_players(value, players)} (for {players} players)"
        elif name == "effects":
            text = (
                "; ".join(f"{rank}: {'+'.join(value[rank])}" for rank in RANKS if value.get(rank))
                or "none"
            )
        elif name in ("card_points", "finish_multiplier"):
            text = ", ".join(f"{rank} {value[rank]}" for rank in RANKS if rank in value) or "none"
        elif isinstance(value, bool):
            text = "on" if value else "off"
        elif isinstance(value, dict):
            text = ", ".join(
                f"{k} players: {v}" if k != "default" else f"otherwise {v}"
                for k, v in value.items()
            )
        else:
            text = "none" if value is None else str(value)
        lines.append(f"{name} = {text}  ({meaning})")
    return "\n".join(lines)
