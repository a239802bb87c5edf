"""Charts of your own DataFrames: the report's charts, drawn from a table of records.

Each function takes a DataFrame of records (``simulate.run(...)``, ``load_run(DIR).games``,
``simulate.simulate(...).games``, or any slice of one), counts what it needs and draws
it with the report's own chart functions (:mod:`analysis.rendering.plots`), returning a
:class:`matplotlib.figure.Figure` (in a notebook it shows itself;
``fig.savefig("x.png")`` writes it)::

    from analysis import charts
    from analysis.load import load_run

    games = load_run("results/first").games
    charts.length_histogram(games)                       # the game's length, as the report
    charts.box_chart(games, "cards", by="winner")        # length by winner
    charts.win_share_chart(games[games["cards"] > 500])  # who wins the long deals

The run's metadata in the table's ``attrs`` (which ``simulate.run`` and ``load_run`` put
there, and pandas keeps through most operations) gives the default title, the number of
players and the game's length column; without it, pass ``title=``, ``players=`` and
``column=``. As in the report, lengths leave out the deals that never end (Beggar-My-
Neighbour's cycles) unless ``ended=False``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analysis.load import Batch, game_spec
from analysis.rendering import plots
from analysis.rendering.words import chart_title
from analysis.statistics.convergence import Convergence
from analysis.statistics.stats import wilson_interval, win_shares
from simulate.runs.folder.distribution import Distribution

__all__ = [
    "box_chart",
    "convergence_chart",
    "length_histogram",
    "seat_chart",
    "survival_chart",
    "tournament_chart",
    "win_share_chart",
]

_SEAT_COLUMN = re.compile(r"^(?:cards_held|cards_left|strategy|score|share)_(\d+)$")


def length_histogram(
    games: pd.DataFrame,
    column: str | Sequence[str] | None = None,
    *,
    title: str | None = None,
    ended: bool = True,
) -> Figure:
    """Histogram of an integer ``column`` (default: the game's length, ``cards`` or
    ``turns``), or one panel per column of a list, with the mean and median marked and the
    x axis stopped at the 99.9th percentile, as in the report."""
    columns = [column] if isinstance(column, str) else list(column or [_length(games)])
    kept = _ended(games) if ended else games
    panels = [(_dist(kept, c), _label(games, c)) for c in columns]
    return plots.histograms(panels, _title(games, title))


def survival_chart(
    games: pd.DataFrame, column: str | None = None, *, title: str | None = None, ended: bool = True
) -> Figure:
    """The share of games lasting more than x (x in ``column``, default the game's length)
    against x, on a log scale, as in the report."""
    column = column or _length(games)
    x, s = _dist(_ended(games) if ended else games, column).survival()
    return plots.survival_chart(x, s, _title(games, title), _unit(games, column))


def win_share_chart(
    games: pd.DataFrame,
    *,
    players: int | None = None,
    title: str | None = None,
    unit: str | None = None,
) -> Figure:
    """Each seat's share of the games won (its ``winner`` column), with 95% Wilson
    intervals and the equal share, as in the report. A matches table (``share_<i>``
    columns: ``load_run(DIR).matches``) gives each seat's share of the match wins."""
    players = players or _players(games)
    if "winner" in games.columns:
        shares = win_shares(games, players)
        default_unit = "deals"
    else:
        shares = _match_shares(games, players)
        default_unit = "matches"
    unit = unit or default_unit
    return plots.win_share_chart(shares, _title(games, title, unit), unit)


def convergence_chart(
    games: pd.DataFrame,
    column: str | None = None,
    *,
    players: int | None = None,
    title: str | None = None,
    ended: bool = True,
) -> Figure:
    """The first seat's win share and the mean of ``column`` (default the game's length)
    after the first 100, 200, 500… games of the table, in its order, with 95% bands, as in
    the report. The first seat is the one that led each deal where a ``first_seat`` column
    says so (else seat 0)."""
    players = players or _players(games)
    column = column or _length(games)
    lead = "first_seat" if "first_seat" in games.columns else None
    keep = _ended_mask(games) if ended else np.ones(len(games), bool)
    data = {
        "game": np.arange(len(games), dtype=np.int64),
        "winner": games["winner"].to_numpy(),
        column: _integers(games, column),
    }
    if lead:
        data[lead] = games[lead].to_numpy()
    tally = Convergence(len(games), players, column, where=lambda batch: keep, lead=lead)
    tally.update(Batch(start=0, data=data))
    first = "first seat"
    return plots.convergence_chart(
        tally.table(), _title(games, title), first, _unit(games, column), players
    )


def box_chart(
    games: pd.DataFrame,
    column: str,
    by: str,
    *,
    title: str | None = None,
    ylabel: str | None = None,
    labels: Mapping | Callable | None = None,
) -> Figure:
    """One box per value of ``by`` (``winner``, ``end``, ``strategy_0``…): the quartiles
    of the integer ``column`` in those games, whiskers at the 10th and 90th percentiles,
    the mean as a diamond. ``labels`` names the groups (a mapping or a function of the
    value; default ``"<by> <value>"``, and ``"no winner"`` for ``winner`` −1)."""
    groups = {}
    for key, part in games.groupby(by, observed=True, sort=True):
        groups[_group_label(by, key, labels)] = Distribution.of(_integers(part, column))
    return plots.score_chart(groups, _title(games, title), ylabel or _label(games, column))


def seat_chart(
    games: pd.DataFrame,
    prefix: str = "score",
    *,
    title: str | None = None,
    ylabel: str | None = None,
) -> Figure:
    """One box per seat of the per-seat columns ``<prefix>_0``, ``<prefix>_1``…
    (``score``, ``points``, ``cards_left``; a matches table's ``total``), as the report's
    score chart."""
    columns = sorted(
        (c for c in games.columns if re.fullmatch(rf"{re.escape(prefix)}_\d+", str(c))),
        key=lambda c: int(str(c).rsplit("_", 1)[1]),
    )
    if not columns:
        raise ValueError(f"no {prefix}_<seat> columns in the table")
    boxes = {f"seat {c.rsplit('_', 1)[1]}": Distribution.of(_integers(games, c)) for c in columns}
    return plots.score_chart(boxes, _title(games, title), ylabel or prefix.replace("_", " "))


def tournament_chart(table: pd.DataFrame, *, title: str | None = None) -> Figure:
    """The heatmap of a tournament's table (``simulate.tournament(...)``: ``strategy``,
    ``against``, ``share``, ``lo``, ``hi``): the share of games each row strategy's seat
    won against the column strategy in the other seats, with its interval."""
    order = list(dict.fromkeys([*table["strategy"], *table["against"]]))

    def grid(values: str) -> pd.DataFrame:
        wide = table.pivot(index="strategy", columns="against", values=values)
        return wide.reindex(index=order, columns=order).astype(float)

    return plots.tournament_heatmap(
        grid("share"), grid("lo"), grid("hi"), title if title is not None else "Tournament"
    )


# --- what the table's metadata says ---------------------------------------------------------


def _spec(games: pd.DataFrame):
    """The game's spec from the table's ``attrs``, or None."""
    if "game" not in games.attrs:
        return None
    try:
        return game_spec(games.attrs)
    except Exception:  # an unknown game: charts still draw, without its defaults
        return None


def _length(games: pd.DataFrame) -> str:
    spec = _spec(games)
    if spec is not None and spec.length.name in games.columns:
        return spec.length.name
    for column in ("cards", "turns"):
        if column in games.columns:
            return column
    raise ValueError("name the column to chart: column=...")


def _unit(games: pd.DataFrame, column: str) -> str:
    spec = _spec(games)
    if spec is not None:
        try:
            players = _players(games)
        except ValueError:
            players = 0
        for spec_column in spec.columns:
            if column in spec_column.names(players) or column == spec_column.name:
                return spec_column.unit or column
    return column


def _label(games: pd.DataFrame, column: str) -> str:
    unit = _unit(games, column)
    return column if unit in (column, "") else f"{column} ({unit})"


def _players(games: pd.DataFrame) -> int:
    if "players" in games.attrs:
        return int(games.attrs["players"])
    seats = [int(m.group(1)) for c in games.columns if (m := _SEAT_COLUMN.match(str(c)))]
    if seats:
        return max(seats) + 1
    if "winner" in games.columns and len(games):
        return max(2, int(games["winner"].max()) + 1)
    raise ValueError("say how many players: players=...")


def _title(games: pd.DataFrame, title: str | None, unit: str = "deals") -> str:
    if title is not None:
        return title
    meta = games.attrs
    if all(key in meta for key in ("game", "players")):
        try:
            return chart_title({"rules": {}, **meta}, len(games), unit)
        except Exception:  # metadata of another shape: no title rather than no chart
            return ""
    return ""


def _ended_mask(games: pd.DataFrame) -> np.ndarray:
    spec = _spec(games)
    if spec is None or not spec.unended or "end" not in games.columns:
        return np.ones(len(games), bool)
    return ~games["end"].astype(str).isin(spec.unended).to_numpy()


def _ended(games: pd.DataFrame) -> pd.DataFrame:
    mask = _ended_mask(games)
    return games if mask.all() else games[mask]


def _integers(games: pd.DataFrame, column: str) -> np.ndarray:
    values = games[column].to_numpy()
    if values.dtype.kind not in "biu":
        raise ValueError(f"column {column!r} must hold whole numbers, not {values.dtype}")
    return values


def _dist(games: pd.DataFrame, column: str) -> Distribution:
    return Distribution.of(_integers(games, column))


def _group_label(by: str, key, labels) -> str:
    if isinstance(labels, Mapping):
        return str(labels.get(key, key))
    if callable(labels):
        return str(labels(key))
    if by == "winner" and key == -1:
        return "no winner"
    if by == "winner":
        return f"seat {key} wins"
    return f"{by} {key}"


def _match_shares(matches: pd.DataFrame, players: int) -> pd.DataFrame:
    """Each seat's summed share of the match wins (``share_<i>``), as the report's match
    table: Wilson intervals over the matches, and a last "no winner" row at 0."""
    columns = [f"share_{s}" for s in range(players)]
    missing = [c for c in columns if c not in matches.columns]
    if missing:
        raise ValueError(f"a winner column, or share_<seat> columns, please: no {missing[0]}")
    wins = np.append([float(matches[c].sum()) for c in columns], 0.0)
    n = len(matches)
    lo, hi = wilson_interval(wins, n)
    return pd.DataFrame(
        {
            "seat": [*range(players), -1],
            "label": [*(f"seat {s}" for s in range(players)), "no winner"],
            "wins": wins,
            "share": wins / n,
            "lo": lo,
            "hi": hi,
        }
    )
