"""The designer's balance measures of a run: is the game fair, decisive, not too long,
tense to the end, and does it reward skill? Each measure with its 95% interval.

=========================  ==================================================================
``first_seat_advantage``   the first seat's win share minus the equal share 1/n
``seat_spread``            the largest minus the smallest seat's win share
``decisive``               the share of games with a winner
``turns``, ``turns_p90``   mean and 90th percentile of the length in turns (tricks, for
                           Beggar-My-Neighbour), over the games that ended
``lead_changes``           times per game the lead passed to another seat
``comebacks``              the share of games whose winner trailed by 3 cards or more
``skill``                  the win share of one seat of a skilled strategy against
                           ``random`` opponents, rotated over the seats on the same deals,
                           minus 1/n (restricted play); 0 for a game without choices
``forced_share``           the share of decision points with one option (shedding games)
``branching``              options per decision with two or more (the branching factor)
``drama`` ...              a traced run's (``--trace``): how each seat's chance of winning
                           moves through a game (:mod:`analysis.chances`)
=========================  ==================================================================

In match play the win shares (first seat, spread) are of the matches (match winners, a
tie's win split), everything else is per deal. Lead changes and comebacks need the
``lead_changes`` and ``winner_behind`` columns; a run written before them gets neither.

The intervals are analytic, so a table of 100,000 games takes a few milliseconds and the
same table always gives the same numbers: Wilson score intervals for shares; the normal
interval (mean ± 1.96 standard errors) for means; for the 90th percentile, the interval
between two order statistics whose ranks come from the binomial distribution
(distribution-free); for the seat spread, the widest and narrowest spreads allowed by
simultaneous Wilson intervals of every seat's share (Bonferroni: each at 1 − 0.05/n), which
covers the true spread with at least 95% probability (conservative, and it reaches 0 when
the seats may be equal); for skill, the normal interval over deals (the rotations of a
deal, and in match play the deals of a match, counted as one cluster: a ratio estimator
with its cluster variance), since the rotations share their cards.

Skill needs games of its own: a ``rotate_seats`` run of the same game, players and rules
whose seat 0 plays the skilled strategy and every other seat ``random`` (so in rotation r
the skilled seat is r). ``cardsim balance`` plays them into ``DIR/skill``
(:data:`SKILL_FOLDER`), a run folder of its own, on the run's seed.

This module reads DataFrames (:func:`balance_measures`, :func:`balance_table`) and feeds
the reports' one pass over the records (:class:`BalanceCounts`, :class:`SkillCounts`),
both through the same counting code. It uses numpy, pandas and scipy, never numba.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy.stats import binom

from analysis.chances import DEFINITIONS as CHANCE_DEFINITIONS
from analysis.chances import chance_measures
from analysis.errors import ReportError
from simulate.runs.folder.batch import Batch
from simulate.runs.folder.records import game_spec

if TYPE_CHECKING:
    from analysis.load import Run
from analysis.statistics.stats import wilson_interval
from simulate.core.measures import MEASURES
from simulate.core.skill import DEFAULT_SKILL, SKILL_FOLDER
from simulate.core.skill import OPPONENT as SKILL_OPPONENT
from simulate.games.spec import GameSpec
from simulate.runs.folder.aggregates import DECISION_COLUMNS, LEFT, POINTS, decision_columns
from simulate.runs.folder.distribution import Distribution

DEFINITIONS: dict[str, str] = {
    "first_seat_advantage": (
        "the first seat's win share minus the equal share 1/n (the seat that led each deal "
        "where the records say; in match play seat 0's share of the match wins); 95% Wilson "
        "interval"
    ),
    "seat_spread": (
        "the largest minus the smallest seat's win share (seats counted as for the first "
        "seat's advantage); 95% interval from simultaneous Wilson intervals of every seat's "
        "share (Bonferroni), conservative"
    ),
    "decisive": "the share of games (deals, in match play) with a winner; 95% Wilson interval",
    "turns": (
        "the mean length in turns (tricks, for Beggar-My-Neighbour) of the games that ended, "
        "those that never end left out; 95% normal interval"
    ),
    "turns_p90": (
        "the 90th percentile of that length (interpolated); 95% distribution-free interval "
        "between two order statistics"
    ),
    "lead_changes": (
        "times per game the lead (the one seat strictly closest to winning) passed to another "
        "seat, over the games that ended; 95% normal interval"
    ),
    "comebacks": (
        "the share of games whose winner trailed the leader by 3 cards or more at a turn's "
        "(trick's) end; 95% Wilson interval"
    ),
    "skill": (
        "the win share of one seat of the skilled strategy against random opponents, rotated "
        "over the seats on the same deals, minus 1/n; 95% normal interval over deals; 0 by "
        "definition for a game without choices"
    ),
    "forced_share": (
        "the share of decision points (every seat's) at which the rules left one option; "
        "95% normal interval of the ratio of the games' sums"
    ),
    "branching": (
        "the mean number of options at a decision point with two or more (each distinct "
        "legal card, a wild once per suit it may name, drawing, passing, playing or keeping "
        "a drawn card): the branching factor; 95% normal interval of the ratio of the games' "
        "sums"
    ),
    **CHANCE_DEFINITIONS,
}
ORDER: tuple[str, ...] = MEASURES
"""Every measure a balance table may hold, in its order: the records' and skill's, then
the trace's (:data:`TRACE_MEASURES`, :mod:`analysis.chances`: a traced run's only)."""

COMEBACK_CARDS = 3
"""A winner that trailed by this many cards or more made a comeback."""
BALANCE_FILE = "balance.csv"
"""The measures as numbers, beside ``summary.csv``: ``measure,value,lo,hi``."""
CSV_COLUMNS = ("measure", "value", "lo", "hi")
TENSION_COLUMNS = ("lead_changes", "winner_behind")

_CONFIDENCE = 0.95
_Z = 1.959963984540054  # the normal quantile at 97.5%
_ONE_SIDED_Z = 1.645  # "clear at 95%": a one-sided normal test, as the formula has it
_NAN = float("nan")


def games_needed(p: float, players: int) -> float:
    """Games a seat winning a share ``p`` of them must play before its lead over a fair
    share ``1/players`` is clear at 95% (one-sided):
    ``(1.645 · √(p(1 − p)) / (p − 1/n))²``; ``inf`` when ``p <= 1/n`` (or NaN)."""
    lead = p - 1 / players
    if not lead > 0:
        return math.inf
    return (_ONE_SIDED_Z * math.sqrt(p * (1 - p)) / lead) ** 2


def length_column(spec: GameSpec) -> str:
    """The column the length measures read: the game's ``turns`` or ``tricks`` (the unit
    its tension marks are taken at) when its records have one, else its headline length."""
    names = [column.name for column in spec.columns]
    return next((name for name in ("turns", "tricks") if name in names), spec.length.name)


def lead_of(columns: Sequence[str], rules: dict) -> str | None:
    """The column saying which seat led each deal (as the reports count the first seat):
    ``first_seat`` when recorded; ``deal`` for matches led in turn; else None (seat 0)."""
    if "first_seat" in columns:
        return "first_seat"
    if "deal" in columns and rules.get("first_seat", "seat0") == "seat0":
        return "deal"
    return None


class BalanceCounts:
    """What the measures count in a run's games, batch by batch (an accumulator of
    :func:`analysis.load.scan`): wins by position from the deal's leader, games with a
    winner, the length and lead changes of the games that ended, comebacks."""

    def __init__(self, spec: GameSpec, players: int, columns: Sequence[str], lead: str | None):
        self.players, self.lead = players, lead
        self.length = length_column(spec)
        self.unended = tuple(spec.unended)
        self.has_leads = "lead_changes" in columns
        self.has_behind = "winner_behind" in columns
        self.has_choices = all(name in columns for name in DECISION_COLUMNS)
        wanted = ["winner", self.length]
        wanted += [lead] if lead else []
        wanted += ["end"] if self.unended else []
        wanted += ["lead_changes"] if self.has_leads else []
        wanted += ["winner_behind"] if self.has_behind else []
        wanted += list(DECISION_COLUMNS) if self.has_choices else []
        self.columns = tuple(dict.fromkeys(wanted))
        self.n = 0
        self.wins = np.zeros(players, np.int64)
        self.decided = 0
        self.lengths = Distribution.empty()
        self.leads = Distribution.empty()
        self.comebacks = 0
        # Per game: decisions, forced, options and the two derived counts that give their
        # products (simulate.runs.folder.aggregates.POINTS, LEFT).
        self.choices = dict.fromkeys((*DECISION_COLUMNS, POINTS, LEFT), Distribution.empty())

    def from_aggregates(self, view) -> None:
        """What :meth:`update` over every game gives, from an aggregate-only run
        (:class:`analysis.aggregates.AggregateView`)."""
        self.n = view.games()
        _, positions = view.wins_by(self.players, self.lead)
        self.wins = positions[: self.players].copy()
        won = [k for k in view.keys if view.value(k, "winner") >= 0]
        self.decided = view.games(won)
        ended = [k for k in view.keys if view.value(k, "end") not in self.unended]
        self.lengths = view.dist(self.length, ended)
        if self.has_leads:
            self.leads = view.dist("lead_changes", ended)
        if self.has_behind:
            self.comebacks = view.dist("winner_behind", won).count_above(COMEBACK_CARDS - 1)
        if self.has_choices:
            self.choices = {name: view.dist(name, view.keys) for name in self.choices}

    def update(self, batch: Batch) -> None:
        winner = batch["winner"].astype(np.int64)
        won = winner >= 0
        self.n += winner.size
        self.decided += int(np.count_nonzero(won))
        seat = winner[won]
        if self.lead is not None:
            seat = (seat - batch[self.lead][won].astype(np.int64)) % self.players
        self.wins += np.bincount(seat, minlength=self.players)[: self.players]
        ended = ~batch.is_in("end", self.unended) if self.unended else slice(None)
        self.lengths = self.lengths + Distribution.of(batch[self.length][ended])
        if self.has_leads:
            self.leads = self.leads + Distribution.of(batch["lead_changes"][ended])
        if self.has_behind:
            behind = batch["winner_behind"] >= COMEBACK_CARDS
            self.comebacks += int(np.count_nonzero(behind & won))
        if self.has_choices:
            counts = {name: batch[name] for name in DECISION_COLUMNS}
            counts.update(decision_columns(counts))
            for name, values in counts.items():
                self.choices[name] = self.choices[name] + Distribution.of(values)

    def merge(self, other: BalanceCounts) -> None:
        """Add ``other``'s counts (an accumulator built alike, fed other games)."""
        self.n += other.n
        self.wins = self.wins + other.wins
        self.decided += other.decided
        self.lengths = self.lengths + other.lengths
        self.leads = self.leads + other.leads
        self.comebacks += other.comebacks
        self.choices = {name: d + other.choices[name] for name, d in self.choices.items()}


