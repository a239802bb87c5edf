"""``cardsim tune`` for the shedding games (their spec's ``tune_path``): tuning ``weighted``
strategies, the cross-entropy method over the feature weights.

One seat plays a candidate ``weighted`` strategy, the others the opponents (cycled over the
seats), with rotated seatings so that seat advantage cancels out; a candidate's fitness is
its seat's win share. Each round samples candidates from a Gaussian over the weights, plays
them all on the same deals (common random numbers), and refits the Gaussian to the best
quarter. Scores are invariant to scaling the weights, so candidates are normalised to unit
length. The winner is then played on held-out deals (another seed) with a 95% Wilson
interval, beside ``greedy`` on the same held-out deals.

Written out (30 lines) rather than taken from a library: the method is a loop of numpy
calls, and its randomness must come from the run seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.errors import CardsimError
from ...games.shedding.strategies import BUILT_IN_WEIGHTS, FEATURE_NAMES, parse
from ...runs.request import make_request
from ..api.playing import play_run

POPULATION = 16
ELITE = 4
ROUNDS = 8
SMOOTHING = 0.7
"""Weight of the new mean and spread against the old ones."""
MIN_SPREAD = 0.02
HOLDOUT_OFFSET = 0x9E3779B97F4A7C15
"""Held-out deals use the seed ``(seed + HOLDOUT_OFFSET) mod 2**64``: other cards."""


@dataclass(frozen=True)
class TuneResult:
    spec: str
    """The best ``weighted`` strategy found."""
    weights: dict[str, float]
    share: float
    lo: float
    hi: float
    """Its held-out win share and 95% Wilson interval."""
    greedy_share: float
    greedy_lo: float
    greedy_hi: float
    holdout_games: int
    history: list[dict]
    """Per round: the mean and best training share of the candidates."""


def weighted_spec(weights: np.ndarray) -> str:
    """``weighted:points=...`` from a weight vector (rounded to 4 significant digits)."""
    terms = [
        f"{name}={float(f'{w:.4g}')}" for name, w in zip(FEATURE_NAMES, weights, strict=True) if w
    ]
    return "weighted:" + ",".join(terms)


def candidate_share(frame) -> tuple[int, int]:
    """``(wins, games)`` of the candidate's seat in rotated records: the candidate sits in
    seat 0 of the first seating, so in seat ``rotation`` of each record."""
    won = frame["winner"].to_numpy() == frame["rotation"].to_numpy()
    return int(won.sum()), len(frame)


def tune(
    game: str,
    *,
    opponents: list[str],
    players: int | None = None,
    budget: int = 2_000_000,
    seed: int | None = None,
    rules=None,
    threads: int | None = None,
    holdout: int | None = None,
    echo=lambda line: None,
    cluster=None,
) -> TuneResult:
    """Search ``weighted`` weights against ``opponents`` with ``budget`` games in all (deals
    x seatings) for training, then evaluate the best on ``holdout`` held-out deals.
    ``cluster`` (:class:`simulate.runs.cluster.session.Cluster`): each candidate's games are
    played on its workers, cut into tasks of chunks (the candidates one after the other, as
    here): the same records, so the same result."""
    probe = make_request(
        game,
        players=players,
        games=1,
        seed=seed,
        threads=threads,
        rules=rules,
        strategies=opponents[:1] or None,
    )
    n, seed = probe.players, probe.seed
    if not opponents:
        raise CardsimError("--opponents needs at least one strategy, e.g. random,greedy")
    field = [str(parse(name)) for name in opponents]
    per_candidate = budget // (ROUNDS * POPULATION * n)
    if per_candidate < 10:
        raise CardsimError(
            f"--budget {budget:,} is too small: at least {10 * ROUNDS * POPULATION * n:,} "
            f"games for {n} players ({ROUNDS} rounds of {POPULATION} candidates)"
        )

    def run(game, **settings):
        """A candidate's records as a DataFrame, played here or on ``cluster``."""
        request = make_request(game, **settings)
        play = None if cluster is None else cluster.play_chunks
        games_table, _ = play_run(request, play=play)
        return games_table.to_pandas()

    def seating(spec: str) -> list[str]:
        """The candidate in seat 0, the opponents cycled over the other seats."""
        return [spec] + [field[k % len(field)] for k in range(n - 1)]

    rng = np.random.default_rng(seed)
    mean = np.array([BUILT_IN_WEIGHTS["greedy"].get(name, 0.0) for name in FEATURE_NAMES])
    mean = mean / np.linalg.norm(mean)
    spread = np.full(len(FEATURE_NAMES), 0.5)
    history = []
    best_spec, best_share = weighted_spec(mean), -1.0
    for round_ in range(ROUNDS):
        candidates = mean + spread * rng.standard_normal((POPULATION, len(mean)))
        candidates /= np.linalg.norm(candidates, axis=1, keepdims=True)
        shares = np.empty(POPULATION)
        round_seed = (seed + round_ + 1) % 2**64  # every candidate of a round: the same deals
        for k, weights in enumerate(candidates):
            spec = weighted_spec(weights)
            frame = run(
                game,
                players=n,
                games=per_candidate,
                seed=round_seed,
                threads=threads,
                rules=rules,
                strategies=seating(spec),
                rotate_seats=True,
            )
            wins, games = candidate_share(frame)
            shares[k] = wins / games
        elite = candidates[np.argsort(shares)[-ELITE:]]
        mean = SMOOTHING * elite.mean(axis=0) + (1 - SMOOTHING) * mean
        spread = np.maximum(SMOOTHING * elite.std(axis=0) + (1 - SMOOTHING) * spread, MIN_SPREAD)
        if shares.max() > best_share:
            best_share, best_spec = float(shares.max()), weighted_spec(candidates[shares.argmax()])
        history.append(
            {"round": round_, "mean_share": float(shares.mean()), "best_share": float(shares.max())}
        )
        echo(f"round {round_ + 1}/{ROUNDS}: mean {shares.mean():.4f}, best {shares.max():.4f}")
    final = weighted_spec(mean / np.linalg.norm(mean))
    # Fresh deals choose between the final mean and the best candidate seen; other fresh
    # deals (never used to choose) then measure the chosen one and greedy.
    validation_seed = (seed + 2 * HOLDOUT_OFFSET) % 2**64
    validation = per_candidate * POPULATION

    def share_of(spec: str, games: int, run_seed: int) -> tuple[int, int]:
        frame = run(
            game,
            players=n,
            games=games,
            seed=run_seed,
            threads=threads,
            rules=rules,
            strategies=seating(spec),
            rotate_seats=True,
        )
        return candidate_share(frame)

    chosen = final
    if best_spec != final:
        chosen = max(
            (final, best_spec), key=lambda spec: share_of(spec, validation, validation_seed)[0]
        )
    holdout = holdout or max(validation, 1000)
    holdout_seed = (seed + HOLDOUT_OFFSET) % 2**64
    results = {spec: share_of(spec, holdout, holdout_seed) for spec in (chosen, "greedy")}
    from analysis.statistics.stats import wilson_interval

    wins, games = results[chosen]
    lo, hi = wilson_interval(wins, games)
    g_wins, g_games = results["greedy"]
    g_lo, g_hi = wilson_interval(g_wins, g_games)
    spec = parse(chosen)
    return TuneResult(
        str(spec),
        dict(zip(FEATURE_NAMES, spec.weights, strict=True)),
        wins / games,
        float(lo),
        float(hi),
        g_wins / g_games,
        float(g_lo),
        float(g_hi),
        games,
        history,
    )
