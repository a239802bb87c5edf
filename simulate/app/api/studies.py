"""The API's studies: ``sweep`` and ``write_sweep``, ``compare`` and ``write_compare``,
``tournament`` and ``write_tournament``, and the readers of their folders."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ...core.errors import CardsimError
from ...core.measures import NEGLIGIBLE_CHANGE, NEGLIGIBLE_SHARE
from ...core.skill import DEFAULT_LADDER, LADDER_GAMES
from .common import cluster_session, echo_to, refuses_empty_out, strategy_list

if TYPE_CHECKING:
    import pandas as pd

    from ..studies.file import Study

COMPARISON_CSV = "comparison.csv"
"""The table a comparison writes beside its report (one row per variant)."""

COMPARISON_FILES = ("report.html", "report.md", COMPARISON_CSV)
"""What marks a folder as holding a comparison (``force`` overwrites it)."""


@refuses_empty_out
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
    negligible_share: float = NEGLIGIBLE_SHARE,
    negligible_change: float = NEGLIGIBLE_CHANGE,
    scheduler: str | None = None,
    records: str | None = None,
    dpi: int | None = None,
    formats: str | Sequence[str] | None = None,
) -> pd.DataFrame:
    """Run a house-rule study, as ``cardsim sweep STUDY.toml --out OUT``, and return its
    comparison table: one row per variant and player count, with the figures, intervals,
    differences from the base variant, tests and verdict that the comparison report shows
    (the columns of ``comparison.csv``; ``docs/python.md`` lists them).

    The settings are :func:`write_sweep`'s. With ``report`` (the default) the table is
    read from the reports' ``comparison.csv``; without, it is computed in memory from the
    run folders."""
    verdict = _verdict_options(negligible_share, negligible_change)
    plan, _ = _run_study(
        study,
        out=out,
        games=games,
        threads=threads,
        force=force,
        resume=resume,
        report=report,
        progress=progress,
        verdict=verdict,
        scheduler=scheduler,
        records=records,
        dpi=dpi,
        formats=formats,
    )
    tables = []
    for players in sorted({cell.players for cell in plan.cells}):
        cells = [cell for cell in plan.cells if cell.players == players]
        if report:
            tables.append(read_comparison(plan.comparison_folder(players) / COMPARISON_CSV))
        else:
            folders = [plan.cell_folder(cell) for cell in cells]
            tables.append(
                comparison_frame(
                    folders, names=[cell.variant.name for cell in cells], base=0, **verdict
                )
            )
    import pandas as pd

    return pd.concat(tables, ignore_index=True) if len(tables) > 1 else tables[0]


class WrittenStudy(NamedTuple):
    """What :func:`write_sweep` wrote into its folder."""

    runs: list[Path]
    """A run folder per cell (variant x player count), in the study's order."""
    reports: list[Path]
    """The comparison reports' files (HTML and Markdown; none without ``report``)."""


