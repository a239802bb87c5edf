"""The first line of a replay, from the request alone (the game engines write it above a
game they replay; :mod:`simulate.app.replay` above one read from a run folder)."""

from __future__ import annotations

import json


def header_line(request, which: int | str) -> str:
    """The first line of a replay: game, players, strategies, seed, which game, and the
    rules that differ from the preset's."""
    if isinstance(which, int):
        which = f"game {which}"
    names = f" ({', '.join(request.strategies)})" if request.strategies else ""
    line = f"{request.game.name}, {request.players} players{names}, seed {request.seed}, {which}"
    changed = changed_rules(request)
    return line + (f"; rules changed: {', '.join(changed)}" if changed else "")


def changed_rules(request) -> list[str]:
    """``knob=value`` for each rule that differs from the preset's."""
    base = _flat(json.loads(json.dumps(request.game.base_rules().to_dict())))
    asked = _flat(json.loads(json.dumps(request.rules.to_dict())))
    return [
        f"{knob}={asked[knob]}"
        for knob in sorted(asked)
        if knob != "preset" and asked.get(knob) != base.get(knob)
    ]


def _flat(rules: dict, prefix: str = "") -> dict:
    flat = {}
    for key, value in rules.items():
        if isinstance(value, dict):
            flat.update(_flat(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat
