"""The "Balance" section of every run's report: the measures of :mod:`analysis.balance`
in a table with their intervals and definitions, skill from the folder's skill games
(``DIR/skill/``) when it holds them, and the table ``balance.csv`` writes.

The measures ride along the report's one pass over the records
(:meth:`analysis.load.RunFolder.ride`); the skill games are a run folder of their own,
scanned once more.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from analysis.balance import (
    SKILL_FOLDER,
    SKILL_OPPONENT,
    TENSION_COLUMNS,
    BalanceCounts,
    SkillCounts,
    games_needed,
    lead_of,
    length_column,
    measures_from_counts,
    skill_mismatch,
    skill_strategy,
)
from analysis.chances import chance_measures
from analysis.errors import ReportError
from analysis.load import RunFolder, open_run, scan
from analysis.rendering.document import Block, Heading, Paragraph, Table
from analysis.rendering.words import (
    count_text,
    fmt_ci,
    fmt_int,
    fmt_num,
    fmt_pct,
    fmt_points,
    fmt_quantity,
    fmt_range,
    fmt_signed,
    game_name,
    pct_digits,
    singular,
)
from analysis.reports.trace import read_trace
from simulate.core.chances import CHECK_FOLDER


@dataclass(frozen=True)
class Balance:
    """A run's measures (``table``, as :func:`analysis.balance.balance_measures` gives it)
    and what the report says around them: the skilled strategy (None when no skill games
    were used), why skill games found were left out, and the records' facts."""

    table: pd.DataFrame
    players: int
    game: str
    takes_strategies: bool
    length: str
    match_play: bool
    matches: int
    tension: bool
    skill: str | None = None
    skill_note: str = ""
    """Why skill games found were left out, or (skill measured) a sentence saying they are
    incomplete; "" otherwise."""
    traced: tuple[int, int] | None = None
    """The games traced and their rollouts a point (``--trace``), None for an untraced run."""
    check: pd.DataFrame | None = None
    """The chance measures on the trace check's games at the run's rollouts and at twice
    them (:func:`chance_check`), None without a check."""


def balance_along(run: RunFolder) -> Callable[[], Balance]:
    """Count the measures in the next pass over ``run``'s records (the report's); returns
    the function that gives them once that pass is done (it reads the records itself if
    no pass came), with the matches and the skill games read."""
    spec, players = run.spec, run.players
    lead = lead_of(run.columns, run.meta.get("rules", {}))

    def build():
        return [BalanceCounts(spec, players, run.columns, lead)]

    rider = run.ride(build)

    def balance() -> Balance:
        # Imported here: analysis.reports imports this module.
        from analysis.reports.matches import has_matches, read_matches

        (counts,) = rider.accumulators if rider.done else scan(run, build)
        matches = read_matches(run) if has_matches(run) else None
        match_wins = (matches.wins, matches.n) if matches is not None else None
        skill, strategy, note = None, None, ""
        if spec.takes_strategies:
            skill, strategy, note = _skill_games(run)
        trace = read_trace(run)
        chances = None
        if trace is not None:
            chances = chance_measures(trace, rollouts=run.meta["rollouts"])
        table = measures_from_counts(
            counts, spec=spec, match_wins=match_wins, skill=skill, chances=chances
        )
        traced = (run.meta["trace"], run.meta["rollouts"]) if chances is not None else None
        return Balance(
            table=table,
            players=players,
            game=run.meta["game"],
            takes_strategies=spec.takes_strategies,
            length=length_column(spec),
            match_play=matches is not None,
            matches=matches.n if matches is not None else 0,
            tension=all(column in run.columns for column in TENSION_COLUMNS),
            skill=strategy,
            skill_note=note,
            traced=traced,
            check=chance_check(run, trace) if trace is not None else None,
        )

    return balance