PAIRED_MEASURES = ("first_seat_advantage", "decisive", "turns", "lead_changes", "comebacks")
"""The measures that are means over games, whose difference between two rule sets that
played the same deals is the mean of the games' paired differences."""


def deal_values(batch: Batch, counts: BalanceCounts) -> dict[str, np.ndarray]:
    """Per game of ``batch`` (read as ``counts`` reads it), the value each measure of
    :data:`PAIRED_MEASURES` averages, float64, NaN where the game does not count: the first
    seat won (1 or 0; the advantage is its mean minus 1/n), a winner (1 or 0), the length
    and the lead changes of a game that ended, a comeback (1 or 0). Measures the records
    cannot give are left out."""
    seat = deal_positions(batch, counts)
    won = seat >= 0
    ended = ~batch.is_in("end", counts.unended) if counts.unended else np.ones(won.size, bool)
    out = {
        "first_seat_advantage": (seat == 0).astype(float),
        "decisive": won.astype(float),
        "turns": np.where(ended, batch[counts.length].astype(float), np.nan),
    }
    if counts.has_leads:
        out["lead_changes"] = np.where(ended, batch["lead_changes"].astype(float), np.nan)
    if counts.has_behind:
        out["comebacks"] = ((batch["winner_behind"] >= COMEBACK_CARDS) & won).astype(float)
    return out


