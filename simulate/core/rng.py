"""Counter-based random numbers: Philox4x32-10, the readable pure-Python twin.

Every game's randomness is a pure function of ``(seed, game)``: the stream of game ``g``
under seed ``s`` is the sequence of Philox4x32-10 blocks with

    key     = (s mod 2**32, s // 2**32)            # the 64-bit run seed
    counter = (block, stream, g mod 2**32, g // 2**32)

for ``block = 0, 1, 2, ...``; each block yields four 32-bit words, used in order. ``stream``
is 0 for the game's own stream (other values are reserved for independent sub-streams).

A shuffle is Fisher-Yates from the end, position ``i`` taking a uniform ``j`` in
``[0, i]``. Its bounded integers come in batches (Brackett-Rozinsky and Lemire, "Batched
ranged random integer generation", 2024): the bounds ``i+1, i, ...`` are grouped greedily
while their product stays within 2**32, and one 32-bit word gives every draw of a group by
repeated multiplication, with an exact rejection test on what is left. A 52-card shuffle
takes about 11 words instead of 51.
Because no state is carried from one game to the next, results do not depend on thread count,
chunking or machine.

This module is the specification and imports no numba; :mod:`simulate.core.compiled.rng_jit` is the
compiled twin used by the kernels, and tests require both to produce the same words.
"""

from __future__ import annotations

import math

MASK32 = 0xFFFFFFFF
PHILOX_M0 = 0xD2511F53
PHILOX_M1 = 0xCD9E8D57
PHILOX_W0 = 0x9E3779B9
PHILOX_W1 = 0xBB67AE85
PHILOX_ROUNDS = 10
MAX_SEED = 2**64 - 1


def philox4x32(
    counter: tuple[int, int, int, int], key: tuple[int, int]
) -> tuple[int, int, int, int]:
    """One Philox4x32-10 block: four 32-bit words from a 128-bit counter and 64-bit key."""
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for round_ in range(PHILOX_ROUNDS):
        if round_:
            k0 = (k0 + PHILOX_W0) & MASK32
            k1 = (k1 + PHILOX_W1) & MASK32
        p0 = PHILOX_M0 * c0
        p1 = PHILOX_M1 * c2
        c0, c1, c2, c3 = (
            (p1 >> 32) ^ c1 ^ k0,
            p1 & MASK32,
            (p0 >> 32) ^ c3 ^ k1,
            p0 & MASK32,
        )
    return c0, c1, c2, c3


def seed_key(seed: int) -> tuple[int, int]:
    """The Philox key of a run seed: its low and high 32-bit words (0 <= seed < 2**64)."""
    return seed & MASK32, (seed >> 32) & MASK32


class Stream:
    """The random stream of one game: 32-bit words, bounded integers and shuffles."""

    def __init__(self, seed: int, game: int, stream: int = 0):
        self.key = seed_key(seed)
        self.stream = stream
        self.game = game
        self.block = 0
        self.words: list[int] = []

    def next_u32(self) -> int:
        """The next 32-bit word of the stream."""
        if not self.words:
            counter = (self.block, self.stream, self.game & MASK32, (self.game >> 32) & MASK32)
            self.words = list(philox4x32(counter, self.key))[::-1]
            self.block += 1
        return self.words.pop()

    def bounded(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, ``1 <= n <= 2**32`` (Lemire's method, exact)."""
        product = self.next_u32() * n
        low = product & MASK32
        if low < n:
            threshold = (2**32 - n) % n
            while low < threshold:
                product = self.next_u32() * n
                low = product & MASK32
        return product >> 32

    def batch_word(self, bounds: list[int]) -> int:
        """A word that yields uniform draws for every bound of a batch (see the module)."""
        product = math.prod(bounds)
        while True:
            word = left = self.next_u32()
            for bound in bounds:
                left = (left * bound) & MASK32
            if left >= 2**32 % product:
                return word

    def shuffle(self, items: list) -> None:
        """Shuffle ``items`` in place (Fisher-Yates from the end, batched draws)."""
        i = len(items) - 1
        while i > 0:
            bounds = batch_bounds(i)
            left = self.batch_word(bounds)
            for bound in bounds:
                product = left * bound
                j, left = product >> 32, product & MASK32
                items[i], items[j] = items[j], items[i]
                i -= 1


def batch_bounds(i: int) -> list[int]:
    """The bounds drawn together from position ``i`` down: i+1, i, ... (product <= 2**32)."""
    bounds = [i + 1]
    product = i + 1
    while i - len(bounds) > 0 and product * (i + 1 - len(bounds)) <= 2**32:
        product *= i + 1 - len(bounds)
        bounds.append(i + 1 - len(bounds))
    return bounds
