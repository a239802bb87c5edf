"""Skill games: how cardsim measures skill by restricted play (``cardsim balance``, a
study's ``skill`` key; the measure itself is in :mod:`analysis.balance`).

A run's skill games put the skilled strategy in one seat and :data:`OPPONENT` in every
other, and play every deal once per seat (``rotate_seats``: in rotation r the skilled seat
is r) on the run's game, players, rules and seed, so on the run's deals. They are a run
folder of their own, :data:`SKILL_FOLDER` inside the run's folder. No numba, no pandas.
"""

from __future__ import annotations

SKILL_FOLDER = "skill"
"""A run folder's skill games live in ``DIR/skill/``, a run folder of its own."""
DEFAULT_SKILL = "hold-wilds"
"""The skilled strategy when none is named."""
OPPONENT = "random"
"""The strategy of every seat but the skilled one."""
DEFAULT_LADDER = ("random", "pimc:8", "pimc:16", "pimc:32", "pimc:64")
"""The rungs of ``cardsim ladder`` when none are given: ``random``, then strong players of
doubling budgets (their cost is estimated before they play)."""
LADDER_GAMES = 10_000
"""Deals per step of ``cardsim ladder`` when not given: the default ladder's five rungs take
about 5 minutes on two cores (Crazy Eights, four players), and a step of 10,000 deals
detects an edge of about 0.6 points over the fair share."""


def skill_seats(skill, players: int) -> list:
    """The seats of the skill games, in seat order: ``skill`` (a strategy name or object)
    in seat 0, :data:`OPPONENT` in the others (rotated over the seats by ``rotate_seats``)."""
    return [skill] + [OPPONENT] * (players - 1)
