"""Errors raised while reading a run folder or writing its report."""


class ReportError(Exception):
    """A run folder cannot be read or its report cannot be written.

    The message is one line and names the offending path; the CLI prints it and exits
    with status 2.
    """


class NeedsSingleGames(Exception):
    """An accumulator that an aggregate-only run cannot feed: the message says what it
    reads that the aggregates do not keep."""
