"""Shedding games in bulk: the compiled kernel behind numpy-in, columns-out calls."""

from __future__ import annotations

import numpy as np

from ...core.compiled.work_sharing import sharing
from ...core.errors import CardsimError
from ...core.logs.compiled import buffer
from ...core.logs.events import INITIAL_ROWS
from ...core.rng import seed_key
from .columns import empty_columns, kernel_outputs, match_columns
from .kernel import (
    MatchPlan,
    MatchTotals,
    Run,
    Strategies,
    Table,
    log_game,
    play_matches,
    play_random_games,
    search_cfunc,
    work_block,
)
from .kernel_layout import (
    BLOCK,
    END_INVALID,
    MATCH_BLOCK,
    MAX_DECKS,
    STRATEGY_CODES,
)
from .kernel_strategies import FEATURES, no_user_strategy, user_cfunc
from .rules import SheddingRules
from .search import no_search
from .strategies import parse


def seat_arrays(strategies, players: int, forget: list[float] | None = None) -> Strategies:
    """The kernel's view of the seats' strategies: a :class:`.kernel.Strategies`
    ``(codes, forget, weights, user, budgets, rollouts, explore, searcher)``.

    ``strategies``: one per seat, names or specs (``"greedy"``, ``"random:forget=0.1"``,
    ``"weighted:points=1"``, a :class:`.strategies.StrategySpec`, or a user function).
    ``codes``: int64[n] (``STRATEGY_CODES``); ``forget``: int64[n], ``int(p * 2**32)``
    of each seat's forget chance (``forget`` if given, else the specs'), -1 for ``p = 0``
    (the reference draws no word then); ``weights``: int64[n, FEATURES]; ``user``: the
    C-callable of the (one) user strategy, or a placeholder.
    """
    if len(strategies) != players:
        raise CardsimError(f"{players} seats need {players} strategies, got {len(strategies)}")
    specs = [parse(strategy) for strategy in strategies]
    chances = list(forget) if forget is not None else [spec.forget for spec in specs]
    if len(chances) != players:
        raise CardsimError(f"{players} seats need {players} forget chances, got {len(chances)}")
    functions = {id(spec.function): spec.function for spec in specs if spec.name == "user"}
    if len(functions) > 1:
        raise CardsimError("a run takes one user strategy (it may sit in several seats)")
    codes = np.array([_code(spec) for spec in specs], np.int64)
    thresholds = np.array([int(p * 2**32) if p > 0 else -1 for p in chances], np.int64)
    weights = np.zeros((players, FEATURES), np.int64)
    budgets = np.zeros(players, np.int64)
    rollouts = np.zeros(players, np.int64)
    explore = np.zeros(players, np.int64)
    for seat, spec in enumerate(specs):
        if spec.searches:  # its weights are its rollout policy's
            budgets[seat] = spec.budget
            explore[seat] = spec.int_explore()
            policy = parse(spec.rollout)
            rollouts[seat] = _code(policy)
            spec = policy
        if spec.weighted:
            weights[seat] = spec.int_weights()
    user = user_cfunc(*functions.values()) if functions else no_user_strategy
    searcher = search_cfunc() if budgets.any() else no_search
    return Strategies(codes, thresholds, weights, user, budgets, rollouts, explore, searcher)


def _code(spec) -> int:
    return STRATEGY_CODES["weighted" if spec.weighted else spec.name]


def check_user_choices(end: np.ndarray, first_game: int, strategies) -> None:
    """Raise if a user strategy made an invalid choice: a game of the ``end`` column
    (numbered from ``first_game``) stopped ``END_INVALID``."""
    bad = np.flatnonzero(end == END_INVALID)
    if len(bad):
        specs = [parse(strategy) for strategy in strategies]
        names = ", ".join(sorted({str(spec) for spec in specs if spec.name == "user"}))
        raise CardsimError(
            f"{names} chose a card it may not play, or a draw or pass it was not offered "
            f"(game {first_game + int(bad[0])}); replay it with the reference to see the move"
        )


