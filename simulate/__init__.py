"""cardsim's simulation engine: compiled kernels, the run API and the CLI.

Importing this package imports neither numba nor the application layer (so that
:mod:`analysis` can use the numba-free parts such as :mod:`simulate.games.beggar.deal`, and a
game or the engine never loads the API, the CLI or the studies): :func:`run` loads the
engine, and the API's functions load :mod:`simulate.app.api`, on first use.

The Python API (``docs/python.md``): :func:`run` (the records of a run as a DataFrame),
and, one per command, :func:`simulate` (a run with its matches, as ``load_run`` reads one),
:func:`balance` (the balance measures of a run and its skill games), :func:`sweep`,
:func:`compare`, :func:`tournament`, :func:`ladder` (tables as DataFrames), :func:`tune` and
:func:`explore` (a search of the rule space). What a command writes into its folder, with
nothing read back, is :func:`write_run`, :func:`write_sweep`, :func:`write_compare`,
:func:`write_tournament` and :func:`write_explore`: the commands call these.
:func:`write_report` writes a run folder's report, :func:`verify` checks (and repairs)
one, :func:`search` hunts for long deals, :func:`replay` tells one game turn by turn,
:func:`play_deal` plays a given deal and :func:`describe_rules` puts rules in words. :func:`read_comparison` and
:func:`tournament_frame` and :func:`ladder_frame` read a comparison, a tournament or a ladder folder back. They live in :mod:`simulate.app.api`.

Inside, a layer per subpackage, each importing only those below it
(docs/how-it-works.md#layout): :mod:`simulate.app` (the application: the API, the CLI,
studies, searches), :mod:`simulate.runs` (a run played, its run folder written and read),
:mod:`simulate.games` (each game family) and :mod:`simulate.core` (cards, random streams,
errors, compiled helpers); :mod:`analysis` sits between the application and the run layer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .app.api import (
        balance,
        compare,
        describe_rules,
        explore,
        ladder,
        ladder_frame,
        play_deal,
        read_comparison,
        replay,
        search,
        simulate,
        sweep,
        tournament,
        tournament_frame,
        tune,
        verify,
        write_compare,
        write_explore,
        write_report,
        write_run,
        write_sweep,
        write_tournament,
    )

__version__ = "0.2.0"
__all__ = [
    "balance",
    "compare",
    "describe_rules",
    "explore",
    "play_deal",
    "read_comparison",
    "replay",
    "run",
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
_API = frozenset(__all__) - {"run"}


def __getattr__(name: str):
    # The API's functions load on first use (PEP 562), so that importing a game, the
    # engine or analysis does not run the application layer.
    if name in _API:
        from .app import api

        return getattr(api, name)
    raise AttributeError(f"module 'simulate' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def run(game, **options):
    """Simulate games and return one record per game as a pandas DataFrame.

    ``simulate.run("beggar-my-neighbour", players=2, games=10_000, seed=1)``; with
    ``out="DIR"`` the run folder (the records, ``run.json``) is written too. Every option
    is keyword-only: see :func:`simulate.runs.engine.run`, which the application's one door
    to the engine (:mod:`simulate.app.api.playing`) offers.
    """
    from .app.api.playing import run as play

    return play(game, **options)
