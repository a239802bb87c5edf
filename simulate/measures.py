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
)


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
    if name in ("seat_spread", "decisive", "comebacks"):
        return 0.0, 1.0, "a share from 0 to 1 (0.4 is 40%)"
    return 0.0, float("inf"), "a length or a count, at least 0"