def play_random(
    rules: SheddingRules,
    players: int,
    strategies: list[str],
    seed: int,
    first_game: int,
    count: int,
    forget: list[float] | None = None,
    *,
    log: int = 0,
) -> dict[str, np.ndarray]:
    """Deal and play games ``first_game .. first_game+count-1`` of the run with this seed,
    each exactly as :func:`.reference.play` does.

    Returns columns: ``winner``, ``end`` (index into ``reference.END_REASONS``),
    ``finish_rank``, ``first_seat`` int8[count]; ``turns``, ``plays``, ``draws``, ``passes``, ``wilds``,
    ``reshuffles`` int32[count]; ``cards_left`` int16[count, players], ``points``, ``score``
    int32[count, players] (see :mod:`.columns`). With ``log`` > 0 the first ``log`` games
    are played again by the logging kernel (their records are its), and ``events``
    (int32[E, W], their events in game order) and ``event_games`` (int64[E], each row's
    game) are added.
    """
    table = rules_table(rules, players)
    seats = seat_arrays(strategies, players, forget)
    # At least two rows (the games past ``count`` are played and dropped): numpy calls an
    # empty or one-row array C-contiguous as well as F-contiguous, for which numba would
    # compile the kernel again (a replay plays one game).
    rows = max(count, 2)
    columns = empty_columns(rows, players)
    run = Run(*seed_key(seed), first_game)
    play_random_games(
        table,
        seats,
        run,
        kernel_outputs(columns),
        *sharing(block=work_block(seats.budgets, BLOCK), games=rows),
    )
    columns = {name: column[:count] for name, column in columns.items()}
    return game_results(table, seats, run, strategies=strategies, columns=columns, log=log)


def game_results(table, seats, run, *, strategies, columns, log: int) -> dict[str, np.ndarray]:
    """The columns of :func:`play_random` from the games played (on either backend), the
    first ``log`` games played again by the logging kernel. ``run``: the seed's key and
    the first game."""
    check_user_choices(columns["end"], run.first, strategies)
    logged = min(max(log, 0), len(columns["end"]))
    if logged:
        games = [(run.first + i, 0, -1, i) for i in range(logged)]
        events, numbers = _log_games(table, seats, run, games, columns)
        columns["events"], columns["event_games"] = (
            events,
            np.repeat(np.arange(run.first, run.first + logged, dtype=np.int64), numbers),
        )
    return columns


def _log_games(table, seats, run, games, columns) -> tuple[np.ndarray, np.ndarray]:
    """Play ``games`` (``(number, stream_id, first_seat, row)`` each) with the logging
    kernel, one at a time, each record written over row ``row`` of ``columns``: ``(rows,
    counts)``, their events (int32[E, W], in the order of ``games``) and each game's number
    of events. A game that outgrows its buffer is played again with a larger one."""
    players = table.players
    parts, counts = [], np.zeros(len(games), np.int64)
    for k, (number, stream_id, first, row) in enumerate(games):
        size = INITIAL_ROWS
        while True:
            one = empty_columns(1, players)
            rows = buffer(size)
            out = kernel_outputs(one)
            written = log_game(
                table, seats, run.key0, run.key1, number, stream_id, first, out, rows
            )
            if written <= size:
                break
            size = int(written)
        for name, column in one.items():
            columns[name][row] = column[0]
        parts.append(rows[:written])
        counts[k] = written
    return np.concatenate(parts), counts


MAX_DEALS = 1000
"""Deals after which a match stops even if no seat reached ``target_score`` (as the
reference's ``play_match``)."""