CHECK_SLACK = 1e-3
"""How far past its interval (relative to the value, at least 1) a doubled value may lie
and still count as converged: an interval of a measure that hardly varies (a decisive
moment of 100%) is as narrow as rounding."""


def chance_check(run: RunFolder, trace: pd.DataFrame) -> pd.DataFrame | None:
    """The chance measures of the games the trace's check holds (``DIR/trace-check``:
    the run's first traced games traced again at twice the rollouts), at the run's
    rollouts (``value``, ``lo``, ``hi``) and at twice them (``doubled``), and whether the
    doubled value lies within the first's interval (``converged``); None when the folder
    holds no complete check of this run's games."""
    folder = run.path / CHECK_FOLDER
    if not (folder / "run.json").is_file():
        return None
    try:
        check = open_run(folder)
        keys = ("game", "players", "seed", "rules", "strategies", "rotate_seats")
        if any(check.meta.get(key) != run.meta.get(key) for key in keys):
            return None
        files = check.records("trace")
        doubled = files.read().to_pandas() if files else None
    except ReportError:
        return None
    if doubled is None or check.meta.get("status") != "complete":
        return None
    games = int(check.meta["trace"])
    key = "match" if "match" in trace.columns else "game"  # the first games (matches)
    sample = trace[trace[key] < games].reset_index(drop=True)
    at = chance_measures(sample, rollouts=run.meta["rollouts"])
    twice = chance_measures(doubled, rollouts=check.meta["rollouts"])
    names = [name for name in at if name in twice]
    frame = pd.DataFrame(
        [(*at[name], twice[name][0]) for name in names],
        index=pd.Index(names, name="measure"),
        columns=["value", "lo", "hi", "doubled"],
    )
    slack = CHECK_SLACK * frame["value"].abs().clip(lower=1)
    inside = (frame["lo"] - slack <= frame["doubled"]) & (frame["doubled"] <= frame["hi"] + slack)
    frame["converged"] = inside
    frame.attrs.update(games=games, rollouts=int(run.meta["rollouts"]))
    return frame


def folder_balance(path) -> pd.DataFrame:
    """The balance measures of the run folder ``path`` and of its skill games
    (``path/skill``, where they are this run's), as :func:`analysis.balance.balance_table`
    gives them, read in batches (the memory does not grow with the run; an aggregate-only
    run too)."""
    return balance_along(open_run(path))().table


def _skill_games(run: RunFolder) -> tuple[SkillCounts | None, str | None, str]:
    """The counts of the run's skill games, their skilled strategy, and why they were left
    out (or, used, that they are incomplete; "" when complete or there are none)."""
    folder = run.path / SKILL_FOLDER
    if not (folder / "run.json").is_file():
        return None, None, ""
    try:
        skill = open_run(folder)
        problem = skill_mismatch(run.meta, skill.meta)
        if problem:
            return None, None, f"they are not this run's ({problem})"
        (counts,) = scan(skill, lambda: [SkillCounts(skill.columns)])
    except ReportError as exc:
        return None, None, str(exc)
    return counts, skill_strategy(skill.meta), _incomplete(run, skill.meta)


def _incomplete(run: RunFolder, meta: dict) -> str:
    """A sentence saying the skill games are incomplete, or ""."""
    games = int(meta.get("games", 0))
    done = int(meta.get("completed_games", games))
    if meta.get("status", "complete") == "complete" and done == games:
        return ""
    unit = "match" if meta.get("unit") == "match" else "deal"
    return (
        f"The skill games are incomplete ({meta.get('status', 'unknown status')}): "
        f"{fmt_int(done)} of {count_text(games, unit)} were played; `cardsim balance "
        f"{run.meta['game']} --out {run.path} --resume` completes them."
    )


