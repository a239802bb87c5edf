"""The Python API: each ``cardsim`` command as a function that returns pandas objects.

============================  ==============================================================
``simulate(game, ...)``       a run, as :class:`analysis.load.Run`: ``meta``, ``games`` (one
                              row per game, per deal in match play) and ``matches``
``sweep(study, ...)``         a house-rule study: the comparison table of its variants
``compare(*dirs, ...)``       the comparison table of run folders
``tournament(game, ...)``     every strategy against every other: win shares and ratings
``tune(game, ...)``           weights for a ``weighted`` strategy (a ``TuneResult``)
============================  ==============================================================

Every argument after the first is keyword-only, named as the command's option
(``--rule`` is ``rules={...}``, ``--seats`` is ``strategies=[...]``), and every mistake
raises :class:`simulate.errors.CardsimError` (analysis errors:
:class:`analysis.errors.ReportError`) with the one line the command would print.
``docs/python.md`` describes every function and table.

Importing this module imports neither numba nor pandas: each function loads what it
needs when called (``import simulate`` stays light).
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import CardsimError

if TYPE_CHECKING:
    import pandas as pd

    from analysis.load import Run

    from .studies.file import Study

DEFAULT_GAMES = 1_000_000
"""Games (matches, in match play) of a run when none are asked for (the engine's
:data:`simulate.request.DEFAULT_GAMES`, which this module does not import: it would load
numpy)."""

COMPARISON_CSV = "comparison.csv"
"""The table a comparison writes beside its report (one row per variant)."""


def _echo(progress: bool) -> Callable[[str], None]:
    """Where the commands' lines go: standard error with ``progress``, else nowhere."""
    if progress:
        return lambda line: print(line, file=sys.stderr)
    return lambda line: None


def simulate(
    game: str,
    *,
    players: int | None = None,
    games: int = DEFAULT_GAMES,
    seed: int | None = None,
    threads: int | None = None,
    out: str | Path | None = None,
    rules: dict | None = None,
    strategies: Sequence | None = None,
    rotate_seats: bool = False,
    force: bool = False,
    report: bool = False,
    progress: bool = False,
) -> Run:
    """Play a run, as ``cardsim simulate``, and return it as :func:`analysis.load.load_run`
    reads a run folder: a :class:`analysis.load.Run` with ``meta``, ``games`` (one row per
    game, per deal in match play; ``end`` categorical) and ``matches`` (one row per match in
    match play, else None).

    With ``out`` the run folder is written too (refused when it holds a run, unless
    ``force``), ``meta`` is its ``run.json`` and ``path`` the folder; ``report=True`` then
    writes its report (and ``summary.csv``) as the command does. Without ``out`` nothing is
    written, ``path`` is None and ``meta`` is what ``run.json`` would open with.
    ``games``, ``players``, ``seed``, ``rules``, ``strategies`` and ``rotate_seats`` are
    those of :func:`simulate.run`."""
    from analysis.load import Run, load_run

    from .engine import play_run
    from .request import make_request

    if report and out is None:
        raise CardsimError("report=True needs out=DIR: the report is written into the run folder")
    request = make_request(
        game,
        players=players,
        games=games,
        seed=seed,
        threads=threads,
        rules=rules,
        strategies=strategies,
        rotate_seats=rotate_seats,
    )
    games_table, matches_table = play_run(
        request,
        out=out,
        progress=progress,
        force=force,
        collect=out is None,  # a run folder is read back as load_run reads it
    )
    if out is not None:
        if report:
            from analysis.reports import write_report

            write_report(out)
        return load_run(out)
    meta = request.meta()
    records = games_table.to_pandas()
    records["end"] = records["end"].astype("category")
    records.attrs.update(meta)
    matches = None
    if matches_table is not None:
        matches = matches_table.to_pandas()
        matches.attrs.update(meta)
    return Run(path=None, meta=meta, games=records, matches=matches)


