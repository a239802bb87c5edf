"""A run folder on disk: written chunk by chunk so that a crash loses only the chunk in
flight, locked while written, and checked or repaired afterwards.

- :mod:`~simulate.folder.writer`: :class:`RunWriter` (``run.json``, the chunk files, the
  run's status) and the helpers that read a folder's metadata and free space;
- :mod:`~simulate.folder.manifest`: ``manifest.jsonl``, the finished chunks with their
  files and checksums (numba-free: :mod:`analysis` reads runs through it);
- :mod:`~simulate.folder.lock`: one writer per folder, an advisory ``flock``;
- :mod:`~simulate.folder.verify`: ``cardsim verify`` (checksums and a replay of sampled
  games) and ``--repair``.

Importing this package imports no module inside it (and no numba).
"""
