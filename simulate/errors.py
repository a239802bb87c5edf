"""The one exception type that user mistakes raise.

Anything the user can get wrong (an unknown game, a malformed deal, a knob out of range)
raises :class:`CardsimError` with a one-line message that names the bad value and what is
allowed. The CLI prints that line and exits with code 2; the Python API lets it propagate.
"""


class CardsimError(ValueError):
    """A user-facing error: its message is one line, shown as is."""
