"""The compiled shuffle's precomputed batches equal the protocol's, inside and past the table."""

import math

import numpy as np
import pytest

from simulate.core.compiled import rng_jit
from simulate.core.rng import Stream, batch_bounds, seed_key


def test_batch_table_is_the_greedy_batches():
    for i in range(1, rng_jit.BATCH_TABLE):
        bounds = batch_bounds(i)
        product = math.prod(bounds)
        assert rng_jit.BATCH_LAST[i] == i - len(bounds)
        assert rng_jit.BATCH_PRODUCT[i] == product
        assert rng_jit.BATCH_THRESHOLD[i] == 2**32 % product


@pytest.mark.parametrize("count", [rng_jit.BATCH_TABLE, rng_jit.BATCH_TABLE + 90])
def test_shuffle_equals_reference_inside_and_past_the_table(count):
    state = np.empty(rng_jit.STATE_SIZE, np.int64)
    rng_jit.stream_init(state, *seed_key(99), 5, 0)
    items = np.arange(count, dtype=np.int64)
    rng_jit.shuffle(state, items, count)
    expected = list(range(count))
    Stream(99, 5).shuffle(expected)
    assert items.tolist() == expected


def test_shuffle_equals_reference_when_batch_words_are_rejected():
    batches = 0
    i = 51
    while i > 0:
        i -= len(batch_bounds(i))
        batches += 1
    state = np.empty(rng_jit.STATE_SIZE, np.int64)
    rejected = 0
    for game in range(200):
        rng_jit.stream_init(state, *seed_key(7), game, 0)
        items = np.arange(52, dtype=np.int64)
        rng_jit.shuffle(state, items, 52)
        reference = Stream(7, game)
        expected = list(range(52))
        reference.shuffle(expected)
        assert items.tolist() == expected
        rejected += 4 * reference.block - len(reference.words) > batches
    assert rejected > 20  # about 35% of 52-card shuffles reject a word
