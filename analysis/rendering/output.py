"""Writing a report into a folder: ``report.html``, ``report.md``, ``charts/*.png|svg`` and
any extra files, each under a temporary name then renamed into place."""

from __future__ import annotations

import io
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from matplotlib import rc_context
from matplotlib.figure import Figure

from analysis.errors import ReportError
from analysis.rendering.document import Block, to_html, to_markdown


def write_document(
    folder: Path,
    blocks: Sequence[Block],
    figures: Mapping[str, Figure],
    page_title: str,
    extra: Mapping[str, bytes] | None = None,
) -> tuple[Path, Path]:
    """Write the report of ``blocks`` into ``folder`` (created if missing): each figure as
    ``charts/<name>.png`` and ``.svg``, ``report.md`` linking the PNGs, ``report.html`` with
    them embedded, and ``extra`` (file name → bytes) beside them. Returns ``(html_path,
    markdown_path)``; raises :class:`ReportError` naming the path that could not be written."""
    png = {name: render(fig, "png") for name, fig in figures.items()}
    charts_dir = folder / "charts"
    html_path, md_path = folder / "report.html", folder / "report.md"
    try:
        charts_dir.mkdir(parents=True, exist_ok=True)
        for name, fig in figures.items():
            write_atomic(charts_dir / f"{name}.png", png[name])
            write_atomic(charts_dir / f"{name}.svg", render(fig, "svg"))
        for name, data in (extra or {}).items():
            write_atomic(folder / name, data)
        write_atomic(md_path, to_markdown(blocks).encode("utf-8"))
        write_atomic(html_path, to_html(blocks, page_title, png).encode("utf-8"))
    except OSError as exc:
        raise ReportError(f"{exc.filename or folder}: cannot write report: {exc.strerror}") from exc
    return html_path, md_path


def render(fig: Figure, fmt: str) -> bytes:
    """The figure as ``png`` (110 dpi) or ``svg`` bytes; the SVG is identical from one run
    to the next (fixed hash salt, no date)."""
    buf = io.BytesIO()
    with rc_context({"svg.hashsalt": "cardsim"}):
        fig.savefig(buf, format=fmt, dpi=110, metadata={"Date": None} if fmt == "svg" else None)
    return buf.getvalue()


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same folder and a rename, so
    readers never see a half-written file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
