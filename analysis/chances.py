"""Measures of each seat's chance of winning through a game, from a traced run's trace
(``--trace``; :mod:`simulate.core.chances` says what a point is): how dramatic, secure and
stable the course of a game is, and when it is decided. Each is a mean over games with a
winner of a value per game, with a 95% bootstrap interval over games.

Chances are estimated from R rollouts a point, so they are noisy by about
``sqrt(p (1 - p) / R)``; the measures that would count that noise as movement correct for
it (``stability``) or count a change only past a margin (``chance_lead_changes``).
Numba-free: numpy and pandas.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simulate.core.measures import TRACE_MEASURES

DRAMATIC_GAP = 0.25
"""A game is dramatic when its winner's chance was once this far below the leader's."""
DECIDED = 0.8
"""The winner's chance past which, for good, a game is decided."""
RESAMPLES = 1000
"""Bootstrap resamples of the games."""

DEFINITIONS: dict[str, str] = {
    "drama": (
        "the mean, over a game's turns (tricks), of the highest chance of winning less the "
        "eventual winner's (Ludii's Drama, on chances), averaged over traced games with a "
        "winner; 95% bootstrap interval over games"
    ),
    "dramatic_games": (
        f"the share of traced games with a winner in which the winner's chance was once "
        f"{DRAMATIC_GAP:g} or more below the highest; 95% bootstrap interval"
    ),
    "security": (
        "the share of a game's turns (tricks) at which the eventual winner held the highest "
        "chance (tied included), averaged over traced games with a winner; 95% bootstrap "
        "interval"
    ),
    "decisive_moment": (
        f"the share of the game played when the winner's chance passes {DECIDED:g} and never "
        "falls below it again (0: decided at the deal), averaged over traced games with a "
        "winner; 95% bootstrap interval"
    ),
    "stability": (
        "the root mean square change of a seat's chance from one turn (trick) to the next, "
        "less the variance the rollouts' own noise adds (p(1 - p)/(R - 1) at each noisy "
        "end); 95% bootstrap interval"
    ),
    "chance_lead_changes": (
        "times per game the seat with the highest chance changed, a change counted when "
        "another seat's chance passes the leader's by more than 1/sqrt(R) (the rollouts' "
        "noise at worst), over traced games with a winner; 95% bootstrap interval"
    ),
}


def _decided(trace: pd.DataFrame, rollouts: int):
    """The traced games with a winner, in the trace's order: ``(key, winner, chance)`` each,
    ``key`` its (game,) or (game, rotation), ``chance`` float[T + 1, n] its points (the last
    its outcome). ``trace``: rows in (game, [rotation,] turn, seat) order."""
    keys = ["game", "rotation"] if "rotation" in trace.columns else ["game"]
    players = int(trace["seat"].max()) + 1
    wins = trace["wins"].to_numpy(np.int64).reshape(-1, players)
    point_keys = trace[keys].to_numpy()[::players]
    new = np.ones(len(wins), bool)
    new[1:] = (point_keys[1:] != point_keys[:-1]).any(axis=1)
    starts = np.flatnonzero(new)
    stops = np.append(starts[1:], len(wins))
    for start, stop in zip(starts, stops, strict=True):
        last = wins[stop - 1]
        if stop - start < 2 or last.max() != rollouts:
            continue  # no winner (or a game of no turn)
        yield tuple(point_keys[start]), int(last.argmax()), wins[start:stop] / rollouts


def game_chances(trace: pd.DataFrame, *, rollouts: int) -> pd.DataFrame:
    """One row per traced game (per game and seating with rotated seats) with a winner:
    its keys, ``winner``, ``turns`` (T) and each measure's value for the game
    (``stability`` as its mean corrected squared change, ``stability_sq``).

    ``trace``: a run's trace (``load_run(DIR).trace``), rows in (game, [rotation,] turn,
    seat) order; ``rollouts``: R, the run's ``rollouts``."""
    keys = ["game", "rotation"] if "rotation" in trace.columns else ["game"]
    margin = 1 / np.sqrt(rollouts)
    rows = [
        (*key, winner, len(chance) - 1, *_one_game(chance, winner, rollouts, margin))
        for key, winner, chance in _decided(trace, rollouts)
    ]
    columns = [*keys, "winner", "turns", "drama", "dramatic_games", "security"]
    columns += ["decisive_moment", "stability_sq", "chance_lead_changes"]
    return pd.DataFrame(rows, columns=columns)


