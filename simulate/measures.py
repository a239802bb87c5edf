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
