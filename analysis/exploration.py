"""The report of ``cardsim explore``: what was searched and how, the Pareto front, and the
best rule sets in plain words, each confirmed on held-out deals beside the base rules.

It reads what the exploration wrote (``explore.csv`` as a DataFrame and ``explore.json`` as
a dict; see :mod:`simulate.app.exploration.files`) and writes ``report.html``, ``report.md`` and
``charts/`` through :func:`analysis.rendering.output.write_document`. The chart: with one
aim, the best rule sets' measure with its interval; with two, a scatter of the two
measures with the Pareto front; with more, parallel coordinates of the aims' normalized
distances. Numpy, pandas and matplotlib only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analysis.balance import DEFINITIONS, games_needed, length_column
from analysis.comparisons.verdict import changes_words
from analysis.load import game_spec
from analysis.rendering.document import Block, Chart, Heading, Paragraph, Table
from analysis.rendering.output import write_document
from analysis.rendering.plots import keep_share_span, new_figure
from analysis.rendering.words import fmt_int, fmt_num, game_name
from analysis.reports.balance import measure_cells
from simulate.core.measures import SHARES, TRACE_MEASURES

CHART = "front"
"""The chart's name in ``charts/``."""
EFFECTS_CHART = "knobs"
"""The chart of what each knob does, in ``charts/`` (where an effect was measured)."""
SHOWN_ONE_AIM = 20
"""With one aim, the chart shows this many of the best rule sets."""
_GREY, _BLACK = "0.62", "0"


def write_explore_report(
    folder: str | Path,
    table: pd.DataFrame,
    meta: dict,
    *,
    dpi: int | str | None = None,
    formats=None,
) -> tuple[Path, Path]:
    """Write the report of an exploration (its ``explore.csv`` table and ``explore.json``
    dict) into ``folder``: ``report.html``, ``report.md`` and ``charts/front.*``. Returns
    ``(html_path, markdown_path)``."""
    blocks, figure = build_explore_report(table, meta)
    figures = {CHART: figure}
    if _measured_effects(meta):
        figures[EFFECTS_CHART] = effects_chart(meta)
    title = f"cardsim explore: {meta['title']}"
    return write_document(Path(folder), blocks, figures, title, dpi=dpi, formats=formats)


def build_explore_report(table: pd.DataFrame, meta: dict) -> tuple[list[Block], Figure]:
    """The report's blocks and its main chart (the chart of what each knob does, where
    one was measured, is :func:`effects_chart`)."""
    aims = meta["aims"]
    blocks: list[Block] = [Heading(f"cardsim explore: {meta['title']}", 1)]
    blocks.append(Paragraph(_question(meta)))
    blocks += _answer(table, meta)
    blocks += _held_out_tables(meta)
    blocks.append(Heading("The candidates"))
    blocks.append(Paragraph(_chart_text(meta)))
    blocks.append(Chart(CHART, _chart_alt(meta)))
    blocks += _effects_blocks(meta)
    blocks += _how(meta)
    blocks.append(Heading("Files"))
    blocks.append(
        Paragraph(
            "`explore.csv`: one row per rule set measured (its knobs, the deals it played, "
            "each aimed measure with its 95% interval, held-out figures where `confirmed`, "
            "`pick` for the best, `same_as` for one that plays exactly like a pick); "
            "`best.toml`: the base rules and the best rule sets as a study, which "
            "`cardsim sweep best.toml --out DIR` runs as is; `explore.json`: the settings, "
            "the rounds, every held-out measure and what each knob does."
        )
    )
    figure = explore_chart(table, aims, meta)
    return blocks, figure


# --- what each knob does ------------------------------------------------------------------


def _measured_effects(meta: dict) -> list[dict]:
    return [e for e in meta.get("effects") or [] if e["pairs"]]


