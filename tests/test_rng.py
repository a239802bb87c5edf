"""The counter-based generator: Philox4x32-10 known answers, and the compiled twin."""

import numpy as np
import pytest

from simulate.core.compiled import rng_jit
from simulate.core.rng import Stream, philox4x32, seed_key

# Random123's known-answer vectors for philox4x32-10: (counter, key) -> output.
KNOWN_ANSWERS = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    (
        (0xFFFFFFFF,) * 4,
        (0xFFFFFFFF,) * 2,
        (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD),
    ),
    (
        (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
        (0xA4093822, 0x299F31D0),
        (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1),
    ),
]


@pytest.mark.parametrize(("counter", "key", "expected"), KNOWN_ANSWERS)
def test_philox_known_answers(counter, key, expected):
    assert philox4x32(counter, key) == expected
    assert rng_jit.philox4x32(*counter, *key) == expected


SEEDS_AND_GAMES = [(0, 0), (1, 1), (2**64 - 1, 2**40 + 5), (123456789, 2**32 - 1), (7, 2**32)]


@pytest.mark.parametrize(("seed", "game"), SEEDS_AND_GAMES)
def test_compiled_stream_equals_reference(seed, game):
    state = np.empty(rng_jit.STATE_SIZE, np.int64)
    rng_jit.stream_init(state, *seed_key(seed), game, 0)
    reference = Stream(seed, game)
    words = [rng_jit.next_u32(state) for _ in range(70)]
    assert words == [reference.next_u32() for _ in range(70)]
    bounds = [1, 2, 3, 52, 2**31 - 1, 1000003]
    assert [rng_jit.bounded(state, b) for b in bounds * 5] == [
        reference.bounded(b) for b in bounds * 5
    ]


@pytest.mark.parametrize(("seed", "game"), SEEDS_AND_GAMES)
def test_compiled_shuffle_equals_reference(seed, game):
    state = np.empty(rng_jit.STATE_SIZE, np.int64)
    rng_jit.stream_init(state, *seed_key(seed), game, 0)
    items = np.arange(104, dtype=np.int64)
    rng_jit.shuffle(state, items, 104)
    expected = list(range(104))
    Stream(seed, game).shuffle(expected)
    assert items.tolist() == expected
    assert sorted(expected) == list(range(104))


def test_streams_of_different_games_and_seeds_differ():
    first = [Stream(5, 0).next_u32() for _ in range(4)]
    assert first != [Stream(5, 1).next_u32() for _ in range(4)]
    assert first != [Stream(6, 0).next_u32() for _ in range(4)]


def test_bounded_is_uniform():
    stream = Stream(11, 3)
    draws = np.array([stream.bounded(6) for _ in range(60_000)])
    counts = np.bincount(draws, minlength=6)
    # Each face 10,000 +- 5 standard deviations (about 456).
    assert np.all(np.abs(counts - 10_000) < 460), counts


def test_batched_shuffle_is_uniform_over_permutations():
    from itertools import permutations

    from scipy.stats import chisquare

    state = np.empty(rng_jit.STATE_SIZE, np.int64)
    index = {p: k for k, p in enumerate(permutations(range(5)))}
    counts = np.zeros(len(index), np.int64)
    items = np.empty(5, np.int64)
    for game in range(60_000):
        rng_jit.stream_init(state, *seed_key(99), game, 0)
        items[:] = np.arange(5)
        rng_jit.shuffle(state, items, 5)
        counts[index[tuple(items)]] += 1
    assert chisquare(counts).pvalue > 1e-3, counts


def test_batched_shuffle_of_a_deck_puts_each_card_anywhere():
    from scipy.stats import chisquare

    state = np.empty(rng_jit.STATE_SIZE, np.int64)
    where = np.zeros((3, 52), np.int64)  # positions of cards 0, 25 and 51
    items = np.empty(52, np.int64)
    for game in range(30_000):
        rng_jit.stream_init(state, *seed_key(5), game, 0)
        items[:] = np.arange(52)
        rng_jit.shuffle(state, items, 52)
        position = np.argsort(items)
        where[0, position[0]] += 1
        where[1, position[25]] += 1
        where[2, position[51]] += 1
    for row in where:
        assert chisquare(row).pvalue > 1e-3, row
