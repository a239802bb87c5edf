"""High card's rules: one knob, whether aces rank high."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

from simulate.core.errors import CardsimError


@dataclass(frozen=True)
class HighCardRules:
    aces_high: bool = True
    match_play = False

    def with_overrides(self, overrides: dict) -> HighCardRules:
        rules = self
        for key, value in overrides.items():
            if key != "aces_high":
                raise CardsimError(f"unknown rule '{key}' for high card; allowed: aces_high")
            if str(value).lower() not in ("true", "false", "on", "off"):
                raise CardsimError(f"aces_high must be on or off, got {value!r}")
            rules = replace(rules, aces_high=str(value).lower() in ("true", "on"))
        return rules

    def to_dict(self) -> dict:
        return asdict(self)

    def check_players(self, players: int) -> None:
        """Two to four seats can always be dealt."""

    def describe(self, players: int | None = None) -> str:
        return f"aces {'high' if self.aces_high else 'low'}; the highest card takes the trick"