def sweep(
    study: str | Path | Study,
    *,
    out: str | Path,
    games: int | None = None,
    threads: int | None = None,
    force: bool = False,
    resume: bool = False,
    report: bool = True,
    progress: bool = False,
) -> pd.DataFrame:
    """Run a house-rule study, as ``cardsim sweep STUDY.toml --out OUT``, and return its
    comparison table: one row per variant and player count, with the figures, intervals,
    differences from the base variant and tests that the comparison report shows (the
    columns of ``comparison.csv``; ``docs/python.md`` lists them).

    ``study`` is a study file (a path) or a :class:`simulate.studies.file.Study`.
    ``games`` replaces the study's games per cell (a quick trial); ``force`` overwrites a
    folder that holds a study, ``resume`` completes one. With ``report`` (the default) the
    comparison report is written as the command writes it (one per player count) and the
    table is read from its ``comparison.csv``; without, nothing but the runs is written and
    the table is computed in memory."""
    from .studies.file import load_study
    from .studies.sweep import plan_sweep, run_sweep

    if not hasattr(study, "cells"):
        study = load_study(study)
    plan = plan_sweep(study, out, games, threads, force, resume)
    run_sweep(plan, progress=progress, compare=report, echo=_echo(progress))
    counts = sorted({cell.players for cell in plan.cells})
    tables = []
    for players in counts:
        cells = [cell for cell in plan.cells if cell.players == players]
        if report:
            tables.append(read_comparison(plan.comparison_folder(players) / COMPARISON_CSV))
        else:
            folders = [plan.cell_folder(cell) for cell in cells]
            tables.append(
                comparison_frame(folders, names=[cell.variant.name for cell in cells], base=0)
            )
    import pandas as pd

    return pd.concat(tables, ignore_index=True) if len(tables) > 1 else tables[0]


def compare(
    *dirs: str | Path,
    out: str | Path | None = None,
    base: str | int | None = None,
    names: Sequence[str] | None = None,
    title: str | None = None,
    force: bool = False,
) -> pd.DataFrame:
    """Compare run folders, as ``cardsim compare DIR DIR ...``, and return the comparison
    table (the columns of ``comparison.csv``): one row per run, its figures and intervals,
    and against the base run the differences with their intervals and tests (paired where
    the runs played the same deals).

    ``base``: the run the others are compared with, by folder name or position (default:
    the first); ``names`` label the runs (default: the folders' names). With ``out`` the
    comparison report is written there too (refused where one already is, unless
    ``force``); without, nothing is written."""
    from .folder.lock import lock_folder

    if len(dirs) == 1 and not isinstance(dirs[0], str | Path):
        dirs = tuple(dirs[0])  # compare([a, b]) as well as compare(a, b)
    folders = [Path(d) for d in dirs]
    if len(folders) < 2:
        raise CardsimError(f"compare needs two or more run folders, got {len(folders)}")
    if names is None:
        names = [folder.name for folder in folders]
        if len(set(names)) < len(names):
            names = [str(folder) for folder in folders]
    names = [str(name) for name in names]
    index = _base_index(base, folders, names)
    if out is None:
        return comparison_frame(folders, names=names, base=index)
    from analysis.comparisons.report import write_comparison

    out = Path(out)
    if (out / COMPARISON_CSV).exists() and not force:
        raise CardsimError(
            f"{out} already holds a comparison ({COMPARISON_CSV}); choose another out or pass "
            "force=True to overwrite it"
        )
    with lock_folder(out):
        write_comparison(folders, out, names=names, base=index, title=title)
    return read_comparison(out / COMPARISON_CSV)


def _base_index(base: str | int | None, folders: list[Path], names: list[str]) -> int:
    if base is None:
        return 0
    if isinstance(base, int) and not isinstance(base, bool):
        if not 0 <= base < len(folders):
            raise CardsimError(f"base {base} is not a run: use 0 to {len(folders) - 1}")
        return base
    found = [i for i, name in enumerate(names) if str(base) in (name, str(folders[i]))]
    if not found:
        raise CardsimError(f"base {base!r} is none of the runs; runs: {', '.join(names)}")
    return found[0]


def comparison_frame(
    run_dirs: Sequence[str | Path], names: Sequence[str] | None = None, base: int = 0
) -> pd.DataFrame:
    """The comparison table of ``run_dirs`` computed without writing anything: what
    :func:`analysis.comparisons.write_comparison` writes as ``comparison.csv``, and
    :func:`read_comparison` reads back (the same numbers, to ten significant digits)."""
    from analysis.comparisons.report import _variants
    from analysis.comparisons.variants import comparison_table

    variants, bases = _variants(run_dirs, names, base)
    table = comparison_table(variants, bases)
    text = table.to_csv(index=False, float_format="%.10g")
    return read_comparison(io.StringIO(text))


