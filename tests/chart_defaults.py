"""The report defaults in tests: charts as PNG at the lowest resolution allowed, for every
report a test writes (``tests/conftest.py`` sets them for the whole test run), except where
the defaults themselves are under test (:func:`print_defaults`: every format at 200 dpi)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from analysis.rendering import output

SMALL_DPI, SMALL_FORMATS = output.DPI_RANGE[0], ("png",)
"""The tests' defaults: PNG only, at the lowest resolution allowed."""

SMALL_CHARTS = ("--formats", ",".join(SMALL_FORMATS), "--dpi", str(SMALL_DPI))
"""The flags that give a ``cardsim`` subprocess the tests' small charts (it does not see
the defaults this process sets)."""

SMALL_CHARTS_CODE = (
    "from analysis.rendering import output\n"
    f"output.DEFAULT_DPI, output.DEFAULT_FORMATS = {SMALL_DPI!r}, {SMALL_FORMATS!r}"
)
"""The same for another interpreter (a notebook's kernel), as code for it to run first."""

PRINT_DPI, PRINT_FORMATS = output.DEFAULT_DPI, output.DEFAULT_FORMATS
"""What a user's report writes unless told otherwise (read before any test changes them)."""


@contextlib.contextmanager
def charts(dpi: int, formats: tuple[str, ...]) -> Iterator[None]:
    """Reports written inside default to ``formats`` at ``dpi``; the defaults before after."""
    before = output.DEFAULT_DPI, output.DEFAULT_FORMATS
    output.DEFAULT_DPI, output.DEFAULT_FORMATS = dpi, formats
    try:
        yield
    finally:
        output.DEFAULT_DPI, output.DEFAULT_FORMATS = before


def small_charts() -> contextlib.AbstractContextManager[None]:
    """The tests' defaults: PNG only, at the lowest resolution allowed."""
    return charts(SMALL_DPI, SMALL_FORMATS)


def print_defaults() -> contextlib.AbstractContextManager[None]:
    """A user's defaults: every format, PNG at 200 dpi."""
    return charts(PRINT_DPI, PRINT_FORMATS)


def every_format() -> contextlib.AbstractContextManager[None]:
    """A user's formats (PNG, SVG and PDF), the PNG at the lowest resolution: for the
    reports whose tests read every file written by default but not the PNG's resolution
    (``print_defaults`` is for those)."""
    return charts(SMALL_DPI, PRINT_FORMATS)
