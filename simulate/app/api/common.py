"""What every function of the API shares: the refusal of an empty ``out``, where the
commands' lines go, the cluster a run plays on, a list of strategies."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable

from ...core.errors import CardsimError
from ...core.paths import check_local
from ..commands.runs import cluster_session

__all__ = ["cluster_session", "echo_to", "refuses_empty_out", "strategy_list"]


def refuses_empty_out(function):
    """Refuse ``out=""`` (an unset variable, as often as not), which would name the current
    folder, in one :class:`CardsimError` before anything is done, as the command line does."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        out = kwargs.get("out")
        if isinstance(out, str) and not out.strip():
            raise CardsimError(
                f"{function.__name__}: out is an empty path, which names no folder; give one "
                "(or None, where nothing need be written)"
            )
        if isinstance(out, str):
            check_local(out, what=f"{function.__name__}: out")
        return function(*args, **kwargs)

    return wrapper


def echo_to(progress: bool) -> Callable[[str], None]:
    """Where the commands' lines go: standard error with ``progress``, else nowhere."""
    if progress:
        return lambda line: print(line, file=sys.stderr)
    return lambda line: None


def strategy_list(strategies) -> list[str]:
    """A list of strategies, from a list or one comma-separated string."""
    if isinstance(strategies, str):
        from ..studies.file import split_seats

        return split_seats(strategies)
    return [str(s) for s in strategies]
