"""The verdict of a comparison: what each variant changes against its base, in plain words,
with practical thresholds.

Each measure of a variant against its base gets one of three verdicts, from the difference
the comparison table already holds and the test it already ran (paired where the deals are
shared, Holm-adjusted over the whole comparison: :mod:`analysis.comparisons.variants`):

- :data:`NEGLIGIBLE` when the change is under its practical threshold, however significant:
  under ``share`` percentage points for a share (a win share, an end reason's share), under
  ``change`` percent of the base's value for a mean (length, score, deals per match);
- :data:`UNCLEAR` ("no clear change") when it is at least the threshold but not significant;
- :data:`CHANGED` when it is at least the threshold and significant: stated with its size.

The measures: who wins (the first seat's share, the share of the seat that changes most,
seats counted in playing order from the deal's leader as the balance measures count them,
and seat 0's match win share), the seat spread (the largest minus the smallest seat's
share, significant when its bootstrap interval leaves out 0), the mean length, the mean score per seat and deal, the deals per match (match play
to a target score) and the end reasons. A verdict opens with a warning when the variant
differs from its base in more than its rules (strategies, seat rotation:
:mod:`analysis.comparisons.settings`). A variant's sentences go from the clear changes to
the negligible ones, and within each group from the largest change to the smallest, a
change measured in multiples of its threshold so that shares and means compare.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from analysis.comparisons.variants import ALPHA
from analysis.errors import ReportError
from analysis.rendering.document import Block, Heading, Paragraph
from analysis.rendering.words import fmt_signed, plural, singular
from simulate.core.measures import NEGLIGIBLE_CHANGE, NEGLIGIBLE_SHARE

#: The three verdicts of a measure (``<measure>_verdict`` in the comparison table).
CHANGED, UNCLEAR, NEGLIGIBLE = "changed", "unclear", "negligible"
_ORDER = {CHANGED: 0, UNCLEAR: 1, NEGLIGIBLE: 2}

#: The measures a verdict speaks of, in the table's column order.
MEASURES = ("wins", "spread", "length", "score", "deals", "ends")


@dataclass(frozen=True)
class Thresholds:
    """Practical thresholds: ``share`` in percentage points of a share, ``change`` in
    percent of a mean (a length, a score)."""

    share: float = NEGLIGIBLE_SHARE
    change: float = NEGLIGIBLE_CHANGE


def thresholds(
    share: float | str | None = None,
    change: float | str | None = None,
    *,
    names: tuple[str, str] = ("negligible_share", "negligible_change"),
) -> Thresholds:
    """The thresholds checked: ``share`` a number of points from 0 to under 100, ``change``
    a number of percent, 0 or more (numbers or their text, as a command line gives them;
    None for the defaults). Raises :class:`ReportError` with one line naming the bad value
    (``names`` are the options' names, for the message)."""
    share_value = _number(share, NEGLIGIBLE_SHARE)
    if share_value is None or not 0 <= share_value < 100:
        raise ReportError(
            f"{names[0]} must be a number of percentage points from 0 to under 100, got {share!r}"
        )
    change_value = _number(change, NEGLIGIBLE_CHANGE)
    if change_value is None or not change_value >= 0:
        raise ReportError(f"{names[1]} must be a number of percent, 0 or more, got {change!r}")
    return Thresholds(share_value, change_value)


def _number(value, default: float) -> float | None:
    """``value`` as a finite float (``default`` for None); None when it is not one."""
    if value is None:
        return default
    if isinstance(value, bool):
        return None
    try:
        number = float(value.strip() if isinstance(value, str) else value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


@dataclass(frozen=True)
class Finding:
    """One sentence of a verdict: the ``measure`` (:data:`MEASURES`), its ``verdict``, its
    ``size`` (the change in multiples of its threshold, for the order) and its ``text``."""

    measure: str
    verdict: str
    size: float
    text: str


def findings(row: pd.Series, base: pd.Series, limits: Thresholds) -> list[Finding]:
    """The verdict's sentences for the variant ``row`` against its ``base`` (rows of
    :func:`analysis.comparisons.variants.comparison_table`), in the verdict's order."""
    length = (singular(str(row["length_unit"])), "")
    found = [
        _wins(row, base, limits),
        _spread(row, base, limits),
        _mean(row, base, "length", "mean_length", limits, _LENGTH_WORDS, length),
        _mean(
            row, base, "score", "mean_score", limits, _SCORE_WORDS, ("point", " per seat and deal")
        ),
        _mean(row, base, "deals", "mean_deals", limits, _DEALS_WORDS, ("deal", " per match")),
        _ends(row, base, limits),
    ]
    found = [f for f in found if f is not None]
    return sorted(found, key=lambda f: (_ORDER[f.verdict], -f.size))


def add_verdicts(table: pd.DataFrame, limits: Thresholds) -> pd.DataFrame:
    """``table`` with the verdict's columns: ``<measure>_verdict`` for each measure of
    :data:`MEASURES` compared, ``verdict`` (the sentences, joined by semicolons) on the
    variants' rows, and ``negligible_share``, ``negligible_change`` (the thresholds) on
    every row."""
    table = table.copy()
    columns = {f"{m}_verdict": [None] * len(table) for m in MEASURES}
    texts: list[str | None] = [None] * len(table)
    for i, (_, row) in enumerate(table.iterrows()):
        if row["is_base"]:
            continue
        base = _base_row(table, row)
        found = findings(row, base, limits)
        for f in found:
            columns[f"{f.measure}_verdict"][i] = f.verdict
        texts[i] = _warning(row) + "; ".join(f.text for f in found)
    for name, values in columns.items():
        if any(v is not None for v in values):
            table[name] = values
    table["verdict"] = texts
    table["negligible_share"] = limits.share
    table["negligible_change"] = limits.change
    return table


def _warning(row: pd.Series) -> str:
    """The verdict's opening warning when the variant differs from its base in more than
    its rules (the table's ``not_rules``), else ""."""
    other = row.get("not_rules")
    if not isinstance(other, str) or not other:
        return ""
    return (
        f"warning: not only the rules differ ({other}), so the changes below are not the "
        "rules' alone; "
    )


def _base_row(table: pd.DataFrame, row: pd.Series) -> pd.Series:
    same = (table["players"] == row["players"]) & table["is_base"]
    return table[same & (table["variant"] == row["base"])].iloc[0]


def verdict_blocks(table: pd.DataFrame) -> list[Block]:
    """The report's "Verdict" section: one paragraph per variant of ``table`` (with the
    columns of :func:`add_verdicts`), then the thresholds it used and what the words mean."""
    limits = Thresholds(
        float(table["negligible_share"].iloc[0]), float(table["negligible_change"].iloc[0])
    )
    counts = table["players"].nunique() > 1
    blocks: list[Block] = [Heading("Verdict")]
    others = table[~table["is_base"]]
    for _, row in others.iterrows():
        players = f" ({int(row['players'])} players)" if counts else ""
        blocks.append(
            Paragraph(
                f"{row['variant']} against {row['base']}{players}: {row['verdict']}."
                + winner_changes_text(row)
            )
        )
    if others.empty:
        blocks.append(Paragraph("No variant has a base to be compared with."))
    blocks.append(Paragraph(thresholds_text(limits)))
    return blocks


def winner_changes_text(row: pd.Series) -> str:
    """The verdict's sentence on the share of paired deals whose winner differs
    (``winner_changes``): "On the same deals the rules change who wins 31.2% of them (95%
    interval 30.1% to 32.3%).", after a space; "" where the deals were not paired or the
    changes not counted."""
    share = _get(row, "winner_changes")
    if math.isnan(share):
        return ""
    lo, hi = _get(row, "winner_changes_lo"), _get(row, "winner_changes_hi")
    return f" {changes_words('the same deals', 'the rules change', share, lo, hi)}."


def changes_words(deals: str, who: str, share: float, lo: float, hi: float) -> str:
    """How often a rule change changes the winner of the deals both played, ``share`` with
    its interval, in words: ``On {deals} {who} who wins 4.0% of them (95% interval 3.9% to
    4.2%)``."""
    return (
        f"On {deals} {who} who wins {_share(share)} of them (95% interval {_share(lo)} to "
        f"{_share(hi)})"
    )


def thresholds_text(limits: Thresholds) -> str:
    """What the verdict's words mean, with the thresholds used."""
    return (
        f"A change is negligible when it is under {_fmt_limit(limits.share)} percentage "
        f"points of a share (a win share, an end reason's share) or under "
        f"{_fmt_limit(limits.change)}% of the base's mean (a length, a score, deals per "
        "match), however significant (`--negligible-share`, `--negligible-change`); "
        '"no clear change" is one at least that large that is not significant; any other '
        "change is stated with its size. Significant means a Holm-adjusted p-value under "
        f"{ALPHA:.0%} in the differences below (paired where the variant played the base's "
        "deals); for the seat spread (the largest minus the smallest seat's share), a 95% "
        "bootstrap interval of its change that leaves out 0. Seats are counted in playing "
        "order from the seat that led the deal (the first seat led it). "
        "Clear changes come first, then unclear and negligible ones, each group from the "
        "largest change to the smallest, a change counted in multiples of its threshold."
    )


def _fmt_limit(value: float) -> str:
    return f"{value:g}"


# --- measures ----------------------------------------------------------------------------


def _classify(size: float, limit: float, significant) -> str:
    """The verdict of a change of ``size`` (its absolute value, in the threshold's unit);
    no change at all is negligible whatever the threshold."""
    if size == 0 or not size >= limit:
        return NEGLIGIBLE
    return CHANGED if _true(significant) else UNCLEAR


def _true(value) -> bool:
    """Whether a ``<test>_significant`` cell says yes (None, NaN and pandas' NA say no)."""
    return value is not None and not pd.isna(value) and bool(value)


def _ratio(size: float, limit: float) -> float:
    """``size`` in multiples of ``limit`` (infinite above a zero threshold)."""
    if limit > 0:
        return size / limit
    return math.inf if size > 0 else 0.0


def _digits(value: float, limit: float, digits: int = 1) -> int:
    """Decimals (from ``digits`` to 3) that show ``value`` apart from the threshold
    ``limit`` when it lies next to it: 1.96% against 2% is "1.96", not "2.0"."""
    while digits < 3 and value != limit and round(value, digits) == round(limit, digits):
        digits += 1
    return digits


def _pair_digits(a: float, b: float, digits: int = 1) -> int:
    """Decimals (from ``digits`` to 3) that show two different means apart."""
    while digits < 3 and a != b and round(a, digits) == round(b, digits):
        digits += 1
    return digits


def _share(value: float, digits: int = 1) -> str:
    return f"{100 * value:.{digits}f}%"


def _get(row: pd.Series, column: str) -> float:
    value = row.get(column, math.nan)
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


@dataclass(frozen=True)
class _Share:
    """One share of who wins: its verdict, its change in points and its words."""

    kind: str
    verdict: str
    points: float
    changed: str
    unclear: str


#: Seats in playing order from the deal's leader, as a verdict names them.
_ORDINALS = (
    *("first second third fourth fifth sixth seventh eighth ninth tenth".split()),
    *(f"{k}th" for k in range(11, 21)),
)


def _share_change(
    row: pd.Series, base: pd.Series, kind: str, column: str, diff: float, limits: Thresholds
) -> _Share:
    b, v = _get(base, column), _get(row, column)
    points = 100 * abs(diff)
    test = {"first": "first", "seat": "seats", "match": "match"}[kind]
    verdict = _classify(points, limits.share, row.get(f"{test}_significant"))
    signed = _points(diff, limits.share)
    if kind == "match":
        shares = f"{_share(v)} vs {_share(b)}, {signed}"
        more = "more" if diff > 0 else "fewer"
        return _Share(
            kind,
            verdict,
            points,
            f"seat 0 wins {more} matches ({shares})",
            f"seat 0's match win share {shares}",
        )
    who = (
        f"the {_ORDINALS[int(column.split('_')[1])]} seat" if kind != "first" else "the first seat"
    )
    shares = f"{_share(v)} vs {_share(b)} of deals, {signed}"
    more = "more" if diff > 0 else "less"
    return _Share(
        kind, verdict, points, f"{who} wins {more} often ({shares})", f"{who}'s share {shares}"
    )


def _wins(row: pd.Series, base: pd.Series, limits: Thresholds) -> Finding | None:
    """Who wins: the first seat's share, the share of the seat that changes most (seats
    counted in playing order from the deal's leader) when it is not the first, and seat 0's
    match win share; each said in its own words, the negligible ones left out unless all
    are."""
    shares = []
    diff = _get(row, "first_diff")
    if not math.isnan(diff):
        shares.append(_share_change(row, base, "first", "first_share", diff, limits))
    seats = [c for c in row.index if c.startswith("position_") and c.endswith("_share")]
    changes = [(_get(row, c) - _get(base, c), c) for c in seats]
    changes = [(d, c) for d, c in changes if not math.isnan(d)]
    if changes and "seats_p" in row.index:
        diff, column = max(changes, key=lambda dc: (round(abs(dc[0]), 12), -seats.index(dc[1])))
        if column != "position_0_share":
            shares.append(_share_change(row, base, "seat", column, diff, limits))
    diff = _get(row, "match_diff")
    if not math.isnan(diff):
        shares.append(_share_change(row, base, "match", "match_share", diff, limits))
    if not shares:
        return None
    size = _ratio(max(s.points for s in shares), limits.share)
    changed = [s for s in shares if s.verdict == CHANGED]
    unclear = [s for s in shares if s.verdict == UNCLEAR]
    if changed:
        text = " and ".join(s.changed for s in changed)
        if unclear:
            text += ", with no clear change in " + " or ".join(
                f"{s.unclear} (not significant)" for s in unclear
            )
        return Finding("wins", CHANGED, size, text)
    if unclear:
        inner = "; ".join(s.unclear for s in unclear)
        return Finding(
            "wins", UNCLEAR, size, f"no clear change in who wins ({inner}, not significant)"
        )
    return Finding("wins", NEGLIGIBLE, size, "who wins does not change")


def _spread(row: pd.Series, base: pd.Series, limits: Thresholds) -> Finding | None:
    """The seat spread (the largest minus the smallest seat's share): its change in points,
    significant when its bootstrap interval leaves out 0."""
    diff = _get(row, "spread_diff")
    if math.isnan(diff):
        return None
    points = 100 * abs(diff)
    lo, hi = _get(row, "spread_diff_lo"), _get(row, "spread_diff_hi")
    verdict = _classify(points, limits.share, lo > 0 or hi < 0)
    digits = _pair_digits(100 * _get(row, "spread"), 100 * _get(base, "spread"))
    values = (
        f"{100 * _get(row, 'spread'):.{digits}f} vs {100 * _get(base, 'spread'):.{digits}f} pts"
    )
    signed = _points(diff, limits.share)
    size = _ratio(points, limits.share)
    if verdict == UNCLEAR:
        text = f"no clear change in the seat spread ({values}, {signed}, not significant)"
    elif verdict == NEGLIGIBLE and round(points, _digits(points, limits.share)) == 0:
        text = f"the seat spread does not change ({values})"
    else:
        way = "widens" if diff > 0 else "narrows"
        text = f"the seat spread {way} ({values}, {signed}{', negligible' if verdict == NEGLIGIBLE else ''})"
    return Finding("spread", verdict, size, text)


def _points(diff: float, limit: float) -> str:
    """A difference of shares in points, its decimals showing it apart from ``limit``."""
    digits = _digits(100 * abs(diff), limit)
    return f"{fmt_signed(100 * diff, digits)} pts"


#: The words of a mean: (what changes, up, down, what shows no clear change, what does not
#: change).
_LENGTH_WORDS = ("deals are", "longer", "shorter", "deal length", "deal length does")
_SCORE_WORDS = ("scores", "rise", "fall", "scores", "scores do")
_DEALS_WORDS = ("matches are", "longer", "shorter", "match length", "match length does")


def _mean(
    row: pd.Series,
    base: pd.Series,
    key: str,
    column: str,
    limits: Thresholds,
    words: tuple[str, str, str, str, str],
    unit: tuple[str, str],
) -> Finding | None:
    """A mean (length, score, deals per match): its change in percent of the base's mean;
    ``unit`` is the noun of the values, in the singular, and what follows it."""
    diff = _get(row, f"{key}_diff")
    if math.isnan(diff):
        return None
    b, v = _get(base, column), _get(row, column)
    if b != 0 and not math.isnan(b):
        percent = 100 * diff / abs(b)
    else:
        percent = 0.0 if diff == 0 else math.copysign(math.inf, diff)
    size = abs(percent)
    verdict = _classify(size, limits.change, row.get(f"{key}_significant"))
    digits = _pair_digits(v, b)
    noun, tail = unit
    last = f"{b:,.{digits}f}"
    values = f"{v:,.{digits}f} vs {last} {noun if last == '1' else plural(noun)}{tail}"
    what, up, down, subject, unchanged = words
    pct_digits = _digits(size, limits.change)
    if verdict == UNCLEAR:
        signed = "+∞" if math.isinf(percent) else fmt_signed(percent, pct_digits)
        text = f"no clear change in {subject} ({values}, {signed}%, not significant)"
    elif verdict == NEGLIGIBLE and round(size, pct_digits) == 0:
        text = f"{unchanged} not change ({values})"
    else:
        pct = "∞" if math.isinf(size) else f"{size:.{pct_digits}f}"
        direction = up if diff > 0 else down
        change = (
            f"{what} {pct}% {direction}" if what.endswith(" are") else f"{what} {direction} {pct}%"
        )
        text = f"{change} ({values}{', negligible' if verdict == NEGLIGIBLE else ''})"
    return Finding(key, verdict, _ratio(size, limits.change), text)


def _ends(row: pd.Series, base: pd.Series, limits: Thresholds) -> Finding | None:
    """The end reasons: the reason whose share changes most, in points."""
    if "ends_p" not in row.index:
        return None
    reasons = [c for c in row.index if c.startswith("end_")]
    changes = [(_get(row, c) - _get(base, c), c) for c in reasons]
    changes = [(d, c) for d, c in changes if not math.isnan(d)]
    if not changes:
        return None
    # The largest change; of two as large (two reasons trade places), the one that grows.
    diff, column = max(changes, key=lambda dc: (round(abs(dc[0]), 12), dc[0] > 0))
    reason = column[4:]
    points = 100 * abs(diff)
    verdict = _classify(points, limits.share, row.get("ends_significant"))
    size = _ratio(points, limits.share)
    shares = f"{_share(_get(row, column))} vs {_share(_get(base, column))}"
    signed = _points(diff, limits.share)
    if verdict == CHANGED:
        more = "more" if diff > 0 else "fewer"
        return Finding(
            "ends", verdict, size, f"{more} deals end by `{reason}` ({shares}, {signed})"
        )
    if verdict == UNCLEAR:
        text = f"no clear change in how deals end (`{reason}` {shares}, {signed}, not significant)"
        return Finding("ends", verdict, size, text)
    return Finding("ends", verdict, size, "how deals end does not change")