def deal_positions(batch: Batch, counts: BalanceCounts) -> np.ndarray:
    """Per game of ``batch``, the winner's seat counted from the deal's leader (as the
    measures count it), −1 with no winner: int64."""
    winner = batch["winner"].astype(np.int64)
    if counts.lead is None:
        return np.where(winner >= 0, winner, -1)
    lead = batch[counts.lead].astype(np.int64)
    return np.where(winner >= 0, (winner - lead) % counts.players, -1)


def paired_interval(n: float, total: float, squares: float) -> tuple[float, float, float] | None:
    """``(mean, lo, hi)``: the mean of ``n`` paired differences from their sum and the sum
    of their squares, with its 95% normal interval; None for fewer than two."""
    if n < 2:
        return None
    mean = total / n
    var = max(squares - n * mean * mean, 0.0) / (n - 1)
    half = _Z * math.sqrt(var / n)
    return mean, mean - half, mean + half


class SkillCounts:
    """The skill games, batch by batch (an accumulator of :func:`analysis.load.scan`): per
    cluster of records that share their cards (the rotations of a deal; in match play a
    match's deals in every rotation) the skilled seat's wins ``w`` and the records ``m``,
    kept as the sums a ratio estimator's variance needs. The records come in cluster order,
    as the engine writes them; the first and the last cluster seen may be cut by where the
    games fed begin and end, so they wait (``_ends``: ``(key, w, m)`` each) for the games
    before and after (:meth:`update` with the next batch, :meth:`merge` with the
    accumulator of the games that follow) or for :meth:`estimate`."""

    def __init__(self, columns: Sequence[str]):
        if "rotation" not in columns:
            raise ReportError(
                "the skill games have no rotation column: they must be a rotate_seats run "
                "whose seat 0 plays the skilled strategy"
            )
        self.key = "match" if "match" in columns else "game"
        self.columns = ("winner", "rotation", self.key)
        self.sums = np.zeros(6)  # clusters, Σw, Σm, Σw², Σwm, Σm²
        self._ends: list[tuple[int, int, int]] = []

    def update(self, batch: Batch) -> None:
        keys = batch[self.key]
        if keys.size == 0:
            return
        won = (batch["winner"] == batch["rotation"]).astype(np.int64)
        starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
        w = np.add.reduceat(won, starts)
        m = np.diff(np.append(starts, keys.size))
        self._join(keys[starts], w, m, np.zeros(6))

    def merge(self, other: SkillCounts) -> None:
        """Both together: ``other`` (built alike) was fed the games after this one's; a
        cluster cut between them counts once."""
        ends = np.array(other._ends, np.int64).reshape(-1, 3)
        self._join(ends[:, 0], ends[:, 1], ends[:, 2], other.sums)

    def _join(self, keys: np.ndarray, w: np.ndarray, m: np.ndarray, sums: np.ndarray) -> None:
        """Append the clusters ``keys`` (with their ``w`` and ``m``; ``sums``: clusters
        already counted between the first and the last of them) to this one's: every
        cluster but the first and the last is then counted."""
        self.sums = self.sums + sums
        if keys.size == 0:
            return
        ends = np.array(self._ends, np.int64).reshape(-1, 3)
        chain = np.concatenate([ends, np.stack([keys, w, m], axis=1).astype(np.int64)])
        if len(ends) and ends[-1, 0] == keys[0]:  # one cluster, cut where they meet
            chain[len(ends)] += [0, *ends[-1, 1:]]
            chain = np.delete(chain, len(ends) - 1, axis=0)
        if len(chain) > 2:
            self._add(chain[1:-1, 1], chain[1:-1, 2])
            chain = chain[[0, -1]]
        self._ends = [tuple(int(v) for v in row) for row in chain]

    def _add(self, w: np.ndarray, m: np.ndarray) -> None:
        self.sums += _moments(w, m)

    def totals(self) -> np.ndarray:
        """``(clusters, Σw, Σm, Σw², Σwm, Σm²)`` over every record fed, the clusters still
        waiting at either end counted too (float64[6])."""
        if not self._ends:
            return self.sums.copy()
        ends = np.array([c[1:] for c in self._ends], np.int64)
        return self.sums + _moments(ends[:, 0], ends[:, 1])

    def estimate(self) -> tuple[float, float, float]:
        """The skilled seat's win share with its 95% interval ``(p, lo, hi)``."""
        p, se = self.share_error()
        return p, max(p - _Z * se, 0.0), min(p + _Z * se, 1.0)

    def share_error(self) -> tuple[float, float]:
        """The skilled seat's win share and its standard error (the ratio estimator's, over
        the clusters): ``(p, se)``; NaN where there are no records (``se``: fewer than two
        clusters). Every cluster counts, those cut where the records ended too."""
        clusters, sw, sm, sww, swm, smm = self.totals()
        if sm == 0:
            return _NAN, _NAN
        p = sw / sm
        if clusters < 2:
            return p, _NAN
        mean_m = sm / clusters
        spread = max(sww - 2 * p * swm + p * p * smm, 0.0)
        return p, math.sqrt(spread / (clusters * (clusters - 1))) / mean_m


