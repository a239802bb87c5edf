"""The Python API: each ``cardsim`` command as a function that returns pandas objects.

=================================  =========================================================
``simulate(game, ...)``            a run, as :class:`analysis.load.Run`: ``meta``, ``games``
                                   (one row per game, per deal in match play), ``matches``
``write_run(game, out=...)``       the same run written into its folder, nothing read back
``balance(game, ...)``             a run and its skill games: the balance measures' table
``sweep(study, ...)``              a house-rule study: the comparison table of its variants
``write_sweep(study, out=...)``    the same study written into its folder
``compare(*dirs, ...)``            the comparison table of run folders
``write_compare(*dirs, out=...)``  the comparison report written, nothing read back
``tournament(game, ...)``          every strategy against every other: shares and ratings
``write_tournament(game, ...)``    the same tournament written, nothing read back
``tune(game, ...)``                weights for a ``weighted`` strategy (a ``TuneResult``)
``explore(game, ...)``             a search of the rule space for the aims: the table
``write_explore(game, out=...)``   the same search written into its folder (and its picks)
``write_report(dir)``              a run folder's report
``verify(dir)``                    a run folder checked (and repaired): the verdict
``search(game)``                   the longest deals, in words
``replay(dir_or_game)``            one game turn by turn, in words
``play_deal(game, deal=...)``      a given deal's outcome (and its text)
``describe_rules(game)``           the rules in force, in words
=================================  =========================================================

:mod:`.playing` is the application's one door to the engine (``play_chunks``: a request's
games over spans of indices, in memory, for searches).

Every argument after the first is keyword-only, named as the command's option
(``--rule`` is ``rules={...}``, ``--seats`` is ``strategies=[...]``), and every mistake
raises :class:`simulate.core.errors.CardsimError` (analysis errors:
:class:`analysis.errors.ReportError`) with the one line the command would print.
``docs/python.md`` describes every function and table.

Importing this module imports neither numba nor pandas: each function loads what it
needs when called (``import simulate`` stays light).
"""

from __future__ import annotations

import functools
import io
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ...core.errors import CardsimError
from ...core.measures import NEGLIGIBLE_CHANGE, NEGLIGIBLE_SHARE
from ..commands.runs import cluster_session as _cluster

if TYPE_CHECKING:
    import pandas as pd

    from analysis.load import Run

    from ..studies.file import Study

DEFAULT_GAMES = 1_000_000
"""Games (matches, in match play) of a run when none are asked for (the engine's
:data:`simulate.runs.request.DEFAULT_GAMES`, which this module does not import: it would load
numpy)."""

BALANCE_GAMES = 100_000
"""Games (matches) of :func:`balance`'s run when none are asked for."""

COMPARISON_CSV = "comparison.csv"
"""The table a comparison writes beside its report (one row per variant)."""

COMPARISON_FILES = ("report.html", "report.md", COMPARISON_CSV)
"""What marks a folder as holding a comparison (``force`` overwrites it)."""


def _refuses_empty_out(function):
    """Refuse ``out=""`` (an unset variable, as often as not), which would name the current
    folder, in one :class:`CardsimError` before anything is done, as the command line does."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        out = kwargs.get("out")
        if isinstance(out, str) and not out.strip():
            raise CardsimError(
                f"{function.__name__}: out is an empty path, which names no folder; give one "
                "(or None, where nothing need be written)"
            )
        return function(*args, **kwargs)

    return wrapper


def _echo(progress: bool) -> Callable[[str], None]:
    """Where the commands' lines go: standard error with ``progress``, else nowhere."""
    if progress:
        return lambda line: print(line, file=sys.stderr)
    return lambda line: None


