"""Strong players (``pimc:K``): the kernel's searches are the reference's, rollout for
rollout, on every rule variant; they never depend on threads or on how games are split;
a determinization keeps what the seat sees; bad budgets are refused.

The reference's records of searching seats over the shedding grid's rule variants are
stored (``tests/differential/search_grid.py``, made by ``make_differential.py
search-grid``); the kernel plays them all, and the reference plays a sample again.
"""

import numba
import numpy as np
import pytest
from differential import search_grid as grid
from differential.shedding_grid import rules_of, stored_columns, stored_record
from differential.store import StaleGrid, configs_of
from test_shedding_differential import first_difference

from simulate.core.compiled.rng_jit import STATE_SIZE as RNG_STATE_SIZE
from simulate.core.compiled.rng_jit import stream_init
from simulate.core.errors import CardsimError
from simulate.core.rng import Stream
from simulate.core.search_streams import search_game
from simulate.games.shedding import batch, kernel, reference, reference_search, search
from simulate.games.shedding.kernel_layout import G_HANDS, G_STOCK, S_LEN, S_SEND, S_SPOS
from simulate.games.shedding.rules import preset
from simulate.games.shedding.strategies import MAX_BUDGET, parse

IDS = [config[0] for config in grid.CONFIGS]
REPLAYED = ("pis-yedili", "flip-pis-yedili", "max-plays", "wild-answers-draw", "openspiel-2")
"""Configurations whose stored games the reference plays again (cheap ones)."""


@pytest.fixture(scope="module")
def stored():
    try:
        return configs_of(grid)
    except StaleGrid as stale:
        pytest.fail(str(stale), pytrace=False)


@pytest.mark.parametrize("config", grid.CONFIGS, ids=IDS)
def test_kernel_searches_as_the_stored_reference(config, stored):
    name, _, _, players, strategies, forget = config
    start = grid.first_game(config)
    columns = batch.play_random(
        rules_of(config), players, strategies, grid.SEED, start, grid.GAMES, forget
    )
    assert first_difference(columns, stored_columns(stored[name], players)) is None


@pytest.mark.parametrize("name", REPLAYED)
def test_reference_replays_stored_searches(name, stored):
    config = grid.CONFIGS[IDS.index(name)]
    row = stored[name].to_pylist()[0]
    assert grid.play_reference(config, row["game"]) == stored_record(row)


def test_the_grid_s_searching_seats_win_and_its_games_end_every_way(stored):
    """Seat 0 (always searching) wins in many configurations, and the games end in every
    way a game can: the equality above compares searches that decided games, on every
    path to an end."""
    winners = {name: set(rows.column("winner").to_pylist()) for name, rows in stored.items()}
    assert sum(0 in seats for seats in winners.values()) >= len(winners) // 4
    ends = set().union(*(set(rows.column("end").to_pylist()) for rows in stored.values()))
    assert ends == set(reference.END_REASONS)


@pytest.mark.parametrize(
    "preset_name, seats",
    [
        ("pis-yedili", ["pimc:3", "greedy", "pimc:k=2,rollout=hold-wilds", "random"]),
        ("crazy-eights", ["ismcts:12", "greedy", "ismcts:k=9,c=1.5,rollout=uniform"]),
    ],
)
def test_threads_and_chunks_never_change_a_search(preset_name, seats):
    rules, n = preset(preset_name), len(seats)
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        serial = batch.play_random(rules, n, seats, 5, 100, 60)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        parallel = batch.play_random(rules, n, seats, 5, 100, 60)
        first = batch.play_random(rules, n, seats, 5, 100, 25)
        rest = batch.play_random(rules, n, seats, 5, 125, 35)
    finally:
        numba.set_num_threads(threads)
    for key, column in serial.items():
        np.testing.assert_array_equal(column, parallel[key], err_msg=key)
        np.testing.assert_array_equal(column, np.concatenate([first[key], rest[key]]), key)


def test_match_deals_search_from_their_own_streams():
    # A match's deal k draws from the stream (seed, match, k): its searches number their
    # rollout streams from it, as the reference's do.
    rules = preset("crazy-eights").with_overrides({"match_deals": 2})
    seats = ["pimc:2", "random", "greedy"]
    deals, _ = batch.play_match_batch(rules, 3, seats, 8, 3, 2)
    expected = [
        record
        for match in (3, 4)
        for record in reference.play_match(rules, 3, seats, 8, match).deals
    ]
    deals = {key: value for key, value in deals.items() if key not in ("match", "deal")}
    assert first_difference(deals, _columns(expected, deals)) is None