def _choice_measures(choices: dict[str, Distribution]) -> dict[str, tuple[float, float, float]]:
    """``forced_share`` and ``branching``, each the ratio of two per-game sums with its 95%
    normal interval (the ratio estimator's variance over games). The products of a game's
    counts come from the derived counts: decisions × forced from ``(d + f)²``, decisions ×
    options from ``(o - d)²``; so the records and an aggregate-only run give the same."""
    d, f, o = (choices[name] for name in DECISION_COLUMNS)
    points, left = choices[POINTS], choices[LEFT]
    df = (points.squares - d.squares - f.squares) / 2
    do = (o.squares + d.squares - left.squares) / 2
    return {
        "forced_share": _ratio(
            f.total, points.total, f.squares, f.squares + df, points.squares, d.n, (0.0, 1.0)
        ),
        "branching": _ratio(o.total, d.total, o.squares, do, d.squares, d.n, (0.0, math.inf)),
    }


def _ratio(sy, sx, syy, sxy, sxx, n, bounds) -> tuple[float, float, float]:
    """``Σy / Σx`` over ``n`` games with its 95% interval (kept within ``bounds``): the
    ratio estimator, ``se = sqrt(Σ(y - r x)² / (n (n - 1))) / mean(x)``."""
    if not sx:
        return _NAN, _NAN, _NAN
    r = sy / sx
    if n < 2:
        return r, _NAN, _NAN
    spread = max(syy - 2 * r * sxy + r * r * sxx, 0.0)
    half = _Z * math.sqrt(spread / (n * (n - 1))) / (sx / n)
    return r, max(r - half, bounds[0]), min(r + half, bounds[1])


