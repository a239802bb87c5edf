"""Differential tests: the compiled shedding kernel's records equal the reference's, game by
game, over a grid of rule variants that together takes every value of every knob.

The reference's records over the whole grid are stored (``tests/differential/``, made by
``make_differential.py`` from the reference alone); the kernel plays every game of the grid
on every run and must equal them. The reference plays again, on every run, each
configuration's covering games (together they reach every branch of the reference that the
configuration's 2,000 games reach) and a fresh sample of the rest (its seed in pytest's
header; ``--reference-seed N`` replays it), with its per-turn card-conservation check on.
"""

import numba
import numpy as np
import pytest
from differential import shedding_grid as grid
from differential.sample import sample
from differential.store import StaleGrid, configs_of
from shedding_helpers import kernel_records

from simulate.games.shedding import reference
from simulate.games.shedding.batch import play_random
from simulate.games.shedding.rules import preset

CONFIGS, GAMES, SEED = grid.CONFIGS, grid.GAMES, grid.SEED
SAMPLE = 10
"""Stored games per configuration, besides its covering ones, that the reference plays again."""
IDS = [config[0] for config in CONFIGS]


@pytest.fixture(scope="module")
def stored():
    """The stored grid, checked against the reference's source and the grid's definition."""
    try:
        return configs_of(grid)
    except StaleGrid as stale:
        pytest.fail(str(stale), pytrace=False)


def first_difference(got: dict, expected: dict) -> str | None:
    """The first game at which two column sets differ, with both records, else ``None``.
    Every column must be there in both, of the same shape (one row per game)."""
    assert got.keys() == expected.keys()
    differs = np.zeros(len(expected["winner"]), bool)
    for key, value in expected.items():
        assert got[key].shape == value.shape, key
        unequal = got[key] != value
        differs |= unequal.reshape(len(differs), -1).any(axis=1)
    if not differs.any():
        return None
    i = int(np.argmax(differs))
    one = {key: value[i : i + 1] for key, value in got.items()}
    other = {key: value[i : i + 1] for key, value in expected.items()}
    return f"row {i}: kernel {kernel_records(one)[0]} != stored {kernel_records(other)[0]}"


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_kernel_matches_stored_reference_records(config, stored):
    name, _, _, players, strategies, forget = config
    columns = play_random(
        grid.rules_of(config), players, strategies, SEED, grid.first_game(config), GAMES, forget
    )
    assert {key: (column.dtype, column.shape) for key, column in columns.items()} == {
        **{key: (np.int8, (GAMES,)) for key in ("winner", "end", "finish_rank", "first_seat")},
        **{
            key: (np.int32, (GAMES,))
            for key in (
                "turns",
                "plays",
                "draws",
                "passes",
                "wilds",
                "reshuffles",
                "lead_changes",
                "winner_behind",
                "decisions",
                "forced",
                "options",
            )
        },
        "cards_left": (np.int16, (GAMES, players)),
        **{key: (np.int32, (GAMES, players)) for key in ("points", "score")},
    }
    rows = stored[name]
    assert rows.column("game").to_pylist() == list(
        range(grid.first_game(config), grid.first_game(config) + GAMES)
    )
    assert first_difference(columns, grid.stored_columns(rows, players)) is None


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_reference_replays_covering_and_sampled_games(config, stored, reference_seed):
    rows = stored[config[0]].to_pylist()
    covering = [i for i, row in enumerate(rows) if row["covering"]]
    others = [i for i, row in enumerate(rows) if not row["covering"]]
    assert covering, "every configuration has covering games"
    rules = grid.rules_of(config)
    for i in covering + sample(reference_seed, config[0], others, SAMPLE):
        game = rows[i]["game"]
        assert grid.play_reference(config, game, rules) == grid.stored_record(rows[i]), game


def test_every_end_reason_is_reached(stored):
    """The grid exercises every way a game ends (so the comparisons above mean something)."""
    ends = set()
    for rows in stored.values():
        ends |= set(rows.column("end").to_pylist())
    assert ends == set(reference.END_REASONS)


def test_parallel_equals_serial():
    rules = preset("crazy-eights")
    strategies = grid.mixed(4, 1)
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        serial = play_random(rules, 4, strategies, 99, 12_345, 3_000)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        parallel = play_random(rules, 4, strategies, 99, 12_345, 3_000)
    finally:
        numba.set_num_threads(threads)
    for key, column in serial.items():
        assert column.dtype == parallel[key].dtype
        np.testing.assert_array_equal(column, parallel[key], err_msg=key)


@pytest.fixture
def fast_reference(monkeypatch):
    """The reference without its per-turn card-conservation assertion (its own tests keep
    it): records are unchanged, and the reference runs about twice as fast."""
    monkeypatch.setattr(reference.Game, "check_cards", lambda self: None)


def test_runaway_chain_of_extra_plays_ends_turn_cap(fast_reference):
    """A chain of extra plays that could go on forever within one turn (every ace and 2 makes
    the others draw and plays again; a seat that always forgets its last-card call draws 2
    each time it is down to one card) is cut by ``max_turns``: the game ends ``turn_cap``
    before that many turns, the same in the kernel and the reference."""
    rules = preset("pis-yedili").with_overrides(
        {
            "effects.A": "all_draw:3",
            "effects.2": "all_draw:3",
            "last_card_call": True,
            "last_card_rule": "penalty",
            "decks": 2,
            "stock_empty": "reshuffle",
            "max_turns": 150,
        }
    )
    forget = [1.0] * 7
    columns = play_random(rules, 7, ["random"] * 7, 5, 0, 40, forget)
    cut = np.flatnonzero((columns["end"] == 4) & (columns["turns"] < 150))
    assert len(cut) > 0
    for i in [*cut[:3], 0]:
        expected = reference.play(rules, 7, ["random"] * 7, 5, int(i), forget)
        assert kernel_records({k: v[i : i + 1] for k, v in columns.items()})[0] == expected
