"""The ``cardsim`` command line (typer), one module per group of commands:

- :mod:`.runs`: ``simulate``, ``report``, ``verify``;
- :mod:`.balance`: ``balance`` (a run, its skill games and every balance measure);
- :mod:`.studies`: ``sweep``, ``compare``;
- :mod:`.explore`: ``explore`` (a search of the rule space for balanced house rules);
- :mod:`.strategies`: ``tournament``, ``ladder``, ``tune``;
- :mod:`.games`: ``rules``, ``play``, ``replay``, ``search``.

Every user mistake ends in one line on stderr naming the bad value and what is allowed,
and exit code 2 (usage mistakes that typer catches too: see :func:`main`); an interrupted
run keeps its finished games and exits with code 130.
"""

from __future__ import annotations

import typer

from . import balance, explore, games, runs, strategies, studies
from .common import app

ORDER = [module.__name__ for module in (runs, balance, studies, explore, strategies, games)]
"""The order of the commands in ``cardsim --help``: a run first, one game last."""
app.registered_commands.sort(key=lambda command: ORDER.index(command.callback.__module__))


__all__ = ["app", "main"]


def main() -> None:
    """Console-script entry point.

    Usage mistakes that typer finds itself (a missing argument, ``--games abc``, an unknown
    option) are printed as one ``error:`` line with exit code 2, like every other mistake.
    """
    import sys

    if len(sys.argv) < 2:
        app()  # the help
        return
    usage_error = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")
    previous = _sigterm_as_ctrl_c()
    try:
        code = app(standalone_mode=False)
    except usage_error as exc:
        message = " ".join(exc.format_message().split())
        context = getattr(exc, "ctx", None)
        hint = f" (see '{context.command_path} --help')" if context is not None else ""
        typer.echo(f"error: {message}{hint}", err=True)
        raise SystemExit(exc.exit_code) from None
    finally:
        if previous is not None:
            import signal

            signal.signal(signal.SIGTERM, previous)
    raise SystemExit(code if isinstance(code, int) else 0)


def _sigterm_as_ctrl_c():
    """SIGTERM handled as Ctrl-C in every command (each stops as it does on Ctrl-C: exit
    130, whole files kept, no half-written one); a run's engine handles both its own way
    while it plays. Returns the handler it replaced (None off the main thread)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    return signal.signal(signal.SIGTERM, interrupt)
