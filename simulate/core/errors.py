"""The one exception type that user mistakes raise.

Anything the user can get wrong (an unknown game, a malformed deal, a knob out of range)
raises :class:`CardsimError` with a one-line message that names the bad value and what is
allowed. The CLI prints that line and exits with code 2; the Python API lets it propagate.
"""


class CardsimError(ValueError):
    """A user-facing error: its message is one line, shown as is.

    ``rule``: a rule change that would help (``"decks=2"``); the message ends with "try
    decks=2", and the command line writes it as it takes it ("try --rule decks=2")."""

    def __init__(self, message: str, *, rule: str | None = None):
        self.rule = rule
        super().__init__(f"{message}; try {rule}" if rule else message)

    def for_command_line(self) -> str:
        """The message as the command line shows it (a rule as ``--rule KNOB=VALUE``)."""
        text = str(self)
        if self.rule:
            text = text[: -len(f"try {self.rule}")] + f"try --rule {self.rule}"
        return text
