"""Shedding games in words, turn by turn, from their event log (no numba).

The text is made from the events alone (an ``events.parquet`` game, or the log of a game
played again by the logging kernel), so a replay reads the same whether the run folder
held the log or not. :func:`recount` gives back the game's record from its events.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from .reference_cards import cards, identity, names, rank_of

DIRECTIONS = {1: "clockwise", -1: "counter-clockwise"}
CAUSE_WORDS = {
    "no_play": "no play",
    "voluntary": "by choice",
    "penalty": "penalty",
    "last_card": "forgotten call",
    "all_draw": "everyone draws",
    "club_search": "looking for a club",
}


def _code(card_name: str) -> int:
    return identity(cards(card_name)[0])


def event_rows(events: pa.Table) -> list[dict]:
    """One game's events as dicts (the columns of ``events.parquet``), in order."""
    columns = ["turn", "seat", "event", "card", "cause", "count", "suit", "hand", "stock", "end"]
    return events.select(columns).to_pylist()


def recount(rows: Sequence[dict], rules, players: int) -> dict:
    """The game's record recomputed from its events (``rows`` of :func:`event_rows`):
    ``winner``, ``end``, ``turns``, ``plays``, ``draws``, ``passes``, ``wilds``,
    ``reshuffles``, ``finish_rank`` (-1: none), ``cards_left``, ``points``, ``score``
    (tuples per seat), ``hands`` (each seat's final cards, identities) and ``lines``
    (how each score was computed, in words)."""
    hands: list[list[int]] = [[] for _ in range(players)]
    counts = dict.fromkeys(("plays", "draws", "passes", "wilds", "reshuffles"), 0)
    plural = {"play": "plays", "draw": "draws", "pass": "passes", "name_suit": "wilds"}
    last_played = [-1] * players
    end = {}
    for row in rows:
        event, seat = row["event"], row["seat"]
        if event in ("deal", "draw"):
            hands[seat].append(_code(row["card"]))
        elif event == "play":
            card = _code(row["card"])
            hands[seat].remove(card)
            last_played[seat] = card
        elif event == "reshuffle":
            counts["reshuffles"] += 1
        elif event == "end":
            end = row
        if event in plural:
            counts[plural[event]] += 1
    winner, reason = end["seat"], end["end"]
    finish = rank_of(last_played[winner]) if reason == "out" else -1
    points = tuple(sum(rules.points(rank_of(card)) for card in hand) for hand in hands)
    score, lines = _scores(rules, winner, reason, finish, points)
    return {
        "winner": winner,
        "end": reason,
        "turns": end["turn"],
        **counts,
        "finish_rank": finish,
        "cards_left": tuple(len(hand) for hand in hands),
        "points": points,
        "score": score,
        "hands": hands,
        "lines": lines,
    }


def _scores(rules, winner: int, end: str, finish: int, points: tuple[int, ...]):
    """Each seat's score as the reference's ``Game.scores`` computes it, and the words."""
    sign = -1 if rules.scoring == "minus_hand" else 1
    minus = "minus " if sign < 0 else ""
    if winner < 0:
        score = tuple(sign * p for p in points)
        return score, [f"no winner: each seat scores {minus}its own hand's points"]
    multiplier = rules.multiplier(finish) if end == "out" else 1
    times = f" x {multiplier}" if multiplier != 1 else ""
    others = [p * multiplier if seat != winner else 0 for seat, p in enumerate(points)]
    if rules.scoring == "winner_collects":
        score = tuple(sum(others) if seat == winner else 0 for seat in range(len(points)))
        terms = " + ".join(f"{p}{times}" for seat, p in enumerate(points) if seat != winner)
        line = f"seat {winner} collects the others' points: {terms} = {score[winner]}"
        return score, [line]
    score = tuple(sign * p for p in others)
    lines = [
        f"seat {seat}: {minus}{p} points{times} = {score[seat]}"
        for seat, p in enumerate(points)
        if seat != winner
    ]
    return score, [f"seat {winner} scores 0 (the winner)", *lines]


