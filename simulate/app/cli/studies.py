"""``cardsim sweep`` and ``compare``: house-rule studies and their comparisons."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from ...core.errors import CardsimError
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
    from ..api import write_sweep
    from ..studies.sweep import SweepInterrupted

    dpi_, formats_ = chart_options(dpi, formats)
    verdict = verdict_options(negligible_share, negligible_change)
    if scheduler is not None:
        from ...runs.cluster import parse_address

        parse_address(scheduler)
    if out is None:
        if resume:
            raise CardsimError("--resume needs --out DIR, the folder of the study")
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        out = Path("results") / f"{study_file.stem}-{stamp}"
    try:
        written = write_sweep(
            study_file,
            out=out,
            games=games,
            threads=threads,
            force=force,
            resume=resume,
            report=report_,
            progress=True,
            scheduler=scheduler,
            records=records,
            dpi=dpi_,
            formats=formats_,
            **verdict,
        )
    except SweepInterrupted as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(130) from None
    typer.echo(f"wrote {count(len(written.runs), 'run folder')} in {out}")
    for path in written.reports:
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
    from ..api import write_compare

    dpi_, formats_ = chart_options(dpi, formats)
    verdict = verdict_options(negligible_share, negligible_change)
    if out is None:
        out = Path("results") / f"compare-{datetime.now().strftime('%Y%m%d-%H%M%S')}"
    written = write_compare(
        *run_dirs,
        out=out,
        base=base,
        title=title,
        force=force,
        dpi=dpi_,
        formats=formats_,
        **verdict,
    )
    for path in written:
        typer.echo(f"wrote {path}")