def read_comparison(source) -> pd.DataFrame:
    """A ``comparison.csv`` (a path or a text buffer) as a DataFrame: the significance
    columns (``<test>_significant``: true, false, or empty on the base rows) as pandas'
    nullable booleans, ``is_base`` as booleans."""
    import pandas as pd

    table = pd.read_csv(source)
    for column in table.columns:
        if column.endswith("_significant"):
            table[column] = table[column].astype("boolean")
    if "is_base" in table:
        table["is_base"] = table["is_base"].astype(bool)
    return table


def _strategy_list(strategies) -> list[str]:
    """A list of strategies, from a list or one comma-separated string."""
    if isinstance(strategies, str):
        from .studies.file import split_seats

        return split_seats(strategies)
    return [str(s) for s in strategies]


def tournament(
    game: str,
    *,
    strategies: Sequence[str] | str,
    out: str | Path,
    players: int | None = None,
    games: int = 100_000,
    seed: int | None = None,
    rules: dict | None = None,
    threads: int | None = None,
    force: bool = False,
    report: bool = True,
    progress: bool = False,
) -> pd.DataFrame:
    """Play every strategy against every other, as ``cardsim tournament``, into ``out``,
    and return the win-share table with the ratings: one row per pairing played,
    ``strategy`` (in one seat) ``against`` (in every other seat), ``share`` of the games
    that ``strategy``'s seat won, its 95% Wilson interval ``lo``, ``hi``, ``games``, then
    the Luce rating of ``strategy`` on the Elo scale: ``rating``, ``rating_lo``,
    ``rating_hi`` (95% bootstrap interval) and ``rated_games`` (the decided games it played).

    ``table.pivot(index="strategy", columns="against", values="share")`` is the report's
    matrix. ``strategies``: a list or a comma-separated string; ``games`` deals (matches)
    per pairing, each played once per seat. With ``report`` (the default) the tournament's
    report (``report.html``, ``matrix.csv``, ``ratings.csv``) is written into ``out``."""
    from .studies.tournament import run_tournament

    out = Path(out)
    run_tournament(
        game,
        strategies=_strategy_list(strategies),
        out=out,
        players=players,
        games=games,
        seed=seed,
        rules=rules,
        threads=threads,
        force=force,
        progress=progress,
        echo=_echo(progress),
    )
    if report:
        from analysis.comparisons.tournament import write_tournament_report

        write_tournament_report(out)
    return tournament_frame(out)


def tournament_frame(folder: str | Path) -> pd.DataFrame:
    """The win-share table and ratings of the tournament in ``folder`` (see
    :func:`tournament`), computed from its runs (the numbers of ``matrix.csv`` and
    ``ratings.csv``)."""
    from analysis.comparisons.tournament import (
        _long_matrix,
        ratings,
        read_pairings,
        win_matrix,
    )

    info, pairings = read_pairings(Path(folder))
    strategies, players = info["strategies"], info["players"]
    table = _long_matrix(*win_matrix(strategies, pairings, players))
    rated = ratings(strategies, pairings, players).rename(
        columns={"lo": "rating_lo", "hi": "rating_hi", "games": "rated_games"}
    )
    return table.merge(rated, on="strategy", how="left")


def tune(
    game: str,
    *,
    opponents: Sequence[str] | str = ("random",),
    players: int | None = None,
    budget: int = 2_000_000,
    holdout: int | None = None,
    seed: int | None = None,
    rules: dict | None = None,
    threads: int | None = None,
    out: str | Path | None = None,
    progress: bool = False,
) -> Any:
    """Search the weights of a ``weighted`` strategy against ``opponents``, as
    ``cardsim tune``, and return the game's result (the shedding games':
    ``TuneResult``): ``spec`` (the strategy, ready for
    ``strategies=[...]``), ``weights``, its held-out win ``share`` with ``lo`` and ``hi``,
    ``greedy``'s on the same deals, ``holdout_games`` and ``history`` (per round: the mean
    and best training share; ``pandas.DataFrame(result.history)`` tabulates it). With
    ``out`` the result is also written there as JSON."""
    from .games.registry import resolve_game

    result = (
        resolve_game(game, "tune")
        .spec.engine()
        .tune(
            game,
            opponents=_strategy_list(opponents),
            players=players,
            budget=budget,
            seed=seed,
            rules=rules,
            threads=threads,
            holdout=holdout,
            echo=_echo(progress),
        )
    )
    if out is not None:
        import json
        from dataclasses import asdict

        from .folder.writer import write_atomic

        write_atomic(Path(out), (json.dumps(asdict(result), indent=2) + "\n").encode())
    return result
