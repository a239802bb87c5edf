"""Statistics, charts and reports for cardsim run folders.

Reads the output of a run (``games.parquet`` + ``run.json``) with pandas/pyarrow and
draws with matplotlib. Nothing here imports numba: a report can be built on a machine
that cannot run the simulation.
"""