@refuses_empty_out
def write_sweep(
    study: str | Path | Study,
    *,
    out: str | Path,
    games: int | None = None,
    threads: int | None = None,
    force: bool = False,
    resume: bool = False,
    report: bool = True,
    progress: bool = False,
    negligible_share: float = NEGLIGIBLE_SHARE,
    negligible_change: float = NEGLIGIBLE_CHANGE,
    scheduler: str | None = None,
    records: str | None = None,
    dpi: int | None = None,
    formats: str | Sequence[str] | None = None,
) -> WrittenStudy:
    """Run a house-rule study into the folder ``out``, as ``cardsim sweep STUDY.toml --out
    OUT`` does, and say what was written (:class:`WrittenStudy`); nothing is read back.

    ``study`` is a study file (a path) or a :class:`simulate.app.studies.file.Study`.
    ``games`` replaces the study's games per cell (a quick trial); ``force`` overwrites a
    folder that holds a study, ``resume`` completes one. With ``report`` (the default) the
    comparison report is written as the command writes it (one per player count, and with
    several counts one across them); without, nothing but the runs.
    ``negligible_share`` (percentage points of a share, 0 to under 100) and
    ``negligible_change`` (percent of a mean, 0 or more) are the verdict's practical
    thresholds, as ``--negligible-share`` and ``--negligible-change``. ``scheduler``: the
    cells' games are played on a Dask cluster, as for :func:`simulate`. ``records="none"``
    (``--records none``; default: the study's ``records``, else ``"all"``): aggregate-only
    cells, the variants of a player count played together so that the comparison stays
    paired (``docs/studies.md``). ``dpi`` and ``formats``: the comparison reports' charts,
    as for :func:`analysis.reports.write_report`. ``progress``: what is played, a
    progress bar per cell and the reports' steps on standard error. A signal (Ctrl-C,
    SIGTERM) raises :class:`simulate.app.studies.sweep.SweepInterrupted`, with the command
    that resumes the study, once the finished chunks are safe."""
    verdict = _verdict_options(negligible_share, negligible_change)
    plan, reports = _run_study(
        study,
        out=out,
        games=games,
        threads=threads,
        force=force,
        resume=resume,
        report=report,
        progress=progress,
        verdict=verdict,
        scheduler=scheduler,
        records=records,
        dpi=dpi,
        formats=formats,
    )
    return WrittenStudy([plan.cell_folder(cell) for cell in plan.cells], reports)


def _run_study(
    study,
    *,
    out,
    games,
    threads,
    force,
    resume,
    report,
    progress,
    verdict,
    scheduler,
    records,
    dpi,
    formats,
):
    """The study planned (everything checked, nothing written), then played and compared:
    its plan and the reports' files written."""
    from analysis.rendering.output import chart_dpi, chart_formats

    from ..studies.file import load_study
    from ..studies.sweep import describe, plan_sweep, run_sweep

    charts = {"dpi": chart_dpi(dpi), "formats": chart_formats(formats), **verdict}
    if not hasattr(study, "cells"):
        study = load_study(study)
    plan = plan_sweep(study, out, games, threads, force, resume, records)
    echo = echo_to(progress)
    echo(describe(plan))
    with cluster_session(scheduler, threads) as cluster:
        if cluster is not None:
            echo(f"on {cluster.text}")
        reports = run_sweep(
            plan, progress=progress, compare=report, echo=echo, charts=charts, cluster=cluster
        )
    return plan, reports


@refuses_empty_out
def compare(
    *dirs: str | Path,
    out: str | Path | None = None,
    base: str | int | None = None,
    names: Sequence[str] | None = None,
    title: str | None = None,
    force: bool = False,
    negligible_share: float = NEGLIGIBLE_SHARE,
    negligible_change: float = NEGLIGIBLE_CHANGE,
    dpi: int | None = None,
    formats: str | Sequence[str] | None = None,
) -> pd.DataFrame:
    """Compare run folders, as ``cardsim compare DIR DIR ...``, and return the comparison
    table (the columns of ``comparison.csv``): one row per run, its figures and intervals,
    and against the base run the differences with their intervals and tests (paired where
    the runs played the same deals) and the verdict in words.

    ``base``: the run the others are compared with, by folder name or position (default:
    the first); ``names`` label the runs (default: the folders' names). With ``out`` the
    comparison report is written there too, as :func:`write_compare` writes it, and the
    table is its ``comparison.csv``; without, nothing is written. ``negligible_share`` and
    ``negligible_change``: the verdict's thresholds, as for :func:`sweep`."""
    if out is not None:
        write_compare(
            *dirs,
            out=out,
            base=base,
            names=names,
            title=title,
            force=force,
            negligible_share=negligible_share,
            negligible_change=negligible_change,
            dpi=dpi,
            formats=formats,
        )
        return read_comparison(Path(out) / COMPARISON_CSV)
    verdict = _verdict_options(negligible_share, negligible_change)
    folders, names, index = _compared(dirs, names, base)
    return comparison_frame(folders, names=names, base=index, **verdict)


