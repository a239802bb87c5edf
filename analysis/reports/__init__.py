"""The report of one run folder: ``report.html`` (self-contained) and ``report.md`` +
``charts/``.

:func:`write_report` and :func:`build_report` are the dispatcher: a game's spec names the
builder of its family's report (``GameSpec.report_path``, ``"module:function"``); a game
that names none gets the generic one. Inside:

- :mod:`~analysis.reports.common`: the sections every report shares (run details, length,
  win share and end-reason tables, convergence);
- :mod:`~analysis.reports.balance`: the "Balance" section every report has, after the run
  details (the measures of :mod:`analysis.balance`, skill from the folder's skill games);
- :mod:`~analysis.reports.generic`: the report built from a game's spec alone;
- :mod:`~analysis.reports.beggar`: Beggar-My-Neighbour's (cycles, deals to replay);
- :mod:`~analysis.reports.shedding`: the shedding games' (Pis Yedili, Crazy Eights...),
  with its sections on scores (:mod:`~analysis.reports.scores`) and on matches played to
  a target score (:mod:`~analysis.reports.matches`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from numbers import Integral
from pathlib import Path

from matplotlib.figure import Figure

from analysis.balance import BALANCE_FILE, balance_csv
from analysis.errors import ReportError
from analysis.load import RunFolder, open_run
from analysis.rendering.document import Block, Heading
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

    ``top`` is how many of the longest deals to list (at least 1). The charts are written as PNG at
    ``dpi`` (default 200) and in each of ``formats`` (default ``"png,svg,pdf"``), both
    checked before anything is read or written
    (:func:`analysis.rendering.output.write_document`). ``summary.csv`` beside them holds
    the headline figures as plain numbers (:mod:`analysis.summary`), and ``balance.csv``
    the balance measures (:mod:`analysis.balance`). The games are read in
    batches of the columns the report needs, so memory stays bounded whatever the run's
    size. Every file is written under a temporary name and renamed into place. Returns
    ``(html_path, markdown_path)``. Raises :class:`ReportError` when the folder cannot be
    read or written. ``status`` hears each step as it begins ("reading 1,000,000 games",
    "drawing the charts and writing the files"), for a long report's progress line.
    """
    dpi, formats = chart_dpi(dpi), chart_formats(formats)
    if isinstance(top, bool) or not isinstance(top, Integral) or top < 1:
        raise ReportError(f"--top must be a whole number of at least 1, got {top!r}")
    run = open_run(run_dir)
    summary = summary_along(run)  # counted in the builder's pass over the records
    status(f"reading {run.rows:,} records and computing the figures")
    blocks, figures, balance = _build(run, top)
    status(f"drawing {len(figures)} charts and writing the files")
    return write_document(
        run.path,
        blocks,
        figures,
        f"{game_name(run.meta['game'])} report",
        {SUMMARY_FILE: summary_csv(summary()), BALANCE_FILE: balance_csv(balance)},
        dpi=dpi,
        formats=formats,
    )


def build_report(run: RunFolder, top: int = 10) -> tuple[list[Block], dict[str, Figure]]:
    """The report's blocks and its charts (chart name → Figure), from one pass over the
    games: the builder the game's spec names (Beggar-My-Neighbour's,
    :func:`analysis.reports.beggar.build_beggar_report`; a shedding game's,
    :func:`analysis.reports.shedding.build_shedding_report`), or the generic one, with the
    "Balance" section every report has (:mod:`analysis.reports.balance`) after the run's
    details."""
    blocks, figures, _ = _build(run, top)
    return blocks, figures


def _build(run: RunFolder, top: int):
    """The blocks, the charts and the balance measures' table of ``run``'s report."""
    from analysis.reports.balance import balance_along, balance_section

    balance = balance_along(run)  # counted in the builder's pass over the records
    path = run.spec.report_path
    if path is None:
        from analysis.reports.generic import build_generic_report

        blocks, figures = build_generic_report(run, top)
    else:
        blocks, figures = load(path)(run, top)
    from analysis.reports.logs import log_section
    from analysis.reports.trace import trace_section

    logged, log_figures = log_section(run)  # "Inside the game": only a run with --log
    traced, trace_figures = trace_section(run)  # "Win chances": only a run with --trace
    blocks = [*blocks, *logged, *traced]
    figures = {**figures, **log_figures, **trace_figures}
    found = balance()
    if run.aggregates is not None:
        blocks, figures = _without_single_games(blocks, figures, run.aggregates)
    return _after_details(blocks, balance_section(found)), figures, found.table


def _without_single_games(
    blocks: list[Block], figures: dict, aggregates
) -> tuple[list[Block], dict]:
    """An aggregate-only run's report (``--records none``): the convergence section,
    which needs the games in the order played, replaced by a sentence saying so."""
    from analysis.aggregates import single_records_note
    from analysis.rendering.document import Paragraph

    note = Paragraph(single_records_note(aggregates))
    headings = [i for i, block in enumerate(blocks) if isinstance(block, Heading)]
    at = next((i for i in headings if blocks[i].text == "Convergence"), None)
    if at is None:
        return [*blocks, Heading("Convergence"), note], figures
    after = next((i for i in headings if i > at), len(blocks))
    figures = {name: figure for name, figure in figures.items() if name != "convergence"}
    return [*blocks[: at + 1], note, *blocks[after:]], figures


def _after_details(blocks: list[Block], section: list[Block]) -> list[Block]:
    """``blocks`` with ``section`` before the heading that follows "Run details" (at the
    end when there is none)."""
    headings = [i for i, block in enumerate(blocks) if isinstance(block, Heading)]
    details = [i for i in headings if blocks[i].text == "Run details"]
    after = [i for i in headings if details and i > details[0]]
    at = after[0] if after else len(blocks)
    return [*blocks[:at], *section, *blocks[at:]]