def play_match_batch(
    rules: SheddingRules,
    players: int,
    strategies: list[str],
    seed: int,
    first_match: int,
    count: int,
    forget: list[float] | None = None,
    *,
    log: int = 0,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Play matches ``first_match .. first_match+count-1`` of the run with this seed, each
    exactly as :func:`.reference.play_match` does.

    Returns ``(deals, matches)``: ``deals`` holds one row per deal, in match order, with the
    columns of :func:`play_random` plus ``match`` and ``deal`` int64[R]; ``matches`` holds
    ``match``, ``deals`` int64[count], ``totals`` int64[count, players] (sums of deal
    scores) and ``share`` float64[count, players] (1 for the match winner, 1/m for each of m
    tied winners). With ``log`` > 0 every deal of the first ``log`` matches is played again
    by the logging kernel, and ``deals`` gets ``events`` (int32[E, W]) and ``event_rows``
    (int64[E], each event's deal row, from 0).
    """
    if rules.match_deals is None and rules.target_score is None:
        raise CardsimError("a match needs match_deals or target_score")
    table = rules_table(rules, players)
    seats = seat_arrays(strategies, players, forget)
    run = Run(*seed_key(seed), first_match)
    ending = (rules.match_deals or 0, rules.target_score or 0, MAX_DEALS)
    totals = np.zeros((count, players), np.int64)
    played = np.zeros(count, np.int64)
    tallies = MatchTotals(totals, played)
    if rules.target_score is None:
        played[:] = rules.match_deals
    else:  # a first pass counts each match's deals
        plan = MatchPlan(*ending, offsets=played, write=False)
        # Rows it never writes; two, as in play_random.
        no_rows = kernel_outputs(empty_columns(2, players))
        play_matches(
            table,
            seats,
            run,
            plan,
            no_rows,
            tallies,
            *sharing(block=work_block(seats.budgets, MATCH_BLOCK), games=count),
        )
    offsets = np.zeros(count + 1, np.int64)
    np.cumsum(played, out=offsets[1:])
    columns = empty_columns(int(offsets[-1]), players)
    plan = MatchPlan(*ending, offsets=offsets, write=True)
    outputs = kernel_outputs(columns)
    play_matches(
        table,
        seats,
        run,
        plan,
        outputs,
        tallies,
        *sharing(block=work_block(seats.budgets, MATCH_BLOCK), games=count),
    )
    return match_results(
        rules,
        table,
        seats,
        run,
        strategies=strategies,
        columns=columns,
        offsets=offsets,
        played=played,
        totals=totals,
        log=log,
    )


def match_results(
    rules, table, seats, run, *, strategies, columns, offsets, played, totals, log: int
):
    """``(deals, matches)`` of :func:`play_match_batch` from the matches played (on either
    backend): ``columns`` the deals' rows (``offsets`` int64[M + 1]: where each match's
    start), ``played`` int64[M] the deals and ``totals`` int64[M, n] the summed scores of
    each match; the deals of the first ``log`` matches are played again by the logging
    kernel. ``run``: the seed's key and the first match."""
    count, players = totals.shape
    first_match = run.first
    check_user_choices(columns["end"], 0, strategies)
    logged = min(max(log, 0), count)
    if logged:
        games = [
            (first_match + i, k, k % players, int(offsets[i]) + k)
            for i in range(logged)
            for k in range(int(played[i]))
        ]
        events, numbers = _log_games(table, seats, run, games, columns)
        deal_rows = np.array([row for *_, row in games], np.int64)
        columns["events"], columns["event_rows"] = events, np.repeat(deal_rows, numbers)
    columns["match"], columns["deal"] = match_columns(first_match, offsets)
    best = totals.min(axis=1) if rules.scoring == "penalty" else totals.max(axis=1)
    winners = totals == best[:, None]
    share = winners / winners.sum(axis=1, keepdims=True)
    matches = {
        "match": np.arange(first_match, first_match + count, dtype=np.int64),
        "deals": played,
        "totals": totals,
        "share": share,
    }
    return columns, matches


def rules_table(rules: SheddingRules, players: int) -> Table:
    """The kernel's :class:`.kernel.Table` for these rules and players (checked)."""
    rules.check_players(players)
    decks = rules.decks_for(players)
    if decks > MAX_DECKS:
        raise CardsimError(f"at most {MAX_DECKS} decks, got {decks}")
    return Table(players, decks, rules.hand_size_for(players), rules.to_vector())


def trace_random(
    rules: SheddingRules,
    players: int,
    strategies: list[str],
    seed: int,
    first_game: int,
    turns: np.ndarray,
    *,
    rollouts: int,
    forget: list[float] | None = None,
    deals: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Each seat's chance of winning through games ``first_game ..`` of the run with this
    seed (:mod:`.chance_kernel`), or with ``deals`` (int[G, 2]: ``(match, deal)`` each)
    through those deals of matches: ``turns`` int[G], the turns each lasted (its
    record's), gives its T + 1 points. Returns ``(starts, wins)``: game i's points are rows
    ``starts[i] .. starts[i + 1] - 1`` (int64[G + 1]) of ``wins`` (int32[P, players]:
    rollouts won of ``rollouts``, point t after turn t)."""
    from .chance_kernel import trace_games

    table = rules_table(rules, players)
    seats = seat_arrays(strategies, players, forget)
    count = len(turns)
    starts = np.zeros(count + 1, np.int64)
    np.cumsum(np.asarray(turns, np.int64) + 1, out=starts[1:])
    # At least two rows of each (see play_random): the spare rows are never written.
    size = max(count, 2)
    items = np.zeros((size, 3), np.int64)
    if deals is None:
        items[:, 0] = np.arange(first_game, first_game + size)
        items[:, 2] = -1
    else:
        deals = np.asarray(deals, np.int64).reshape(-1, 2)
        items[:count, :2] = deals
        items[:count, 2] = deals[:, 1] % players
        items[count:] = items[0]
    wins = np.zeros((max(int(starts[-1]), 2), players), np.int32)
    points = np.zeros(size, np.int64)
    padded = np.full(size + 1, starts[-1], np.int64)
    padded[: count + 1] = starts
    run = Run(*seed_key(seed), first_game)
    trace_games(table, seats, run, rollouts, items, padded, wins, points, *sharing(games=size))
    lasted = np.flatnonzero(points[:count] != np.diff(starts))
    if len(lasted):
        i = int(lasted[0])
        which = f"game {first_game + i}" if deals is None else "match {}, deal {}".format(*deals[i])
        raise CardsimError(
            f"{which} had {points[i] - 1} turns when traced, {int(turns[i])} in its record"
        )
    return starts, wins[: starts[-1]]
