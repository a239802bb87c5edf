"""cardsim's simulation engine: compiled kernels, the run API and the CLI.

Importing this package does not import numba (so that :mod:`analysis` can use the
numba-free parts such as :mod:`simulate.games.beggar.deal`); :func:`run` loads the engine
on first use.
"""

from __future__ import annotations

__version__ = "0.1.0"


def run(
    game, players=None, games=1_000_000, seed=None, threads=None, out=None, rules=None, **options
):
    """Simulate games and return one record per game as a pandas DataFrame.

    ``simulate.run("beggar-my-neighbour", players=2, games=10_000, seed=1)``; with
    ``out="DIR"`` the run folder (``games.parquet``, ``run.json``) is written too. See
    :func:`simulate.engine.run` for the options.
    """
    from .engine import run as engine_run

    return engine_run(game, players, games, seed, threads, out, rules, **options)