@_refuses_empty_out
def simulate(
    game: str,
    *,
    players: int | None = None,
    games: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    out: str | Path | None = None,
    rules: dict | None = None,
    strategies: Sequence | None = None,
    rotate_seats: bool = False,
    force: bool = False,
    resume: bool = False,
    report: bool = False,
    progress: bool = False,
    log: int | str | None = None,
    scheduler: str | None = None,
    backend: str = "cpu",
    records: str | None = None,
    skip_space_check: bool = False,
    dpi: int | None = None,
    formats: str | Sequence[str] | None = None,
) -> Run:
    """Play a run, as ``cardsim simulate``, and return it as :func:`analysis.load.load_run`
    reads a run folder: a :class:`analysis.load.Run` with ``meta``, ``games`` (one row per
    game, per deal in match play; ``end`` categorical) and ``matches`` (one row per match in
    match play, else None).

    With ``out`` the run folder is written too, as :func:`write_run` writes it (``force``,
    ``resume``, ``report`` and its ``dpi`` and ``formats``, ``skip_space_check``), then read
    back: ``meta`` is its ``run.json`` and ``path`` the folder. Without ``out`` nothing is
    written, ``path`` is None and ``meta`` is what ``run.json`` would open with.
    ``games`` (default 1,000,000), ``players``, ``seed``, ``rules``, ``strategies`` and
    ``rotate_seats`` are those of :func:`simulate.run`. ``log=N`` logs the first N games
    (matches) event by event (``"all"``: every game of a run of at most 100,000): the Run's
    ``events``, one row per event (``events.parquet`` in the run folder), else None.
    ``scheduler`` (``"tcp://HOST:PORT"``, ``"local"``, ``"local:N"``) plays the games on a
    Dask cluster (``docs/cluster.md``): the same records, written here; ``threads`` is then
    each worker's. ``backend="cuda"`` plays the games on an NVIDIA GPU (``docs/gpu.md``;
    built-in strategies only): the same records as ``"cpu"``, the default.
    ``records="none"``: an aggregate-only run (``--records none``): no rows are kept, the
    Run's ``games`` is empty and its ``aggregates`` holds the exact statistics the report
    is built from (:mod:`simulate.runs.folder.aggregates`); ``log=N`` still gives the logged games'
    ``events``."""
    from analysis.load import Run, load_run

    from ..commands.runs import new_request
    from .playing import play_run

    settings = {
        "players": players,
        "games": games,
        "seed": seed,
        "threads": threads,
        "rules": rules,
        "strategies": strategies,
        "rotate_seats": rotate_seats,
        "log": log,
        "backend": backend,
        "records": records,
    }
    if out is not None:
        return load_run(
            write_run(
                game,
                out=out,
                force=force,
                resume=resume,
                report=report,
                progress=progress,
                skip_space_check=skip_space_check,
                dpi=dpi,
                formats=formats,
                scheduler=scheduler,
                **settings,
            )
        )
    for name, given in (("resume", resume), ("report", report)):
        if given:
            raise CardsimError(
                f"{name}=True needs out=DIR: the {'run' if name == 'resume' else 'report'} "
                "is in the run folder"
            )
    request = new_request(game, **settings)
    if scheduler is not None and backend != "cpu":
        raise CardsimError("a cluster run plays on its workers' CPUs: give scheduler or backend")
    logged: list = []
    merged: list = []
    with _cluster(scheduler, threads) as cluster:
        games_table, matches_table = play_run(
            request,
            progress=progress,
            events=logged,
            play=None if cluster is None else cluster.play_chunks,
            aggregates=merged,
        )
    meta = request.meta()
    events = None
    if logged:
        from ...runs.log_tables import concat_events

        events = concat_events(logged).to_pandas()
        events.attrs.update(meta)
    if request.records == "none":
        import pandas as pd

        found = merged[0] if merged else None
        games_frame = found.schema.empty_table().to_pandas() if found else pd.DataFrame()
        games_frame.attrs.update(meta)
        return Run(path=None, meta=meta, games=games_frame, aggregates=found, events=events)
    records = games_table.to_pandas()
    records["end"] = records["end"].astype("category")
    records.attrs.update(meta)
    matches = None
    if matches_table is not None:
        matches = matches_table.to_pandas()
        matches.attrs.update(meta)
    return Run(path=None, meta=meta, games=records, matches=matches, events=events)