@refuses_empty_out
def write_compare(
    *dirs: str | Path,
    out: str | Path,
    base: str | int | None = None,
    names: Sequence[str] | None = None,
    title: str | None = None,
    force: bool = False,
    negligible_share: float = NEGLIGIBLE_SHARE,
    negligible_change: float = NEGLIGIBLE_CHANGE,
    dpi: int | None = None,
    formats: str | Sequence[str] | None = None,
) -> list[Path]:
    """Write the comparison report of run folders into ``out``, as ``cardsim compare DIR
    DIR ... --out OUT`` does (the command calls it), and return the report's files (HTML
    and Markdown); nothing is read back. ``out`` is refused where it already holds a
    comparison, unless ``force``. ``title``: the report's heading (default: from the runs);
    ``dpi`` and ``formats``: its charts, as for :func:`analysis.reports.write_report`. The
    other settings are :func:`compare`'s."""
    from analysis.rendering.output import chart_dpi, chart_formats

    from ...runs.folder.lock import lock_folder
    from ...runs.folder.paths import check_writable
    from ..studies.sweep import comparison_writer

    charts = {"dpi": chart_dpi(dpi), "formats": chart_formats(formats)}
    verdict = _verdict_options(negligible_share, negligible_change)
    folders, names, index = _compared(dirs, names, base)
    write_comparison = comparison_writer()
    if write_comparison is None:
        raise CardsimError(
            "this installation has no comparison reports (analysis.comparisons.report)"
        )
    out = Path(out)
    check_writable(out)
    held = [name for name in COMPARISON_FILES if (out / name).exists()]
    if held and not force:
        raise CardsimError(
            f"{out} already holds a comparison ({', '.join(held)}); choose another --out or "
            "pass --force to overwrite it"
        )
    with lock_folder(out):
        written = write_comparison(
            folders, out, names=names, base=index, title=title, **charts, **verdict
        )
    return list(written)


def _compared(dirs, names, base) -> tuple[list[Path], list[str], int]:
    """The run folders of ``dirs`` (also given as one list), each read as a run; their
    names (default: the folders' names, else their paths) and the base's index."""
    from ...runs.folder.writer import read_meta

    if len(dirs) == 1 and not isinstance(dirs[0], str | Path):
        dirs = tuple(dirs[0])  # compare([a, b]) as well as compare(a, b)
    folders = [Path(d) for d in dirs]
    if len(folders) < 2:
        raise CardsimError(f"compare needs two or more run folders, got {len(folders)}")
    if names is None:
        names = [folder.name for folder in folders]
        if len(set(names)) < len(names):
            names = [str(folder) for folder in folders]
        if len(set(names)) < len(names):
            raise CardsimError(f"a folder is given twice: {', '.join(names)}")
    names = [str(name) for name in names]
    for folder in folders:
        read_meta(folder)
    return folders, names, _base_index(base, folders, names)


def _verdict_options(share: float, change: float) -> dict[str, float]:
    """The verdict's thresholds checked, as ``write_comparison`` takes them."""
    from analysis.comparisons.verdict import thresholds
    from analysis.errors import ReportError

    try:
        limits = thresholds(share, change)
    except ReportError as exc:
        raise CardsimError(str(exc)) from None
    return {"negligible_share": limits.share, "negligible_change": limits.change}


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
    run_dirs: Sequence[str | Path],
    names: Sequence[str] | None = None,
    base: int = 0,
    *,
    negligible_share: float = NEGLIGIBLE_SHARE,
    negligible_change: float = NEGLIGIBLE_CHANGE,
) -> pd.DataFrame:
    """The comparison table of ``run_dirs`` computed without writing anything: what
    :func:`analysis.comparisons.write_comparison` writes as ``comparison.csv``, and
    :func:`read_comparison` reads back (the same numbers, to ten significant digits)."""
    from analysis.comparisons.report import compare_runs
    from analysis.comparisons.verdict import thresholds

    limits = thresholds(negligible_share, negligible_change)
    _, _, table = compare_runs(run_dirs, names, base, limits=limits)
    text = table.to_csv(index=False, float_format="%.10g")
    return read_comparison(io.StringIO(text))


