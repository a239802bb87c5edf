"""The numbering of a search's rollout streams (see :mod:`simulate.games.shedding.search`).

A search draws its determinizations and rollouts from streams of their own, numbered from
the game's, so that a rollout never depends on threads, chunks, workers or the order of
games. Kept apart from :mod:`.rng` so that the games which never search do not depend on it.
"""

from __future__ import annotations

SEARCH_STREAM = 2**31
"""Stream ids from here up are a search's rollouts (a game's own are its deal numbers)."""
TRACE_STREAM = 3 * 2**30
"""Stream ids from here up are a traced game's rollouts (``--trace``): rollout r from the
state after turn t of a game draws from ``(seed, search_game(game, deal, t),
TRACE_STREAM + r)``, apart from every search's (``SEARCH_STREAM + j``, j < 2**30)."""
MIX = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9)
FMIX = (0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53)
MASK64 = 2**64 - 1


def search_game(game: int, stream: int, decision: int) -> int:
    """The game number (0 <= it < 2**63) of the rollout streams of a search's ``decision``
    (0, 1, ... in a game) in the game ``game`` dealt from stream ``stream``: a 64-bit mix
    (MurmurHash3's finalizer), so a rollout's randomness is a pure function of the seed,
    the game, its deal and the decision. Determinization j draws from the stream
    ``(seed, search_game(...), SEARCH_STREAM + j)``."""
    x = (game * MIX[0] + (stream + 1) * MIX[1] + (decision + 1) * MIX[2]) & MASK64
    x ^= x >> 33
    x = (x * FMIX[0]) & MASK64
    x ^= x >> 33
    x = (x * FMIX[1]) & MASK64
    x ^= x >> 33
    return x >> 1
