"""The report of one run folder: ``report.html`` (self-contained) and ``report.md`` +
``charts/``.

:func:`write_report` and :func:`build_report` are the dispatcher: a game's spec names the
builder of its family's report (``GameSpec.report_path``, ``"module:function"``); a game
that names none gets the generic one. Inside:

- :mod:`~analysis.reports.common`: the sections every report shares (run details, length,
  win share and end-reason tables, convergence);
- :mod:`~analysis.reports.generic`: the report built from a game's spec alone;
- :mod:`~analysis.reports.beggar`: Beggar-My-Neighbour's (cycles, deals to replay);
- :mod:`~analysis.reports.shedding`: the shedding games' (Pis Yedili, Crazy Eights...),
  with its sections on scores (:mod:`~analysis.reports.scores`) and on matches played to
  a target score (:mod:`~analysis.reports.matches`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from matplotlib.figure import Figure

from analysis.load import RunFolder, open_run
from analysis.rendering.document import Block
from analysis.rendering.output import chart_dpi, chart_formats, write_document
from analysis.rendering.words import game_name
from analysis.summary import SUMMARY_FILE, summary_along, summary_csv
from simulate.games.spec import load

__all__ = ["build_report", "write_report"]


def write_report(
    run_dir: str | Path,
    top: int = 10,
    *,
    dpi: int | None = None,
    formats: str | Sequence[str] | None = None,
    status: Callable[[str], None] = lambda step: None,
) -> tuple[Path, Path]:
    """Write ``report.html``, ``report.md`` and ``charts/*.png|svg|pdf`` into the run folder
    (Beggar-My-Neighbour or a shedding game).

    ``top`` is how many of the longest deals to list. The charts are written as PNG at
    ``dpi`` (default 200) and in each of ``formats`` (default ``"png,svg,pdf"``), both
    checked before anything is read or written
    (:func:`analysis.rendering.output.write_document`). ``summary.csv`` beside them holds
    the headline figures as plain numbers (:mod:`analysis.summary`). The games are read in
    batches of the columns the report needs, so memory stays bounded whatever the run's
    size. Every file is written under a temporary name and renamed into place. Returns
    ``(html_path, markdown_path)``. Raises :class:`ReportError` when the folder cannot be
    read or written. ``status`` hears each step as it begins ("reading 1,000,000 games",
    "drawing the charts and writing the files"), for a long report's progress line.
    """
    dpi, formats = chart_dpi(dpi), chart_formats(formats)
    run = open_run(run_dir)
    summary = summary_along(run)  # counted in the builder's pass over the records
    status(f"reading {run.rows:,} records and computing the figures")
    blocks, figures = build_report(run, top)
    status(f"drawing {len(figures)} charts and writing the files")
    return write_document(
        run.path,
        blocks,
        figures,
        f"{game_name(run.meta['game'])} report",
        {SUMMARY_FILE: summary_csv(summary())},
        dpi=dpi,
        formats=formats,
    )


def build_report(run: RunFolder, top: int = 10) -> tuple[list[Block], dict[str, Figure]]:
    """The report's blocks and its charts (chart name → Figure), from one pass over the
    games: the builder the game's spec names (Beggar-My-Neighbour's,
    :func:`analysis.reports.beggar.build_beggar_report`; a shedding game's,
    :func:`analysis.reports.shedding.build_shedding_report`), or the generic one."""
    path = run.spec.report_path
    if path is None:
        from analysis.reports.generic import build_generic_report

        return build_generic_report(run, top)
    return load(path)(run, top)