_COUNT_COLUMNS = frozenset(
    ("players", "games", "first_wins", "matches", "pairs", "first_base_only")
    + ("first_variant_only", "length_pairs", "match_pairs")
)
"""The columns of ``comparison.csv`` that count (whole numbers); the others are figures."""


def read_comparison(source) -> pd.DataFrame:
    """A ``comparison.csv`` (a path or a text buffer) as a DataFrame: the significance
    columns (``<test>_significant``: true, false, or empty on the base rows) as pandas'
    nullable booleans, ``is_base`` as booleans, the counts (games, wins, pairs) as integers,
    ``not_rules`` as text ("" where nothing but the rules differs) and every other number as
    a float."""
    import pandas as pd

    table = pd.read_csv(source)
    for column in table.columns:
        if pd.api.types.is_integer_dtype(table[column]) and column not in _COUNT_COLUMNS:
            # a figure that happens to be whole here (a median, a percentile) reads as the
            # float it is, as in another player count's table where it is not whole
            table[column] = table[column].astype(float)
        if column.endswith("_significant"):
            table[column] = table[column].astype("boolean")
    if "is_base" in table:
        table["is_base"] = table["is_base"].astype(bool)
    if "not_rules" in table:  # "" (nothing but the rules differs) reads back as ""
        table["not_rules"] = [v if isinstance(v, str) else "" for v in table["not_rules"]]
    return table


@refuses_empty_out
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
    scheduler: str | None = None,
    dpi: int | None = None,
    formats: str | Sequence[str] | None = None,
) -> pd.DataFrame:
    """Play every strategy against every other, as ``cardsim tournament``, into ``out``,
    and return the win-share table with the ratings: one row per pairing played,
    ``strategy`` (in one seat) ``against`` (in every other seat), ``share`` of the games
    that ``strategy``'s seat won, its 95% Wilson interval ``lo``, ``hi``, ``games``, then
    the Luce rating of ``strategy`` on the Elo scale: ``rating``, ``rating_lo``,
    ``rating_hi`` (95% bootstrap interval) and ``rated_games`` (the decided games it played).

    ``table.pivot(index="strategy", columns="against", values="share")`` is the report's
    matrix. The settings are :func:`write_tournament`'s; the table is computed from the
    pairings' runs (:func:`tournament_frame`)."""
    write_tournament(
        game,
        strategies=strategies,
        out=out,
        players=players,
        games=games,
        seed=seed,
        rules=rules,
        threads=threads,
        force=force,
        report=report,
        progress=progress,
        scheduler=scheduler,
        dpi=dpi,
        formats=formats,
    )
    return tournament_frame(out)


@refuses_empty_out
def write_tournament(
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
    scheduler: str | None = None,
    dpi: int | None = None,
    formats: str | Sequence[str] | None = None,
    ladder: bool = False,
) -> list[Path]:
    """Play every strategy against every other into the folder ``out``, as ``cardsim
    tournament`` does (the command calls it), and return the report's files (HTML and
    Markdown; none without ``report``); nothing is read back. ``ladder``: the strategies
    are a skill ladder's rungs, weakest first, and each plays only the rung below it
    (``cardsim ladder``: :func:`ladder`).

    ``strategies``: a list or a comma-separated string; ``games`` deals (matches) per
    pairing, each played once per seat, a run folder per pairing. With ``report`` (the
    default) the tournament's report (``report.html``, ``matrix.csv``, ``ratings.csv``,
    charts in ``formats`` at ``dpi``) is written into ``out``. ``scheduler``: the
    pairings' games are played on a Dask cluster, as for :func:`simulate` (one connection
    for the whole tournament). ``progress``: what is played, with a progress bar per
    pairing, on standard error."""
    from ..studies.tournament import run_tournament

    out = Path(out)
    if report:
        from analysis.rendering.output import chart_dpi, chart_formats

        dpi, formats = chart_dpi(dpi), chart_formats(formats)  # checked before any game
    with cluster_session(scheduler, threads) as cluster:
        run_tournament(
            game,
            strategies=strategy_list(strategies),
            out=out,
            players=players,
            games=games,
            seed=seed,
            rules=rules,
            threads=threads,
            force=force,
            progress=progress,
            echo=echo_to(progress),
            cluster=cluster,
            ladder=ladder,
        )
    if not report:
        return []
    from analysis.comparisons.tournament import write_tournament_report

    return list(write_tournament_report(out, dpi=dpi, formats=formats))


