"""The Python API: each ``cardsim`` command as a function that returns pandas objects.

=================================  =========================================================
``simulate(game, ...)``            a run, as :class:`analysis.load.Run`: ``meta``, ``games``
                                   (one row per game, per deal in match play), ``matches``
``write_run(game, out=...)``       the same run written into its folder, nothing read back
``balance(game, ...)``             a run and its skill games: the balance measures' table
``sweep(study, ...)``              a house-rule study: the comparison table of its variants
``write_sweep(study, out=...)``    the same study written into its folder
``compare(*dirs, ...)``            the comparison table of run folders
``write_compare(*dirs, out=...)``  the comparison report written, nothing read back
``tournament(game, ...)``          every strategy against every other: shares and ratings
``write_tournament(game, ...)``    the same tournament written, nothing read back
``ladder(game, out=...)``          a skill ladder: each rung against the one below
``tune(game, ...)``                weights for a ``weighted`` strategy (a ``TuneResult``)
``explore(game, ...)``             a search of the rule space for the aims: the table
``write_explore(game, out=...)``   the same search written into its folder (and its picks)
``write_report(dir)``              a run folder's report
``verify(dir)``                    a run folder checked (and repaired): the verdict
``search(game)``                   the longest deals, in words
``replay(dir_or_game)``            one game turn by turn, in words
``play_deal(game, deal=...)``      a given deal's outcome (and its text)
``describe_rules(game)``           the rules in force, in words
=================================  =========================================================

:mod:`.playing` is the application's one door to the engine (``play_chunks``: a request's
games over spans of indices, in memory, for searches).

Every argument after the first is keyword-only, named as the command's option
(``--rule`` is ``rules={...}``, ``--seats`` is ``strategies=[...]``), and every mistake
raises :class:`simulate.core.errors.CardsimError` (analysis errors:
:class:`analysis.errors.ReportError`) with the one line the command would print.
``docs/python.md`` describes every function and table.

Importing this module imports neither numba nor pandas: each function loads what it
needs when called (``import simulate`` stays light).
"""

from __future__ import annotations

from ...core.measures import NEGLIGIBLE_CHANGE, NEGLIGIBLE_SHARE
from .runs import (
    BALANCE_GAMES,
    DEFAULT_GAMES,
    PlayedDeal,
    balance,
    describe_rules,
    play_deal,
    replay,
    search,
    simulate,
    verify,
    write_report,
    write_run,
)
from .searches import Exploration, explore, tune, write_explore
from .studies import (
    COMPARISON_CSV,
    COMPARISON_FILES,
    WrittenStudy,
    compare,
    comparison_frame,
    ladder,
    ladder_frame,
    read_comparison,
    sweep,
    tournament,
    tournament_frame,
    write_compare,
    write_sweep,
    write_tournament,
)

__all__ = [
    "BALANCE_GAMES",
    "COMPARISON_CSV",
    "COMPARISON_FILES",
    "DEFAULT_GAMES",
    "NEGLIGIBLE_CHANGE",
    "NEGLIGIBLE_SHARE",
    "Exploration",
    "PlayedDeal",
    "WrittenStudy",
    "balance",
    "compare",
    "comparison_frame",
    "describe_rules",
    "explore",
    "play_deal",
    "read_comparison",
    "replay",
    "search",
    "simulate",
    "sweep",
    "ladder",
    "ladder_frame",
    "tournament",
    "tournament_frame",
    "tune",
    "verify",
    "write_compare",
    "write_explore",
    "write_report",
    "write_run",
    "write_sweep",
    "write_tournament",
]