def _moments(w: np.ndarray, m: np.ndarray) -> np.ndarray:
    """``(clusters, Σw, Σm, Σw², Σwm, Σm²)`` of clusters with ``w`` wins in ``m`` records."""
    w, m = w.astype(float), m.astype(float)
    return np.array([w.size, w.sum(), m.sum(), w @ w, w @ m, m @ m])


def balance_measures(
    games: pd.DataFrame,
    *,
    spec: GameSpec,
    players: int,
    matches: pd.DataFrame | None = None,
    skill: pd.DataFrame | None = None,
    trace: pd.DataFrame | None = None,
    rollouts: int | None = None,
) -> pd.DataFrame:
    """One row per measure that can be computed, index = measure name in ORDER,
    columns value, lo, hi (95% interval; lo == hi == value when exact, e.g. BMN skill 0),
    definition.

    games: the run's games table as load_run returns it (one row per game, per deal in
    match play); matches: the matches table in match play; skill: the games table of the
    skill games (a rotate_seats run whose seat 0 strategy is the skilled one: in rotation r
    the skilled seat is r); trace: the run's trace (``--trace``, from ``rollouts`` rollouts
    a point), whose measures (:mod:`analysis.chances`) join the others. Shares are
    fractions of 1, lengths in turns (tricks), skill and the advantages in shares (0.01 =
    one point)."""
    columns = list(games.columns)
    counts = BalanceCounts(spec, players, columns, lead_of(columns, games.attrs.get("rules", {})))
    counts.update(_batch(games, counts.columns))
    match_wins = None
    if matches is not None:
        shares = [f"share_{seat}" for seat in range(players)]
        match_wins = (matches[shares].to_numpy(float).sum(axis=0), len(matches))
    skill_counts = None
    if skill is not None:
        skill_counts = SkillCounts(list(skill.columns))
        ordered = skill
        if not skill[skill_counts.key].is_monotonic_increasing:
            ordered = skill.sort_values(skill_counts.key, kind="stable")
        skill_counts.update(_batch(ordered, skill_counts.columns))
    chances = chance_measures(trace, rollouts=rollouts) if trace is not None else None
    return measures_from_counts(
        counts, spec=spec, match_wins=match_wins, skill=skill_counts, chances=chances
    )


