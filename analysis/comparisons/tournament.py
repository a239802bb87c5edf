"""The report of a strategy tournament (``cardsim tournament``): a win-share matrix with 95%
intervals, a rating table, a heatmap, in ``report.html`` / ``report.md``.

A tournament folder holds ``tournament.json`` (the strategies, in order, and the pairings)
and one run folder per pairing ``(a, b)``: strategy ``a`` in one seat and ``b`` in every
other, every deal played once per seat of ``a`` (rotated seatings, the same cards). The
cell ``(a, b)`` of the matrix is the share of those games that ``a``'s seat won; with equal
strength it is ``1/n`` for ``n`` players.

Ratings: the Luce choice model (Bradley-Terry for more than two seats): a seat of strategy
``i`` wins a game with probability ``r_i / sum of r over the seats``. It is fitted by
Hunter's (2004) MM algorithm, written out below (a dozen lines; no maintained library fits
this multi-seat form directly), and shown on the Elo scale ``400 log10(r_i)`` centred on the
strategies' mean, with a 95% interval from a parametric bootstrap of each pairing's wins.
Games with no winner are left out of the ratings (they count as not won in the matrix).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.errors import ReportError
from analysis.load import open_run, read_columns
from analysis.rendering import plots
from analysis.rendering.document import Block, Chart, Heading, Paragraph, Table
from analysis.rendering.output import chart_dpi, chart_formats, write_document
from analysis.rendering.words import (
    chart_title,
    fmt_pct,
    fmt_share_pm,
    fmt_signed,
    game_name,
    players_adjective,
)
from analysis.statistics.stats import wilson_interval

TOURNAMENT_FILE = "tournament.json"
BOOTSTRAP_SAMPLES = 400
BOOTSTRAP_SEED = 20241130
"""The bootstrap's generator seed: a report is the same each time it is written."""


@dataclass(frozen=True)
class Pairing:
    """The games of strategy ``a`` (one seat) against ``b`` (the other seats)."""

    a: str
    b: str
    games: int
    a_wins: int
    b_wins: int
    """Games won by any seat of ``b``."""


def pairing_folder(i: int, j: int) -> str:
    """The run folder of the pairing of strategies ``i`` (one seat) and ``j`` (the rest)."""
    return f"pair-{i}-{j}"