@refuses_empty_out
def ladder(
    game: str,
    *,
    out: str | Path,
    strategies: Sequence[str] | str = DEFAULT_LADDER,
    players: int | None = None,
    games: int = LADDER_GAMES,
    seed: int | None = None,
    rules: dict | None = None,
    threads: int | None = None,
    force: bool = False,
    report: bool = True,
    progress: bool = False,
    scheduler: str | None = None,
    dpi: int | None = None,
    formats: str | Sequence[str] | None = None,
) -> pd.DataFrame:
    """A skill ladder, as ``cardsim ladder``: ``strategies`` (a list or a comma-separated
    string, weakest first; default :data:`simulate.core.skill.DEFAULT_LADDER`: ``random``,
    then ``pimc`` of doubling budgets) each played in one seat against
    the rung below in every other seat, ``games`` deals per step, each once per seat, into
    ``out`` (a tournament folder whose ``tournament.json`` says ``ladder``; with
    ``report``, ``report.html`` and ``ladder.csv`` too). Returns one row per step, bottom
    first (:func:`analysis.comparisons.ladder.ladder_steps`): ``strategy``, ``below``,
    ``games``, ``wins``, ``share`` with its 95% interval ``lo``, ``hi`` over the deals,
    ``p`` and ``p_holm`` (one-sided test of a share above 1/players, Holm over the steps),
    ``clear`` and ``detectable``; the skill depth is ``table["clear"].sum()``. The other
    settings are :func:`write_tournament`'s."""
    write_tournament(
        game,
        strategies=strategies,
        out=out,
        players=players,
        games=games,
        seed=seed,
        rules=rules,
        threads=threads,
        force=force,
        report=report,
        progress=progress,
        scheduler=scheduler,
        dpi=dpi,
        formats=formats,
        ladder=True,
    )
    return ladder_frame(out)


def ladder_frame(folder: str | Path) -> pd.DataFrame:
    """The steps of the ladder in ``folder`` (see :func:`ladder`), computed from its runs
    (the numbers of ``ladder.csv``)."""
    from analysis.comparisons.tournament import TOURNAMENT_FILE, ladder_table, read_pairings

    folder = Path(folder)
    info, _ = read_pairings(folder)
    if not info.get("ladder"):
        raise CardsimError(f"{folder} holds a tournament, not a ladder ({TOURNAMENT_FILE})")
    return ladder_table(folder, info)


def tournament_frame(folder: str | Path) -> pd.DataFrame:
    """The win-share table and ratings of the tournament in ``folder`` (see
    :func:`tournament`), computed from its runs (the numbers of ``matrix.csv`` and
    ``ratings.csv``)."""
    from analysis.comparisons.tournament import (
        long_matrix,
        ratings,
        read_pairings,
        win_matrix,
    )

    info, pairings = read_pairings(Path(folder))
    strategies, players = info["strategies"], info["players"]
    table = long_matrix(*win_matrix(strategies, pairings, players))
    rated = ratings(strategies, pairings, players).rename(
        columns={"lo": "rating_lo", "hi": "rating_hi", "games": "rated_games"}
    )
    return table.merge(rated, on="strategy", how="left")
