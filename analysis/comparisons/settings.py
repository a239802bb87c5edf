"""What sets the runs of a comparison apart besides their rules.

A comparison credits each difference it finds to the rules, so it must say when a variant
and its base differ in something else that changes who wins or how long a deal lasts: the
seats' strategies (their forget chances included: a strategy's text holds them) and the
seat rotation (:func:`not_rules`). Other settings change no game but still belong in the
variants table: the seed (another seed deals other cards, so the runs are compared as
independent samples), the records kept and the cardsim version (:func:`setting_cells`).
Player counts need no check: a variant is compared with the base of its own player count.
"""

from __future__ import annotations

from collections.abc import Mapping

from simulate.games.spec import GameSpec


def strategies(meta: Mapping, spec: GameSpec) -> tuple[str, ...]:
    """Each seat's strategy as ``run.json`` names it (the game's default where it names
    none); empty for a game without choices."""
    if not spec.takes_strategies:
        return ()
    named = list(meta.get("strategies") or [])
    players = int(meta["players"])
    named += [spec.default_strategy] * (players - len(named))
    return tuple(str(s) for s in named[:players])


def seating(meta: Mapping) -> str:
    """``rotated`` when every deal was played once per cyclic seating, else ``fixed``."""
    return "rotated" if meta.get("rotate_seats") else "fixed"


def not_rules(base: Mapping, variant: Mapping, spec: GameSpec) -> list[str]:
    """What, besides the rules, differs between the ``variant`` run and its ``base``
    (their ``run.json`` contents): one phrase each, in words, the base's setting last
    (``strategies greedy, random, random vs random, random, random``); empty when only
    the rules may differ."""
    found = []
    mine, theirs = strategies(variant, spec), strategies(base, spec)
    if mine != theirs:
        found.append(f"strategies {', '.join(mine)} vs {', '.join(theirs)}")
    if seating(variant) != seating(base):
        found.append(f"seats {seating(variant)} vs {seating(base)}")
    return found


def setting_cells(meta: Mapping, spec: GameSpec) -> dict[str, str]:
    """The variants table's cells of a run's settings other than its rules:
    ``strategies`` (comma-separated, seat 0 first; – for a game without choices),
    ``seats`` (:func:`seating`), ``records`` (all, or what an aggregate-only run kept) and
    ``version`` (of cardsim, – when ``run.json`` does not say)."""
    return {
        "strategies": ", ".join(strategies(meta, spec)) or "–",
        "seats": seating(meta),
        "records": str(meta.get("records", "all")),
        "version": str((meta.get("versions") or {}).get("cardsim", "–")),
    }
