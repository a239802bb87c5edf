"""The run layer: a request played in chunks and its run folder, written and read back.

:mod:`.request` (a run request, validated once, no numba), :mod:`.engine` (the request
played in chunks on threads, records streamed to a run folder), :mod:`.gpu_aggregates` and
:mod:`.aggregate_runs` (aggregate-only runs reduced where they are played),
:mod:`.paired_runs` (deal pairs counted while two runs play), :mod:`.log_tables` (the
seatings' event logs merged), :mod:`.cluster` (the same on a Dask cluster) and
:mod:`.folder` (the run folder's format: records, manifest, lock, aggregates; the reading
interface analysis uses). It imports the games and the core, never analysis or the
application layer. docs/how-it-works.md#layout draws the layers.
"""
