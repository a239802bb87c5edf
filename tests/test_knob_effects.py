"""What each knob does (analysis.statistics.effects.main_effects): the mean change over the
pairs of rule sets that differ in one knob alone, hand-computed, and its interval."""

import math

import numpy as np
import pandas as pd
import pytest

from analysis.statistics.effects import COLUMNS, main_effects


def rule_sets(rows, halves=0.5) -> pd.DataFrame:
    """Rule sets ``(a, b, turns)`` with an interval of ± ``halves`` on turns."""
    frame = pd.DataFrame(rows, columns=["a", "b", "turns"])
    return frame.assign(turns_lo=frame["turns"] - halves, turns_hi=frame["turns"] + halves)


def test_an_additive_knob_has_its_change_whatever_the_others():
    """turns = 10 a + (3 if b == "y") exactly: a=2 against a=1 changes turns by 10 in every
    setting of b, and b=y against b=x by 3."""
    rows = [(a, b, 10 * a + (3 if b == "y" else 0)) for a in (1, 2, 3) for b in ("x", "y")]
    table = main_effects(
        rule_sets(rows), knobs=["a", "b"], references={"a": 1, "b": "x"}, measures=["turns"]
    )
    assert list(table.columns) == list(COLUMNS)
    assert table[["knob", "value", "reference", "pairs", "change"]].values.tolist() == [
        ["a", 2, 1, 2, 10.0],
        ["a", 3, 1, 2, 20.0],
        ["b", "y", "x", 3, 3.0],
    ]
    # the interval: the half-widths (0.5 each) in quadrature over both rule sets of every
    # pair, divided by the pairs
    half = table["hi"] - table["change"]
    assert half.tolist() == pytest.approx([math.sqrt(4 * 0.25) / 2] * 2 + [math.sqrt(6 * 0.25) / 3])
    assert (table["change"] - table["lo"]).tolist() == pytest.approx(half.tolist())


def test_pairs_need_both_values_measured_with_the_other_knobs_equal():
    rows = [(1, "x", 30.0), (2, "x", 28.0), (2, "y", 25.0), (3, "y", 40.0), (1, "z", math.nan),
            (2, "z", 31.0)]  # fmt: skip
    table = main_effects(
        rule_sets(rows), knobs=["a", "b"], references={"a": 1, "b": "x"}, measures=["turns"]
    )
    found = {(r.knob, r.value): r for r in table.itertuples()}
    one = found[("a", 2)]  # only b=x has both (b=z's a=1 was not measured on turns)
    assert (one.pairs, one.change) == (1, -2.0)
    assert (one.lo, one.hi) == pytest.approx((-2 - math.sqrt(0.5), -2 + math.sqrt(0.5)))
    none = found[("a", 3)]  # a=3 only beside b=y, where a=1 was not played
    assert none.pairs == 0 and all(np.isnan([none.change, none.lo, none.hi]))
    assert (found[("b", "y")].pairs, found[("b", "y")].change) == (1, -3.0)
    assert found[("b", "z")].pairs == 1 and found[("b", "z")].change == 3.0
