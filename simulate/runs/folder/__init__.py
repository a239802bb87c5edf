"""A run folder on disk: written chunk by chunk so that a crash loses only the chunk in
flight, locked while written, and checked or repaired afterwards.

- :mod:`~simulate.runs.folder.writer`: :class:`RunWriter` (``run.json``, the chunk files, the
  run's status) and the helpers that read a folder's metadata and free space;
- :mod:`~simulate.runs.folder.manifest`: ``manifest.jsonl``, the finished chunks with their
  files and checksums (numba-free: :mod:`analysis` reads runs through it);
- :mod:`~simulate.runs.folder.lock`: one writer per folder, an advisory ``flock``;
- :mod:`~simulate.runs.folder.records`, :mod:`~simulate.runs.folder.batch`,
  :mod:`~simulate.runs.folder.aggregates` (with :mod:`~simulate.runs.folder.distribution`): a run
  folder read back, the record files checked against their checksums, in batches, and an
  aggregate-only run's statistics; :mod:`~simulate.runs.folder.errors`: ``ReportError``.

``cardsim verify`` (checksums and a replay of sampled games, ``--repair``) plays games, so
it is a command (:mod:`simulate.app.commands.verify`): the run folder never imports the engine.

Importing this package imports no module inside it (and no numba).
"""