def measures_from_counts(
    counts: BalanceCounts,
    *,
    spec: GameSpec,
    match_wins: tuple[np.ndarray, int] | None = None,
    skill: SkillCounts | None = None,
    chances: dict[str, tuple[float, float, float]] | None = None,
) -> pd.DataFrame:
    """The table of :func:`balance_measures` from counts already made: ``match_wins`` is
    each seat's summed share of the match wins (shape (players,)) and the number of
    matches, in match play; ``chances``: the trace's measures
    (:func:`analysis.chances.chance_measures`), None for an untraced run."""
    players = counts.players
    wins, total = (counts.wins.astype(float), counts.n) if match_wins is None else match_wins
    rows: dict[str, tuple[float, float, float]] = {}
    if total:
        equal = 1 / players
        first = wins[0] / total
        lo, hi = wilson_interval(wins[0], total)
        rows["first_seat_advantage"] = (first - equal, lo - equal, hi - equal)
        rows["seat_spread"] = _spread(np.asarray(wins, float), total)
        rows["decisive"] = (counts.decided / counts.n, *wilson_interval(counts.decided, counts.n))
    if counts.lengths.n:
        rows["turns"] = _mean(counts.lengths)
        rows["turns_p90"] = _p90(counts.lengths)
    if counts.has_leads and counts.leads.n:
        rows["lead_changes"] = _mean(counts.leads)
    if counts.has_behind and counts.n:
        rows["comebacks"] = (
            counts.comebacks / counts.n,
            *wilson_interval(counts.comebacks, counts.n),
        )
    if counts.has_choices and counts.choices["decisions"].n:
        rows.update(_choice_measures(counts.choices))
    if not spec.takes_strategies:
        rows["skill"] = (0.0, 0.0, 0.0)
    elif skill is not None:
        p, lo, hi = skill.estimate()
        rows["skill"] = (p - 1 / players, lo - 1 / players, hi - 1 / players)
    rows.update(chances or {})
    names = [name for name in ORDER if name in rows]
    table = pd.DataFrame(
        [rows[name] for name in names],
        index=pd.Index(names, name="measure"),
        columns=["value", "lo", "hi"],
        dtype=float,
    )
    table["definition"] = [DEFINITIONS[name] for name in names]
    return table


def balance_table(run: Run, *, skill: Run | None = None) -> pd.DataFrame:
    """:func:`balance_measures` of a run (:func:`analysis.load.load_run`, or
    ``simulate.simulate``) and of its skill games (a run too); raises
    :class:`~analysis.errors.ReportError` when ``skill`` is not skill games of this run's
    game, players and rules (:func:`skill_mismatch`)."""
    games = skill.games if skill is not None else None
    if skill is not None:
        problem = skill_mismatch(run.meta, skill.meta)
        if problem:
            raise ReportError(f"the skill games do not fit this run: {problem}")
    return balance_measures(
        run.games,
        spec=game_spec(run.meta),
        players=run.players,
        matches=run.matches,
        skill=games,
        trace=run.trace,
        rollouts=run.meta.get("rollouts"),
    )


def skill_mismatch(meta: dict, skill_meta: dict) -> str | None:
    """Why the run of ``skill_meta`` cannot be the skill games of the run of ``meta`` (a
    different game, players or rules, or seats that do not rotate), or None when it can."""
    for key in ("game", "players", "rules"):
        if skill_meta.get(key) != meta.get(key):
            return f"their {key} differ"
    if not skill_meta.get("rotate_seats"):
        return "their seats do not rotate"
    return None