@_refuses_empty_out
def write_run(
    game: str,
    *,
    out: str | Path,
    players: int | None = None,
    games: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    rules: dict | None = None,
    strategies: Sequence | None = None,
    rotate_seats: bool = False,
    force: bool = False,
    resume: bool = False,
    report: bool = False,
    progress: bool = False,
    log: int | str | None = None,
    scheduler: str | None = None,
    backend: str = "cpu",
    records: str | None = None,
    skip_space_check: bool = False,
    dpi: int | None = None,
    formats: str | Sequence[str] | None = None,
) -> Path:
    """Play a run into the folder ``out``, as ``cardsim simulate --out OUT`` does, and
    return ``out``; nothing is read back (a run too big for memory is written all the
    same; :func:`simulate` is this, then ``load_run``).

    The settings are :func:`simulate`'s. ``out`` is refused where it holds a run, unless
    ``force``, and where the records would not fit on its disk (an estimate), unless
    ``skip_space_check``. ``resume=True`` completes the interrupted or crashed run in
    ``out`` with its own settings (any given besides are checked against them, as the
    command checks its options; ``records`` defaults to the run's), playing again any
    chunk found damaged. ``report=True`` writes the report when the run is complete
    (charts in ``formats`` at ``dpi``, as :func:`analysis.reports.write_report`).
    ``progress``: what is played, a progress bar and the report's steps on standard
    error. A signal (Ctrl-C, SIGTERM) raises :class:`simulate.runs.engine.RunInterrupted`
    once the finished chunks are safe."""
    from analysis.rendering.output import chart_dpi, chart_formats

    from ...runs.request import check_records
    from ..commands import runs

    echo = _echo(progress)
    out = Path(out)
    if scheduler is not None and backend != "cpu":
        raise CardsimError("a cluster run plays on its workers' CPUs: give scheduler or backend")
    if report:
        dpi, formats = chart_dpi(dpi), chart_formats(formats)
    if records is not None:
        check_records(records, "records")
    plan = runs.plan_run(
        game,
        out,
        resume=resume,
        force=force,
        skip_space_check=skip_space_check,
        threads=threads,
        backend=backend,
        players=players,
        games=games,
        seed=seed,
        rules=rules,
        strategies=strategies,
        rotate_seats=rotate_seats,
        log=log,
        records=records,
    )
    with _cluster(scheduler, threads) as cluster:
        runs.play_plan(plan, cluster=cluster, progress=progress, echo=echo)
    if report:
        runs.report(out, progress=progress, dpi=dpi, formats=formats)
    return out


@_refuses_empty_out
def balance(
    game: str,
    *,
    players: int | None = None,
    games: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    rules: dict | None = None,
    strategies: Sequence | None = None,
    skill: str | None = None,
    skill_games: int | None = None,
    out: str | Path | None = None,
    force: bool = False,
    resume: bool = False,
    skip_space_check: bool = False,
    report: bool = False,
    progress: bool = False,
    scheduler: str | None = None,
) -> pd.DataFrame:
    """Play a run and its skill games, as ``cardsim balance``, and return the balance
    measures (:func:`analysis.balance.balance_measures`): one row per measure
    (``first_seat_advantage``, ``seat_spread``, ``decisive``, ``turns``, ``turns_p90``,
    ``lead_changes``, ``comebacks``, ``skill``), columns ``value``, ``lo``, ``hi`` (95%
    interval) and ``definition``.

    The run is :func:`simulate`'s (``players``, ``games``: default 100,000, ``seed``,
    ``rules``, ``strategies``); the skill games put ``skill`` (any strategy; default
    ``hold-wilds``) in one seat and ``random`` in the others, every deal once per seat on
    the run's seed (so on its deals), ``skill_games`` deals or matches (default
    ``games``). A game without choices plays no skill games: its skill is 0 by
    definition, and ``skill`` or ``skill_games`` is a mistake. With ``out`` the run folder
    is written, the skill games into ``out/skill`` (refused where runs are, unless
    ``force``; ``resume=True`` completes both with their own settings, as ``cardsim
    balance --resume``, keeping what is complete), and ``report=True`` writes the report
    with its Balance section and ``balance.csv`` (the table returned is then its own);
    without ``out`` nothing is written. With ``out`` the measures are read from the folders
    in batches, as the report reads them: the memory does not grow with the run.
    ``scheduler``: the run and its skill games are played on a Dask cluster (one
    connection for both), as for :func:`simulate`."""
    from analysis.balance import balance_table

    from ..commands.balance import check_skill_options, plan_balance, play_balance, skill_request

    settings = {
        "players": players,
        "games": BALANCE_GAMES if games is None and not resume else games,
        "seed": seed,
        "rules": rules,
        "strategies": strategies,
    }
    if out is not None:
        plan = plan_balance(
            game,
            Path(out),
            skill=skill,
            skill_games=skill_games,
            resume=resume,
            force=force,
            skip_space_check=skip_space_check,
            threads=threads,
            **settings,
        )
        with _cluster(scheduler, threads) as cluster:
            play_balance(plan, cluster=cluster, progress=progress, echo=_echo(progress))
        if report:
            from analysis.balance import read_balance

            from ..commands.runs import report as write_report

            write_report(out, progress=progress)
            return read_balance(out, definitions=True)
        from analysis.reports.balance import folder_balance

        return folder_balance(out)
    for name, given in (("resume", resume), ("report", report)):
        if given:
            raise CardsimError(f"{name}=True needs out=DIR: the balance is in the run folder")
    from ...games.registry import resolve_game
    from ...runs.request import make_request

    info = resolve_game(game)
    check_skill_options(info, skill, skill_games)
    main = make_request(game, threads=threads, **settings)
    skilled = None
    if info.spec.takes_strategies:
        skilled = skill_request(main, skill, skill_games, threads)
    with _cluster(scheduler, threads) as cluster:
        common = {"threads": threads, "progress": progress, "scheduler": cluster}
        run = simulate(
            game,
            players=main.players,
            games=main.games,
            seed=main.seed,
            rules=main.rules,
            strategies=list(main.specs) or None,
            **common,
        )
        skill_run = None
        if skilled is not None:
            skill_run = simulate(
                game,
                players=skilled.players,
                games=skilled.games,
                seed=skilled.seed,
                rules=main.rules,
                strategies=list(skilled.specs),
                rotate_seats=True,
                **common,
            )
    return balance_table(run, skill=skill_run)


