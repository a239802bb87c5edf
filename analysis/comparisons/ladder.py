"""A skill ladder (``cardsim ladder``): strategies in order of expected strength, each rung
played against the one below it, and how many steps up the ladder the games can tell apart.

A ladder is a tournament (:mod:`analysis.comparisons.tournament`) whose pairings are the
neighbouring rungs only: rung ``k`` in one seat against rung ``k − 1`` in every other seat,
every deal played once per seat of rung ``k`` (rotated seatings, the same cards). A rung as
strong as the one below wins ``1/n`` of its games (``n`` players).

Per step (:func:`ladder_steps`): the stronger rung's win share with its 95% interval, over
the deals (a deal's seatings share their cards, so they are counted together: the ratio
estimator of the balance measures' skill, :class:`analysis.balance.SkillCounts`); the
one-sided z test of "it wins more than 1/n", Holm-corrected across the steps; whether the
step is *clear* (significant after Holm); and the smallest win share the step's games
could detect: the share above 1/n that the test, at the level Holm gives the first step
(5% over the number of steps), finds with 80% power. **Skill depth** (:func:`skill_depth`) is the number of clear steps: the
idea of CardStock's Order and Ludii's SkillTrace (how many times a stronger player reliably
beats a weaker one), with a test behind each step.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pandas as pd

from analysis.statistics.significance import holm

ALPHA = 0.05
POWER = 0.8
"""The power at which :func:`ladder_steps` states the smallest detectable share."""


def read_steps(folders: Sequence[Path], strategies: Sequence[str]) -> list[Step]:
    """Each step of a ladder of ``strategies`` (weakest first), bottom first, counted from
    its pairing's run folder (``folders[k - 1]`` holds rung k against rung k − 1): the
    stronger rung's wins and the cluster estimate of its share (the deal's seatings
    together: :class:`analysis.balance.SkillCounts`)."""
    from analysis.balance import SkillCounts
    from analysis.load import open_run, scan

    steps = []
    for k, folder in enumerate(folders, start=1):
        run = open_run(folder)
        (counts,) = scan(run, lambda run=run: [SkillCounts(run.columns)])
        share, error = counts.share_error()
        _, wins, games, *_ = (int(x) for x in counts.totals())
        steps.append(Step(strategies[k], strategies[k - 1], games, wins, share, error))
    return steps


@dataclass(frozen=True)
class Step:
    """One step up a ladder: ``strategy`` in one seat against ``below`` in the others,
    ``games`` played, ``wins`` of its seat, its ``share`` and that share's standard
    ``error`` over the deals (each deal's seatings together)."""

    strategy: str
    below: str
    games: int
    wins: int
    share: float
    error: float


def ladder_steps(steps: Sequence[Step], players: int) -> pd.DataFrame:
    """One row per step, bottom first: ``strategy`` (the stronger rung, in one seat),
    ``below`` (in the others), ``games``, ``wins`` (games its seat won), ``share``, ``lo``,
    ``hi`` (95%, normal, over the deals), ``p`` (one-sided z test of a share above
    1/``players``), ``p_holm`` (Holm over the steps), ``clear`` (``p_holm`` below 5%) and
    ``detectable`` (the smallest share the step's games detect with 80% power at the first
    Holm level)."""
    fair = 1 / players
    z = NormalDist().inv_cdf(0.975)
    rows = []
    for step in steps:
        if step.error > 0:
            p = NormalDist().cdf(-(step.share - fair) / step.error)
        else:  # every deal alike (or a single deal): the share is what it is
            p = math.nan if math.isnan(step.error) else float(step.share <= fair)
        rows.append(
            {
                "strategy": step.strategy,
                "below": step.below,
                "games": step.games,
                "wins": step.wins,
                "share": step.share,
                "lo": max(step.share - z * step.error, 0.0),
                "hi": min(step.share + z * step.error, 1.0),
                "p": p,
            }
        )
    table = pd.DataFrame(rows)
    table["p_holm"] = holm(table["p"].to_numpy()) if len(table) else []
    table["clear"] = table["p_holm"] < ALPHA
    table["detectable"] = [detectable_share(s.error, players, len(steps)) for s in steps]
    return table


def detectable_share(error: float, players: int, steps: int = 1) -> float:
    """The smallest win share above ``1/players`` that the one-sided test at level
    ``ALPHA / steps`` finds with probability :data:`POWER`, for a share measured with
    standard ``error``."""
    z = NormalDist().inv_cdf(1 - ALPHA / max(steps, 1)) + NormalDist().inv_cdf(POWER)
    return 1 / players + z * error


def skill_depth(steps: pd.DataFrame) -> int:
    """The number of steps up the ladder in which the stronger rung clearly beats the one
    below (Holm-corrected across the steps)."""
    return int(np.count_nonzero(steps["clear"].to_numpy(bool)))


# --- the report's section -------------------------------------------------------------------


def ladder_blocks(steps: pd.DataFrame, players: int) -> list:
    """The report's "Skill ladder" section: the skill depth in words, a table of the
    steps, the chart (``charts/ladder.*``)."""
    from analysis.rendering.document import Chart, Heading, Paragraph, Table
    from analysis.rendering.words import fmt_int, fmt_p, fmt_pct, fmt_share_pm

    depth = skill_depth(steps)
    rows = [
        [
            f"`{r.strategy}` over `{r.below}`",
            fmt_share_pm(r.share, r.lo, r.hi),
            fmt_p(r.p_holm),
            "yes" if r.clear else "no",
            fmt_pct(r.detectable),
            fmt_int(r.games),
        ]
        for r in steps.itertuples()
    ]
    return [
        Heading("Skill ladder"),
        Paragraph(
            f"Skill depth: {depth} of {len(steps)} step{'s' if len(steps) != 1 else ''}. Each "
            f"rung played one seat against {players - 1} seat{'s' if players > 2 else ''} of "
            f"the rung below, every deal once per seat; a rung no stronger than the one below "
            f"wins {fmt_pct(1 / players)} of its games. A step is clear when the one-sided "
            "z test of a larger share (over the deals) is significant after Holm's correction "
            'across the steps (5%); "detectable" is the smallest share its games find with '
            "80% power at the first Holm level (a smaller edge may be real but unseen)."
        ),
        Table(
            ["step", "win share (95%)", "p (Holm)", "clear", "detectable", "games"],
            rows,
            "lrrrrr",
        ),
        Chart("ladder", "Each rung's win share against the rung below, with 95% intervals"),
    ]


def ladder_chart(steps: pd.DataFrame, players: int, title: str):
    """Each rung's win share against the rung below (rungs in ladder order), with its 95%
    interval and the fair share as a line."""
    from analysis.rendering.plots import new_figure

    fig = new_figure(title, max(6.0, 1.1 * len(steps) + 3), 4.2)
    ax = fig.subplots()
    x = np.arange(len(steps))
    share = 100 * steps["share"].to_numpy()
    errors = [share - 100 * steps["lo"].to_numpy(), 100 * steps["hi"].to_numpy() - share]
    ax.errorbar(x, share, yerr=errors, fmt="s", color="0", capsize=3)
    ax.axhline(100 / players, color="0.3", linestyle="--", linewidth=1)
    ax.set_xticks(x, [f"{r.strategy}\nover {r.below}" for r in steps.itertuples()], fontsize=8)
    ax.set_ylabel("win share of the stronger rung's seat (%)")
    return fig