def _one_game(chance: np.ndarray, winner: int, rollouts: int, margin: float) -> tuple:
    """The measures of one game: ``chance`` float[T + 1, n], its points (the last its
    outcome, exact)."""
    turns = len(chance) - 1
    before = chance[:-1]
    top = before.max(axis=1)
    own = before[:, winner]
    gap = top - own
    below = np.flatnonzero(chance[:, winner] < DECIDED)
    decided = (below[-1] + 1) / turns if len(below) else 0.0
    noise = chance * (1 - chance) / (rollouts - 1) if rollouts > 1 else np.zeros_like(chance)
    noise[-1] = 0.0  # the outcome is exact
    steps = np.diff(chance, axis=0) ** 2 - noise[:-1] - noise[1:]
    leader, changes = int(chance[0].argmax()), 0
    for point in chance[1:-1]:
        best = int(point.argmax())
        if best != leader and point[best] - point[leader] > margin:
            leader, changes = best, changes + 1
    return (
        float(gap.mean()),
        float((gap >= DRAMATIC_GAP).any()),
        float((own >= top).mean()),
        float(decided),
        float(steps.mean()),
        float(changes),
    )


def chance_measures(
    trace: pd.DataFrame, *, rollouts: int, resamples: int = RESAMPLES, seed: int = 0
) -> dict[str, tuple[float, float, float]]:
    """Each of :data:`TRACE_MEASURES`: ``(value, lo, hi)``, the mean over traced games with
    a winner and its 95% percentile bootstrap interval (``resamples`` resamples of the
    games, drawn from ``seed``: the same trace always gives the same numbers). Empty
    when no traced game has a winner."""
    games = game_chances(trace, rollouts=rollouts)
    if games.empty:
        return {}
    values = games[[*TRACE_MEASURES[:4], "stability_sq", "chance_lead_changes"]].to_numpy(float)
    rng = np.random.default_rng(seed)
    means = values.mean(axis=0)
    # One resample at a time (the memory of one, however many games were traced).
    boot = np.stack(
        [values[rng.integers(0, len(values), len(values))].mean(axis=0) for _ in range(resamples)]
    )  # (resamples, measures)
    lo, hi = np.quantile(boot, [0.025, 0.975], axis=0)
    out = {}
    for k, name in enumerate(TRACE_MEASURES):
        if name == "stability":
            root = lambda x: float(np.sqrt(max(x, 0.0)))  # noqa: E731
            out[name] = (root(means[k]), root(lo[k]), root(hi[k]))
        else:
            out[name] = (float(means[k]), float(lo[k]), float(hi[k]))
    return out


def course_by_finish(trace: pd.DataFrame, *, rollouts: int, bins: int = 20) -> pd.DataFrame:
    """The average course of the chance of winning of the seat that finished first,
    second, …: one row per (``rank``, share-of-the-game bin) with ``share`` (the bin's
    middle, 0 to 1), ``chance`` (the mean chance there) and ``points`` (how many).

    Over traced games with a winner; the winner is rank 1, the other seats ranked by their
    chance just before the end (ties: the lower seat first). A point after turn t of a
    game of T turns lies at share t / T, in bin ``min(floor(share * bins), bins - 1)``."""
    ranks, where, by_rank = [], [], []
    for _, winner, chance in _decided(trace, rollouts):
        turns, players = chance.shape[0] - 1, chance.shape[1]
        before = chance[-2]
        others = sorted((s for s in range(players) if s != winner), key=lambda s: (-before[s], s))
        by_rank.append(chance[:, [winner, *others]].ravel())
        share = np.arange(turns + 1) / turns
        where.append(np.repeat(np.minimum((share * bins).astype(int), bins - 1), players))
        ranks.append(np.tile(np.arange(1, players + 1), turns + 1))
    if not by_rank:
        return pd.DataFrame(columns=["rank", "share", "chance", "points"])
    frame = pd.DataFrame(
        {
            "rank": np.concatenate(ranks),
            "bin": np.concatenate(where),
            "chance": np.concatenate(by_rank),
        }
    )
    out = frame.groupby(["rank", "bin"]).agg(chance=("chance", "mean"), points=("chance", "size"))
    out = out.reset_index()
    out["share"] = (out["bin"] + 0.5) / bins
    return out[["rank", "share", "chance", "points"]]


def one_game(trace: pd.DataFrame, *, rollouts: int, key: tuple) -> pd.DataFrame:
    """One traced game's course: rows by ``turn``, a column of chances per seat. ``key``:
    its (game,) or (game, rotation)."""
    keys = ["game", "rotation"] if "rotation" in trace.columns else ["game"]
    mask = np.ones(len(trace), bool)
    for name, value in zip(keys, key, strict=True):
        mask &= trace[name].to_numpy() == value
    rows = trace[mask]
    return rows.pivot(index="turn", columns="seat", values="wins") / rollouts
