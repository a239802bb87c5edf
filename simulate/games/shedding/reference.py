"""Shedding games (Crazy Eights, Pis Yedili and relatives), the readable reference.

The executable rule book: one game played card by card, exactly as RULES.md's "Shedding
games" section and its Fine points say, with no attempt at speed. The compiled kernel must
produce identical records from the same ``(seed, game)``, so every random draw below follows
one binding protocol:

1. ``first_seat = random``: ``dealer = bounded(n)``, the first seat is ``dealer + 1``.
2. The deck ``range(52 * decks)`` is shuffled (``deck[0]`` is the top) and dealt one card at a
   time from the first seat clockwise; the rest is the stock, ``stock[0]`` drawn first.
3. ``start = flip``: the top stock card is the starter; a wild starter goes back into the
   stock at ``1 + bounded(S)`` (``S`` the stock without it) and the next card is turned.
4. Every decision with ``k >= 2`` options takes ``bounded(k)``; one option takes nothing.
5. A reshuffle shuffles the pile without its top card (bottom first) into the new stock.
6. A last-card call with forget probability ``p > 0`` forgets when
   ``next_u32() < int(p * 2**32)``.

Cards are codes ``0 .. 52*decks-1``: identity ``code % 52``, suit ``identity // 13`` (clubs,
diamonds, hearts, spades), rank ``identity % 13`` (ace .. king). Hands are lists of codes;
strategies only see identities. :func:`play` deals and plays one game; :class:`Game` (and
:func:`play_from`) plays on from any given hands, stock and pile, which is how the scripted
tests set up situations.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.cards import DECK_SIZE, RANKS, SUIT_NAMES
from ...core.errors import CardsimError
from ...core.logs.events import (
    CAUSE_ALL_DRAW,
    CAUSE_CLUB,
    CAUSE_LAST_CARD,
    CAUSE_NO_PLAY,
    CAUSE_PENALTY,
    CAUSE_VOLUNTARY,
    EV_AGAIN,
    EV_CALL,
    EV_DEAL,
    EV_DRAW,
    EV_END,
    EV_FORGET,
    EV_NAME_SUIT,
    EV_PASS,
    EV_PENALTY,
    EV_PLAY,
    EV_PUT_BACK,
    EV_RESHUFFLE,
    EV_REVERSE,
    EV_SKIP,
    EV_START,
    NONE,
)
from ...core.rng import Stream
from . import strategies as strategy_specs
from .reference_cards import DRAW, KEEP, PASS, cards, identity, name, names, rank_of, suit_of
from .reference_search import make_strategy
from .rules import RankEffects, SheddingRules

__all__ = [  # the card helpers come from reference_cards; tests and scripts read them here
    "DRAW", "PASS", "cards", "identity", "name", "names", "rank_of", "suit_of", "Game",
    "play", "play_deal", "play_match", "play_from", "SheddingRecord", "MatchRecord",
    "make_strategy",
]  # fmt: skip

END_REASONS = ("out", "stock_out", "blocked", "play_cap", "turn_cap")
STRATEGIES = strategy_specs.NAMES
CLUBS = 0
NO_EFFECTS = RankEffects()
# What a card is checked against: a normal play, an answer to a pending penalty, an opening.
NORMAL, ANSWER, OPENING = "normal", "answer", "opening"


@dataclass(frozen=True)
class SheddingRecord:
    """The outcome of one game (the columns of ``games.parquet`` but ``game``)."""

    winner: int
    """Winning seat, -1 when none."""
    end: str
    """``out``, ``stock_out``, ``blocked``, ``play_cap`` or ``turn_cap``."""
    turns: int
    plays: int
    draws: int
    passes: int
    wilds: int
    """Suits named."""
    reshuffles: int
    finish_rank: int
    """Rank index of the card the winner went out with, -1 when no seat went out."""
    first_seat: int
    """The seat that took the first turn (drawn when ``first_seat = random``; deal k of a
    match: seat k mod n)."""
    cards_left: tuple[int, ...]
    points: tuple[int, ...]
    """Penalty points in each hand (``rules.points``), no multiplier."""
    score: tuple[int, ...]
    """Each seat's score for the game (``scoring``, finishing multiplier included)."""
    lead_changes: int
    """Times the lead (the one seat holding strictly the fewest cards) passed to another
    seat, marked at the end of every turn and at the game's end; the first leader is no
    change."""
    winner_behind: int
    """The most cards by which the winner trailed at a mark (its cards minus the fewest
    any seat held); -1 when there is no winner."""
    decisions: int
    """Decision points with two options or more (:meth:`Game.tally`), every seat's."""
    forced: int
    """Decision points with one option."""
    options: int
    """The options of the ``decisions``, summed (their mean is the branching factor)."""


# --- dealing -------------------------------------------------------------------------------


