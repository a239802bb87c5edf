"""Writing a report into a folder: ``report.html``, ``report.md``, ``charts/*.png|svg|pdf``
and any extra files, each under a temporary name then renamed into place."""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Mapping, Sequence
from numbers import Integral, Real
from pathlib import Path
from typing import TYPE_CHECKING

from analysis.errors import ReportError
from analysis.rendering.document import Block, to_html, to_markdown

if TYPE_CHECKING:  # matplotlib is imported where a chart is drawn, not to check --dpi
    from matplotlib.figure import Figure

CHART_FORMATS = ("png", "svg", "pdf")
"""The formats a chart can be written in."""
DEFAULT_FORMATS = CHART_FORMATS
"""The formats a report writes when none is asked for: all three."""
DEFAULT_DPI = 200
"""Resolution of the PNG charts (the ones in ``charts/`` and the ones embedded in HTML)."""
DPI_RANGE = (50, 1200)
"""The resolutions allowed, inclusive."""


def chart_formats(formats: str | Iterable[str] | None, option: str = "formats") -> tuple[str, ...]:
    """The chart formats asked for, checked: ``"png,svg"`` or ``["png", "svg"]`` (any
    order, case and spacing; repeats dropped) → ``("png", "svg")``; ``None`` →
    :data:`DEFAULT_FORMATS`. Raises :class:`ReportError` naming ``option`` and the first
    unknown value, and what is allowed."""
    if formats is None:
        return DEFAULT_FORMATS
    items = formats.split(",") if isinstance(formats, str) else list(formats)
    chosen: list[str] = []
    allowed = ", ".join(CHART_FORMATS)
    for item in items:
        name = str(item).strip().lower()
        if name not in CHART_FORMATS:
            shown = repr(str(item).strip()) if str(item).strip() else "an empty name"
            raise ReportError(
                f"{option}: {shown} is not a chart format; allowed: {allowed} "
                "(one or more, comma-separated)"
            )
        if name not in chosen:
            chosen.append(name)
    if not chosen:
        raise ReportError(f"{option}: no chart format given; allowed: {allowed}")
    return tuple(chosen)


def chart_dpi(dpi: int | str | None, option: str = "dpi") -> int:
    """The PNG resolution asked for, checked: a whole number from ``DPI_RANGE``; ``None`` →
    :data:`DEFAULT_DPI`. Raises :class:`ReportError` naming ``option``, the bad value and
    what is allowed."""
    if dpi is None:
        return DEFAULT_DPI
    low, high = DPI_RANGE
    value = None
    if isinstance(dpi, str):
        try:
            value = int(dpi.strip())
        except ValueError:
            pass
    elif isinstance(dpi, Integral) and not isinstance(dpi, bool):
        value = int(dpi)
    elif isinstance(dpi, Real) and float(dpi).is_integer():
        value = int(dpi)
    if value is None or not low <= value <= high:
        raise ReportError(
            f"{option}: {dpi!r} is not allowed; give a whole number from {low} to {high}"
        )
    return value


def write_document(
    folder: Path,
    blocks: Sequence[Block],
    figures: Mapping[str, Figure],
    page_title: str,
    extra: Mapping[str, bytes] | None = None,
    *,
    dpi: int | str | None = None,
    formats: str | Iterable[str] | None = None,
) -> tuple[Path, Path]:
    """Write the report of ``blocks`` into ``folder`` (created if missing): each figure as
    ``charts/<name>.<format>`` for each of ``formats`` (default png, svg and pdf; see
    :func:`chart_formats`), PNG at ``dpi`` (default :data:`DEFAULT_DPI`), ``report.md``
    showing the PNGs (the SVGs without PNG) and linking the other formats, ``report.html``
    with the PNGs embedded (whatever ``formats`` says), and ``extra`` (file name → bytes)
    beside them. ``dpi`` and ``formats`` are checked before anything is written. Returns
    ``(html_path, markdown_path)``; raises :class:`ReportError` naming the bad option or
    the path that could not be written."""
    formats = chart_formats(formats)
    dpi = chart_dpi(dpi)
    png = {name: render(fig, "png", dpi) for name, fig in figures.items()}
    for fig in figures.values():
        # the layout engine found the figure's layout while drawing its PNG (always drawn:
        # the HTML embeds it); the other formats, drawn without it, keep that layout and
        # save most of their time
        fig.set_layout_engine("none")
    charts_dir = folder / "charts"
    html_path, md_path = folder / "report.html", folder / "report.md"
    try:
        charts_dir.mkdir(parents=True, exist_ok=True)
        for name, fig in figures.items():
            for fmt in formats:
                data = png[name] if fmt == "png" else render(fig, fmt, dpi)
                write_atomic(charts_dir / f"{name}.{fmt}", data)
        for name, data in (extra or {}).items():
            write_atomic(folder / name, data)
        write_atomic(md_path, to_markdown(blocks, formats).encode("utf-8"))
        write_atomic(html_path, to_html(blocks, page_title, png).encode("utf-8"))
    except OSError as exc:
        raise ReportError(f"{exc.filename or folder}: cannot write report: {exc.strerror}") from exc
    return html_path, md_path


def render(fig: Figure, fmt: str, dpi: int = DEFAULT_DPI) -> bytes:
    """The figure as ``png`` (at ``dpi``, recorded in the file), ``svg`` or ``pdf`` bytes;
    the SVG and the PDF are identical from one run to the next (fixed hash salt, no
    date)."""
    from matplotlib import rc_context

    buf = io.BytesIO()
    metadata = {"svg": {"Date": None}, "pdf": {"CreationDate": None}}.get(fmt)
    with rc_context({"svg.hashsalt": "cardsim"}):
        fig.savefig(buf, format=fmt, dpi=dpi, metadata=metadata)
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
