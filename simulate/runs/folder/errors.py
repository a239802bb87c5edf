"""The error of a run folder that cannot be read (imports nothing: the command line's
one-line errors load it on every mistake)."""


class ReportError(Exception):
    """A run folder cannot be read or its report cannot be written (raised by the run
    folder's reading, :mod:`simulate.runs.folder.records`, and by :mod:`analysis`, which gives
    it as :class:`analysis.errors.ReportError`).

    The message is one line and names the offending path; the CLI prints it and exits
    with status 2.
    """
