"""Beggar-My-Neighbour deals in words, trick by trick, from their event log (no numba).

The text is made from the events alone (an ``events.parquet`` game, or the log of a deal
played again), so a replay reads the same whether the run folder held the log or not.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa


def tricks_text(events: pa.Table, dealt: Sequence[int], *, hands: bool = False) -> list[str]:
    """One line per trick of one game's ``events`` (its rows of ``events.parquet``, in
    order): each seat's run of cards (``-`` a plain card) as ``seat:cards``, who takes the
    pile and how many cards it holds, seats going out; ``hands``: every seat's number of
    cards after the trick, in brackets. ``dealt``: each seat's cards at the deal. The last
    line is the end."""
    rows = events.select(["turn", "seat", "event", "card", "count", "end"]).to_pylist()
    held = list(dealt)
    lines: list[str] = []
    runs: list[list] = []  # [seat, cards] in the order played
    notes: list[str] = []
    trick = None
    for row in rows:
        event, seat = row["event"], row["seat"]
        if event == "end":
            if runs or notes:
                lines.append(_trick_line(trick, runs, notes, held, hands))
            lines.append(_end_line(row, rows, held))
            break
        if trick is not None and row["turn"] != trick and (runs or notes):
            lines.append(_trick_line(trick, runs, notes, held, hands))
            runs, notes = [], []
        trick = row["turn"]
        if event == "play":
            held[seat] -= 1
            if runs and runs[-1][0] == seat:
                runs[-1][1] += row["card"]
            else:
                runs.append([seat, row["card"]])
        elif event == "take":
            held[seat] += row["count"]
            notes.append(f"seat {seat} takes {row['count']}")
        elif event == "out":
            notes.append(f"seat {seat} is out")
    return lines


def _trick_line(trick, runs, notes, held, hands: bool) -> str:
    played = " ".join(f"{seat}:{cards}" for seat, cards in runs)
    line = f"trick {trick}: {played}" if played else f"trick {trick}:"
    if notes:
        line += "; " + ", ".join(notes)
    if hands:
        line += "  [" + " ".join(f"{count}" for count in held) + "]"
    return line


def _end_line(row: dict, rows: Sequence[dict], held: list[int]) -> str:
    cards = sum(1 for one in rows if one["event"] == "play")
    tricks = sum(1 for one in rows if one["event"] == "take")
    end, winner = row["end"], row["seat"]
    who = f"seat {winner} wins" if winner >= 0 else "no winner"
    return (
        f"end: {end}, {who}, after {cards:,} cards and {tricks:,} tricks "
        f"(cards held: {', '.join(f'seat {seat} {count}' for seat, count in enumerate(held))})"
    )
