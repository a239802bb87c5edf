"""The shedding games (Pis Yedili, Crazy Eights and relatives) as cardsim sees them: one
engine, four presets, their rules, strategies and record columns."""

from __future__ import annotations

from collections.abc import Mapping

from ...core.errors import CardsimError
from ..spec import Column, GameSpec, Preset
from .reference import END_REASONS
from .rules import DEFAULT_PLAYERS, MAX_PLAYERS, SheddingRules, preset
from .strategies import parse

COLUMNS = (
    Column(
        "game",
        "int64",
        "index",
        "index of the game in the run; its randomness is (seed, game); in match play it numbers the run's deals",
    ),
    Column("winner", "int8", "seat", "winning seat, -1 when none"),
    Column(
        "end",
        "dictionary<string>",
        "",
        "out: a seat emptied its hand; stock_out: a seat had to draw from an empty stock "
        "(stock_empty=end); blocked: every seat passed in turn; play_cap: max_plays reached; "
        "turn_cap: max_turns reached",
    ),
    Column(
        "turns",
        "int32",
        "turns",
        "turns taken (a skipped seat takes none; an extra play is no new turn)",
    ),
    Column(
        "plays",
        "int32",
        "cards",
        "cards played (a lead_club opening included, a flipped starter not)",
    ),
    Column(
        "draws", "int32", "cards", "cards drawn, penalties included (not the deal or the starter)"
    ),
    Column("passes", "int32", "turns", "turns ended by passing"),
    Column("wilds", "int32", "suits named", "suits named by wilds"),
    Column("reshuffles", "int32", "reshuffles", "times the pile became a new stock"),
    Column(
        "finish_rank",
        "dictionary<string>",
        "rank",
        "rank of the winner's last card, null when no seat went out",
    ),
    Column(
        "first_seat",
        "int8",
        "seat",
        "seat that took the first turn (first_seat=random draws it; deal k of a match: k mod n)",
    ),
    Column(
        "lead_changes",
        "int32",
        "changes",
        "times the lead passed to another seat: at the end of every turn and of the game, the "
        "one seat holding strictly the fewest cards leads; with none, the lead stays; the first "
        "leader is no change",
    ),
    Column(
        "winner_behind",
        "int32",
        "cards",
        "the most cards by which the winner trailed at those marks (its cards minus the fewest "
        "any seat held); 0 when it never trailed, -1 when there is no winner",
    ),
    Column(
        "decisions",
        "int32",
        "decision points",
        "decision points, every seat's, where the rules offered two options or more (each "
        "distinct legal card, a wild once per suit it may name, drawing, passing; playing or "
        "keeping a drawn card; the suit a drawn wild that must be played names), whatever the "
        "strategy took",
    ),
    Column(
        "forced",
        "int32",
        "decision points",
        "decision points with one option (a seat that can only draw, one legal card, ...)",
    ),
    Column(
        "options",
        "int32",
        "options",
        "the options of the decision points counted in decisions, summed (options / decisions "
        "is the branching factor)",
    ),
    Column("cards_left_<i>", "int16", "cards", "cards in seat i's hand at the end"),
    Column(
        "points_<i>", "int32", "points", "penalty points in seat i's hand at the end (card_points)"
    ),
    Column(
        "score_<i>",
        "int32",
        "points",
        "seat i's score for the game (scoring, finishing multiplier included)",
    ),
    Column("strategy_<i>", "dictionary<string>", "", "seat i's strategy"),
    Column(
        "match",
        "int64",
        "index",
        "match play only: the match; deal k of match m draws from the stream (seed, m, k)",
    ),
    Column("deal", "int64", "index", "match play only: the deal's number within its match, from 0"),
    Column(
        "rotation",
        "int8",
        "index",
        "rotated seats only: the seating (rotation r moves seat i's strategy to seat i + r)",
    ),
)

MATCH_COLUMNS = (
    Column("match", "int64", "index", "index of the match in the run"),
    Column("deals", "int64", "deals", "deals played in the match"),
    Column("total_<i>", "int64", "points", "seat i's match total: the sum of its deal scores"),
    Column(
        "share_<i>",
        "float64",
        "wins",
        "seat i's share of the match win: 1 for the best total, 1/m each for m tied seats",
    ),
    Column("strategy_<i>", "dictionary<string>", "", "seat i's strategy"),
    Column("rotation", "int8", "index", "rotated seats only: the seating"),
)

END_MEANINGS = {
    "out": "a seat played its last card and won",
    "stock_out": "a seat had to draw from an empty stock; the fewest points in hand wins",
    "blocked": "every seat passed in turn with nothing left to draw",
    "play_cap": "max_plays cards were played; no winner",
    "turn_cap": "the max_turns safety cap was reached; no winner",
}

TITLES = {
    "pis-yedili": "Pis Yedili",
    "crazy-eights": "Crazy Eights",
    "crazy-eights-plain": "Crazy Eights (plain)",
    "openspiel": "Crazy Eights (OpenSpiel's rules)",
}
ALIASES = {"pis-yedili": ("dirty-seven",), "crazy-eights": ("c8",)}


def deal_shape(rules: Mapping, players: int) -> str:
    """``"1 deck(s), 5 cards a hand"``: the decks and hand size at ``players`` seats."""
    if "decks" not in rules or "hand_size" not in rules:
        raise ValueError("its decks and hand size")
    try:
        resolved = SheddingRules(decks=rules["decks"], hand_size=rules["hand_size"])
        decks, hand = resolved.decks_for(players), resolved.hand_size_for(players)
    except (CardsimError, TypeError, KeyError):
        raise ValueError("its decks and hand size") from None
    return f"{decks} deck(s), {hand} cards a hand"


GAME_SPEC = GameSpec(
    family="shedding",
    presets=tuple(
        Preset(name, TITLES[name], DEFAULT_PLAYERS[name], ALIASES.get(name, ())) for name in TITLES
    ),
    min_players=2,
    max_players=MAX_PLAYERS,
    base_rules=preset,
    end_reasons=END_REASONS,
    end_meanings=END_MEANINGS,
    columns=COLUMNS,
    match_columns=MATCH_COLUMNS,
    length=COLUMNS[3],
    required_columns=("game", "winner", "end", "turns", "plays", "draws", "passes", "wilds"),
    engine_path="simulate.games.shedding.engine:ENGINE",
    takes_strategies=True,
    parse_strategy=parse,
    report_path="analysis.reports.shedding:build_shedding_report",
    tune_path="simulate.app.commands.shedding_tune:tune",
    commands=frozenset({"replay", "tune", "log", "trace"}),
    # measured: 12.7 bytes a 4-seat game, 5.4 a match (10^8 records)
    deal_shape=deal_shape,
    bytes_per_record=lambda players: 6.0 + 4.0 * players,
    backends=("cpu", "cuda"),
)