def game_text(request, events: pa.Table, *, hands: bool = False) -> list[str]:
    """One game's ``events`` in words: the deal, one line per turn (the direction, each
    seat's hand size, or with ``hands`` the hands themselves, then what happens), what a
    forgotten last-card call costs, the final hands, how each score was computed, and a
    summary line with the record's counts."""
    rules, n = request.rules, request.players
    rows = event_rows(events)
    held: list[list[int]] = [[] for _ in range(n)]
    direction = 1
    barred = [0] * n  # cannot_go_out: turn ends left during which a seat may not go out
    lines: list[str] = []
    turn_seat = None
    actions: list[str] = []
    heading = ""

    def flush() -> None:
        if heading:
            lines.append(heading + ("; ".join(actions) or "nothing"))

    def table_state() -> str:
        if hands:
            return " | ".join(f"{seat}: {names(held[seat])}" for seat in range(n))
        return "cards " + " ".join(str(len(hand)) for hand in held)

    first_seat = None
    for row in rows:
        event, seat, turn = row["event"], row["seat"], row["turn"]
        if turn > 0 and row["event"] != "end" and (turn_seat is None or turn != turn_seat[0]):
            flush()
            if turn_seat is not None and barred[turn_seat[1]]:
                barred[turn_seat[1]] -= 1
            turn_seat = (turn, seat)
            actions = []
            heading = f"turn {turn}: seat {seat}, {DIRECTIONS[direction]}, {table_state()}: "
        who = "" if turn_seat is not None and seat == turn_seat[1] else f"seat {seat} "
        if event == "deal":
            held[seat].append(_code(row["card"]))
            first_seat = seat if first_seat is None else first_seat
            continue
        if event == "start":
            if not lines:
                lines.extend(_deal_lines(held, first_seat))
            lines.append(f"starter {row['card']}; stock {row['stock']} cards")
            continue
        if event == "put_back":
            lines.extend(_deal_lines(held, first_seat) if not lines else [])
            lines.append(f"starter {row['card']} is a wild: back into the stock at {row['count']}")
            continue
        if not lines:
            lines.extend(_deal_lines(held, first_seat))
        if event == "play":
            held[seat].remove(_code(row["card"]))
            actions.append(f"{who}plays {row['card']}")
        elif event == "draw":
            held[seat].append(_code(row["card"]))
            text = f"{who}draws {row['card']} ({CAUSE_WORDS[row['cause']]})"
            if barred[seat] and len(held[seat]) == 2 and row["cause"] in ("no_play", "voluntary"):
                text += " (still barred by its forgotten call)"
            actions.append(text)
        elif event == "reshuffle":
            actions.append(f"reshuffle: {row['count']} cards become the stock")
        elif event == "penalty":
            actions.append(f"{who}owes {row['count']} cards")
        elif event == "pass":
            actions.append(f"{who}passes")
        elif event == "name_suit":
            actions.append(f"{who}names {row['suit']}")
        elif event == "skip":
            actions.append(f"seat {seat} is skipped")
        elif event == "reverse":
            direction = -direction
            actions.append("the direction reverses")
        elif event == "again":
            actions.append(f"{who}plays again")
        elif event == "call":
            actions.append(f"{who}calls last card")
        elif event == "forget":
            if rules.last_card_rule == "penalty":
                cost = f"it draws {rules.last_card_penalty}"
            else:
                cost = "it may not go out until the end of its next turn"
                barred[seat] = 2
            actions.append(f"{who}forgets to call last card: {cost}")
        elif event == "end":
            flush()
            heading = ""
    record = recount(rows, rules, n)
    lines.append(
        "final hands: "
        + "; ".join(
            f"seat {seat} {names(hand)} ({points} points)"
            for seat, (hand, points) in enumerate(
                zip(record["hands"], record["points"], strict=True)
            )
        )
    )
    lines.extend(record["lines"])
    winner = "no winner" if record["winner"] < 0 else f"seat {record['winner']} wins"
    lines.append(
        f"end: {record['end']}, {winner}; {record['turns']} turns, {record['plays']} plays, "
        f"{record['draws']} cards drawn, {record['passes']} passes, {record['wilds']} suits "
        f"named, {record['reshuffles']} reshuffles; cards left {list(record['cards_left'])}, "
        f"points {list(record['points'])}, scores {list(record['score'])}"
    )
    return lines


def _deal_lines(held: list[list[int]], first_seat) -> list[str]:
    return [
        f"seat {seat}{' (acts first)' if seat == first_seat else ''}: {names(hand)}"
        for seat, hand in enumerate(held)
    ]