def balance_section(balance: Balance) -> list[Block]:
    """The "Balance" heading, what the measures are of, skill in words, and the table of
    measures (value, 95% interval, definition)."""
    table = balance.table
    text = (
        "The measures a designer weighs, each with its 95% interval (`balance.csv` holds them "
        "as numbers)."
    )
    if balance.match_play:
        text += (
            f" The win shares are of the {count_text(balance.matches, 'match')} (a tied win "
            "split between the tied seats); the other measures are per deal."
        )
    if balance.traced is not None:
        games, rollouts = balance.traced
        unit = "match" if balance.match_play else "game"
        deals = " (every deal of them)" if balance.match_play else ""
        text += (
            f" The chance measures (drama to chance lead changes) are of the "
            f"{count_text(games, unit)} traced{deals}, each seat's chance of winning estimated "
            f"from {fmt_int(rollouts)} rollouts after the deal and after every turn "
            "(`--trace`; the deals without a winner left out)."
        )
    if not balance.tension:
        text += (
            " These records have no `lead_changes` and `winner_behind` columns (written before "
            "cardsim recorded them), so lead changes and comebacks are left out."
        )
    cells = measure_cells(table, balance.length)
    rows = [[*row, definition] for row, definition in zip(cells, table["definition"], strict=True)]
    return [
        Heading("Balance"),
        Paragraph(text),
        Paragraph(_skill_text(balance)),
        Table(["measure", "value", "95% CI", "definition"], rows, "lrrl", frozenset({0})),
        *_check_blocks(balance),
    ]


def _check_blocks(balance: Balance) -> list[Block]:
    """The trace's check in words and a table: the chance measures at R and 2R rollouts on
    the same games, and which have not converged (nothing for a traced run without a
    check; a sentence saying so)."""
    if balance.traced is None:
        return []
    check = balance.check
    if check is None:
        return [
            Paragraph(
                "The chance measures' convergence is not checked: this folder holds no trace "
                f"check (a traced run's first games traced again at twice the rollouts, in "
                f"`{CHECK_FOLDER}/`: `cardsim simulate --trace` and `cardsim balance` play it)."
            )
        ]
    games, rollouts = check.attrs["games"], check.attrs["rollouts"]
    moved = [name for name in check.index if not check.loc[name, "converged"]]
    verdict = (
        "every measure at twice the rollouts lies within its interval at the run's: they have "
        "converged"
        if not moved
        else f"not converged: {', '.join(f'`{name}`' for name in moved)} moved outside "
        f"{'its interval' if len(moved) == 1 else 'their intervals'} when the rollouts "
        "doubled (more `--rollouts` would change "
        f"{'it' if len(moved) == 1 else 'them'}: the rollouts' noise inflates the gaps "
        "between chances)"
    )
    cells = measure_cells(check[["value", "lo", "hi"]], balance.length)
    doubled = measure_cells(
        check[["doubled"]]
        .rename(columns={"doubled": "value"})
        .assign(lo=check["doubled"], hi=check["doubled"]),
        balance.length,
    )
    rows = [
        [name, value, interval, twice[1], "yes" if check.loc[name, "converged"] else "no"]
        for (name, value, interval), twice in zip(cells, doubled, strict=True)
    ]
    return [
        Paragraph(
            f"Convergence: the chance measures of the first "
            f"{count_text(games, 'match' if balance.match_play else 'game')} traced, "
            f"at {fmt_int(rollouts)} rollouts a point and again at {fmt_int(2 * rollouts)} "
            f"(`{CHECK_FOLDER}/`): {verdict}."
        ),
        Table(
            ["measure", f"at {rollouts}", "95% CI", f"at {2 * rollouts}", "converged"],
            rows,
            "lrrrl",
            frozenset({0}),
        ),
    ]


