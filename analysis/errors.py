"""Errors raised while reading a run folder or writing its report: :class:`ReportError`
(defined with the run folder's reading, :mod:`simulate.runs.folder.records`, which raises it
too) and :class:`NeedsSingleGames`."""

from simulate.runs.folder.errors import ReportError

__all__ = ["NeedsSingleGames", "ReportError"]


class NeedsSingleGames(Exception):
    """An accumulator that an aggregate-only run cannot feed: the message says what it
    reads that the aggregates do not keep."""