def skill_strategy(skill_meta: dict) -> str | None:
    """The skilled strategy of a skill run (its seat 0's), or None when unrecorded."""
    strategies = skill_meta.get("strategies") or []
    return str(strategies[0]) if strategies else None


def balance_csv(table: pd.DataFrame) -> bytes:
    """``table`` (of :func:`balance_measures`) as ``balance.csv``: measure, value, lo, hi,
    floats written in full."""
    frame = table.reset_index()[list(CSV_COLUMNS)]
    return frame.to_csv(index=False).encode("utf-8")


def read_balance(path: str | Path, *, definitions: bool = False) -> pd.DataFrame:
    """A ``balance.csv`` (a file, or a run folder holding one) as the table of
    :func:`balance_measures`: indexed by measure, with ``value``, ``lo``, ``hi`` (the
    floats as they were computed), and with ``definitions`` the ``definition`` column."""
    path = Path(path)
    if path.is_dir():
        path = path / BALANCE_FILE
    table = pd.read_csv(path, index_col="measure", dtype={"value": float, "lo": float, "hi": float})
    if definitions:
        table["definition"] = [DEFINITIONS[name] for name in table.index]
    return table


def _spread(wins: np.ndarray, total: int) -> tuple[float, float, float]:
    shares = wins / total
    lo, hi = wilson_interval(wins, total, 1 - (1 - _CONFIDENCE) / wins.size)
    value = float(shares.max() - shares.min())
    return value, max(float(lo.max() - hi.min()), 0.0), float(hi.max() - lo.min())


def _mean(dist: Distribution) -> tuple[float, float, float]:
    mean = dist.mean()
    if dist.n < 2:
        return mean, _NAN, _NAN
    half = _Z * math.sqrt(dist.var() / dist.n)
    return mean, mean - half, mean + half


def _p90(dist: Distribution, q: float = 0.9) -> tuple[float, float, float]:
    """The interpolated 90th percentile, and the order statistics x_(r) ≤ x_(s) (1-based)
    with r, s the 2.5% and 97.5% binomial quantiles of (n, q), s + 1: the interval covers
    the true percentile with at least 95% probability whatever the distribution."""
    n = dist.n
    value = float(dist.quantiles(q))
    tail = (1 - _CONFIDENCE) / 2
    r = max(int(binom.ppf(tail, n, q)), 1)
    s = min(int(binom.ppf(1 - tail, n, q)) + 1, n)
    lo, hi = (float(x) for x in dist.order_statistics([r - 1, s - 1]))
    return value, min(lo, value), max(hi, value)


def _batch(frame: pd.DataFrame, columns: Sequence[str]) -> Batch:
    """The ``columns`` of a DataFrame as one :class:`~analysis.load.Batch` (string and
    categorical columns as codes into their labels), so that a DataFrame is counted by the
    code that counts a run folder's batches."""
    data, labels = {}, {}
    for name in columns:
        column = frame[name]
        if isinstance(column.dtype, pd.CategoricalDtype):
            data[name] = column.cat.codes.to_numpy()
            labels[name] = [str(label) for label in column.cat.categories]
        elif column.dtype == object or pd.api.types.is_string_dtype(column.dtype):
            codes, uniques = pd.factorize(column)
            data[name], labels[name] = codes, [str(label) for label in uniques]
        else:
            data[name] = column.to_numpy()
    if "game" not in data:  # a Batch's length; not read by the measures
        data["game"] = np.arange(len(frame))
    return Batch(start=0, data=data, labels=labels)


__all__ = [
    "BALANCE_FILE",
    "DEFINITIONS",
    "DEFAULT_SKILL",
    "MEASURES",
    "ORDER",
    "SKILL_FOLDER",
    "SKILL_OPPONENT",
    "BalanceCounts",
    "SkillCounts",
    "balance_csv",
    "balance_measures",
    "balance_table",
    "games_needed",
    "length_column",
    "lead_of",
    "measures_from_counts",
    "read_balance",
    "skill_mismatch",
    "skill_strategy",
]
