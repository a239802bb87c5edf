"""``cardsim sweep`` and ``compare``: house-rule studies and their comparisons."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from ...core.errors import CardsimError
from ..commands.runs import cluster_session
from .common import (
    DpiOpt,
    FormatsOpt,
    ThreadsOpt,
    app,
    chart_options,
    count,
    count_option,
    path_value,
    user_errors,
)
from .runs import SchedulerOpt

COMPARISON_FILES = ("report.html", "report.md", "comparison.csv")
"""What a comparison writes into its folder (besides its charts)."""

NegligibleShareOpt = Annotated[
    str | None,
    typer.Option(
        "--negligible-share",
        metavar="PTS",
        help="The verdict calls a change of a win share (or an end reason's share) under "
        "PTS percentage points negligible, however significant; 0 to under 100 (default: 0.5).",
    ),
]
NegligibleChangeOpt = Annotated[
    str | None,
    typer.Option(
        "--negligible-change",
        metavar="PCT",
        help="The verdict calls a change of a mean length or score under PCT percent "
        "negligible, however significant; 0 or more (default: 2).",
    ),
]


def verdict_options(share: str | None, change: str | None) -> dict[str, float]:
    """``--negligible-share`` and ``--negligible-change`` checked before anything is run or
    written, as ``write_comparison`` takes them; a bad value is a one-line error."""
    from analysis.comparisons.verdict import thresholds
    from analysis.errors import ReportError

    try:
        limits = thresholds(share, change, names=("--negligible-share", "--negligible-change"))
    except ReportError as exc:
        raise CardsimError(str(exc)) from None
    return {"negligible_share": limits.share, "negligible_change": limits.change}


@app.command()
@user_errors
def sweep(
    study_file: Annotated[
        Path,
        typer.Argument(
            metavar="STUDY.toml",
            help="A study file (see studies/ and docs/studies.md).",
            parser=path_value,
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            help="Folder of the study (default: results/<study>-<timestamp>).",
            parser=path_value,
        ),
    ] = None,
    games: Annotated[
        int | None,
        count_option(
            "Games per cell, instead of the study's, for a quick trial (default: the study's)."
        ),
    ] = None,
    threads: ThreadsOpt = None,
    report_: Annotated[
        bool,
        typer.Option("--report/--no-report", help="Write the comparison report at the end."),
    ] = True,
    force: Annotated[bool, typer.Option(help="Overwrite a folder that holds a study.")] = False,
    resume: Annotated[
        bool,
        typer.Option(help="Complete the study in --out: keep finished cells, resume the rest."),
    ] = False,
    dpi: DpiOpt = None,
    formats: FormatsOpt = None,
    negligible_share: NegligibleShareOpt = None,
    negligible_change: NegligibleChangeOpt = None,
    scheduler: SchedulerOpt = None,
    records: Annotated[
        str | None,
        typer.Option(
            metavar="all|none",
            help="all: every cell keeps every game's record; none: aggregate-only cells "
            "(exact counts and histograms), the variants of a player count played together "
            "so that the comparison stays paired (default: the study's records, else all).",
        ),
    ] = None,
):
    """Run a study's variants on the same deals, then compare them.

    Every variant x player count goes into OUT/<variant>-<players>p/ (the same seed: common
    random numbers), then the comparison report is written (with several player counts,
    one per count and one across them)."""
    from ..studies.file import load_study
    from ..studies.sweep import SweepInterrupted, plan_sweep, run_sweep

    charts = dict(zip(("dpi", "formats"), chart_options(dpi, formats), strict=True))
    charts |= verdict_options(negligible_share, negligible_change)
    if scheduler is not None:
        from ...runs.cluster import parse_address

        parse_address(scheduler)
    study = load_study(study_file)
    if out is None:
        if resume:
            raise CardsimError("--resume needs --out DIR, the folder of the study")
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        out = Path("results") / f"{study_file.stem}-{stamp}"
    plan = plan_sweep(study, out, games, threads, force, resume, records)
    counts = sorted({cell.players for cell in plan.cells})
    first = plan.cells[0].request
    unit = "match" if first.match_play else "game"
    kept = ", aggregate-only" if plan.records == "none" else ""
    typer.echo(
        f"{study.title}: {count(len(study.variants), 'variant')} x "
        f"{count(len(counts), 'player count')} ({', '.join(map(str, counts))}), "
        f"{count(first.games, unit)} each{kept}, "
        f"seed {study.seed} -> {out}",
        err=True,
    )
    try:
        with cluster_session(scheduler, threads) as cluster:
            if cluster is not None:
                typer.echo(f"on {cluster.text}", err=True)
            written = run_sweep(
                plan,
                echo=lambda line: typer.echo(line, err=True),
                compare=report_,
                charts=charts,
                cluster=cluster,
            )
    except SweepInterrupted as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(130) from None
    typer.echo(f"wrote {count(len(plan.cells), 'run folder')} in {out}")
    for path in written:
        typer.echo(f"wrote {path}")


@app.command()
@user_errors
def compare(
    run_dirs: Annotated[
        list[Path],
        typer.Argument(metavar="DIR...", help="Two or more run folders of the same game."),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            help="Folder of the comparison (default: results/compare-<timestamp>).",
            parser=path_value,
        ),
    ] = None,
    base: Annotated[
        str | None,
        typer.Option(
            help="The run the others are compared with, by folder name (default: the first)."
        ),
    ] = None,
    title: Annotated[
        str | None, typer.Option(help="Title of the report (default: from the runs).")
    ] = None,
    force: Annotated[
        bool, typer.Option(help="Overwrite a folder that holds a comparison.")
    ] = False,
    dpi: DpiOpt = None,
    formats: FormatsOpt = None,
    negligible_share: NegligibleShareOpt = None,
    negligible_change: NegligibleChangeOpt = None,
):
    """Compare runs side by side: write the comparison report (HTML and Markdown)."""
    from ...runs.folder.writer import read_meta
    from ..studies.sweep import comparison_writer

    dpi_, formats_ = chart_options(dpi, formats)
    verdict = verdict_options(negligible_share, negligible_change)
    if len(run_dirs) < 2:
        raise CardsimError(f"compare needs two or more run folders, got {len(run_dirs)}")
    names = [folder.name for folder in run_dirs]
    if len(set(names)) < len(names):
        names = [str(folder) for folder in run_dirs]
    if len(set(names)) < len(names):
        raise CardsimError(f"a folder is given twice: {', '.join(names)}")
    for folder in run_dirs:
        read_meta(folder)
    index = 0
    if base is not None:
        matches = [i for i, name in enumerate(names) if base in (name, str(run_dirs[i]))]
        if not matches:
            raise CardsimError(f"--base {base!r} is none of the runs; runs: {', '.join(names)}")
        index = matches[0]
    write_comparison = comparison_writer()
    if write_comparison is None:
        raise CardsimError(
            "this installation has no comparison reports (analysis.comparisons.report)"
        )
    if out is None:
        out = Path("results") / f"compare-{datetime.now().strftime('%Y%m%d-%H%M%S')}"
    from ...runs.folder.lock import lock_folder

    held = [name for name in COMPARISON_FILES if (out / name).exists()]
    if held and not force:
        raise CardsimError(
            f"{out} already holds a comparison ({', '.join(held)}); choose another --out or "
            "pass --force to overwrite it"
        )
    with lock_folder(out):
        written = write_comparison(
            run_dirs,
            out,
            names=names,
            base=index,
            title=title,
            dpi=dpi_,
            formats=formats_,
            **verdict,
        )
    for path in written:
        typer.echo(f"wrote {path}")
