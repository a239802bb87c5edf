"""The golden cases: small runs whose records are committed in this folder.

``make_golden.py`` writes each case's records (``<name>.parquet``; in match play also
``<name>.matches.parquet``) and ``tests/test_golden_records.py`` replays every case with the
current code and compares. Both run a case through :func:`run_case`, so they play exactly
the same thing. Changing a case means regenerating its files (and saying why).

Together the cases cover Beggar-My-Neighbour with 2 to 4 players (and a time limit), every
shedding preset, single deals and match play (a number of deals, and a target score),
rotated seats (single deals and matches), every built-in strategy, a ``weighted`` one and
``:forget=P`` (under ``last_card_call=on``), 2 to 6 players in the shedding games, and
every way a deal ends but a Beggar-My-Neighbour cycle (too rare for a small run).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

FOLDER = Path(__file__).resolve().parent

SINGLE = {"match_deals": "none", "target_score": "none"}
"""Rules that turn match play off (the pis-yedili preset plays 4-deal matches)."""

WEIGHTED = "weighted:points=0.5,wild=-2,action=0.25,draw=-0.75,attack=3,again=1,suit_left=0.5,rank_left=-0.25"


def _case(name, game, players, games, seed, rules=None, strategies=None, rotate_seats=False):
    return {
        "name": name,
        "game": game,
        "players": players,
        "games": games,
        "seed": seed,
        "rules": rules,
        "strategies": strategies,
        "rotate_seats": rotate_seats,
    }


CASES = [
    # Beggar-My-Neighbour: 2 to 4 players, default rules; one with a time limit.
    _case("bmn-2p", "beggar-my-neighbour", 2, 400, 20240101),
    _case("bmn-3p", "beggar-my-neighbour", 3, 300, 20240102),
    _case("bmn-4p", "beggar-my-neighbour", 4, 300, 20240103),
    _case("bmn-2p-time-limit", "beggar-my-neighbour", 2, 300, 20240104, {"time_limit": 200}),
    # Every shedding preset, single deals.
    _case("pis-yedili-4p", "pis-yedili", 4, 300, 7, SINGLE),
    _case(
        "crazy-eights-4p",
        "crazy-eights",
        4,
        300,
        8,
        SINGLE,
        ["first", "greedy", "hold-wilds", "attack"],
    ),
    _case(
        "crazy-eights-plain-5p",
        "crazy-eights-plain",
        5,
        250,
        9,
        SINGLE,
        ["uniform", "random", WEIGHTED, "first", "greedy"],
    ),
    _case("openspiel-5p", "openspiel", 5, 200, 10, SINGLE, ["uniform"] * 5),
    _case("openspiel-2p", "openspiel", 2, 300, 2**64 - 11, SINGLE, ["uniform", "greedy"]),
    # Rule variants: OpenSpiel's special cards; Pis Yedili's stacked 7s doubling; 6 players.
    _case(
        "openspiel-3p-special",
        "openspiel",
        3,
        200,
        12,
        {**SINGLE, "special": "on"},
        ["random", "attack", "hold-wilds"],
    ),
    _case(
        "pis-yedili-6p-double",
        "pis-yedili",
        6,
        200,
        13,
        {**SINGLE, "stack_growth": "double"},
        ["greedy", "random", "attack", "uniform", "hold-wilds", "first"],
    ),
    # The caps on a deal: max_plays (play_cap) and max_turns (turn_cap) both reached.
    _case(
        "crazy-eights-2p-caps",
        "crazy-eights",
        2,
        200,
        19,
        {**SINGLE, "max_plays": 15, "max_turns": 20},
        ["greedy", "random"],
    ),
    # The last-card call, and strategies that forget it.
    _case(
        "crazy-eights-6p-forget",
        "crazy-eights",
        6,
        200,
        14,
        {**SINGLE, "last_card_call": "on"},
        ["random:forget=0.3", "greedy:forget=0.5", "random", "greedy", "uniform:forget=1", "first"],
    ),
    # Match play: Pis Yedili's 4-deal matches, and matches to a target score.
    _case(
        "pis-yedili-4p-matches",
        "pis-yedili",
        4,
        80,
        15,
        None,
        ["greedy", "random", "hold-wilds", WEIGHTED],
    ),
    _case(
        "crazy-eights-3p-target",
        "crazy-eights",
        3,
        60,
        16,
        {"target_score": 100},
        ["attack", "random", "greedy"],
    ),
    # Rotated seats: single deals, and matches.
    _case(
        "pis-yedili-3p-rotated",
        "pis-yedili",
        3,
        120,
        17,
        SINGLE,
        ["greedy", "random", "random"],
        rotate_seats=True,
    ),
    _case(
        "pis-yedili-2p-matches-rotated",
        "pis-yedili",
        2,
        40,
        18,
        None,
        ["attack", "hold-wilds"],
        rotate_seats=True,
    ),
]
"""Every golden case: the keyword arguments of ``simulate.run`` plus its ``name``."""


def games_path(case: dict) -> Path:
    return FOLDER / f"{case['name']}.parquet"


def matches_path(case: dict) -> Path:
    return FOLDER / f"{case['name']}.matches.parquet"


def case_json(case: dict) -> str:
    """The case as stored in its files' metadata (to catch a case edited without its files)."""
    return json.dumps(case, sort_keys=True)


def run_case(case: dict, folder: Path) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """Play ``case`` with the current code, its run folder in ``folder`` (which must not
    exist yet): the records of its games, and its matches table in match play (else None).

    The games are ``simulate.run``'s DataFrame; the matches are read back from the run folder
    with ``analysis.load.load_run`` (``simulate.run`` returns only the games)."""
    import simulate
    from analysis.load import load_run

    games = simulate.run(
        case["game"],
        players=case["players"],
        games=case["games"],
        seed=case["seed"],
        rules=case["rules"],
        strategies=case["strategies"],
        rotate_seats=case["rotate_seats"],
        out=folder,
    )
    return games, load_run(folder).matches
