"""Differential tests: the compiled kernel's records equal the reference's, deal by deal.

The reference's records over the grid (random deals, rule changes, short deals, cycling deals
with time limits around their first repeat) are stored (``tests/differential/``, made by
``make_differential.py`` from the reference alone); the kernel plays every deal on every
run and must equal them, seeded deals dealt by the kernel itself. The reference plays again,
on every run, each part's covering deals (together they reach every branch of the reference
that the part reaches) and a fresh sample (its seed in pytest's header; ``--reference-seed
N`` replays it). Random deals of any size and rules are checked live by hypothesis.
"""

import pytest
from beggar_helpers import kernel_play, kernel_random
from differential import beggar_grid as grid
from differential.sample import sample
from differential.store import StaleGrid, load_grid
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from simulate.games.beggar import reference
from simulate.games.beggar.rules import BeggarRules

SAMPLE = 40
"""Stored deals per part, besides its covering ones, that the reference plays again."""
PARTS = [f"{part}-{players}" for part in ("random", "changed") for players in (2, 3, 4)]
PARTS += ["short", "cycles"]


@pytest.fixture(scope="module")
def stored() -> dict[str, list[dict]]:
    """The stored grid's rows by part, checked against the reference's source and the grid's
    definition."""
    try:
        table = load_grid(grid.PATH, source=grid.source(), definition=grid.definition())
    except StaleGrid as stale:
        pytest.fail(str(stale), pytrace=False)
    parts: dict[str, list[dict]] = {part: [] for part in PARTS}
    for row in table.to_pylist():
        parts[row["part"]].append(row)
    return parts


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize(
    ("part", "spec", "rules"),
    [("random", grid.RANDOM, BeggarRules()), ("changed", grid.CHANGED, grid.CHANGED_RULES)],
    ids=["random", "changed"],
)
def test_kernel_deals_and_plays_the_stored_random_deals(part, spec, rules, players, stored):
    rows = stored[f"{part}-{players}"]
    assert [row["game"] for row in rows] == list(
        range(spec["first"], spec["first"] + spec["count"])
    )
    got = kernel_random(spec["seed"], spec["first"], spec["count"], players, rules)
    assert got == [grid.stored_record(row) for row in rows]


@pytest.mark.parametrize("part", ["short", "cycles"])
def test_kernel_plays_the_stored_drawn_deals(part, stored):
    for row in stored[part]:
        deal = grid.stored_deal(row)
        assert kernel_play(deal.hands, deal.rules) == grid.stored_record(row), (deal, row)


@pytest.mark.parametrize("part", PARTS)
def test_reference_replays_covering_and_sampled_deals(part, stored, reference_seed):
    rows = stored[part]
    covering = [i for i, row in enumerate(rows) if row["covering"]]
    others = [i for i, row in enumerate(rows) if not row["covering"]]
    assert covering
    for i in covering + sample(reference_seed, part, others, SAMPLE):
        deal = grid.stored_deal(rows[i])
        assert grid.play_reference(deal) == grid.stored_record(rows[i]), deal


def test_stored_deals_are_the_grid_s_deals(stored, reference_seed):
    """The stored hands are the ones the grid deals (seeded deals dealt again here)."""
    for part in PARTS:
        for i in sample(reference_seed, f"deal:{part}", range(len(stored[part])), SAMPLE):
            row = stored[part][i]
            if row["game"] >= 0:
                spec = grid.RANDOM if part.startswith("random") else grid.CHANGED
                players = int(part.rsplit("-", 1)[1])
                assert row["hands"] == grid.deal_hands(spec["seed"], row["game"], players)


def test_every_end_is_reached(stored):
    assert {row["end"] for row in stored["short"]} == {"out", "cycle", "time_limit"}
    assert {row["end"] for row in stored["changed-4"]} >= {"out", "time_limit"}


def test_time_limit_around_the_first_repeat(stored):
    # Brent's method notices a loop some tricks after the first repeat; a time limit that
    # falls in between must still see the deal as a cycle, and one just before it must not.
    unlimited = {row["deal"]: row for row in stored["cycles"] if row["time_limit"] is None}
    assert len(unlimited) == grid.CYCLES["count"]
    assert all(row["end"] == "cycle" for row in unlimited.values())
    for row in stored["cycles"]:
        if row["time_limit"] is not None:
            first_repeat = unlimited[row["deal"]]["cards"]
            expected = "cycle" if row["time_limit"] >= first_repeat else "time_limit"
            assert row["end"] == expected, row


hands_strategy = st.integers(2, 4).flatmap(
    lambda players: st.permutations(grid.DECK_KINDS).flatmap(
        lambda deck: st.integers(players, 52).map(
            lambda size: [deck[:size][seat::players] for seat in range(players)]
        )
    )
)


@settings(max_examples=examples(300))
@given(
    hands=hands_strategy,
    penalties=st.fixed_dictionaries({rank: st.integers(1, 6) for rank in "JQKA"}),
    time_limit=st.none() | st.integers(1, 400),
)
def test_any_deal_matches_reference(hands, penalties, time_limit):
    rules = BeggarRules(penalties=penalties, time_limit=time_limit)
    expected = reference.play(hands, rules)
    assert kernel_play(hands, rules) == expected
    assert expected.cards <= (time_limit or expected.cards)
