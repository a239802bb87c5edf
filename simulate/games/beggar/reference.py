"""Beggar-My-Neighbour, the readable reference: the executable rule book.

Plays one deal card by card, exactly as RULES.md says, with no attempt at speed. The
compiled kernel (:mod:`.kernel`) must produce identical records on the same deals; the tests
hold the two together. Hands are lists of kinds (see :mod:`.deal`), top card first.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass

from ...core.logs.events import EV_END, EV_OUT, EV_PLAY, EV_TAKE, NONE
from .deal import PLAIN
from .rules import END_NAMES, BeggarRules

END_OUT, END_CYCLE, END_TIME_LIMIT = END_NAMES


@dataclass(frozen=True)
class BeggarRecord:
    """The outcome of one deal (the columns of ``games.parquet`` but ``game``)."""

    cards: int
    """Cards played."""
    tricks: int
    """Piles taken, the final pile to the survivor included."""
    winner: int
    """Winning seat, -1 when none."""
    end: str
    """``out``, ``cycle`` or ``time_limit``."""
    cycle_cards: int
    """Cards played in one turn of the loop (cycle games only, else 0)."""
    cycle_tricks: int
    """Tricks in one turn of the loop (cycle games only, else 0)."""
    cards_held: tuple[int, ...]
    """Cards in each seat's hand at the end."""
    lead_changes: int
    """Times the lead (the one seat holding strictly the most cards) passed to another seat,
    marked after every trick and at the end; the first leader is no change."""
    winner_behind: int
    """The most cards by which the winner trailed the leader at a mark (most cards held by
    any seat minus the winner's); -1 when there is no winner."""


def play(
    hands: list[list[int]], rules: BeggarRules | None = None, *, trace: list | None = None
) -> BeggarRecord:
    """Play a deal to its end and return its record.

    ``trace``: a list that receives the game's events, one list of ``W`` ints each, as the
    kernel logs them (:mod:`simulate.core.logs.events`): every card played (``card`` its kind,
    ``count`` the debt still owed), every pile taken, every seat out, and the end.
    """
    record = _Game(hands, rules or BeggarRules(), trace).run()
    if trace is not None:
        turn = trace[-1][0] if trace else 0
        trace.append(_row(turn, record.winner, EV_END, end=END_NAMES.index(record.end)))
    return record


def _row(turn, seat, event, card=NONE, count=NONE, hand=NONE, end=NONE) -> list[int]:
    """One event row (the layout of :mod:`simulate.core.logs.events`; no cause, suit or stock)."""
    return [turn, seat, event, card, NONE, count, NONE, hand, NONE, end]