@_refuses_empty_out
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


@_refuses_empty_out
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
    echo = _echo(progress)
    echo(describe(plan))
    with _cluster(scheduler, threads) as cluster:
        if cluster is not None:
            echo(f"on {cluster.text}")
        reports = run_sweep(
            plan, progress=progress, compare=report, echo=echo, charts=charts, cluster=cluster
        )
    return plan, reports


@_refuses_empty_out
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


@_refuses_empty_out
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


def _strategy_list(strategies) -> list[str]:
    """A list of strategies, from a list or one comma-separated string."""
    if isinstance(strategies, str):
        from ..studies.file import split_seats

        return split_seats(strategies)
    return [str(s) for s in strategies]


@_refuses_empty_out
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


@_refuses_empty_out
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
) -> list[Path]:
    """Play every strategy against every other into the folder ``out``, as ``cardsim
    tournament`` does (the command calls it), and return the report's files (HTML and
    Markdown; none without ``report``); nothing is read back.

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
    with _cluster(scheduler, threads) as cluster:
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
            cluster=cluster,
        )
    if not report:
        return []
    from analysis.comparisons.tournament import write_tournament_report

    return list(write_tournament_report(out, dpi=dpi, formats=formats))


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


@_refuses_empty_out
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
    scheduler: str | None = None,
) -> Any:
    """Search the weights of a ``weighted`` strategy against ``opponents``, as
    ``cardsim tune``, and return the game's result (the shedding games':
    ``TuneResult``): ``spec`` (the strategy, ready for
    ``strategies=[...]``), ``weights``, its held-out win ``share`` with ``lo`` and ``hi``,
    ``greedy``'s on the same deals, ``holdout_games`` and ``history`` (per round: the mean
    and best training share; ``pandas.DataFrame(result.history)`` tabulates it). With
    ``out`` the result is also written there as JSON. ``scheduler``: each candidate's
    games are played on a Dask cluster, as for :func:`simulate` (the same result)."""
    from ...games.registry import resolve_game
    from ...games.spec import load

    tune_games = load(resolve_game(game, "tune").spec.tune_path)
    if out is not None:
        from ...runs.folder.paths import check_writable

        check_writable(out, file=True)  # before the search, not after it
    with _cluster(scheduler, threads) as cluster:
        result = tune_games(
            game,
            opponents=_strategy_list(opponents),
            players=players,
            budget=budget,
            seed=seed,
            rules=rules,
            threads=threads,
            holdout=holdout,
            echo=_echo(progress),
            cluster=cluster,
        )
    if out is not None:
        import json
        from dataclasses import asdict

        from ...runs.folder.writer import write_atomic

        write_atomic(Path(out), (json.dumps(asdict(result), indent=2) + "\n").encode())
    return result


@_refuses_empty_out
def explore(
    game: str | Path,
    *,
    vary: dict | Sequence[str] | None = None,
    aim: dict | Sequence[str] | None = None,
    require: Sequence[str] | None = None,
    players: int | None = None,
    budget: int | None = None,
    seed: int | None = None,
    method: str | None = None,
    rules: dict | None = None,
    strategies: Sequence | None = None,
    skill: str | None = None,
    first_round: int | None = None,
    threads: int | None = None,
    out: str | Path | None = None,
    force: bool = False,
    report: bool = True,
    progress: bool = False,
    scheduler: str | None = None,
) -> pd.DataFrame:
    """Search the rule space for the rule sets that best meet the aims, as ``cardsim
    explore``, and return the explore table (``explore.csv``): one row per rule set
    measured, a column per varied knob, ``games`` (every deal it played, skill and
    held-out deals included), for each aim ``<measure>``, ``<measure>_lo``,
    ``<measure>_hi`` (95%; held-out estimates where ``confirmed``), then ``confirmed``,
    ``base``, ``pick`` (1 for the best), ``front``, ``rounds`` and ``dropped``.

    ``game``: a game, or an explore file (``FILE.toml``, which fixes everything but
    ``budget``, ``seed``, ``method``, ``first_round`` and ``threads``). ``vary``:
    ``{knob: values}`` (a list, or a string such as ``"5..9"`` or ``"none,same_rank"``) or
    ``--vary`` items (``["hand_size=5..9"]``); ``aim``: ``{measure: target | "max" | "min"
    | None}`` or ``--aim`` items (``["first_seat_advantage", "turns=min"]``); ``require``:
    ``--require`` items, bounds every answer must keep (``["first_seat_advantage<=1pt",
    "turns<=40"]``). ``budget`` caps the deals played (every seating, match deal, skill
    and held-out deal counted; default 1,000,000); ``method`` is ``auto`` (the default),
    ``exhaustive`` or ``search``; ``first_round``: games per rule set in the first round
    (default 1,000); ``rules`` and ``strategies`` fix the base rules and seats (match play
    off unless ``rules`` sets ``match_deals`` or ``target_score``); ``skill`` the skilled
    strategy when skill is aimed (default ``hold-wilds``). With ``out`` the files and
    (``report``) the report are written there, as :func:`write_explore` writes them;
    without, nothing is written. The table holds the numbers of ``explore.csv`` (read back
    from its text), and the same seed gives the same table, here or with ``scheduler``
    (the games played on a Dask cluster, as for :func:`simulate`; one connection for the
    whole exploration). ``progress``: what is played, on standard error."""
    from ..exploration import describe, plan_from
    from ..exploration.files import explore_table, read_explore, table_csv
    from ..exploration.run import run_explore

    settings = {
        "vary": vary,
        "aim": aim,
        "require": require,
        "players": players,
        "budget": budget,
        "seed": seed,
        "method": method,
        "rules": rules,
        "strategies": strategies,
        "skill": skill,
        "first_round": first_round,
        "threads": threads,
    }
    if out is not None:
        found = write_explore(
            game,
            out=out,
            force=force,
            report=report,
            progress=progress,
            scheduler=scheduler,
            **settings,
        )
        return found.table
    plan = plan_from(game, **settings)
    echo = _echo(progress)
    echo(describe(plan))
    with _cluster(scheduler, threads) as cluster:
        table = explore_table(run_explore(plan, echo=echo, cluster=cluster))
    return read_explore(io.BytesIO(table_csv(table)))  # the numbers explore.csv holds


class Exploration(NamedTuple):
    """What :func:`write_explore` found and wrote."""

    table: pd.DataFrame
    """The explore table, as :func:`explore` returns it (the numbers of explore.csv)."""
    best: list[str]
    """The picks in words, best first, as ``cardsim explore`` prints them: each rule set,
    its aimed measures on the held-out deals, and where it is worse than the base rules."""


@_refuses_empty_out
def write_explore(
    game: str | Path,
    *,
    out: str | Path,
    vary: dict | Sequence[str] | None = None,
    aim: dict | Sequence[str] | None = None,
    require: Sequence[str] | None = None,
    players: int | None = None,
    budget: int | None = None,
    seed: int | None = None,
    method: str | None = None,
    rules: dict | None = None,
    strategies: Sequence | None = None,
    skill: str | None = None,
    first_round: int | None = None,
    threads: int | None = None,
    force: bool = False,
    report: bool = True,
    progress: bool = False,
    scheduler: str | None = None,
) -> Exploration:
    """Search the rule space as :func:`explore` does and write ``explore.csv``,
    ``best.toml`` (a study for :func:`sweep`), ``explore.json`` and (``report``) the report
    into ``out``, as ``cardsim explore --out OUT`` does (the command calls it); ``out`` is
    refused where it holds an exploration, unless ``force``, before anything is played.
    Returns an :class:`Exploration`: the table and the picks in words."""
    from ..exploration import best_words, check_out, describe, explore_into, plan_from
    from ..exploration.files import read_explore, table_csv

    plan = plan_from(
        game,
        vary=vary,
        aim=aim,
        require=require,
        players=players,
        budget=budget,
        seed=seed,
        method=method,
        rules=rules,
        strategies=strategies,
        skill=skill,
        first_round=first_round,
        threads=threads,
    )
    out = Path(out)
    check_out(out, force)  # before connecting: refused at once, nothing written
    echo = _echo(progress)
    echo(describe(plan, out))
    with _cluster(scheduler, threads) as cluster:
        table, _, result = explore_into(
            plan, out, force=force, report=report, echo=echo, cluster=cluster
        )
    return Exploration(read_explore(io.BytesIO(table_csv(table))), best_words(plan, result))


def write_report(
    run_dir: str | Path,
    *,
    top: int = 10,
    dpi: int | None = None,
    formats: str | Sequence[str] | None = None,
    progress: bool = False,
) -> tuple[Path, Path]:
    """Write the report of the run folder ``run_dir``, as ``cardsim report DIR``
    (the command calls it): ``report.html`` (self-contained), ``report.md`` and the charts
    in ``charts/`` (``formats`` at ``dpi``; ``top``: the longest deals listed). The folder
    is locked while it is written. Returns ``(html_path, markdown_path)``; ``progress``: a
    spinner on standard error that says which step it is at."""
    from contextlib import nullcontext

    from analysis.rendering.output import chart_dpi, chart_formats

    from ...runs.folder.writer import META_FILE, lock_run
    from ..commands.runs import report

    run_dir = Path(run_dir)
    charts = {"dpi": chart_dpi(dpi), "formats": chart_formats(formats)}
    # a folder that is not a run is not locked: the reader names what is missing
    lock = lock_run(run_dir) if (run_dir / META_FILE).is_file() else nullcontext()
    with lock:
        return report(run_dir, progress=progress, top=top, **charts)


def verify(
    run_dir: str | Path,
    *,
    replay: int = 300,
    repair: bool = False,
    threads: int | None = None,
    progress: bool = False,
):
    """Check the run folder ``run_dir`` as ``cardsim verify DIR`` does (the command calls
    it): every chunk file against its checksum, and ``replay`` games (matches) drawn across
    the run played again and compared with their stored records; with ``repair``, the
    damaged or missing chunks are played again (their records come back exactly). Returns
    the verdict: ``problems`` (one line each; none when ``healthy``), ``replayed``,
    ``repaired``, ``notes`` and ``repairable``. ``progress``: what is checked, with a
    progress bar, on standard error."""
    from ..commands.verify import verify_run

    return verify_run(
        run_dir,
        replay=replay,
        repair=repair,
        threads=threads,
        echo=_echo(progress),
        progress=progress,
    )


def search(
    game: str,
    *,
    games: int = 1_000_000,
    players: int | None = None,
    seed: int | None = None,
    top: int = 10,
    threads: int | None = None,
    rules: dict | None = None,
    scheduler: str | None = None,
    progress: bool = False,
) -> str:
    """Hunt for records as ``cardsim search`` does (the command calls it): play ``games``
    random deals of a game that offers a search (Beggar-My-Neighbour) and return, in
    words, the ``top`` longest and any that never end. ``scheduler``: the deals are played
    on a Dask cluster, as for :func:`simulate`. ``progress``: a progress bar on standard
    error."""
    from ...games.registry import resolve_game
    from ...games.spec import load
    from ...runs.request import make_request

    info = resolve_game(game, "search")
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise CardsimError(f"--top must be at least 1, got {top}")
    request = make_request(
        game, players=players, games=games, seed=seed, threads=threads, rules=rules
    )
    with _cluster(scheduler, threads) as cluster:
        return load(info.spec.search_path)(request, top=top, progress=progress, cluster=cluster)


def describe_rules(game: str, *, players: int | None = None, rules: dict | None = None) -> str:
    """The rules of ``game`` (with ``rules``' knob overrides) in plain words, as ``cardsim
    rules`` prints them (the command calls it): ``"Pis Yedili: ..."``. ``players``: the
    rules as they stand at that player count (checked against the game and the rules)."""
    from ...games.registry import check_players, resolve_game

    info = resolve_game(game)
    resolved = info.spec.rules(info.name, rules)
    if players is not None:
        check_players(info, players)
        resolved.check_players(players)
    return f"{info.title}: {resolved.describe(players)}"


class PlayedDeal(NamedTuple):
    """How a given deal ends (:func:`play_deal`)."""

    outcome: dict
    """The game's own figures (Beggar-My-Neighbour: ``cards``, ``tricks``, ``winner``,
    ``end``, ``cycle_cards``, ``cycle_tricks``, ``held``)."""
    text: str
    """The outcome in words; with ``trace``, the deal trick by trick before it."""


def play_deal(
    game: str,
    *,
    deal: str,
    rules: dict | None = None,
    trace: bool = False,
    hands: bool = False,
) -> PlayedDeal:
    """Play one given deal of a game that takes deals (Beggar-My-Neighbour), as ``cardsim
    play --deal`` does (the command calls it): ``deal`` is one hand per seat separated by
    ``/``, top card first (``"J23/4J5"``). ``trace``: the text holds the deal trick by
    trick; ``hands``: every seat's hand after each trick too."""
    from ...games.registry import resolve_game

    info = resolve_game(game, "play")
    resolved = info.spec.rules(info.name, rules)
    engine = info.spec.engine()
    if trace or hands:
        outcome, lines = engine.play_traced(resolved, deal, hands=hands)
        return PlayedDeal(outcome, "\n".join([*lines, engine.outcome_text(outcome)]))
    outcome = engine.play_given(resolved, deal)
    return PlayedDeal(outcome, engine.outcome_text(outcome))


