"""What each knob does: the main effect of each value of a varied knob on a measure, from
the rule sets of an exploration measured on the same games.

For a knob and one of its values ``v`` other than the reference ``r`` (the base rules'
value where the knob varies over it, else the first value varied), a *pair* is two rule
sets that differ in that knob alone, one with ``r`` and one with ``v``. The effect is the
mean over the pairs of the measure's change (``v``'s value minus ``r``'s), with the 95%
interval of the measurement: each estimate's half-width added in quadrature over both rule
sets of every pair, divided by the number of pairs (the estimates read as independent
samples: conservative, since the rule sets played the same games). The pairs are every
pair measured, not a sample of the other knobs' settings: the effect is their average
over the settings measured (all of them in an exhaustive exploration; in a search, those
it proposed). Without a pair the effect is not measured.

Numbers only; the exploration's report words and draws them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

COLUMNS = ("knob", "value", "reference", "measure", "pairs", "change", "lo", "hi")
"""The columns of :func:`main_effects`."""


def main_effects(
    rule_sets: pd.DataFrame,
    *,
    knobs: Sequence[str],
    references: Mapping[str, object],
    measures: Sequence[str],
) -> pd.DataFrame:
    """One row per (knob, value other than its reference, measure), in the knobs' and
    values' order: ``knob``, ``value``, ``reference``, ``measure``, ``pairs`` (rule sets
    that differ in the knob alone, one of each value), ``change`` (the mean of their
    changes) and its 95% interval ``lo``, ``hi`` (NaN with no pair).

    ``rule_sets``: one row per rule set measured on the same games, with a column per knob
    (its value) and, per measure, ``<measure>``, ``<measure>_lo``, ``<measure>_hi`` (its
    estimate and interval; NaN where it was not measured). ``references``: each knob's
    reference value."""
    rows = []
    for knob in knobs:
        others = [k for k in knobs if k != knob]
        reference = references[knob]
        values = list(dict.fromkeys(rule_sets[knob].tolist()))
        for value in values:
            if value == reference:
                continue
            pairs = _pairs(rule_sets, knob, others, reference, value)
            for measure in measures:
                change, lo, hi, n = _effect(pairs, measure)
                rows.append((knob, value, reference, measure, n, change, lo, hi))
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _pairs(
    rule_sets: pd.DataFrame, knob: str, others: list[str], reference, value
) -> list[tuple[pd.Series, pd.Series]]:
    """``(reference's row, value's row)`` for every setting of the other knobs measured
    with both values."""

    def key(row: pd.Series) -> tuple:
        return tuple(row[k] for k in others)

    at_reference = {key(row): row for _, row in rule_sets[rule_sets[knob] == reference].iterrows()}
    return [
        (at_reference[key(row)], row)
        for _, row in rule_sets[rule_sets[knob] == value].iterrows()
        if key(row) in at_reference
    ]


def _effect(pairs, measure: str) -> tuple[float, float, float, int]:
    """``(change, lo, hi, pairs)`` of ``measure`` over ``pairs`` (those measured on it)."""
    found = [
        (b[measure] - a[measure], _half(a, measure), _half(b, measure))
        for a, b in pairs
        if not (math.isnan(a[measure]) or math.isnan(b[measure]))
    ]
    n = len(found)
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    mean = float(np.mean([d for d, _, _ in found]))
    half = math.sqrt(sum(h_a * h_a + h_b * h_b for _, h_a, h_b in found)) / n
    return mean, mean - half, mean + half, n


def _half(row: pd.Series, measure: str) -> float:
    return (row[f"{measure}_hi"] - row[f"{measure}_lo"]) / 2