def _columns(records, like: dict) -> dict:
    """Reference records as the kernel's columns (those of ``like``)."""
    out = {}
    for key in like:
        values = [getattr(record, key) for record in records]
        if key == "end":
            values = [reference.END_REASONS.index(value) for value in values]
        out[key] = np.asarray(values, like[key].dtype).reshape(like[key].shape)
    return out


def test_a_determinization_deals_the_unseen_cards_again():
    rules = preset("crazy-eights")
    table = batch.rules_table(rules, 4)
    g, stream, _, _ = kernel.worker_scratch(table, batch.seat_arrays(["pimc:2"] * 4, 4))
    stream_init(stream, 1, 2, 3, 0)
    kernel._deal(g, stream, 1, 5, np.int64(-1))

    def hands():
        return [
            np.repeat(np.arange(52), g[G_HANDS + s * 52 : G_HANDS + s * 52 + 52]) for s in range(4)
        ]

    def stock():
        return g[G_STOCK + g[S_SPOS] : G_STOCK + g[S_SEND]].copy()

    before, stock_before = hands(), stock()
    stream_init(stream, 1, 2, 4, 0)
    search.determinize(g, 1, stream, np.zeros(512, np.int64))
    after, stock_after = hands(), stock()
    np.testing.assert_array_equal(before[1], after[1])  # the seat's own hand
    assert [g[S_LEN + s] for s in range(4)] == [5] * 4 and len(stock_after) == len(stock_before)
    unseen = np.sort(np.concatenate([before[0], before[2], before[3], stock_before]))
    dealt = np.sort(np.concatenate([after[0], after[2], after[3], stock_after]))
    np.testing.assert_array_equal(unseen, dealt)
    assert any((a != b).any() for a, b in zip(before, after, strict=True))

    # The reference deals the same cards to the same places from the same stream.
    game = reference.Game(
        rules,
        [list(hand) for hand in before],
        list(stock_before),
        strategies=["random"] * 4,
        stream=Stream(1 | 2 << 32, 4),
    )
    reference_search.determinize(game, 1)
    assert [sorted(hand) for hand in game.hands] == [list(hand) for hand in after]
    assert game.stock == list(stock_after)


def test_search_streams_are_the_reference_s():
    from simulate.core.compiled.rng_jit import search_game as compiled

    for args in [(0, 0, 0), (12_345, 3, 77), (2**62 + 5, 1_000, 10**6)]:
        assert compiled(*args) == search_game(*args)
        assert 0 <= search_game(*args) < 2**63
    assert len({search_game(7, 0, d) for d in range(1_000)}) == 1_000


