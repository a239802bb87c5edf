"""Beggar-My-Neighbour as cardsim sees it: names, players, rules, record columns."""

from __future__ import annotations

from ..spec import Column, GameSpec, Preset
from .rules import END_NAMES, GAME, MAX_PLAYERS, MIN_PLAYERS, BeggarRules

COLUMNS = (
    Column(
        "game", "int64", "index", "index of the deal in the run; its randomness is (seed, game)"
    ),
    Column("cards", "int32", "cards", "cards played (for a cycle: up to the first repeated state)"),
    Column("tricks", "int32", "tricks", "piles taken, the final pile to the survivor included"),
    Column(
        "winner", "int8", "seat", "winning seat, -1 when none (a cycle, or a tie at the time limit)"
    ),
    Column(
        "end",
        "dictionary<string>",
        "",
        "out: one seat holds every card; cycle: the state repeated, the deal never ends; "
        "time_limit: stopped after time_limit cards, the seat holding the most wins",
    ),
    Column("cycle_cards", "int32", "cards", "cards in one turn of the loop (cycles only, else 0)"),
    Column(
        "cycle_tricks", "int32", "tricks", "tricks in one turn of the loop (cycles only, else 0)"
    ),
    Column(
        "lead_changes",
        "int32",
        "changes",
        "times the lead passed to another seat: after every trick and at the end (for a cycle, "
        "up to the first repeated state), the one seat holding strictly the most cards leads; "
        "with none, the lead stays; the first leader is no change",
    ),
    Column(
        "winner_behind",
        "int32",
        "cards",
        "the most cards by which the winner trailed at those marks (the most held by a seat "
        "minus the winner's); 0 when it never trailed, -1 when there is no winner",
    ),
    Column(
        "cards_held_<i>", "int8", "cards", "cards in seat i's hand at the end (the pile excluded)"
    ),
)

END_MEANINGS = {
    "out": "every seat but one ran out of cards",
    "cycle": "the deal came back to an earlier state, so it would loop forever",
    "time_limit": "stopped at the time limit; the seat holding most cards wins",
}

GAME_SPEC = GameSpec(
    family="beggar",
    presets=(Preset(GAME, "Beggar-My-Neighbour", 2, ("bmn", "beggar")),),
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    base_rules=lambda preset: BeggarRules(),
    end_reasons=END_NAMES,
    end_meanings=END_MEANINGS,
    columns=COLUMNS,
    length=COLUMNS[1],
    required_columns=("game", "cards", "tricks", "winner", "end", "cycle_cards", "cycle_tricks"),
    engine_path="simulate.games.beggar.engine:ENGINE",
    unended=("cycle",),
    report_path="analysis.reports.beggar:build_beggar_report",
    search_path="simulate.app.commands.beggar_search:search",
    commands=frozenset({"play", "search", "replay", "log", "trace"}),
    bytes_per_record=lambda players: 10.0,  # 2.8 measured (10^8 deals, two players)
    backends=("cpu", "cuda"),
)