def replay(
    source: str | Path,
    *,
    game: int | None = None,
    match: int | None = None,
    deal: int | None = None,
    rotation: int = 0,
    hands: bool = False,
    form: str = "text",
    seed: int | None = None,
    players: int | None = None,
    strategies: Sequence | str | None = None,
    rules: dict | None = None,
) -> str:
    """One game turn by turn, as ``cardsim replay`` prints it (the command calls it).

    ``source``: a run folder (its rules, seats and seed; its log when it holds the game;
    ``form`` ``json`` or ``csv`` gives its events) or a game's name (then ``seed`` is
    needed, and ``players``, ``strategies`` and ``rules`` say the rest, as for
    :func:`simulate`). ``game``: the game's index in the run (default 0); in match play
    ``match`` and ``deal`` name it instead; ``rotation``: the seating, in a run with
    rotated seats; ``hands``: every seat's hand after each turn."""
    from ...games.registry import resolve_game
    from ...runs.request import make_request
    from ..replay import is_run_folder, replay_run

    if is_run_folder(str(source)):
        given = [
            f"--{name}"
            for name, value in (("seed", seed), ("players", players), ("strategy", strategies))
            if value
        ] + (["--rule/--config"] if rules else [])
        if given:
            raise CardsimError(
                f"{source} is a run folder, which gives the game's settings: drop "
                f"{', '.join(given)}"
            )
        for name, value in (("--game", game), ("--match", match), ("--deal", deal)):
            if value is not None and value < 0:
                raise CardsimError(f"{name} must be at least 0, got {value}")
        return replay_run(
            source, game=game, match=match, deal=deal, rotation=rotation, hands=hands, form=form
        )
    info = resolve_game(str(source), "replay")
    if seed is None:
        raise CardsimError(f"--seed is needed to replay a game of {info.name} by its name")
    if form != "text":
        raise CardsimError("--format json|csv needs a run folder: cardsim replay DIR --game I")
    index = 0 if game is None else game
    deal = 0 if deal is None else deal
    request = make_request(
        str(source), players=players, games=1, seed=seed, rules=rules, strategies=strategies
    )
    if index < 0 or (match is not None and (match < 0 or deal < 0)):
        raise CardsimError(f"game, match and deal must be at least 0, got {index}, {match}, {deal}")
    options = {"hands": True} if hands else {}
    return info.spec.engine().replay(request, game=index, match=match, deal=deal, **options)
