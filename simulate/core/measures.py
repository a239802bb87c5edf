"""The names of the designer's balance measures, in their order (no numba, no pandas): what
``cardsim explore --aim`` may name and what :mod:`analysis.balance` computes."""

MEASURES: tuple[str, ...] = (
    "first_seat_advantage",
    "seat_spread",
    "decisive",
    "turns",
    "turns_p90",
    "lead_changes",
    "comebacks",
    "skill",
    "forced_share",
    "branching",
    "drama",
    "dramatic_games",
    "security",
    "decisive_moment",
    "stability",
    "chance_lead_changes",
)

TRACE_MEASURES: tuple[str, ...] = MEASURES[-6:]
"""The measures of a traced run's win chances (:mod:`analysis.chances`): a run that
traces none has none; ``explore`` traces a sample of each candidate's games to aim at
them."""

CHOICE_MEASURES: tuple[str, ...] = ("forced_share", "branching")
"""The measures of the decision points (``decisions``, ``forced``, ``options`` columns): the
shedding games' only (Beggar-My-Neighbour has no decision points)."""


SHARES: tuple[str, ...] = (
    "first_seat_advantage", "seat_spread", "decisive", "comebacks", "skill", "forced_share",
    "drama", "dramatic_games", "security", "decisive_moment", "stability",
)  # fmt: skip
"""The measures that are shares (or a share minus the fair 1/n): fractions of 1, written in
points (1 pt = 0.01)."""
NEGLIGIBLE_SHARE = 0.5
"""Points of a share under which a difference is negligible (the comparisons' default)."""
NEGLIGIBLE_CHANGE = 2.0
"""Percent of a mean (a length, a count) under which a difference is negligible."""


def negligible(name: str, reference: float) -> float:
    """The largest negligible difference of measure ``name``, in its own unit: 0.005 (half a
    point) for a share, 2% of ``reference`` (the measure's value it is read against) for a
    length or a count."""
    if name in SHARES:
        return NEGLIGIBLE_SHARE / 100
    return NEGLIGIBLE_CHANGE / 100 * abs(reference)


def measure_range(name: str, players: int) -> tuple[float, float, str]:
    """The values measure ``name`` can take at a table of ``players``: ``(low, high,
    words)``, ``high`` infinite for lengths and counts, ``words`` saying what they are.
    Shares are fractions of 1; the advantage and skill are a share minus the fair 1/n."""
    fair = 1 / players
    if name in ("first_seat_advantage", "skill"):
        return (
            -fair,
            1 - fair,
            f"a share minus the fair 1/{players}, from {-fair:.4g} to {1 - fair:.4g}",
        )
    if name in ("seat_spread", "decisive", "comebacks", "forced_share", *TRACE_MEASURES[1:4]):
        return 0.0, 1.0, "a share from 0 to 1 (0.4 is 40%)"
    if name in ("drama", "stability"):
        return 0.0, 1.0, "a difference of chances from 0 to 1 (0.1 is 10 points)"
    return 0.0, float("inf"), "a length or a count, at least 0"
