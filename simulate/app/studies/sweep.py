"""Running a study (``cardsim sweep``): one run folder per cell, then the comparisons.

``OUT/`` receives ``study.toml`` (a copy of the study file), one ordinary run folder per
cell, ``OUT/<variant>-<players>p/``, and the comparison report of the variants: in ``OUT/``
itself when the study has one player count, else one per count in ``OUT/compare-<N>p/``
and, across the counts, one in ``OUT/`` (``players.csv``: each measure by player count and
variant, :mod:`analysis.comparisons.players`).

Everything is checked before anything is written (:func:`plan_sweep`). A folder that
already holds a study is refused unless ``force`` (its cells are overwritten) or ``resume``
(finished cells are kept, an interrupted one is completed, missing ones are run; a cell
whose folder holds a run of other settings is refused). Each cell streams through
:func:`simulate.runs.engine.stream`, so an interruption keeps its finished chunks.

With ``records="none"`` (``--records none``, or ``records = "none"`` in the study) every
cell is an aggregate-only run folder, and the cells of one player count are played
together, range by range, so that each variant keeps its paired counts against the base
and the comparison stays paired (:mod:`simulate.runs.paired_runs`).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path

from ...core.errors import CardsimError
from ...core.skill import SKILL_FOLDER
from ...runs.folder.lock import FolderInUse, is_locked, lock_folder
from ...runs.folder.paths import check_writable
from ...runs.folder.writer import RunWriter, crashed, holds_run, read_meta, write_atomic
from ...runs.request import request_from_meta
from .file import Cell, Study

STUDY_COPY = "study.toml"
RUN, RESUME, SKIP = "run", "resume", "skip"


class SweepInterrupted(Exception):
    """Ctrl-C or SIGTERM stopped a cell; finished cells and chunks were kept."""


@dataclass(frozen=True)
class SweepPlan:
    """A checked sweep: its cells and what to do with each (run, resume or skip)."""

    study: Study
    out: Path
    cells: list[Cell]
    actions: list[str]
    games: int | None
    """The ``--games`` override, or None."""
    skill_actions: list[str] | None = None
    """What to do with each cell's skill games (``<cell>/skill``), where the study asks
    for them (``skill = "..."``)."""
    records: str = "all"
    """What each cell keeps: ``all`` its records, ``none`` its statistics and, for a
    variant, its paired counts against the base (aggregate-only cells)."""

    def cell_folder(self, cell: Cell) -> Path:
        return self.out / cell.folder_name

    def comparison_folder(self, players: int) -> Path:
        """Where the comparison at ``players`` goes: OUT, or OUT/compare-<N>p."""
        counts = sorted({cell.players for cell in self.cells})
        return self.out if len(counts) == 1 else self.out / f"compare-{players}p"

    def resume_command(self) -> str:
        trial = f" --games {self.games}" if self.games is not None else ""
        if self.records != self.study.records:
            trial += f" --records {self.records}"
        return f"cardsim sweep {self.study.path} --out {self.out} --resume{trial}"


def describe(plan: SweepPlan) -> str:
    """The line that says what a sweep plays: the study, its variants and player counts,
    the games of each cell, and where it goes."""
    from analysis.rendering.words import count_text

    counts = sorted({cell.players for cell in plan.cells})
    first = plan.cells[0].request
    kept = ", aggregate-only" if plan.records == "none" else ""
    return (
        f"{plan.study.title}: {count_text(len(plan.study.variants), 'variant')} x "
        f"{count_text(len(counts), 'player count')} ({', '.join(map(str, counts))}), "
        f"{count_text(first.games, first.unit)} each{kept}, seed {plan.study.seed} -> "
        f"{plan.out}"
    )


def plan_sweep(
    study: Study,
    out: str | Path,
    games: int | None = None,
    threads: int | None = None,
    force: bool = False,
    resume: bool = False,
    records: str | None = None,
) -> SweepPlan:
    """Check the study's cells and the output folder; raise CardsimError, writing nothing.
    ``records``: what the cells keep, ``all`` or ``none`` (default: the study's)."""
    out = Path(out)
    if force and resume:
        raise CardsimError("give --resume (complete the study in --out) or --force, not both")
    records = study.records if records is None else records
    _check_records(study, records)
    cells = [
        replace(cell, request=replace(cell.request, records=records))
        for cell in study.cells(games, threads)
    ]
    if is_locked(out):
        raise FolderInUse(f"{out} is in use by another sweep; wait for it to finish")
    check_writable(out)
    held = (out / STUDY_COPY).exists() or any(holds_run(out / c.folder_name) for c in cells)
    if resume and not (out / STUDY_COPY).exists():
        raise CardsimError(f"{out} holds no study to resume (no {STUDY_COPY}); drop --resume")
    if held and not (force or resume):
        raise CardsimError(
            f"{out} already holds a study; pass --resume to complete it or --force to "
            "overwrite it, or choose another --out"
        )
    actions = [_action(out / cell.folder_name, cell, games) if resume else RUN for cell in cells]
    skill_actions = [
        _action(out / cell.folder_name / SKILL_FOLDER, _skill_cell(cell), games)
        if resume and cell.skill is not None
        else RUN
        for cell in cells
    ]
    return SweepPlan(study, out, cells, actions, games, skill_actions, records)


def _check_records(study: Study, records: str) -> None:
    """Refuse, in one line, a ``records`` value the cells cannot keep."""
    from ...runs.request import check_records

    check_records(records, "--records")
    if records == "none" and study.skill is not None:
        raise study.error(
            ("skill",),
            "skill games cannot be aggregate-only (skill is counted deal by deal, over each "
            "deal's seatings): drop the skill key, or keep every record with --records all",
        )


def _skill_cell(cell: Cell) -> Cell:
    """The cell of ``cell``'s skill games: its variant and players, the skill request."""
    return Cell(cell.variant, cell.players, cell.skill)


def _action(folder: Path, cell: Cell, games: int | None) -> str:
    """What --resume does with one cell's folder: run it, resume it or skip it."""
    if not holds_run(folder):
        return RUN
    meta = read_meta(folder)
    held, records = meta.get("records", "all"), cell.request.records
    if held != records:
        raise CardsimError(
            f"{folder} holds a run with --records {held}, not {records} as this sweep asks; "
            f"give --records {held} to complete it, or --force to overwrite it"
        )
    run = request_from_meta(meta).identity()
    for key, value in cell.request.identity().items():
        if run[key] != value:
            hint = " (was it run with another --games?)" if key == "games" else ""
            raise CardsimError(
                f"{folder} holds a run with {key} {run[key]!r}, not {value!r} as this "
                f"study asks{hint}; pass --force to overwrite it"
            )
    status = meta.get("status")
    if status == "complete":
        return SKIP
    if status == "interrupted" or crashed(folder, meta):
        return RESUME
    if status == "running":
        raise FolderInUse(f"{folder} is in use by another run; wait for it to finish")
    raise CardsimError(f"{folder} holds a run with status {status!r}; pass --force to redo it")


def run_sweep(
    plan: SweepPlan,
    *,
    progress: bool = True,
    compare: bool = True,
    echo: Callable[[str], None] = print,
    chunk_size: int | None = None,
    charts: dict | None = None,
    cluster=None,
) -> list[Path]:
    """Run every cell of the plan, then (``compare``) write the comparison reports, with
    ``charts`` (``dpi``, ``formats``; the verdict's ``negligible_share``,
    ``negligible_change``) passed on to ``write_comparison``.

    ``cluster`` (:class:`simulate.runs.cluster.session.Cluster`): where the cells' games are
    played, if not here (each cell's run folder is written here all the same).

    Returns the comparison reports written (HTML and Markdown paths). Raises
    :class:`SweepInterrupted` when a cell is interrupted (its finished chunks are kept).
    """
    with lock_folder(plan.out):
        try:
            write_atomic(plan.out / STUDY_COPY, plan.study.text.encode("utf-8"))
        except OSError as exc:
            raise CardsimError(f"cannot write into {plan.out}: {exc.strerror}") from None
        _run_cells(plan, progress, echo, chunk_size, cluster)
        return write_comparisons(plan, echo, **(charts or {})) if compare else []


def _run_cells(
    plan: SweepPlan, progress: bool, echo: Callable[[str], None], chunk_size, cluster=None
) -> None:
    if plan.records == "none":
        for players in sorted({cell.players for cell in plan.cells}):
            _play_together(plan, players, progress, echo, chunk_size, cluster)
        return
    total = len(plan.cells)
    skill_actions = plan.skill_actions or [RUN] * total
    for number, cell in enumerate(plan.cells, 1):
        folder = plan.cell_folder(cell)
        label = f"[{number}/{total}] {cell.variant.name}, {cell.players} players"
        runs = [(cell.request, folder, plan.actions[number - 1], f"{label} -> {folder}")]
        if cell.skill is not None:  # the study's skill games, into <cell>/skill
            skill = folder / SKILL_FOLDER
            runs.append(
                (cell.skill, skill, skill_actions[number - 1], f"{label}, skill -> {skill}")
            )
        for request, where, action, text in runs:
            _play(plan, request, where, action, text, progress, echo, chunk_size, cluster)


def _play(
    plan, request, folder: Path, action: str, label: str, progress, echo, chunk_size, cluster=None
):
    """One run of the study into ``folder``: played (``run``), completed (``resume``) or
    kept (``skip``)."""
    from ..api.playing import DEFAULT_CHUNK, RunInterrupted, stream

    if action == SKIP:
        echo(f"{label}: complete, kept")
        return
    if action == RESUME:
        writer, _ = RunWriter.resume(folder)
        units = "matches" if request.match_play else "games"
        echo(f"{label}: resuming after {writer.manifest.completed:,} {units}")
    else:
        writer = RunWriter(folder, request.meta(), force=True)
        echo(label)
    with writer:
        try:
            stream(
                request,
                writer,
                progress=progress,
                chunk_size=chunk_size or DEFAULT_CHUNK,
                play=None if cluster is None else cluster.play_chunks,
            )
        except RunInterrupted as exc:
            what = "complete, then interrupted" if exc.complete else str(exc)
            raise SweepInterrupted(
                f"{label}: {what}; the finished cells are kept; resume with: "
                f"{plan.resume_command()}"
            ) from None


def _play_together(
    plan: SweepPlan, players: int, progress, echo: Callable[[str], None], chunk_size, cluster
) -> None:
    """The aggregate-only cells of ``players``, played together (:mod:`simulate.runs.paired_runs`):
    each range of games of every variant, its statistics and paired counts written into
    the cells' folders; complete cells are kept (and played again only as the base of
    another cell's pairs)."""
    from ...runs.paired_runs import CellsWriter, play_here
    from ..api.playing import DEFAULT_CHUNK, RunInterrupted, stream

    cells = [(i, cell) for i, cell in enumerate(plan.cells) if cell.players == players]
    total = len(plan.cells)
    with ExitStack() as stack:
        writers = []
        for i, cell in cells:
            folder = plan.cell_folder(cell)
            label = f"[{i + 1}/{total}] {cell.variant.name}, {players} players -> {folder}"
            action = plan.actions[i]
            writer = None
            if action == SKIP:
                echo(f"{label}: complete, kept")
            elif action == RESUME:
                writer, _ = RunWriter.resume(folder)
                stack.enter_context(writer)
                units = "matches" if cell.request.match_play else "games"
                echo(f"{label}: resuming after {writer.manifest.completed:,} {units}")
            else:
                writer = stack.enter_context(RunWriter(folder, cell.request.meta(), force=True))
                echo(label)
            writers.append(writer)
        if all(writer is None for writer in writers):
            return
        names = ", ".join(cell.variant.name for _, cell in cells)
        echo(f"{players} players: {names} played together (aggregate-only, paired)")
        requests = [cell.request for _, cell in cells]
        if cluster is None:
            play = play_here(requests)
        else:
            from ...runs.cluster.together import play_on

            play = play_on(cluster, requests)
        try:
            stream(
                requests[0],
                CellsWriter(writers, plan.out),
                progress=progress,
                chunk_size=chunk_size or DEFAULT_CHUNK,
                play=play,
            )
        except RunInterrupted as exc:
            what = "complete, then interrupted" if exc.complete else str(exc)
            raise SweepInterrupted(
                f"{players} players ({names}): {what}; the finished cells and chunks are "
                f"kept; resume with: {plan.resume_command()}"
            ) from None


def write_comparisons(plan: SweepPlan, echo: Callable[[str], None] = print, **charts) -> list[Path]:
    """One comparison report per player count (the first variant is the base), and with
    several counts the report across them; ``charts`` (``dpi``, ``formats``,
    ``negligible_share``, ``negligible_change``) as ``write_comparison`` takes them."""
    write_comparison = comparison_writer()
    if write_comparison is None:
        echo("comparison report skipped: this installation has no analysis.comparisons.report")
        return []
    written: list[Path] = []
    counts = sorted({cell.players for cell in plan.cells})
    for players in counts:
        cells = [cell for cell in plan.cells if cell.players == players]
        title = plan.study.title + (f", {players} players" if len(counts) > 1 else "")
        folder = plan.comparison_folder(players)
        folder.mkdir(parents=True, exist_ok=True)
        paths = write_comparison(
            [plan.cell_folder(cell) for cell in cells],
            folder,
            names=[cell.variant.name for cell in cells],
            base=0,
            title=title,
            **charts,
        )
        written.extend(Path(path) for path in paths)
    if len(counts) > 1:
        from analysis.comparisons.players import write_players_report

        folders = [plan.comparison_folder(players) for players in counts]
        charts_only = {k: v for k, v in charts.items() if k in ("dpi", "formats")}
        paths = write_players_report(plan.out, folders, title=plan.study.title, **charts_only)
        written.extend(Path(path) for path in paths)
    return written


def comparison_writer():
    """``analysis.comparisons.report.write_comparison``, or None where that module is missing."""
    try:
        from analysis.comparisons.report import write_comparison
    except ModuleNotFoundError as exc:
        if exc.name not in ("analysis.comparisons", "analysis.comparisons.report"):
            raise
        return None
    return write_comparison