def _effects_blocks(meta: dict) -> list[Block]:
    """The section "What each knob does": the main effects of ``explore.json`` as a table
    and (where any was measured) a chart; nothing for files written before they were
    kept."""
    effects = meta.get("effects")
    if not effects:
        return []
    measures = list(dict.fromkeys(e["measure"] for e in effects))
    knobs = list(dict.fromkeys((e["knob"], e["value"], e["reference"]) for e in effects))
    found = {(e["knob"], e["value"], e["measure"]): e for e in effects}
    rows = []
    for knob, value, reference in knobs:
        cells = [f"{knob}={_plain(value)} (vs {_plain(reference)})"]
        for measure in measures:
            e = found[(knob, value, measure)]
            if not e["pairs"]:
                cells.append("not measured")
                continue
            scale, _ = _scale(measure)
            change, lo, hi = (scale * e[k] for k in ("change", "lo", "hi"))
            cells.append(f"{change:+.2f} ({lo:+.2f} to {hi:+.2f}), {fmt_int(e['pairs'])}")
        rows.append(cells)
    headers = [
        "knob value (vs reference)",
        *(f"{_scale(m)[1]}: change (95%), pairs" for m in measures),
    ]
    blocks: list[Block] = [
        Heading("What each knob does"),
        Paragraph(
            "For each value of a varied knob against its reference (the base rules' value, "
            "or the knob's first value where the base rules' is not varied): the mean change "
            "of each aimed and required measure over the pairs of rule sets that differ in "
            "that knob alone, measured on the first round's games (the same for every rule "
            "set, before the race selected any: later rounds would bias it), with its 95% "
            "interval (the estimates' own, added over the pairs). "
            '"not measured": no such pair was measured (a search proposes only some rule '
            "sets)."
        ),
        Table(headers, rows, "l" + "r" * len(measures), frozenset({0})),
    ]
    if _measured_effects(meta):
        blocks.append(
            Chart(
                EFFECTS_CHART,
                "Each knob value's mean change of each measure, with its 95% interval",
            )
        )
    return blocks


def effects_chart(meta: dict) -> Figure:
    """One panel per measure: each knob value's mean change against its reference, with
    its 95% interval, a line at no change."""
    effects = _measured_effects(meta)
    measures = list(dict.fromkeys(e["measure"] for e in effects))
    labels = list(dict.fromkeys(f"{e['knob']}={_plain(e['value'])}" for e in effects))
    fig = new_figure(
        f"{meta['title']}: what each knob does (change against its reference, round 1)",
        4.5 * len(measures) + 2,
        0.4 * len(labels) + 1.8,
    )
    axes = fig.subplots(1, len(measures), sharey=True, squeeze=False)[0]
    y = {label: float(len(labels) - 1 - i) for i, label in enumerate(labels)}
    for ax, measure in zip(axes, measures, strict=True):
        scale, name = _scale(measure)
        for e in (e for e in effects if e["measure"] == measure):
            change, lo, hi = (scale * e[k] for k in ("change", "lo", "hi"))
            _interval(
                ax, change, lo, hi, y[f"{e['knob']}={_plain(e['value'])}"], fmt="s", color=_BLACK
            )
        ax.axvline(0, color="0.3", linestyle="--", linewidth=1)
        ax.set_xlabel(f"change in {name}")
    axes[0].set_yticks(list(y.values()), list(y), fontsize=8)
    axes[0].set_ylim(-0.7, len(labels) - 0.3)
    return fig


# --- words --------------------------------------------------------------------------------


def _knobs_text(meta: dict) -> str:
    return " × ".join(f"`{knob}` ({len(values)})" for knob, values in meta["vary"].items())


def _aims_text(meta: dict) -> str:
    parts = []
    for aim in meta["aims"]:
        measure = aim["measure"].replace("_", " ")
        if aim["goal"] == "max":
            parts.append(f"{measure} as high as can be")
        elif aim["goal"] == "min":
            parts.append(f"{measure} as low as can be")
        else:
            parts.append(f"{measure} as close to {_target(aim)} as can be")
    return _join(parts)


def _target(aim: dict) -> str:
    target = float(aim["target"])
    if aim["measure"] in _SHARE_MEASURES:
        unit = "%" if aim["measure"] in _PERCENT_MEASURES else " pts"
        return f"{fmt_num(100 * target)}{unit}"
    return fmt_num(target, 2)


_SHARE_MEASURES = SHARES
_PERCENT_MEASURES = ("decisive", "comebacks", "forced_share", *TRACE_MEASURES[1:4])


