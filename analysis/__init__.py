"""Statistics, charts and reports for cardsim run folders.

Reads the output of a run (``games.parquet`` + ``run.json``) with pandas/pyarrow and
draws with matplotlib. Nothing here imports numba: a report can be built on a machine
that cannot run the simulation.

- :mod:`analysis.load` (``load_run``, ``open_run``, ``scan``) and :mod:`analysis.errors`:
  reading a run folder, through the run folder's own reading
  (:mod:`simulate.runs.folder.records`: the record files, checked; :mod:`simulate.runs.folder.batch`;
  :mod:`simulate.runs.folder.aggregates`);
- :mod:`analysis.statistics`: the numbers (distributions, tallies, intervals, tests);
- :mod:`analysis.reports`: the report of one run (``write_report``), one per family;
- :mod:`analysis.comparisons`: several runs side by side (``write_comparison``,
  ``write_tournament_report``);
- :mod:`analysis.rendering`: words, documents, charts and the files written.
"""