def deal(rules: SheddingRules, players: int, stream: Stream, first: int | None = None):
    """Steps 1-2 of the protocol: ``(first_seat, hands, stock)``. A match gives ``first``
    (the dealer rotates), and then no dealer is drawn."""
    if first is None:
        first = (stream.bounded(players) + 1) % players if rules.first_seat == "random" else 0
    deck = list(range(DECK_SIZE * rules.decks_for(players)))
    stream.shuffle(deck)
    size = rules.hand_size_for(players)
    hands: list[list[int]] = [[] for _ in range(players)]
    for round_ in range(size):
        for j in range(players):
            hands[(first + j) % players].append(deck[round_ * players + j])
    return first, hands, deck[players * size :]


def play(
    rules: SheddingRules,
    players: int,
    strategies: list[str],
    seed: int,
    game: int,
    forget: list[float] | None = None,
    trace: list[str] | None = None,
    events: list | None = None,
) -> SheddingRecord:
    """Deal game ``game`` of run ``seed`` and play it to its end. ``events``: a list that
    receives the game's event rows (see :meth:`Game.log`)."""
    rules.check_players(players)
    stream = Stream(seed, game)
    return _play_dealt(rules, players, strategies, stream, None, forget, trace, events)


def play_deal(
    rules: SheddingRules,
    players: int,
    strategies: list,
    seed: int,
    match: int,
    deal: int,
    forget: list[float] | None = None,
    trace: list[str] | None = None,
    events: list | None = None,
) -> SheddingRecord:
    """Deal ``deal`` of match ``match`` of run ``seed``, alone (as :func:`play_match`
    plays it: the stream ``(seed, match, deal)``, seat ``deal % players`` first)."""
    rules.check_players(players)
    stream = Stream(seed, match, stream=deal)
    return _play_dealt(rules, players, strategies, stream, deal % players, forget, trace, events)


def _play_dealt(
    rules, players, strategies, stream, first, forget, trace, events=None
) -> SheddingRecord:
    """Deal from ``stream`` (the first seat given, or as ``first_seat`` says) and play."""
    first, hands, stock = deal(rules, players, stream, first)
    game = Game(
        rules,
        hands,
        stock,
        strategies=strategies,
        stream=stream,
        first_seat=first,
        forget=forget,
        trace=trace,
        events=events,
    )
    return game.run()


@dataclass(frozen=True)
class MatchRecord:
    """A match: its deals' records, each seat's total, and each seat's share of the win."""

    deals: tuple[SheddingRecord, ...]
    totals: tuple[int, ...]
    """Sum of each seat's deal scores."""
    share: tuple[float, ...]
    """1 for the match winner; tied winners share it (m tied seats get 1/m each)."""


def play_match(
    rules: SheddingRules,
    players: int,
    strategies: list[str],
    seed: int,
    match: int,
    forget: list[float] | None = None,
    trace: list[str] | None = None,
    max_deals: int = 1000,
    events: list | None = None,
) -> MatchRecord:
    """Play match ``match`` of run ``seed``: ``match_deals`` deals, or deals until a seat's
    total reaches ``target_score`` (at most ``max_deals``).

    Deal k (k = 0, 1, ...) starts at seat ``k % players`` with the direction clockwise, and
    draws from the stream ``Stream(seed, match, stream=k)``. The best total wins: the lowest
    under ``penalty`` scoring, the highest under ``winner_collects`` and ``minus_hand``;
    "reaches" the target means a total (its size, under ``minus_hand``) at least it.
    ``events``: a list that receives each deal's list of event rows.
    """
    rules.check_players(players)
    if rules.match_deals is None and rules.target_score is None:
        raise CardsimError("a match needs match_deals or target_score")
    totals = [0] * players
    deals: list[SheddingRecord] = []
    while len(deals) < max_deals:
        k = len(deals)
        if trace is not None:
            trace.append(f"deal {k} of match {match}")
        stream = Stream(seed, match, stream=k)
        rows = None if events is None else []
        record = _play_dealt(rules, players, strategies, stream, k % players, forget, trace, rows)
        if events is not None:
            events.append(rows)
        deals.append(record)
        totals = [total + score for total, score in zip(totals, record.score, strict=True)]
        if rules.match_deals is not None and len(deals) == rules.match_deals:
            break
        if rules.target_score is not None and max(map(abs, totals)) >= rules.target_score:
            break
    best = (min if rules.scoring == "penalty" else max)(totals)
    winners = [seat for seat in range(players) if totals[seat] == best]
    share = tuple(1 / len(winners) if seat in winners else 0.0 for seat in range(players))
    return MatchRecord(tuple(deals), tuple(totals), share)


def play_from(
    rules: SheddingRules,
    hands: list,
    stock,
    pile=(),
    *,
    strategies: list[str] | None = None,
    first_seat: int = 0,
    suit: int | None = None,
    seed: int = 0,
    game: int = 0,
    forget: list[float] | None = None,
    trace: list[str] | None = None,
    events: list | None = None,
) -> SheddingRecord:
    """Play on from given hands, stock (top first) and pile (bottom first); cards may be
    given as codes or as text for :func:`cards`. An empty pile starts the game as ``start``
    says; otherwise the top card is inert and ``suit`` (default: its suit) is in force."""
    table = Game(
        rules,
        [_codes(hand) for hand in hands],
        _codes(stock),
        _codes(pile),
        strategies=strategies or ["first"] * len(hands),
        stream=Stream(seed, game),
        first_seat=first_seat,
        suit=suit,
        forget=forget,
        trace=trace,
        events=events,
    )
    return table.run()


