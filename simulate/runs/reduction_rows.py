"""What an aggregate-only run's reduction computes for one record, compiled once for the
CPU's parallel reduction (:mod:`.reduction`) and the GPU's (:mod:`.gpu_aggregates`):
numba-cuda compiles a ``@numba.njit`` function called from a CUDA kernel as a device
function, so both reductions group and derive every row from this same source.

Every argument and result is an int64 (the callers widen the records' int8 … int32).
"""

from __future__ import annotations

from numba import njit


@njit(cache=True, inline="always")
def group_id(end, winner, finish, has_finish, winners, ranks):
    """The row's group ``(end, winner, finish_rank)`` as one integer:
    ``((end + 1) * winners + winner + 1) * ranks + finish_rank + 1`` (-1 codes: none;
    ``winners``: the seats plus one, ``ranks``: the finish labels plus one; ``finish``
    ignored unless ``has_finish``), as :func:`simulate.runs.folder.aggregates.Aggregates.of_table`
    numbers the groups."""
    rank = finish + 1 if has_finish != 0 else 0
    return ((end + 1) * winners + winner + 1) * ranks + rank


@njit(cache=True, inline="always")
def others_term(score, winner, seat):
    """What seat ``seat``'s ``score`` adds to ``others_score``: all of it unless it won."""
    return score if winner != seat else 0


@njit(cache=True, inline="always")
def signed_sum(a, b, sign):
    """``a + sign * b``: ``decision_points`` (decisions + forced) and ``options_left``
    (options - decisions)."""
    return a + sign * b