def _join(parts: Sequence[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _question(meta: dict) -> str:
    deals = "single deals" if meta.get("single_deals") or meta["unit"] == "game" else "matches"
    base = ", ".join(f"`{k}={_plain(v)}`" for k, v in meta["rules"].items()) or "the preset's"
    return (
        f"Which rule sets of {_knobs_text(meta)} give {_aims_text(meta)}"
        + (
            f", keeping {_join([r['words'] for r in meta['requires']])}"
            if meta.get("requires")
            else ""
        )
        + "? "
        f"{meta['space']['size']:,} rule sets on the base rules ({base}; measured on "
        f"{deals}), {fmt_int(meta['budget'])} deals at most, seed {meta['seed']}."
    )


def _plain(value) -> str:
    return "none" if value is None else str(value)


def _measure_frame(measures: dict) -> pd.DataFrame:
    frame = pd.DataFrame.from_dict(measures, orient="index", columns=["value", "lo", "hi"])
    frame.index.name = "measure"
    return frame


def _length(meta: dict) -> str:
    return length_column(game_spec(meta))


def _answer(table: pd.DataFrame, meta: dict) -> list[Block]:
    """The best rule sets in words, each with its held-out figures beside the base's."""
    confirmed = meta["confirmed"]
    picks = sorted((c for c in confirmed if c["pick"] is not None), key=lambda c: c["pick"])
    base = next(c for c in confirmed if c["base"])
    length = _length(meta)
    aims = [aim["measure"] for aim in meta["aims"]]
    several = len(aims) > 1
    lead = (
        "The best rule set"
        if len(picks) == 1
        else f"The {len(picks)} best rule sets"
        + (
            " (members of the Pareto front closest to the aims)"
            if several
            else " (by racing rounds survived, then by the aim on the search's deals)"
        )
    )
    unit = "match" if meta["unit"] == "match" else "deal"
    blocks: list[Block] = [Heading("The answer")]
    if meta.get("requires"):
        blocks.append(Paragraph(requirements_answer(picks, meta, table)))
    worse = worse_than_base(picks, meta)
    if worse:
        blocks.append(Paragraph(worse))
    blocks += [
        Paragraph(
            f"{lead}, {'each ' if len(picks) > 1 else ''}confirmed on "
            f"{fmt_int(meta['held_out']['units'])} fresh held-out "
            f"{unit}{'es' if unit == 'match' else 's'} (never used by the search) beside the "
            "base rules on the same deals, with 95% intervals:"
        ),
    ]
    base_cells = dict(_cells(base["measures"], length))
    for pick in picks:
        cells = dict(_cells(pick["measures"], length))
        figures = "; ".join(
            f"{name.replace('_', ' ')} {cells[name][0]} ({cells[name][1]}) against "
            f"{base_cells[name][0]} ({base_cells[name][1]})"
            for name in aims
            if name in cells and name in base_cells
        )
        if pick["base"]:
            figures = "; ".join(
                f"{name.replace('_', ' ')} {cells[name][0]} ({cells[name][1]})"
                for name in aims
                if name in cells
            )
            figures = f"the base rules themselves: {figures}"
        twins = pick.get("twins") or []
        alike = ""
        if twins:
            shown = "; ".join(f"`{t}`" for t in twins[:3])
            more = f" and {len(twins) - 3} more" if len(twins) > 3 else ""
            alike = (
                f" It plays exactly like {shown}{more} (every measure equal on the same games: "
                "the knobs that differ never come into play)."
            )
        versus = _versus_words(pick)
        if versus:
            paired = ", ".join(f"`{m}`" for m in pick.get("paired") or {})
            how = f" (paired game by game on {paired})" if paired else ""
            figures += f". Against the base rules on the held-out deals{how}: {versus}"
        changes = pick.get("winner_changes")
        if changes:
            figures += ". " + changes_words("the same held-out deals", "it changes", *changes)
        short = {t: v for t, v in (pick.get("requirements") or {}).items() if v != "met"}
        kept = (
            " Requirements: " + "; ".join(f"`{t}` {v}" for t, v in short.items()) + "."
            if short
            else ""
        )
        blocks.append(Paragraph(f"{pick['pick']}. `{pick['label']}`: {figures}.{alike}{kept}"))
    if "skill" in aims and meta.get("skill"):
        blocks.append(Paragraph(_skill_words(picks, base, meta["players"])))
    elif "skill" in aims:
        blocks.append(
            Paragraph(
                f"Skill is 0 by definition: {game_name(meta['game'])} has no choices to "
                "make, so no skill games were played."
            )
        )
    return blocks


def worse_than_base(picks: Sequence[dict], meta: dict) -> str:
    """A sentence saying plainly which picks are worse than the base rules on an aim or a
    requirement (their held-out estimates: :mod:`simulate.app.exploration.versus`); "" when
    none is."""
    wanted = [a["measure"] for a in meta["aims"]]
    wanted += [r["measure"] for r in meta.get("requires") or [] if r["measure"] not in wanted]
    parts = []
    for pick in picks:
        worse = [m for m in wanted if (pick.get("against_base") or {}).get(m) == "worse"]
        if worse:
            parts.append(f"best {pick['pick']} on {_join([f'`{m}`' for m in worse])}")
    if not parts:
        return ""
    return (
        "Worse than the base rules on what was asked: "
        + "; ".join(parts)
        + " (95% intervals apart by the negligible threshold or more, on the held-out deals)."
    )


def _versus_words(pick: dict) -> str:
    """``better on turns; worse on first_seat_advantage; higher comebacks; …``."""
    versus = pick.get("against_base") or {}
    groups: dict[str, list[str]] = {}
    for measure, word in versus.items():
        groups.setdefault(word, []).append(f"`{measure}`")
    order = ("better", "worse", "higher", "lower", "no clear difference")
    return "; ".join(
        f"{word} {'in' if word in ('higher', 'lower') else 'on'} {_join(groups[word])}"
        for word in order
        if word in groups
    )


def requirements_answer(picks: Sequence[dict], meta: dict, table: pd.DataFrame) -> str:
    """The answer's first sentence when the exploration has requirements: whether the picks
    meet every one on the held-out deals, and where none is shown to, "undecided" with the
    budget that would decide it (the budget scaled so that the first unclear interval
    shrinks, as 1/√n, to its distance from the bound), or how the rule sets measured stood
    (``table``'s ``requirements``) when every pick fails."""
    requires = meta["requires"]
    named = _join([f"{r['words']}" for r in requires])
    status = [p.get("requirements", {}) for p in picks]
    met = [p for p, s in zip(picks, status, strict=True) if all(v == "met" for v in s.values())]
    if met and len(met) == len(picks):
        return f"Every rule set below meets every requirement ({named}) on the held-out deals."
    if met:
        return (
            f"Best {_join([str(p['pick']) for p in met])} of the rule sets below "
            f"{'meets' if len(met) == 1 else 'meet'} every requirement ({named}) on the "
            "held-out deals; the others do not, or not surely (see each)."
        )
    unclear = [
        (p, text)
        for p, s in zip(picks, status, strict=True)
        for text, value in s.items()
        if value == "unclear"
    ]
    if not unclear:
        failed = sorted({t for s in status for t, v in s.items() if v == "failed"})
        standing = table["requirements"].value_counts() if "requirements" in table else {}
        met, unclear = int(standing.get("met", 0)), int(standing.get("unclear", 0))
        left = (
            f" {unclear:,} of the {len(table):,} rule sets measured were still unclear when the "
            "budget ran out: a larger `--budget` would decide them."
            if unclear
            else f" None of the {len(table):,} rule sets measured was shown to meet them."
            if not met
            else ""
        )
        return (
            f"No confirmed rule set meets the requirements ({named}): every one below fails "
            f"{_join([f'`{t}`' for t in failed])} on the held-out deals; they are the closest "
            f"to the aims among those confirmed.{left}"
        )
    pick, text = unclear[0]
    requirement = next(r for r in requires if r["text"] == text)
    value, lo, hi = pick["measures"][requirement["measure"]]
    gap, half = abs(value - requirement["bound"]), (hi - lo) / 2
    if gap > 0:
        needed = meta["budget"] * (half / gap) ** 2
        decide = f"a budget of about {fmt_int(_two_digits(needed))} deals would decide it"
    else:
        decide = "no budget decides it: the estimate sits on the bound"
    return (
        f"Undecided: no rule set is shown to meet every requirement ({named}) on the held-out "
        f"deals; the best below are unclear on `{text}` (best {pick['pick']}: "
        f"{requirement['measure']} {value:.4g}, 95% interval {lo:.4g} to {hi:.4g}); {decide}."
    )


def _two_digits(value: float) -> int:
    """``value`` rounded up to two significant digits."""
    if value <= 0 or not math.isfinite(value):
        return 0
    step = 10 ** max(int(math.floor(math.log10(value))) - 1, 0)
    return int(math.ceil(value / step) * step)


def _skill_words(picks: Sequence[dict], base: dict, players: int) -> str:
    """Skill as the games a skilled player needs before its lead over a fair share is clear
    at 95% (:func:`analysis.balance.games_needed`), for each pick and the base."""

    def needed(entry: dict) -> str:
        if "skill" not in entry["measures"]:
            return "not measured"
        n = games_needed(entry["measures"]["skill"][0] + 1 / players, players)
        return "never" if math.isinf(n) else f"about {fmt_int(round(n))}"

    parts = [f"best {p['pick']}: {needed(p)}" for p in picks]
    if base["pick"] is None:
        parts.append(f"the base rules: {needed(base)}")
    return (
        "Games a skilled player needs before its lead over a fair share is clear at 95%: "
        + "; ".join(parts)
        + " (fewer games: skill shows sooner)."
    )


def _cells(measures: dict, length: str) -> list[tuple[str, tuple[str, str]]]:
    frame = _measure_frame(measures)
    return [(row[0], (row[1], row[2])) for row in measure_cells(frame, length)]


def _held_out_tables(meta: dict) -> list[Block]:
    """Every measure of the confirmed rule sets on the held-out deals, the base first."""
    confirmed = meta["confirmed"]
    columns = [c for c in confirmed if c["base"] and c["pick"] is None]
    columns += sorted((c for c in confirmed if c["pick"] is not None), key=lambda c: c["pick"])
    headers = ["measure"] + [
        ("base" if c["pick"] is None else f"best {c['pick']}" + (" (base)" if c["base"] else ""))
        for c in columns
    ]
    length = _length(meta)
    names = [name for name in DEFINITIONS if all(name in c["measures"] for c in columns)]
    per_column = [dict(_cells(c["measures"], length)) for c in columns]
    rows = []
    for name in names:
        row = [name]
        for cells in per_column:
            value, interval = cells[name]
            row.append(value if interval == "exact" else f"{value} ({interval})")
        rows.append(row)
    aims = ", ".join(f"`{a['measure']}`" for a in meta["aims"])
    deals = ", ".join(
        f"{h} {fmt_int(c['deals'])}" for h, c in zip(headers[1:], columns, strict=True)
    )
    return [
        Heading("Every measure on the held-out deals"),
        Paragraph(
            f"Each column plays the same held-out games (from index {meta['held_out']['first']:,}); "
            f"the aims are {aims}. Deals played on them: {deals}"
            + (" (skill games included)." if meta.get("skill") else ".")
        ),
        Table(headers, rows, "l" + "r" * len(columns), frozenset({0})),
    ]


def _chart_text(meta: dict) -> str:
    aims = meta["aims"]
    if len(aims) == 1:
        return (
            f"The best {SHOWN_ONE_AIM} rule sets by the race, each at its search estimate with "
            "its 95% interval (squares: black for those that raced to the end, grey for those "
            "dropped), the confirmed ones also at their held-out estimate (open circles) and "
            "numbered; the dashed line is the base rules' held-out estimate, the dotted one the "
            "target."
        )
    if len(aims) == 2:
        return (
            "Every rule set measured, at its search estimates with its 95% intervals on both "
            "aims (a dot near a target may be that far from it): grey dots were dropped by "
            "the race, black ones raced to the end; the line joins the Pareto front. Open "
            "circles are the confirmed rule sets at their held-out estimates (joined to their "
            "search estimates by a dotted line), numbered as the best in the right margin; × "
            "marks the base rules; dashed lines mark the targets. An axis of shares spans at "
            "least 2 points either side of its middle, so that a negligible difference (under "
            "half a point) never looks large."
        )
    return (
        "Parallel coordinates: each axis an aim, each line a rule set that raced to the end, at "
        "its normalized distance from the aim on the search's deals (0: on the aim; 1: the "
        "spread of the measure over the rule sets measured). Black lines are the Pareto front, "
        "thick ones the best rule sets (numbered), the dashed one the base rules (held out)."
    )


def _chart_alt(meta: dict) -> str:
    return f"the candidates of the exploration of {meta['title']}"


def _how(meta: dict) -> list[Block]:
    """What was searched and how: the space, the method, the rounds, the scalarisation."""
    space = meta["space"]
    blocks: list[Block] = [Heading("How it was searched")]
    skipped = space["skipped"]
    text = (
        f"The space: {_knobs_text(meta)}, {space['size']:,} rule sets, of which "
        f"{space['playable']:,} can be played"
    )
    if skipped:
        reasons = "; ".join(f"{n:,} × {why}" for why, n in skipped.items())
        n = sum(skipped.values())
        text += f"; {n:,} {'was' if n == 1 else 'were'} skipped: {reasons}"
    blocks.append(Paragraph(text + "."))
    method = meta["method"]
    chosen = " (chosen by `auto`)" if meta["method_asked"] == "auto" else ""
    unit = meta["unit"]
    units = "matches" if unit == "match" else "games"
    if method == "exhaustive":
        how = (
            f"Method: exhaustive{chosen}: every playable rule set played the first round "
            f"({fmt_int(meta['first_round'])} {units}), then raced."
        )
    else:
        search = meta["search"] or {}
        proposals = search.get("proposals", {})
        how = (
            f"Method: search{chosen}: {search.get('sampler', 'optuna')} (seed "
            f"{search.get('sampler_seed')}, derived from the run's seed) proposed rule sets in "
            "batches, asked and told in a fixed order; each new one played the first round "
            f"({fmt_int(meta['first_round'])} {units}) and the sampler was told its losses, "
            f"while first rounds took at most {search.get('proposal_share', 0.5):.0%} of the "
            f"search's deals; proposals: {proposals.get('new', 0):,} new, "
            f"{proposals.get('again', 0):,} already measured, "
            f"{proposals.get('unplayable', 0):,} unplayable. Then the rule sets left raced."
        )
    blocks.append(Paragraph(how))
    blocks.append(
        Paragraph(
            "The race: round k plays every rule set still in it on the next "
            f"{fmt_int(meta['first_round'])} × 2^(k−1) {units} (the same indices for all: "
            "common random numbers); the clearly beaten are dropped after each round (in "
            "round 1, after every 50 rule sets or batch of proposals). Each aim turns a "
            "measure into a loss (the distance to a target; the value negated for max); its "
            "95% interval gives an interval of the loss. A rule set leaves the race when it "
            "fails a requirement (its interval wholly beyond the bound), or when another still "
            "in the race, known to meet every requirement, is at least as good on every aim "
            "with confidence (its largest loss at most this one's smallest plus the "
            "negligible threshold: half a point for a share or an advantage, 2% of the "
            "measure for a length or a count) and clearly better on one (smaller by the "
            "threshold or more, the two intervals apart). On an aim where two rule sets "
            "cannot be told apart neither is dropped for it, so a noisy aim keeps every rule "
            "set it cannot rank yet. A drop needs two 95% intervals apart, so each one errs "
            "with probability well under 5%; over every pair and round the chance that some "
            "rule set was dropped wrongly is not controlled, which the confirmation on "
            "held-out deals checks for the picks. The race stops when one rule set is left "
            "(and meets or fails every requirement) or the search's deals run out."
        )
    )
    rows = [
        [
            str(r["number"]),
            f"{r['first']:,}–{r['stop'] - 1:,}",
            f"{r['rule_sets']:,}",
            fmt_int(r["deals"]),
            f"{r['dropped']:,}",
            f"{r['left']:,}",
            "; ".join(f"{n:,} {why}" for why, n in (r.get("reasons") or {}).items()) or "–",
        ]
        for r in meta["rounds"]
    ]
    blocks.append(
        Table(
            ["round", f"{units}", "rule sets", "deals", "dropped", "left", "why they left"],
            rows,
            "rrrrrrl",
        )
    )
    if len(meta["aims"]) > 1:
        scales = "; ".join(
            f"`{s['measure']}`: best {fmt_num(s['best'], 4)}, scale {fmt_num(s['scale'], 4)}"
            for s in meta["scales"]
        )
        blocks.append(
            Paragraph(
                "Closest to the aims: the normalized distance √Σ((value − best) / scale)² over "
                "the aims, where best is the target (or the highest value measured for max, "
                "the lowest for min) and scale the spread of the measure (largest minus "
                f"smallest) over every rule set measured: {scales}. The Pareto front is taken "
                "over the rule sets left in the race, on their losses."
            )
        )
    blocks.append(
        Paragraph(
            f"Confirmation: the best rule sets and the base rules played "
            f"{fmt_int(meta['held_out']['units'])} {units} each from index "
            f"{meta['held_out']['first']:,} (2^40), which the search never reaches, with "
            "whatever the budget had left. Deals played in all: "
            f"{fmt_int(meta['spent'])} of {fmt_int(meta['budget'])} (every seating of the "
            "skill games and every deal of a match counted)."
        )
    )
    return blocks


# --- the chart -----------------------------------------------------------------------------


def explore_chart(table: pd.DataFrame, aims: Sequence[dict], meta: dict) -> Figure:
    """The exploration's chart: one aim, the best rule sets' intervals; two, a scatter with
    the Pareto front; more, parallel coordinates. Every rule set is drawn at its search
    estimates (those the race and the front were decided on); the confirmed ones are also
    drawn at their held-out estimates (open markers)."""
    title = f"{meta['title']}: {len(table):,} rule sets measured"
    searched, held = _views(table, aims, meta)
    if len(aims) == 1:
        return _ranked_chart(searched, held, aims[0], title)
    if len(aims) == 2:
        return _scatter_chart(searched, held, aims, title)
    return _parallel_chart(searched, held, aims, meta, title)


def _views(table: pd.DataFrame, aims: Sequence[dict], meta: dict):
    """``(searched, held)``: the rule sets the search measured, at their search estimates
    (``explore.csv`` holds held-out ones for the confirmed rows: ``explore.json`` the search
    ones), and the confirmed rule sets at their held-out estimates."""
    held = table[table["confirmed"]]
    searched = table.copy()
    unmeasured = []
    for entry in meta.get("confirmed", []):
        row = entry["row"]
        if entry.get("search") is None:
            unmeasured.append(row)
            continue
        for aim in aims:
            name = aim["measure"]
            value, lo, hi = entry["search"][name]
            searched.loc[row, [name, f"{name}_lo", f"{name}_hi"]] = [value, lo, hi]
    return searched.drop(index=unmeasured), held


def _scale(measure: str) -> tuple[float, str]:
    if measure in _SHARE_MEASURES:
        unit = "%" if measure in _PERCENT_MEASURES else "points"
        return 100.0, f"{measure} ({unit})"
    return 1.0, measure


def _label(row: pd.Series, knobs: Sequence[str]) -> str:
    return ", ".join(f"{k}={row[k]}" for k in knobs)


def _knob_columns(table: pd.DataFrame) -> list[str]:
    return list(table.columns[: list(table.columns).index("games")])


def _loss(aim: dict, values: np.ndarray) -> np.ndarray:
    if aim["goal"] == "max":
        return -values
    if aim["goal"] == "min":
        return values
    return np.abs(values - float(aim["target"]))


def _interval(ax, x: float, lo: float, hi: float, y: float, **style) -> None:
    ax.errorbar(x, y, xerr=[[x - lo], [hi - x]], capsize=2, **style)


def _ranked_chart(searched: pd.DataFrame, held: pd.DataFrame, aim: dict, title: str) -> Figure:
    measure = aim["measure"]
    scale, label = _scale(measure)
    order = searched.assign(_loss=_loss(aim, searched[measure].to_numpy(float)))
    order = order.assign(_alive=order["dropped"].isna())
    order = order.sort_values(["_alive", "rounds", "_loss"], ascending=[False, False, True])
    shown = order.head(SHOWN_ONE_AIM)
    fig = new_figure(title, 11, 0.36 * len(shown) + 1.9)
    ax = fig.subplots()
    knobs = _knob_columns(searched)
    y = np.arange(len(shown))[::-1].astype(float)
    for yi, (index, row) in zip(y, shown.iterrows(), strict=True):
        colour = _BLACK if pd.isna(row["dropped"]) else _GREY
        v, lo, hi = (scale * row[c] for c in (measure, f"{measure}_lo", f"{measure}_hi"))
        _interval(ax, v, lo, hi, yi, fmt="s", color=colour)
        if index in held.index:
            out = held.loc[index]
            hv, hlo, hhi = (scale * out[c] for c in (measure, f"{measure}_lo", f"{measure}_hi"))
            _interval(ax, hv, hlo, hhi, yi - 0.3, fmt="o", color=_BLACK, mfc="white")
        if pd.notna(row["pick"]):
            ax.annotate(
                str(int(row["pick"])),
                (hi, yi),
                xytext=(4, -3),
                textcoords="offset points",
                fontsize=8,
                weight="bold",
            )
    ax.set_yticks(y, [_label(row, knobs) for _, row in shown.iterrows()], fontsize=7)
    base = held[held["base"]]
    if not base.empty:
        ax.axvline(scale * float(base[measure].iloc[0]), color="0.3", linestyle="--", linewidth=1)
    if aim["goal"] == "target":
        ax.axvline(scale * float(aim["target"]), color="0", linestyle=":", linewidth=1)
    if measure in _SHARE_MEASURES:
        low, high = ax.get_xlim()
        keep_share_span(ax, (low + high) / 2, axis="x", scale=scale)
    ax.set_xlabel(f"{label}; squares: search, circles: held out")
    return fig


def _scatter_chart(
    searched: pd.DataFrame, held: pd.DataFrame, aims: Sequence[dict], title: str
) -> Figure:
    (mx, sx), (my, sy) = [(a["measure"], _scale(a["measure"])) for a in aims]
    fig = new_figure(title, 8, 6)
    ax = fig.subplots()
    x = sx[0] * searched[mx].to_numpy(float)
    y = sy[0] * searched[my].to_numpy(float)
    alive = searched["dropped"].isna().to_numpy()
    # every rule set's 95% intervals on both aims: a dot near the fair line may be noise
    xerr = _errors(x, sx[0] * searched[f"{mx}_lo"], sx[0] * searched[f"{mx}_hi"])
    yerr = _errors(y, sy[0] * searched[f"{my}_lo"], sy[0] * searched[f"{my}_hi"])
    for mask, colour in ((~alive, "0.8"), (alive, "0.45")):
        ax.errorbar(
            x[mask],
            y[mask],
            xerr=xerr[:, mask],
            yerr=yerr[:, mask],
            fmt="none",
            ecolor=colour,
            elinewidth=0.6,
            zorder=1,
        )
    ax.plot([], [], color="0.45", linewidth=0.6, label="95% intervals (search)")
    ax.scatter(x[~alive], y[~alive], s=14, color=_GREY, marker="o", label="dropped by the race")
    ax.scatter(x[alive], y[alive], s=22, color=_BLACK, marker="o", label="raced to the end")
    front = searched["front"].to_numpy(bool)
    if front.any():
        order = np.argsort(x[front], kind="stable")
        ax.plot(x[front][order], y[front][order], color=_BLACK, linewidth=1, label="Pareto front")
    position = {index: i for i, index in enumerate(searched.index)}
    hx, hy = sx[0] * held[mx].to_numpy(float), sy[0] * held[my].to_numpy(float)
    ax.scatter(hx, hy, s=40, facecolors="white", edgecolors=_BLACK, label="held out (confirmed)")
    picks = []
    for j, (index, row) in enumerate(held.iterrows()):
        if index in position:
            i = position[index]
            ax.plot([x[i], hx[j]], [y[i], hy[j]], color="0.5", linewidth=0.6, linestyle=":")
        if pd.notna(row["pick"]):
            picks.append((int(row["pick"]), hx[j], hy[j]))
    base = held["base"].to_numpy(bool)
    if base.any():
        ax.scatter(
            hx[base], hy[base], s=60, color=_BLACK, marker="x", label="base rules (held out)"
        )
    for aim, scale, axis in ((aims[0], sx[0], ax.axvline), (aims[1], sy[0], ax.axhline)):
        if aim["goal"] == "target":
            axis(scale * float(aim["target"]), color="0.3", linestyle="--", linewidth=1)
    for measure, scale, which in ((mx, sx[0], "x"), (my, sy[0], "y")):
        if measure in _SHARE_MEASURES:
            low, high = ax.get_xlim() if which == "x" else ax.get_ylim()
            keep_share_span(ax, (low + high) / 2, axis=which, scale=scale)
    _label_picks(ax, picks)
    ax.set_xlabel(sx[1])
    ax.set_ylabel(sy[1])
    ax.legend(fontsize=8, loc="best")
    return fig


def _errors(values: np.ndarray, lo, hi) -> np.ndarray:
    """Error bar lengths (2, n) from the values and their bounds (never negative)."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    return np.vstack([np.maximum(values - lo, 0), np.maximum(hi - values, 0)])


def _label_picks(ax, picks: list[tuple[int, float, float]]) -> None:
    """Number the picks in a column at the right of the plot, top to bottom in the order of
    their points' heights and at least a label's height apart, each joined to its point by
    a thin line: labels never pile on one another, however close the points."""
    if not picks:
        return
    low, high = ax.get_ylim()
    step = (high - low) / 22
    slots: list[float] = []
    for _, _, y in sorted(picks, key=lambda p: -p[2]):
        slot = min(y, slots[-1] - step) if slots else y
        slots.append(slot)
    shift = max(0.0, low + step - slots[-1])
    for (rank, x, y), slot in zip(sorted(picks, key=lambda p: -p[2]), slots, strict=True):
        ax.annotate(
            str(rank),
            (x, y),
            xytext=(1.02, slot + shift),
            textcoords=("axes fraction", "data"),
            fontsize=9,
            weight="bold",
            va="center",
            annotation_clip=False,
            arrowprops={"arrowstyle": "-", "color": "0.5", "linewidth": 0.5},
        )


def _parallel_chart(
    searched: pd.DataFrame, held: pd.DataFrame, aims: Sequence[dict], meta: dict, title: str
) -> Figure:
    norms = {s["measure"]: (s["best"], s["scale"]) for s in meta["scales"]}
    fig = new_figure(title, 9, 5)
    ax = fig.subplots()
    xs = np.arange(len(aims))

    def distances(row: pd.Series) -> list[float]:
        out = []
        for aim in aims:
            best, scale = norms[aim["measure"]]
            out.append(abs(float(row[aim["measure"]]) - best) / (scale or 1.0))
        return out

    for _, row in searched[searched["dropped"].isna()].iterrows():
        ys = distances(row)
        if pd.notna(row["pick"]):
            ax.plot(xs, ys, color=_BLACK, linewidth=2.5)
            ax.annotate(
                str(int(row["pick"])),
                (xs[-1], ys[-1]),
                xytext=(4, 0),
                textcoords="offset points",
                fontsize=9,
            )
        elif row["front"]:
            ax.plot(xs, ys, color=_BLACK, linewidth=0.8)
        else:
            ax.plot(xs, ys, color=_GREY, linewidth=0.6)
    for _, row in held[held["base"]].iterrows():
        ax.plot(xs, distances(row), color=_BLACK, linestyle="--", linewidth=1.5)
    ax.set_xticks(xs, [aim["text"] for aim in aims], fontsize=8)
    ax.set_ylabel("normalized distance from the aim")
    ax.set_ylim(bottom=0)
    for x in xs:
        ax.axvline(x, color="0.8", linewidth=0.8, zorder=0)
    return fig
