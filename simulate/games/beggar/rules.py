"""Beggar-My-Neighbour rules: the validated rules object and its kernel vector."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace

import numpy as np

from ...core.errors import CardsimError
from ...core.knobs import as_int, check_whole

GAME = "beggar-my-neighbour"
MIN_PLAYERS, MAX_PLAYERS = 2, 4
COURTS = "JQKA"
"""Court ranks in kind order: kind 1 is a jack ... kind 4 an ace (kind 0 is any other card)."""
END_NAMES = ("out", "cycle", "time_limit")
"""How a deal ends (the ``end`` column); the kernel records the index into this tuple."""
DEFAULT_PENALTIES = {"J": 1, "Q": 2, "K": 3, "A": 4}
MAX_PENALTY = 52

# Layout of the int64 rule vector read by the kernel.
R_PENALTY = 0
"""R_PENALTY + kind: cards owed for a court card of that kind (entry 0, plain cards, is 0)."""
R_TIME_LIMIT = 5
"""Cards played after which the game stops (0: no limit)."""
RULE_VECTOR_SIZE = 6


@dataclass(frozen=True)
class BeggarRules:
    """The knobs of Beggar-My-Neighbour (RULES.md), validated on construction.

    ``penalties`` maps each court rank (``J``, ``Q``, ``K``, ``A``) to the cards owed for
    it; ``time_limit`` is a number of cards played after which the seat holding the most
    cards wins (``None``: play on until the game ends or cycles).
    """

    penalties: dict = field(default_factory=lambda: dict(DEFAULT_PENALTIES))
    time_limit: int | None = None

    def __post_init__(self):
        if set(self.penalties) != set(COURTS):
            raise CardsimError(
                f"penalties must give all of J, Q, K, A, got {', '.join(sorted(self.penalties))}"
            )
        for rank in COURTS:
            check_whole(f"penalties.{rank}", self.penalties[rank], 1, MAX_PENALTY)
        if self.time_limit is not None:
            check_whole("time_limit", self.time_limit, 1, 2**31 - 1)

    def to_vector(self) -> np.ndarray:
        """The rules as the kernel reads them: int64[RULE_VECTOR_SIZE]."""
        vector = np.zeros(RULE_VECTOR_SIZE, np.int64)
        for kind, rank in enumerate(COURTS, start=1):
            vector[R_PENALTY + kind] = self.penalties[rank]
        vector[R_TIME_LIMIT] = self.time_limit or 0
        return vector

    def to_dict(self) -> dict:
        """Plain JSON-ready form, as stored in run.json."""
        return asdict(self)

    match_play = False
    """Beggar-My-Neighbour plays single deals."""

    def check_players(self, players: int) -> None:
        """Every player count the game takes is dealt by these rules."""

    def describe(self, players: int | None = None) -> str:
        """The rules in plain words, one line."""
        owed = ", ".join(f"{rank} {self.penalties[rank]}" for rank in reversed(COURTS))
        limit = f"stop after {self.time_limit} cards" if self.time_limit else "no time limit"
        return f"cards owed per court card: {owed}; {limit}"

    def with_overrides(self, overrides: dict) -> BeggarRules:
        """A copy with knobs changed, given as ``{"penalties.A": 5, "time_limit": 1000}``."""
        penalties = dict(self.penalties)
        time_limit = self.time_limit
        for key, value in overrides.items():
            if key.startswith("penalties.") and key[len("penalties.") :] in COURTS:
                penalties[key[len("penalties.") :]] = as_int(key, value)
            elif key == "penalties" and isinstance(value, dict):
                for rank, owed in value.items():
                    if rank not in COURTS:
                        raise CardsimError(
                            f"unknown court rank '{rank}' in penalties; allowed: J, Q, K, A"
                        )
                    penalties[rank] = as_int(f"penalties.{rank}", owed)
            elif key == "time_limit":
                time_limit = None if value in (None, "none", 0, "0") else as_int(key, value)
            else:
                raise CardsimError(
                    f"unknown rule '{key}' for {GAME}; allowed: penalties.J, penalties.Q, "
                    "penalties.K, penalties.A, time_limit"
                )
        return replace(self, penalties=penalties, time_limit=time_limit)