def _skill_text(balance: Balance) -> str:
    if not balance.takes_strategies:
        return (
            f"Skill is 0 by definition: {game_name(balance.game)} has no choices to make, so "
            "no way of playing wins more than another."
        )
    if "skill" not in balance.table.index:
        text = "Skill is not measured: this folder holds no skill games"
        if balance.skill_note:
            text = f"Skill is not measured: the skill games in `{SKILL_FOLDER}/` are left out: "
            return text + balance.skill_note.rstrip(".") + "."
        return text + f" (`cardsim balance` plays them into `{SKILL_FOLDER}/`)."
    row = balance.table.loc["skill"]
    equal = 1 / balance.players
    p, lo, hi = row.value + equal, row.lo + equal, row.hi + equal
    digits = pct_digits(lo, hi)
    text = (
        f"Skill: one seat playing `{balance.skill}` against `{SKILL_OPPONENT}` in the other "
        f"seats, rotated over the seats on the same deals, wins {fmt_pct(p, digits)} of deals "
        f"(95% CI {fmt_ci(lo, hi, digits)}), against a fair share of {fmt_pct(equal)}"
    )
    needed = games_needed(p, balance.players)
    if needed == float("inf"):
        text += ": it does no better than a fair share, so no number of games makes a lead clear."
        return text + (f" {balance.skill_note}" if balance.skill_note else "")
    text += (
        f"; games needed before the skilled player's lead over a fair share is clear at "
        f"95%: about {fmt_int(round(needed))}."
    )
    return text + (f" {balance.skill_note}" if balance.skill_note else "")


def measure_cells(table: pd.DataFrame, length: str) -> list[list[str]]:
    """Each measure of ``table`` (indexed by measure, with ``value``, ``lo``, ``hi``) as
    text: ``[measure, value, 95% interval]``, the value with the decimals its interval
    shows; ``length`` is the unit of the lengths (``turns``, ``tricks``). Skill that is 0
    by definition reads "exact"."""
    return [
        [str(name), _value(name, row, length), _interval(name, row)]
        for name, row in table.iterrows()
    ]


_POINTS = ("first_seat_advantage", "skill")
_SHARES = ("decisive", "comebacks", "forced_share", "dramatic_games", "security", "decisive_moment")
_GAPS = ("seat_spread", "drama", "stability")
"""Differences of shares or chances, in points."""
_COUNTS = ("lead_changes", "chance_lead_changes")


def _digits(lo: float, hi: float) -> int:
    """Decimals that show half the interval ``lo``–``hi`` to one significant digit (1 to
    4), as :func:`analysis.rendering.words.fmt_range` prints it."""
    half = (hi - lo) / 2
    return 1 if not half > 0 else max(1, min(4, -math.floor(math.log10(half))))


def _value(name: str, row, length: str) -> str:
    if name in _POINTS:
        return fmt_points(row.value, pct_digits(row.lo, row.hi))
    if name in _GAPS:
        return f"{100 * row.value:.{pct_digits(row.lo, row.hi)}f} pts"
    if name in _SHARES:
        return fmt_pct(row.value, pct_digits(row.lo, row.hi))
    if name == "turns_p90":
        return fmt_quantity(row.value, singular(length))
    digits = _digits(row.lo, row.hi)
    text = f"{row.value:,.{digits}f}"
    if name == "branching":
        return f"{text} options"
    return text if name in _COUNTS else f"{text} {length}"


def _interval(name: str, row) -> str:
    if name == "skill" and row.lo == row.hi == row.value:
        return "exact"
    if name in _POINTS:
        digits = pct_digits(row.lo, row.hi)
        return f"{fmt_signed(100 * row.lo, digits)} to {fmt_signed(100 * row.hi, digits)} pts"
    if name in _GAPS:
        return f"{fmt_range(100 * row.lo, 100 * row.hi, pct_digits(row.lo, row.hi))} pts"
    if name in _SHARES:
        return fmt_ci(row.lo, row.hi, pct_digits(row.lo, row.hi))
    if name == "turns_p90":
        return f"{fmt_num(row.lo)}–{fmt_num(row.hi)}"
    return fmt_range(row.lo, row.hi)


__all__ = ["Balance", "balance_along", "balance_section", "measure_cells"]