@pytest.mark.parametrize(
    "text, message",
    [
        ("pimc", "strategy 'pimc' needs a budget: pimc:K, K rollouts per option from 1 to 4096"),
        ("pimc:0", "k (rollouts per option) must be a whole number from 1 to 4096, got '0'"),
        (f"pimc:{MAX_BUDGET + 1}", f"from 1 to 4096, got '{MAX_BUDGET + 1}'"),
        ("pimc:k=2,rollout=pimc", "unknown rollout policy 'pimc'; known: random, uniform"),
        ("pimc:k=2,depth=3", "unknown parameter 'depth'; known: k, rollout"),
        ("ismcts", "strategy 'ismcts' needs a budget: ismcts:K, K iterations per decision"),
        ("ismcts:0", "k (iterations per decision) must be a whole number from 1 to 4096"),
        ("ismcts:k=8,c=-1", "c (the exploration constant) must be from 0 to 10, got -1"),
        ("ismcts:k=8,c=nan", "c must be a finite number, got 'nan'"),
        ("ismcts:k=8,depth=2", "unknown parameter 'depth'; known: k, c, rollout"),
        ("pimc:k=8,c=1", "unknown parameter 'c'; known: k, rollout"),
    ],
)
def test_bad_budgets_and_policies_are_refused(text, message):
    with pytest.raises(CardsimError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse(text)


def test_search_specs_round_trip():
    for text in ("pimc:32", "pimc:k=8,rollout=greedy", "pimc:k=1,rollout=first"):
        assert str(parse(text)) == text
    assert parse("pimc:k=16") == parse("pimc:16")
    assert parse("pimc:k=16,rollout=random") == parse("pimc:16")


def test_only_strong_players_cost_an_estimate():
    from simulate.runs.cost import duration, estimate, estimate_words
    from simulate.runs.request import make_request

    def request(*seats):
        return make_request(
            "crazy-eights", players=3, games=400, seed=1, strategies=seats, threads=1
        )

    assert estimate_words([request("random", "greedy", "random")]) is None
    strong = request("pimc:2", "random", "pimc:k=2,rollout=greedy")
    words = estimate_words([strong])
    assert words.startswith("strong players (pimc:2, pimc:k=2,rollout=greedy): ")
    assert words.endswith("on 1 thread(s), from a pilot of their first games")
    assert estimate([strong]) > 0
    assert [duration(s) for s in (0.4, 40, 720, 12_600)] == ["under 1 s", "40 s", "12 min", "3.5 h"]


# --- ismcts ----------------------------------------------------------------------------------


def test_the_tree_walks_as_the_reference_s():
    """The kernel's tree (:mod:`.tree`) and the reference's (``Walk``, ``Node``) take the same
    options, grow the same nodes and end on the same root option, on a made-up game: each
    iteration a few seats decide among random subsets of six options (availability varies,
    as an opponent's options do across determinizations), then a random seat (or nobody)
    wins. The tree never holds more than its bound: the root and a node per iteration."""
    from simulate.games.shedding import tree as trees

    rng = np.random.default_rng(7)
    budget = 300
    table = np.zeros(trees.tree_words(budget), np.int64)
    trees.reset(table, 700, 0)
    root = reference_search.Node(seat=-1, parent=None)
    stream = np.empty(RNG_STATE_SIZE, np.int64)
    universe = np.arange(6)
    actions = np.empty(search.MAX_OPTIONS, np.int64)
    suits = np.full(search.MAX_OPTIONS, -1, np.int64)
    chosen = []
    for j in range(budget):
        stream_init(stream, 1, 2, 3, j)
        twin = Stream(1 | 2 << 32, 3, j)
        trees.start(table)
        walk = reference_search.Walk(root, 0.7)
        for depth in range(6):
            seat = depth % 3
            if depth == 0:
                open_ = universe[:4]  # the root's options never change
            else:
                open_ = np.sort(rng.choice(universe, size=rng.integers(2, 7), replace=False))
            count = len(open_)
            actions[:count] = open_
            options = [(int(a), None) for a in open_]
            o = trees.step(table, seat, 0, actions, suits, count, stream)
            assert o == walk.step(seat, "choose", options, twin)
            chosen.append(o)
            if table[trees.T_CURRENT] < 0:
                assert walk.out
                break
        winner = int(rng.integers(-1, 3))
        trees.backpropagate(table, winner)
        walk.backpropagate(winner)
        assert table[trees.T_NODES] <= j + 2
    actions[:4] = universe[:4]
    best = trees.most_visited(table, 0, 0, actions, suits, 4)
    visits = [root.children[(0, "choose", int(a), None)].visits for a in universe[:4]]
    assert best == visits.index(max(visits)) and sum(visits) == budget
    assert len(set(chosen)) > 3 and table[trees.T_NODES] > 4 * 6  # it grew beyond the root


def test_a_worker_allocates_its_search_scratch_once_for_the_largest_tree():
    from simulate.games.shedding import tree as trees
    from simulate.games.shedding.kernel_layout import G_SIZE, S_SCRATCH

    table = batch.rules_table(preset("crazy-eights"), 3)
    sizes = {}
    for seats in (
        ["random"] * 3,
        ["pimc:9", "random", "random"],
        ["ismcts:9", "ismcts:700", "pimc:4000"],
    ):
        g = kernel.worker_scratch(table, batch.seat_arrays(seats, 3))[0]
        sizes[seats[0]] = len(g) - G_SIZE
        assert g[S_SCRATCH] == len(g) - G_SIZE
    assert sizes == {
        "random": 0,
        "pimc:9": search.SC_SIZE,
        "ismcts:9": search.SC_SIZE + trees.tree_words(700),
    }
    assert trees.tree_words(MAX_BUDGET) * 8 <= 300 * 1024  # the stated bound (docs)


def test_ismcts_specs_round_trip():
    for text in ("ismcts:16", "ismcts:k=16,c=0.25", "ismcts:k=4,rollout=greedy,c=1.5"):
        assert str(parse(text)) == text
    assert parse("ismcts:k=16,c=0.7") == parse("ismcts:16")
    assert parse("ismcts:k=16,c=0.70049").int_explore() == 700