def _codes(given) -> list[int]:
    return cards(given) if isinstance(given, str) else list(given)


# --- the game ------------------------------------------------------------------------------


class GameOver(Exception):
    """Raised wherever the game ends; ``run`` turns it into the record."""

    def __init__(self, end: str, winner: int = -1, finish_rank: int = -1):
        super().__init__(end)
        self.end, self.winner, self.finish_rank = end, winner, finish_rank


class Game:
    """One table: hands, stock (``stock[0]`` on top), pile (``pile[-1]`` on top) and counters.

    After :meth:`run` the final hands, stock and pile stay readable, for tests.
    """

    def __init__(
        self,
        rules: SheddingRules,
        hands: list[list[int]],
        stock: list[int],
        pile: list[int] = (),
        *,
        strategies: list[str],
        stream: Stream,
        first_seat: int = 0,
        suit: int | None = None,
        forget: list[float] | None = None,
        trace: list[str] | None = None,
        events: list | None = None,
    ):
        self.rules = rules
        self.events = events
        self.n = len(hands)
        if len(strategies) != self.n:
            raise CardsimError(f"{self.n} seats need {self.n} strategies, got {len(strategies)}")
        self.hands = [list(hand) for hand in hands]
        self.stock = list(stock)
        self.pile = list(pile)
        self.suit = suit if suit is not None else suit_of(self.pile[-1]) if self.pile else CLUBS
        self.direction = 1
        self.first_seat = first_seat
        self.stream = stream
        specs = [strategy_specs.parse(strategy) for strategy in strategies]
        self.strategies = [
            make_strategy(spec, stream, self, seat) for seat, spec in enumerate(specs)
        ]
        # ``forget`` given here wins over the strategies' own ``forget=p``.
        self.forget = list(forget) if forget is not None else [spec.forget for spec in specs]
        self.trace = trace
        self.all_cards = sorted(self.every_card())  # conserved as a multiset
        self.rank_effects = [rules.rank_effects(rank) for rank in range(len(RANKS))]
        # Opening turns still to come (lead_club: the first seat's; all_lead_club: a round).
        openings = {"lead_club": 1, "all_lead_club": self.n}
        self.openings = 0 if self.pile else openings.get(rules.start, 0)
        self.pending = 0  # penalty cards waiting for the next seat
        self.pending_skip = False  # the card that set it also skips
        self.skip_next = False  # the next seat loses its turn
        self.again = False  # the card just played gives its seat an extra play
        # Turn ends left during which a seat that forgot its call may not go out.
        self.barred = [0] * self.n
        self.idle_passes = 0  # passes in a row made while nothing could be drawn
        self.turns = self.plays = self.draws = self.passes = self.wilds = self.reshuffles = 0
        # Tension marks: the leader (None before the first), its changes, and each seat's
        # most cards behind the seat holding the fewest.
        self.leader: int | None = None
        self.lead_changes = 0
        self.behind = [0] * self.n
        # What a searching seat reads (see reference_search): the turn's state at a
        # decision (mode, compulsory play, extra plays made, cards drawn), the suit it chose
        # with a wild (None: none), and the decisions searched in this game so far.
        self.at = (NORMAL, False, 0, 0)
        self.extra = 0
        self.named: int | None = None
        self.decisions = 0
        # Decision points (see tally): with two options or more, their options, with one.
        self.choices = self.options = self.one_option = 0
        # Called with (game, seat) before each turn, the turn cap checked: a traced game's
        # pause (see reference_chances); None in every other game.
        self.on_turn = None

    # --- running -------------------------------------------------------------------------

    def run(self) -> SheddingRecord:
        """Play until the game ends; return its record."""
        try:
            self.note_hands()
            self.log_deal()
            if not self.pile and self.rules.start == "flip":
                self.turn_starter()
            self.play_turns(self.first_seat)
        except GameOver as over:
            self.note(f"game over: {over.end}, winner {_seat_text(over.winner)}")
            self.log(over.winner, EV_END, end=END_REASONS.index(over.end), hand=NONE)
            return self.record(over)

    def play_turns(self, seat: int) -> None:
        """Play turns from ``seat`` until the game ends (GameOver)."""
        while True:
            if self.turns >= self.rules.max_turns:  # Fine point: checked before a turn
                raise GameOver("turn_cap")
            if self.on_turn is not None:
                self.on_turn(self, seat)
            seat = self.take_turn(seat)
            self.mark()  # the end of a turn, passes and draws included

    def resume(self, seat: int, at: tuple) -> GameOver:
        """A search's rollout (see :mod:`.reference_search`): finish the turn of ``seat``
        from the decision at ``at`` (its mode, compulsory play, extra plays made and cards
        drawn; the seat's strategy gives the forced option), then play on to the end."""
        mode, compulsory, extra, drawn = at
        try:
            self.extra = extra
            if mode == OPENING:
                self.opening_play(seat)
            elif mode == ANSWER:
                self.penalty_turn(seat)
            else:
                self.play_phase(seat, compulsory, drawn)
            seat = self.end_turn(seat, extra)
            self.mark()
            self.play_turns(seat)
        except GameOver as over:
            return over
        raise AssertionError("play_turns returned")

    def take_turn(self, seat: int) -> int:
        """One turn of ``seat``; returns the seat that acts next."""
        self.turns += 1
        self.skip_next = False
        self.note(
            f"turn {self.turns}: seat {seat} ({len(self.hands[seat])} cards) on {self.top_text()}"
        )
        self.again = False
        self.extra = 0
        if self.openings:
            self.opening_turn(seat)
        elif self.pending:
            self.penalty_turn(seat)
        else:
            self.play_phase(seat, compulsory=False)
        return self.end_turn(seat, 0)

    def end_turn(self, seat: int, extra: int) -> int:
        """The rest of a turn after its first play: the extra plays (``extra`` made so far),
        then the next seat."""
        while self.again:
            # Fine point: the extra play is compulsory and belongs to the same turn. A chain
            # of extra plays is bounded by the safety cap, like the turns.
            if extra >= self.rules.max_turns:
                raise GameOver("turn_cap")
            extra += 1
            self.extra = extra
            self.again = False
            self.note(f"seat {seat} plays again")
            self.log(seat, EV_AGAIN)
            self.play_phase(seat, compulsory=True)
        self.barred[seat] = max(0, self.barred[seat] - 1)
        self.check_cards()
        # A pending penalty always goes to the next seat, which gets its turn to answer or
        # draw: a skip on the same card is that turn (Fine point on stacking and skip).
        step = 2 if self.skip_next and not self.pending else 1
        if step == 2:
            self.note(f"seat {self.next_seat(seat)} is skipped")
            self.log(self.next_seat(seat), EV_SKIP)
        return (seat + step * self.direction) % self.n

    def turn_starter(self) -> None:
        """``start = flip``: turn the starter; a wild goes back below the top card (protocol
        step 3) until a non-wild comes or the stock holds nothing else."""
        card = self.stock.pop(0)
        while self.effects(card).wild and self.stock:
            position = 1 + self.stream.bounded(len(self.stock))
            self.stock.insert(position, card)
            self.note(f"starter {name(card)} is a wild: back into the stock at {position}")
            self.log(-1, EV_PUT_BACK, card=identity(card), count=position)
            card = self.stock.pop(0)
        self.pile.append(card)
        self.suit = suit_of(card)
        self.note(f"starter {name(card)}")
        self.log(-1, EV_START, card=identity(card))

    # --- the kinds of turn ---------------------------------------------------------------

    def opening_turn(self, seat: int) -> None:
        """``lead_club`` / ``all_lead_club``: play a club, drawing until one comes; the card
        has no effect (Fine points on the club opening)."""
        self.openings -= 1
        self.opening_play(seat)

    def opening_play(self, seat: int) -> None:
        """The opening's club (its turn counted)."""
        clubs = self.legal_cards(seat, OPENING)
        self.tally(max(len({identity(card) for card in clubs}), 1))  # none: draw to a club
        if clubs:
            self.at = (OPENING, False, self.extra, 0)
            card = self.strategies[seat].choose(clubs, False, False)
        else:
            card = self.draw_until_club(seat)
        self.play_card(seat, card, mode=OPENING)

    def penalty_turn(self, seat: int) -> None:
        """Facing a pending penalty: answer it, or draw the total."""
        self.note(f"seat {seat} faces a penalty of {self.pending}")
        answers = self.legal_cards(seat, ANSWER)
        self.tally(self.card_options(answers, ANSWER) + 1)
        self.at = (ANSWER, False, self.extra, 0)
        choice = self.strategies[seat].choose(answers, True, False)
        if choice != DRAW:
            self.play_card(seat, choice, mode=ANSWER)
            return
        total, self.pending = self.pending, 0
        ends_turn = self.pending_skip or self.rules.penalty_ends_turn
        self.note(f"seat {seat} takes the penalty of {total}")
        self.log(seat, EV_PENALTY, count=total)
        self.draw_penalty(seat, total, CAUSE_PENALTY)
        # Fine point: once the penalty is drawn the top card is inert.
        if not ends_turn:
            self.play_phase(seat, compulsory=False)

    def play_phase(self, seat: int, compulsory: bool, drawn: int = 0) -> None:
        """Play one card or do what ``on_no_play`` says. ``compulsory``: the extra play of an
        ``again`` card, which allows no drawing or passing by choice. ``drawn``: cards
        drawn already this phase (a rollout resuming under ``draw_up_to``)."""
        if self.rules.no_play_rule == "draw_up_to":
            self.draw_up_to_phase(seat, compulsory, drawn)
            return
        legal = self.legal_cards(seat)
        may_draw = bool(legal) and self.rules.voluntary_draw and not compulsory
        may_draw = may_draw and self.drawable()
        may_pass = self.free_pass(compulsory)
        self.tally(max(self.card_options(legal, NORMAL) + may_draw + may_pass, 1))
        self.at = (NORMAL, compulsory, self.extra, 0)
        choice = (
            self.strategies[seat].choose(legal, may_draw, may_pass) if legal or may_pass else DRAW
        )
        if choice == PASS:
            self.pass_turn(seat)
        elif choice == DRAW:
            self.no_play(seat, compulsory, CAUSE_VOLUNTARY if legal else CAUSE_NO_PLAY)
        elif choice != KEEP:  # KEEP: a rollout resumed after a drawn card was kept
            self.play_card(seat, choice)

    def no_play(self, seat: int, compulsory: bool, cause: int = CAUSE_NO_PLAY) -> None:
        """Draw as ``on_no_play`` says (not ``draw_up_to``, see :meth:`draw_up_to_phase`);
        ``cause``: the draws' (voluntary when the seat held a legal card)."""
        rule = self.rules.no_play_rule
        if rule == "draw_until_playable":
            while True:
                card = self.draw_one(seat, cause)
                if card is None:
                    self.pass_turn(seat)
                    return
                if self.is_legal(seat, card):  # Fine point: the legal card drawn is played
                    self.tally_drawn(card, may_keep=False)
                    self.play_drawn_card(seat, card, compulsory)
                    return
        card = self.draw_one(seat, cause)
        if card is None:
            self.pass_turn(seat)
        elif rule == "draw_one_may_play" and self.is_legal(seat, card):
            # Fine point: in the ace's extra play the drawn legal card must be played.
            self.tally_drawn(card, may_keep=not compulsory)
            self.at = (NORMAL, compulsory, self.extra, 0)
            if compulsory or self.strategies[seat].play_drawn(card):
                self.play_drawn_card(seat, card, compulsory)
            else:
                self.note(f"seat {seat} keeps {name(card)}")

    def play_drawn_card(self, seat: int, card: int, compulsory: bool) -> None:
        """Play a card just drawn; a searching seat names a wild's suit first."""
        if self.named is None:
            self.at = (NORMAL, compulsory, self.extra, 0)
            self.strategies[seat].before_drawn_play(card)
        self.play_card(seat, card)

    def draw_up_to_phase(self, seat: int, compulsory: bool, drawn: int = 0) -> None:
        """``draw_up_to:N``: draw one card at a time, deciding after each; passing is open
        after N draws this turn or when nothing can be drawn (``drawn``: drawn already)."""
        limit = self.rules.draw_up_to
        while True:
            legal = self.legal_cards(seat)
            by_choice = not legal or (self.rules.voluntary_draw and not compulsory)
            may_draw = by_choice and drawn < limit and self.drawable()
            may_pass = by_choice and (drawn >= limit or self.exhausted())
            may_pass = may_pass or self.free_pass(compulsory)
            self.tally(max(self.card_options(legal, NORMAL) + may_draw + may_pass, 1))
            if not (legal or may_draw or may_pass):
                self.draw_one(seat)  # must draw from an empty stock: stock_empty=end ends it
                raise AssertionError("an empty stock left a seat with nothing to do")
            self.at = (NORMAL, compulsory, self.extra, drawn)
            choice = self.strategies[seat].choose(legal, may_draw, may_pass)
            if choice == PASS:
                self.pass_turn(seat)
                return
            if choice != DRAW:
                self.play_card(seat, choice)
                return
            self.draw_one(seat, CAUSE_VOLUNTARY if legal else CAUSE_NO_PLAY)
            drawn += 1

    # --- decision points -----------------------------------------------------------------

    def tally(self, options: int) -> None:
        """Count a decision point with ``options`` options (what the rules offer the seat,
        whatever its strategy takes): each distinct legal card, a wild once per suit it may
        name, drawing, passing; playing or keeping a drawn card; the suit a drawn wild that
        must be played names. A point where the seat can only draw has one option."""
        if options > 1:
            self.choices += 1
            self.options += options
        else:
            self.one_option += 1

    def card_options(self, legal: list[int], mode: str) -> int:
        """The options of playing one of ``legal``: each identity once, a wild once per
        suit it may name (as a searching seat's options, :mod:`.reference_search`)."""
        return sum(self.suits_named(card, mode) for card in {identity(c) for c in legal})

    def naming(self, card: int, mode: str) -> list[int]:
        """The suits ``card`` played now lets its seat choose from: none but for a wild, and
        none in an opening, for a draw card stacking on a penalty, or under ``own_suit``;
        under ``different`` every suit but the one in force."""
        effects = self.effects(card)
        if mode == OPENING or not effects.wild or self.rules.wild_mode == "own_suit":
            return []
        if effects.draw > 0 and self.pending > 0:
            return []
        different = self.rules.wild_mode == "different"
        return [suit for suit in range(4) if not different or suit != self.suit]

    def suits_named(self, card: int, mode: str) -> int:
        """The options of playing ``card`` now: 1, or the suits it may name."""
        return max(len(self.naming(card, mode)), 1)

    def tally_drawn(self, card: int, may_keep: bool) -> None:
        """A legal card just drawn: play it (naming a suit) or keep it; a card that must be
        played is a decision point only when it names a suit."""
        choices = self.suits_named(card, NORMAL)
        if may_keep:
            self.tally(choices + 1)
        elif choices > 1:
            self.tally(choices)

    # --- playing a card ------------------------------------------------------------------

    def play_card(self, seat: int, card: int, mode: str = NORMAL) -> None:
        """Play ``card``: out, caps, suit in force, last-card call, then the rank's effects."""
        hand = self.hands[seat]
        assert card in hand, f"seat {seat} plays {name(card)} it does not hold"
        assert self.is_legal(seat, card, mode), f"illegal play {name(card)} on {self.top_text()}"
        hand.remove(card)
        self.pile.append(card)
        self.plays += 1
        self.idle_passes = 0
        self.note(f"seat {seat} plays {name(card)}")
        self.log(seat, EV_PLAY, card=identity(card))
        if not hand:  # Fine point: going out wins at once; the card's effect does not happen
            raise GameOver("out", seat, rank_of(card))
        if self.rules.max_plays is not None and self.plays >= self.rules.max_plays:
            raise GameOver("play_cap")
        effects = NO_EFFECTS if mode == OPENING else self.effects(card)
        stacks = effects.draw > 0 and self.pending > 0
        if mode == ANSWER and not stacks:
            self.pending = 0  # a wild answering a draw card cancels the penalty
            self.note(f"{name(card)} cancels the penalty")
        if effects.wild and not stacks:
            self.name_suit(seat, card)
        else:
            self.suit = suit_of(card)  # Fine point: the answering card's suit is in force
        self.last_card_call(seat)
        self.apply_effects(seat, effects)

    def name_suit(self, seat: int, card: int) -> None:
        """A wild: the seat names the suit in force (``own_suit``: its own, nothing named)."""
        mode = self.rules.wild_mode
        if mode == "own_suit":
            self.suit = suit_of(card)
            return
        # Fine point: `different` excludes the suit in force just before the wild.
        suits = [suit for suit in range(4) if mode != "different" or suit != self.suit]
        if self.named is not None:  # chosen with the card by a searching seat
            self.suit, self.named = self.named, None
        else:
            self.suit = self.strategies[seat].name_suit(suits)
        self.wilds += 1
        self.note(f"seat {seat} names {SUIT_NAMES[self.suit]}")
        self.log(seat, EV_NAME_SUIT, suit=self.suit)

    def last_card_call(self, seat: int) -> None:
        """After a play leaving one card, the seat calls; it may forget (and is caught)."""
        if not self.rules.last_card_call or len(self.hands[seat]) != 1:
            return
        chance = self.forget[seat]
        if not (chance > 0 and self.stream.next_u32() < int(chance * 2**32)):
            self.note(f"seat {seat} calls last card")
            self.log(seat, EV_CALL)
            return
        self.note(f"seat {seat} forgets to call last card")
        self.log(seat, EV_FORGET)
        if self.rules.last_card_rule == "penalty":
            # Fine point: drawn at once, before the played card acts; no turn taken.
            self.draw_penalty(seat, self.rules.last_card_penalty, CAUSE_LAST_CARD)
        else:
            # `cannot_go_out`: until the end of its next turn (this one's rest included).
            self.barred[seat] = 2

    def apply_effects(self, seat: int, effects: RankEffects) -> None:
        """The played card acts: reverse, draw penalty, skip, every-other-seat draw, again."""
        rules = self.rules
        if effects.reverse:
            self.direction = -self.direction
            self.note("the direction reverses")
            self.log(seat, EV_REVERSE)
            if self.n == 2 and rules.reverse_two_players == "skip":
                self.skip_next = True
        if effects.draw:
            if self.pending:  # an answer (stacking): the total grows
                if rules.stack_growth == "double":
                    self.pending *= 2  # Fine point: doubles whatever the card's N
                else:
                    self.pending += effects.draw
                self.pending_skip = effects.skip
            elif effects.skip and rules.stacking == "none":
                # Fine point: skip + draw without stacking: the next seat draws at once and
                # takes no turn.
                victim = self.next_seat(seat)
                self.note(f"seat {victim} draws {effects.draw} at once")
                self.log(victim, EV_PENALTY, count=effects.draw)
                self.draw_penalty(victim, effects.draw, CAUSE_PENALTY)
                self.skip_next = True
            else:
                self.pending, self.pending_skip = effects.draw, effects.skip
        elif effects.skip:
            self.skip_next = True
        if effects.all_draw:
            for k in range(1, self.n):
                other = (seat + k * self.direction) % self.n
                self.note(f"seat {other} draws {effects.all_draw}")
                self.draw_penalty(other, effects.all_draw, CAUSE_ALL_DRAW)
        # The extra play (``again``, ``all_draw``) is made by :meth:`take_turn`.
        self.again = bool(effects.again or effects.all_draw)

    # --- legality ------------------------------------------------------------------------

    def legal_cards(self, seat: int, mode: str = NORMAL) -> list[int]:
        """The seat's legal cards, sorted by identity (duplicates adjacent)."""
        legal = [card for card in self.hands[seat] if self.is_legal(seat, card, mode)]
        return sorted(legal, key=lambda card: (identity(card), card))

    def is_legal(self, seat: int, card: int, mode: str = NORMAL) -> bool:
        """Whether ``seat`` may play ``card`` (held) now."""
        if self.barred[seat] and len(self.hands[seat]) == 1:
            return False  # `cannot_go_out`: the last card may not be played
        if mode == OPENING:
            return suit_of(card) == CLUBS  # Fine point: only clubs open, a J of another suit not
        effects, top = self.effects(card), self.pile[-1]
        if mode == ANSWER:
            # Fine point: while a penalty is pending only answering cards are legal.
            stacking = self.rules.stacking
            if effects.draw and stacking == "any_draw":
                return True
            if effects.draw and stacking == "same_rank" and rank_of(card) == rank_of(top):
                return True
            return effects.wild and self.rules.wild_answers_draw and self.wild_allowed(card)
        if effects.wild:
            return self.wild_allowed(card)
        return rank_of(card) == rank_of(top) or suit_of(card) == self.suit

    def wild_allowed(self, card: int) -> bool:
        """A wild's own conditions: ``wild_on_wild`` and ``wild_mode = match_suit``."""
        top = self.pile[-1]
        top_is_wild = self.effects(top).wild  # a J opening still counts as a J on top
        if top_is_wild and not self.rules.wild_on_wild:
            return False
        if self.rules.wild_mode == "match_suit":
            return suit_of(card) == self.suit or rank_of(card) == rank_of(top) or top_is_wild
        return True

    def effects(self, card: int) -> RankEffects:
        return self.rank_effects[rank_of(card)]

    # --- drawing and passing -------------------------------------------------------------

    def drawable(self) -> bool:
        """Whether a card can be drawn now (from the stock, or after a reshuffle)."""
        return bool(self.stock) or (self.rules.stock_empty == "reshuffle" and len(self.pile) > 1)

    def exhausted(self) -> bool:
        """Nothing can be drawn and the rules let the game go on (not ``stock_empty=end``)."""
        return not self.drawable() and self.rules.stock_empty != "end"

    def free_pass(self, compulsory: bool) -> bool:
        """``stock_empty = pass``: with the stock empty any seat may pass, even holding a legal
        card (not in the compulsory extra play)."""
        return self.rules.stock_empty == "pass" and not self.stock and not compulsory

    def draw_one(self, seat: int, cause: int = CAUSE_NO_PLAY) -> int | None:
        """A seat that must draw takes the top card; ``None`` when nothing can be drawn.

        An empty stock is handled as ``stock_empty`` says; under ``end`` the game ends.
        ``cause``: why the card is drawn (its event's, :data:`simulate.core.logs.events.CAUSE_NAMES`).
        """
        if not self.stock:
            if self.rules.stock_empty == "end":
                raise self.stock_out(seat)
            if self.rules.stock_empty == "reshuffle" and len(self.pile) > 1:
                self.reshuffle()
            else:
                return None
        return self.take_from_stock(seat, cause)

    def draw_penalty(self, seat: int, count: int, cause: int = CAUSE_PENALTY) -> None:
        """Draw ``count`` penalty cards, as far as the cards go (Fine point, Running out)."""
        for _ in range(count):
            if self.draw_one(seat, cause) is None:
                break

    def draw_until_club(self, seat: int) -> int:
        """The club opening's search: draw until a club comes; an empty stock ends the game
        ``stock_out`` whatever ``stock_empty`` says (Fine point)."""
        while True:
            if not self.stock:
                raise self.stock_out(seat)
            card = self.take_from_stock(seat, CAUSE_CLUB)
            if suit_of(card) == CLUBS:
                return card

    def take_from_stock(self, seat: int, cause: int = CAUSE_NO_PLAY) -> int:
        card = self.stock.pop(0)
        self.hands[seat].append(card)
        self.draws += 1
        self.idle_passes = 0
        self.note(f"seat {seat} draws {name(card)}")
        self.log(seat, EV_DRAW, card=identity(card), cause=cause)
        return card

    def reshuffle(self) -> None:
        """The pile but its top card, bottom first, is shuffled into the new stock."""
        assert not self.stock
        top = self.pile.pop()
        self.stock, self.pile = self.pile, [top]
        self.stream.shuffle(self.stock)
        self.reshuffles += 1
        self.note(f"reshuffle: {len(self.stock)} cards become the stock")
        self.log(-1, EV_RESHUFFLE, count=len(self.stock))

    def pass_turn(self, seat: int) -> None:
        """The turn ends by passing; passes made while nothing can be drawn count toward
        ``blocked`` (players + 1 in a row)."""
        self.passes += 1
        self.note(f"seat {seat} passes")
        self.log(seat, EV_PASS)
        if self.drawable():
            self.idle_passes = 0
            return
        self.idle_passes += 1
        if self.idle_passes >= self.n + 1:
            winner = -1
            if self.rules.blocked_winner == "lowest_hand":
                winner = self.lowest_hand_from(self.next_seat(seat))
            raise GameOver("blocked", winner)

    # --- ending and scoring --------------------------------------------------------------

    def stock_out(self, seat: int) -> GameOver:
        """``stock_empty = end``: fewest points wins, ties to the seat acting soonest from
        ``seat``, the one trying to draw."""
        self.note(f"seat {seat} must draw from an empty stock")
        return GameOver("stock_out", self.lowest_hand_from(seat))

    def lowest_hand_from(self, start: int) -> int:
        order = [(start + k * self.direction) % self.n for k in range(self.n)]
        return min(order, key=self.hand_points)  # min keeps the first of equals

    def hand_points(self, seat: int) -> int:
        return sum(self.rules.points(rank_of(card)) for card in self.hands[seat])

    def mark(self) -> None:
        """A tension mark (after a turn, and at the end): the one seat holding strictly the
        fewest cards leads (no such seat: the lead stays); each seat's deficit is noted."""
        held = [len(hand) for hand in self.hands]
        fewest = min(held)
        if held.count(fewest) == 1:
            leader = held.index(fewest)
            if self.leader is not None and leader != self.leader:
                self.lead_changes += 1
            self.leader = leader
        for seat in range(self.n):
            self.behind[seat] = max(self.behind[seat], held[seat] - fewest)

    def record(self, over: GameOver) -> SheddingRecord:
        self.mark()  # the game's end (after a whole turn: the same as that turn's mark)
        self.check_cards()
        assert self.turns <= self.rules.max_turns
        if over.end == "out":
            assert not self.hands[over.winner], "the winner's hand is not empty"
        points = tuple(self.hand_points(seat) for seat in range(self.n))
        return SheddingRecord(
            winner=over.winner,
            end=over.end,
            turns=self.turns,
            plays=self.plays,
            draws=self.draws,
            passes=self.passes,
            wilds=self.wilds,
            reshuffles=self.reshuffles,
            finish_rank=over.finish_rank,
            first_seat=self.first_seat,
            cards_left=tuple(len(hand) for hand in self.hands),
            points=points,
            score=self.scores(over, points),
            lead_changes=self.lead_changes,
            winner_behind=self.behind[over.winner] if over.winner >= 0 else -1,
            decisions=self.choices,
            forced=self.one_option,
            options=self.options,
        )

    def scores(self, over: GameOver, points: tuple[int, ...]) -> tuple[int, ...]:
        """Scores per ``scoring``; the finishing multiplier only when a seat went out."""
        rules, winner = self.rules, over.winner
        sign = -1 if rules.scoring == "minus_hand" else 1
        if winner < 0:  # no winner: every seat its own hand value
            return tuple(sign * p for p in points)
        multiplier = rules.multiplier(over.finish_rank) if over.end == "out" else 1
        others = [p * multiplier if seat != winner else 0 for seat, p in enumerate(points)]
        if rules.scoring == "winner_collects":
            return tuple(sum(others) if seat == winner else 0 for seat in range(self.n))
        return tuple(sign * p for p in others)

    # --- checks and trace ----------------------------------------------------------------

    def every_card(self) -> list[int]:
        return [card for hand in self.hands for card in hand] + self.stock + self.pile

    def check_cards(self) -> None:
        assert sorted(self.every_card()) == self.all_cards, "cards are not conserved"

    def next_seat(self, seat: int) -> int:
        return (seat + self.direction) % self.n

    def top_text(self) -> str:
        if not self.pile:
            return "no pile"
        top = self.pile[-1]
        forced = "" if suit_of(top) == self.suit else f", {SUIT_NAMES[self.suit]} named"
        return f"{name(top)}{forced}"

    def note(self, line: str) -> None:
        if self.trace is not None:
            self.trace.append(line)

    def log(
        self,
        seat: int,
        event: int,
        *,
        card=NONE,
        cause=NONE,
        count=NONE,
        suit=NONE,
        hand=None,
        end=NONE,
    ) -> None:
        """Append an event row (the layout of :mod:`simulate.core.logs.events`) in the current
        turn: ``hand`` defaults to the seat's cards now (none without a seat), ``stock`` is
        the stock's size now; cards are identities."""
        if self.events is None:
            return
        if hand is None:
            hand = len(self.hands[seat]) if seat >= 0 else NONE
        row = (self.turns, seat, event, card, cause, count, suit, hand, len(self.stock), end)
        self.events.append(row)

    def log_deal(self) -> None:
        """The deal's rows: one per card, in dealing order from the first seat (turn 0)."""
        if self.events is None:
            return
        size = max(len(hand) for hand in self.hands)
        left = sum(len(hand) for hand in self.hands) + len(self.stock)
        for round_ in range(size):
            for j in range(self.n):
                seat = (self.first_seat + j) % self.n
                if round_ < len(self.hands[seat]):
                    left -= 1
                    row = (0, seat, EV_DEAL, identity(self.hands[seat][round_]), NONE, NONE)
                    self.events.append((*row, NONE, round_ + 1, left, NONE))

    def note_hands(self) -> None:
        if self.trace is None:
            return
        for seat, hand in enumerate(self.hands):
            first = " (acts first)" if seat == self.first_seat else ""
            self.note(f"seat {seat}{first}: {names(hand)}")
        self.note(
            f"stock {len(self.stock)} cards"
            + (f"; pile top {self.top_text()}" if self.pile else "")
        )


def _seat_text(winner: int) -> str:
    return "none" if winner < 0 else f"seat {winner}"