def read_pairings(folder: Path) -> tuple[dict, list[Pairing]]:
    """The tournament's ``tournament.json`` and the win counts of each pairing's run."""
    try:
        info = json.loads((folder / TOURNAMENT_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReportError(f"{folder} is not a tournament folder (no {TOURNAMENT_FILE})") from None
    except (OSError, ValueError) as exc:
        raise ReportError(f"cannot read {folder / TOURNAMENT_FILE}: {exc}") from None
    strategies, players = info["strategies"], info["players"]
    pairings = []
    for i, j in info["pairings"]:
        run = open_run(folder / pairing_folder(i, j))
        table = read_columns(run, ["winner", *(f"strategy_{s}" for s in range(players))])
        frame = table.to_pandas()
        winner = frame["winner"].to_numpy()
        seats = np.stack([frame[f"strategy_{s}"].astype(str).to_numpy() for s in range(players)])
        won = winner >= 0
        winning = np.where(won, seats[np.clip(winner, 0, None), np.arange(len(frame))], "")
        a, b = strategies[i], strategies[j]
        pairings.append(
            Pairing(a, b, len(frame), int((winning == a).sum()), int((winning == b).sum()))
        )
    return info, pairings


def win_matrix(strategies: list[str], pairings: list[Pairing], players: int):
    """``(share, lo, hi, games)`` DataFrames indexed by strategy (rows: the single seat).
    With two players the pairing ``(a, b)`` also gives ``(b, a)``."""
    shape = (len(strategies), len(strategies))
    frames = [pd.DataFrame(np.full(shape, np.nan), strategies, strategies) for _ in range(4)]
    share, lo, hi, games = frames
    for p in pairings:
        cells = [(p.a, p.b, p.a_wins)]
        if players == 2:
            cells.append((p.b, p.a, p.b_wins))
        for row, col, wins in cells:
            low, high = wilson_interval(wins, p.games)
            share.loc[row, col] = wins / p.games
            lo.loc[row, col], hi.loc[row, col] = float(low), float(high)
            games.loc[row, col] = p.games
    return share, lo, hi, games


def luce_strengths(
    strategies: list[str], pairings: list[Pairing], players: int, wins=None
) -> np.ndarray:
    """Luce-model strengths r (geometric mean 1), fitted by Hunter's MM algorithm.

    Each pairing's decided games are choices among 1 seat of ``a`` and ``players - 1`` of
    ``b``; ``wins`` (optional, float[P, 2]) replaces the pairings' (a, b) win counts (the
    bootstrap). Half a win is added to each strategy, so that none gets strength 0."""
    index = {name: k for k, name in enumerate(strategies)}
    a = np.array([index[p.a] for p in pairings])
    b = np.array([index[p.b] for p in pairings])
    if wins is None:
        wins = np.array([[p.a_wins, p.b_wins] for p in pairings], float)
    decided = wins.sum(axis=1)
    total = np.bincount(a, wins[:, 0], len(strategies)) + np.bincount(
        b, wins[:, 1], len(strategies)
    )
    total = total + 0.5
    r = np.ones(len(strategies))
    for _ in range(10_000):
        denominator = r[a] + (players - 1) * r[b]
        per_game = decided / denominator
        spent = np.bincount(a, per_game, len(strategies)) + np.bincount(
            b, per_game * (players - 1), len(strategies)
        )
        spent = np.maximum(spent, 1e-300)
        new = total / spent
        new /= np.exp(np.mean(np.log(new)))
        if np.max(np.abs(new - r)) < 1e-12:
            return new
        r = new
    return r


def ratings(strategies: list[str], pairings: list[Pairing], players: int) -> pd.DataFrame:
    """Elo-scale ratings (mean 0) with 95% bootstrap intervals, best first. Columns:
    ``strategy``, ``rating``, ``lo``, ``hi``, ``games`` (decided games it played)."""
    elo = 400 * np.log10(luce_strengths(strategies, pairings, players))
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    decided = np.array([p.a_wins + p.b_wins for p in pairings])
    p_a = np.array([p.a_wins / max(1, p.a_wins + p.b_wins) for p in pairings])
    samples = np.empty((BOOTSTRAP_SAMPLES, len(strategies)))
    for k in range(BOOTSTRAP_SAMPLES):
        a_wins = rng.binomial(decided, p_a)
        wins = np.stack([a_wins, decided - a_wins], axis=1).astype(float)
        samples[k] = 400 * np.log10(luce_strengths(strategies, pairings, players, wins))
    lo, hi = np.percentile(samples, [2.5, 97.5], axis=0)
    played = {name: 0 for name in strategies}
    for p in pairings:
        played[p.a] += p.a_wins + p.b_wins
        played[p.b] += p.a_wins + p.b_wins
    table = pd.DataFrame(
        {
            "strategy": strategies,
            "rating": elo,
            "lo": lo,
            "hi": hi,
            "games": [played[name] for name in strategies],
        }
    )
    return table.sort_values("rating", ascending=False, kind="stable").reset_index(drop=True)


def write_tournament_report(
    folder: str | Path, *, dpi: int | None = None, formats: str | Sequence[str] | None = None
) -> tuple[Path, Path]:
    """Write ``report.html``, ``report.md``, ``charts/``, ``matrix.csv`` and
    ``ratings.csv`` of the tournament in ``folder``; the heatmap as PNG at ``dpi`` (default
    200) and in each of ``formats`` (default png, svg, pdf), as
    :func:`analysis.rendering.output.write_document` takes them (checked first)."""
    dpi, formats = chart_dpi(dpi), chart_formats(formats)
    folder = Path(folder)
    info, pairings = read_pairings(folder)
    strategies, players = info["strategies"], info["players"]
    share, lo, hi, games = win_matrix(strategies, pairings, players)
    rated = ratings(strategies, pairings, players)
    meta = json.loads((folder / pairing_folder(*info["pairings"][0]) / "run.json").read_text())
    deals = int(info["games"])
    title = chart_title(meta, deals) + " — tournament"
    figure = plots.tournament_heatmap(share, lo, hi, title, players)
    blocks = _blocks(info, meta, share, lo, hi, games, rated)
    csv = {
        "matrix.csv": long_matrix(share, lo, hi, games).to_csv(index=False).encode(),
        "ratings.csv": rated.to_csv(index=False).encode(),
    }
    figures = {"tournament": figure}
    if info.get("ladder"):
        from .ladder import ladder_blocks, ladder_chart

        steps = ladder_table(folder, info)
        blocks[2:2] = ladder_blocks(steps, players)
        figures["ladder"] = ladder_chart(steps, players, title.replace("tournament", "ladder"))
        csv["ladder.csv"] = steps.to_csv(index=False).encode()
    return write_document(
        folder,
        blocks,
        figures,
        f"Tournament: {title}",
        extra=csv,
        dpi=dpi,
        formats=formats,
    )


def ladder_table(folder: Path, info: dict) -> pd.DataFrame:
    """The steps of the ladder in ``folder`` (its ``tournament.json`` is ``info``):
    :func:`analysis.comparisons.ladder.ladder_steps` of its pairings' runs."""
    from .ladder import ladder_steps, read_steps

    runs = [folder / pairing_folder(i, j) for i, j in info["pairings"]]
    return ladder_steps(read_steps(runs, info["strategies"]), info["players"])


def long_matrix(share, lo, hi, games) -> pd.DataFrame:
    rows = []
    for a in share.index:
        for b in share.columns:
            if np.isfinite(share.loc[a, b]):
                rows.append(
                    {
                        "strategy": a,
                        "against": b,
                        "share": share.loc[a, b],
                        "lo": lo.loc[a, b],
                        "hi": hi.loc[a, b],
                        "games": int(games.loc[a, b]),
                    }
                )
    return pd.DataFrame(rows)


def _blocks(info, meta, share, lo, hi, games, rated) -> list[Block]:
    players = info["players"]
    game = game_name(meta["game"])
    fair = 1 / players
    best = rated.iloc[0]
    against = "the rung below it" if info.get("ladder") else "each other strategy"
    lines = [
        f"In {players_adjective(players)} {game}, each "
        f"{'rung of the ladder' if info.get('ladder') else 'strategy'} played one seat against "
        f"{players - 1} seat{'s' if players > 2 else ''} of {against}, every deal "
        f"once per seat ({_count(info)} per pairing, so {info['players']} times as many "
        "games); a strategy as strong as the "
        f"others wins {fmt_pct(fair)} of such games.",
    ]
    cells = []
    for a in share.index:
        for b in share.columns:
            if np.isfinite(share.loc[a, b]):
                cells.append((share.loc[a, b], a, b))
    top = max(cells)
    lines.append(
        f"The strongest pairing result: `{top[1]}` against `{top[2]}` wins "
        f"{fmt_share_pm(top[0], lo.loc[top[1], top[2]], hi.loc[top[1], top[2]])} of games. "
        f"Best rated: `{best.strategy}` ({fmt_signed(best.rating)} Elo, 95% interval "
        f"{fmt_signed(best.lo)} to {fmt_signed(best.hi)})."
    )
    matrix_rows = [
        [
            f"`{a}`",
            *(
                "—"
                if not np.isfinite(share.loc[a, b])
                else f"{fmt_share_pm(share.loc[a, b], lo.loc[a, b], hi.loc[a, b])}"
                for b in share.columns
            ),
        ]
        for a in share.index
    ]
    rating_rows = [
        [
            f"`{r.strategy}`",
            fmt_signed(r.rating),
            f"{fmt_signed(r.lo)} to {fmt_signed(r.hi)}",
            f"{r.games:,}",
        ]
        for r in rated.itertuples()
    ]
    return [
        Heading(
            f"{'Skill ladder' if info.get('ladder') else 'Tournament'}: "
            f"{players_adjective(players)} {game}",
            1,
        ),
        Paragraph(" ".join(lines)),
        Heading("Win share against each other strategy"),
        Paragraph(
            "Row strategy in one seat, column strategy in the others: the share of games the "
            f"row's seat won, with its 95% Wilson interval (fair share {fmt_pct(fair)})."
        ),
        Table(
            ["one seat \\ the others", *map(str, share.columns)],
            matrix_rows,
            "l" + "r" * len(share.columns),
        ),
        Chart(
            "tournament",
            "Heatmap of the win shares of each strategy against each other: blue above the "
            "fair share, red and dotted below",
        ),
        Heading("Ratings"),
        Paragraph(
            "Luce model (Bradley-Terry for several seats) fitted to every decided game, on "
            "the Elo scale (a difference of 400 is a tenfold strength), mean 0; 95% "
            f"intervals from {BOOTSTRAP_SAMPLES} parametric bootstrap samples."
        ),
        Table(["strategy", "rating", "95% interval", "decided games"], rating_rows, "lrrr"),
    ]


def _count(info: dict) -> str:
    unit = "deal" if info.get("unit", "game") == "game" else "match"
    plural = unit + ("es" if unit == "match" else "s")
    return f"{info['games']:,} {unit if info['games'] == 1 else plural}"