class _Game:
    def __init__(self, hands: list[list[int]], rules: BeggarRules, trace: list | None = None):
        self.trace = trace
        self.n = len(hands)
        self.hands = [deque(hand) for hand in hands]
        self.in_game = [bool(hand) for hand in hands]
        self.owed_for = (0, *(rules.penalties[rank] for rank in "JQKA"))
        self.time_limit = rules.time_limit
        self.pile: list[int] = []
        self.cards = 0
        self.tricks = 0
        self.all_cards = Counter(kind for hand in hands for kind in hand)
        # Tension marks: the leader (None before the first), its changes, and each seat's
        # most cards behind the seat holding the most.
        self.leader: int | None = None
        self.lead_changes = 0
        self.behind = [0] * self.n

    def run(self) -> BeggarRecord:
        leader = 0
        # Every state after a trick (and the deal), with the tricks and cards played by then.
        seen = {self.state(leader): (0, 0)}
        while True:
            outcome = self.play_trick(leader)
            if outcome is not None:
                return outcome
            leader = self.collector
            self.mark()
            state = self.state(leader)
            if state in seen:
                tricks_then, cards_then = seen[state]
                return self.record(
                    -1, END_CYCLE, self.cards - cards_then, self.tricks - tricks_then
                )
            seen[state] = (self.tricks, self.cards)
            if self.time_limit is not None and self.cards >= self.time_limit:
                return self.time_is_up()

    def state(self, leader: int) -> tuple:
        """Who leads and every hand; plain cards are alike, so this is the whole game state."""
        return leader, tuple(tuple(hand) for hand in self.hands)

    def next_in(self, seat: int) -> int:
        """The next seat still in, clockwise from ``seat``."""
        seat = (seat + 1) % self.n
        while not self.in_game[seat]:
            seat = (seat + 1) % self.n
        return seat

    def play_trick(self, leader: int) -> BeggarRecord | None:
        """Play from the lead until a pile is taken; a record if the game ended meanwhile."""
        seat = leader
        owed = 0  # cards the called seat must pay; 0 while no court card is down
        claimant = -1  # the seat that played the last court card
        while True:
            if not self.hands[seat]:
                # Called on with no cards: out. The call passes to the next seat still in,
                # with the same debt; if that leaves one seat, it takes the pile and wins.
                self.in_game[seat] = False
                self.log(seat, EV_OUT, hand=0)
                if sum(self.in_game) == 1:
                    winner = self.in_game.index(True)
                    self.take_pile(winner)
                    return self.record(winner, END_OUT)
                seat = self.next_in(seat)
                continue
            card = self.hands[seat].popleft()
            self.pile.append(card)
            self.cards += 1
            if card != PLAIN:
                claimant, owed = seat, self.owed_for[card]
                self.log(seat, EV_PLAY, card, owed, len(self.hands[seat]))
                seat = self.next_in(seat)
            elif owed == 0:
                self.log(seat, EV_PLAY, card, 0, len(self.hands[seat]))
                seat = self.next_in(seat)
            else:
                owed -= 1
                self.log(seat, EV_PLAY, card, owed, len(self.hands[seat]))
                if owed == 0:
                    self.take_pile(claimant)
                    for other in range(self.n):
                        if not self.hands[other] and self.in_game[other]:
                            self.in_game[other] = False
                            if self.trace is not None:  # the trick just taken
                                self.trace.append(_row(self.tricks, other, EV_OUT, hand=0))
                    if sum(self.in_game) == 1:
                        return self.record(claimant, END_OUT)
                    self.collector = claimant
                    return None
            if self.time_limit is not None and self.cards >= self.time_limit:
                return self.time_is_up()

    def log(self, seat: int, event: int, card=NONE, count=NONE, hand=NONE) -> None:
        """An event of the trick being played, when tracing."""
        if self.trace is not None:
            self.trace.append(_row(self.tricks + 1, seat, event, card, count, hand))

    def take_pile(self, seat: int) -> None:
        """The pile goes under ``seat``'s hand in the order played; conservation is checked."""
        self.log(seat, EV_TAKE, count=len(self.pile), hand=len(self.hands[seat]) + len(self.pile))
        self.hands[seat].extend(self.pile)
        self.pile.clear()
        self.tricks += 1
        held = Counter(kind for hand in self.hands for kind in hand)
        assert held == self.all_cards, f"cards not conserved: {held} != {self.all_cards}"

    def mark(self) -> None:
        """A tension mark (after a trick, and at the end): the one seat holding strictly the
        most cards leads (no such seat: the lead stays); each seat's deficit is noted."""
        held = [len(hand) for hand in self.hands]
        most = max(held)
        if held.count(most) == 1:
            leader = held.index(most)
            if self.leader is not None and leader != self.leader:
                self.lead_changes += 1
            self.leader = leader
        for seat in range(self.n):
            self.behind[seat] = max(self.behind[seat], most - held[seat])

    def time_is_up(self) -> BeggarRecord:
        held = [len(hand) for hand in self.hands]
        most = max(held)
        leaders = [seat for seat in range(self.n) if held[seat] == most]
        return self.record(leaders[0] if len(leaders) == 1 else -1, END_TIME_LIMIT)

    def record(self, winner: int, end: str, cycle_cards: int = 0, cycle_tricks: int = 0):
        self.mark()  # the end is a mark too (for a cycle, the repeated state's, marked already)
        return BeggarRecord(
            cards=self.cards,
            tricks=self.tricks,
            winner=winner,
            end=end,
            cycle_cards=cycle_cards,
            cycle_tricks=cycle_tricks,
            cards_held=tuple(len(hand) for hand in self.hands),
            lead_changes=self.lead_changes,
            winner_behind=self.behind[winner] if winner >= 0 else -1,
        )
