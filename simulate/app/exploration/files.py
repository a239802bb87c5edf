"""What an exploration writes: ``explore.csv`` (one row per rule set measured),
``best.toml`` (a study of the base rules and the best rule sets that ``cardsim sweep`` runs
as is) and ``explore.json`` (the settings, the rounds and the held-out figures, for the
report). Each file goes to a temporary name, then is renamed into place.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ...core.errors import CardsimError
from .plan import HOLDOUT_FIRST, PROPOSAL_SHARE
from .racing import scales
from .run import Result
from .search import sampler_seed
from .versus import against_base

CSV_FILE = "explore.csv"
BEST_FILE = "best.toml"
META_FILE = "explore.json"
STUDY_GAMES = 100_000
"""Games (matches) per cell of ``best.toml``."""


def knob_value(rules: dict, knob: str) -> Any:
    """The value of a (dotted) knob in a rules dict as ``run.json`` stores it, written as
    ``--rule`` takes it: ``skip+draw:2``, ``none``, ``on``, ``2:7,5`` by player count."""
    value: Any = rules
    for part in knob.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    if isinstance(value, bool):
        return "on" if value else "off"
    if value is None:
        return "none"
    if isinstance(value, list | tuple):
        return "+".join(map(str, value)) or "none"
    if isinstance(value, dict):
        plain = [f"{k}:{v}" for k, v in value.items() if k != "default"]
        return ",".join([*plain, *(str(v) for k, v in value.items() if k == "default")])
    return value


def explore_table(result: Result):
    """``explore.csv`` as a DataFrame: one row per rule set measured, in product order (the
    base rules last when they are not a point of the space). Columns: each varied knob,
    ``games`` (every deal the rule set played: search, skill and held-out), for each aim
    ``<measure>``, ``<measure>_lo``, ``<measure>_hi`` (95%; the held-out estimates where
    ``confirmed``; each required measure too), ``requirements`` (with ``--require``:
    :data:`STANDINGS`, on the held-out estimates where confirmed), ``confirmed``, ``base``, ``pick`` (1 for the best; empty for the
    others), ``same_as`` (the pick this rule set plays exactly like: every measure equal on
    the same games, as when a knob never comes into play), ``front`` (on the Pareto front the picks come from; with one aim, left in the
    race), ``rounds`` (racing rounds played), ``dropped`` (the round after which the
    race dropped it; empty if never) and ``left_because`` (why: ``fails R``, ``beaten on
    MEASURE``)."""
    import pandas as pd

    plan = result.plan
    picks = {id(c): rank for rank, c in enumerate(result.picks, start=1)}
    front = {id(c) for c in result.front}
    rows = []
    for candidate in result.candidates:
        row: dict[str, Any] = {}
        rules = candidate.request.rules.to_dict()
        for k, knob in enumerate(plan.knobs):
            if candidate.rule_set is not None:
                row[knob.name] = candidate.rule_set.values[k]
            else:
                row[knob.name] = knob_value(rules, knob.name)
        row["games"] = candidate.deals
        confirmed = candidate.confirmed is not None
        table = candidate.confirmed if confirmed else candidate.estimates
        row.update(estimate_columns(table, measured_names(plan)))
        if plan.requires:
            row["requirements"] = STANDINGS[candidate.standing(plan.requires, confirmed)]
        row["confirmed"] = confirmed
        row["base"] = candidate.is_base
        row["pick"] = picks.get(id(candidate))
        row["same_as"] = picks.get(id(candidate.twin_of)) if candidate.twin_of else None
        row["front"] = id(candidate) in front
        row["rounds"] = candidate.rounds
        row["dropped"] = candidate.dropped
        row["left_because"] = candidate.left_because
        rows.append(row)
    frame = pd.DataFrame(rows)
    for column in ("pick", "same_as", "dropped"):
        frame[column] = frame[column].astype("Int64")
    return frame


STANDINGS = ("met", "unclear", "failed")
"""``explore.csv``'s ``requirements``: every requirement met, none failed but one unclear,
or one failed (:meth:`~simulate.app.exploration.measure.Candidate.standing`)."""


def estimate_columns(table, names) -> dict[str, float]:
    """``<measure>``, ``<measure>_lo``, ``<measure>_hi`` of each of ``names`` from a
    :func:`analysis.balance.balance_measures` table (the explore table's columns)."""
    found = {}
    for name in names:
        value, lo, hi = (float(x) for x in table.loc[name, ["value", "lo", "hi"]])
        found[name], found[f"{name}_lo"], found[f"{name}_hi"] = value, lo, hi
    return found


def measured_names(plan) -> list[str]:
    """The measures ``explore.csv`` gives: the aims', then the requirements' not aimed."""
    names = [aim.measure for aim in plan.aims]
    return names + [r.measure for r in plan.requires if r.measure not in names]


def table_csv(table) -> bytes:
    """The explore table as CSV text (floats to 10 significant digits)."""
    return table.to_csv(index=False, float_format="%.10g").encode("utf-8")


def read_explore(path: str | Path):
    """An ``explore.csv`` read back: ``pick``, ``same_as`` and ``dropped`` as nullable
    integers."""
    import pandas as pd

    table = pd.read_csv(path)
    for column in ("pick", "same_as", "dropped"):
        if column in table:
            table[column] = table[column].astype("Int64")
    return table


def best_study(result: Result) -> str:
    """``best.toml``: a study of the base rules (variant ``base``) and the best rule sets
    (``best-1``, ``best-2``…, best first) on the exploration's game, players, seed and
    seats, which ``cardsim sweep`` runs as is."""
    from ..studies.file import STUDY_KEYS

    plan = result.plan
    lines = [
        f"# The best rule sets that `cardsim explore` found for {plan.title}, with the base",
        "# rules as the first variant. Run it with: cardsim sweep best.toml --out DIR",
        f"title = {_toml(f'Explore: {plan.title}, the best rule sets')}",
        f"game = {_toml(plan.game.name)}",
        f"players = [{plan.players}]",
        f"games = {STUDY_GAMES}",
        f"seed = {plan.seed}",
        f"rules = {_toml(plan.rules)}",
    ]
    if plan.strategies:
        lines.append(f"strategies = {_toml(list(plan.strategies))}")
    if plan.skill is not None and "skill" in STUDY_KEYS:
        lines.append(f"skill = {_toml(plan.skill)}")
    variants = [("base", "The base rules.", {})]
    for rank, candidate in enumerate(result.picks, start=1):
        overrides = candidate.rule_set.overrides(plan.knobs)
        figures = held_out_words(plan, candidate)
        words = f"Best {rank}: {candidate.rule_set.label(plan.knobs)}. Held out: {figures}."
        variants.append((f"best-{rank}", words, overrides))
    for name, description, overrides in variants:
        lines += [
            "",
            "[[variant]]",
            f"name = {_toml(name)}",
            f"description = {_toml(description)}",
            f"rules = {_toml(overrides)}",
        ]
    return "\n".join(lines) + "\n"


def held_out_words(plan, candidate) -> str:
    """A confirmed rule set's aimed measures on the held-out deals, as the reports write
    them: ``seat_spread 0.8 pts (0.4–1.2 pts); turns 26.14 turns (26.11–26.16)``."""
    import pandas as pd

    from analysis.balance import length_column
    from analysis.reports.balance import measure_cells

    held_out = pd.DataFrame(
        candidate.values(plan.aims, True),
        index=[aim.measure for aim in plan.aims],
        columns=["value", "lo", "hi"],
    )
    cells = measure_cells(held_out, length_column(plan.game.spec))
    return "; ".join(f"{name} {value} ({interval})" for name, value, interval in cells)


_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _toml(value: Any) -> str:
    """A TOML value: strings quoted, None as "none", tables inline."""
    if value is None:
        return '"none"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [
            f"{key if _BARE.match(str(key)) else json.dumps(str(key))} = {_toml(v)}"
            for key, v in value.items()
        ]
        return "{ " + ", ".join(items) + " }"
    return json.dumps(str(value))


def explore_meta(result: Result) -> dict:
    """``explore.json``: what was searched and how, the rounds, and of the confirmed rule
    sets (rows of ``explore.csv`` by position) every measure on the held-out deals and the
    aimed ones on the search's deals (None for base rules the search never measured)."""
    plan = result.plan
    position = {id(c): i for i, c in enumerate(result.candidates)}
    measured = [c for c in result.candidates if c.estimates is not None]
    norms = scales(measured, plan.aims) if measured else []
    return {
        "game": plan.game.name,
        "title": plan.title,
        "players": plan.players,
        "seed": plan.seed,
        "budget": plan.budget,
        "spent": result.spent,
        "method": plan.method,
        "method_asked": plan.method_asked,
        "first_round": plan.first_round,
        "unit": plan.base.unit,
        "aims": [
            {"measure": a.measure, "goal": a.goal, "target": a.target, "text": a.text}
            for a in plan.aims
        ],
        "requires": [
            {"measure": r.measure, "op": r.op, "bound": r.bound, "text": r.text, "words": r.words}
            for r in plan.requires
        ],
        "vary": {knob.name: list(knob.values) for knob in plan.knobs},
        "rules": plan.rules,
        "single_deals": bool(plan.single_deals),
        "strategies": list(plan.base.strategies),
        "skill": plan.skill,
        "space": {
            "size": plan.space.size,
            "playable": len(plan.space.valid),
            "skipped": dict(plan.space.skipped.most_common()),
        },
        "search": (
            {
                "sampler": "optuna TPESampler",
                "sampler_seed": sampler_seed(plan.seed),
                "proposals": dict(sorted(result.proposals.items())),
                "proposal_share": PROPOSAL_SHARE,
            }
            if plan.method == "search"
            else None
        ),
        "rounds": [vars(r) for r in result.rounds],
        "scales": [
            {"measure": aim.measure, "best": best, "scale": scale}
            for aim, (best, scale) in zip(plan.aims, norms, strict=False)
        ],
        "held_out": {"first": HOLDOUT_FIRST, "units": result.held_out},
        "effects": knob_effects(result),
        "confirmed": [
            {
                "row": position[id(c)],
                "pick": next((r for r, p in enumerate(result.picks, 1) if p is c), None),
                "base": c.is_base,
                "label": c.rule_set.label(plan.knobs) if c.rule_set else "the base rules",
                "twins": [
                    t.rule_set.label(plan.knobs)
                    for t in result.candidates
                    if t.twin_of is c and t.rule_set is not None
                ],
                "deals": c.held_out.deals,
                "units": c.held_out.units,
                "against_base": (
                    against_base(c, result.base, plan.aims, plan.requires)
                    if c is not result.base
                    else {}
                ),
                "paired": (
                    {
                        name: found
                        for name in c.paired.names()
                        if (found := c.paired.interval(name)) is not None
                    }
                    if c.paired is not None
                    else {}
                ),
                "winner_changes": (
                    list(found)
                    if c.paired is not None and (found := c.paired.winner_changes()) is not None
                    else None
                ),
                "requirements": {
                    r.text: c.requirement_status(r, confirmed=True) for r in plan.requires
                },
                "search": (
                    {
                        aim.measure: [float(x) for x in values]
                        for aim, values in zip(plan.aims, c.values(plan.aims), strict=True)
                    }
                    if c.estimates is not None
                    else None
                ),
                "measures": {
                    name: [float(x) for x in c.confirmed.loc[name, ["value", "lo", "hi"]]]
                    for name in c.confirmed.index
                },
            }
            for c in result.confirmed
        ],
        "elapsed_s": result.elapsed_s,
    }


def knob_effects(result: Result) -> list[dict]:
    """What each knob does (:func:`analysis.statistics.effects.main_effects`): for each
    varied knob, each value against the reference (the base rules' value where the knob
    varies over it, else its first value), the mean change of each aimed and required
    measure over the pairs of rule sets that differ in that knob alone, both measured in
    round 1 on the same games. One dict per row of that table, NaN as None."""
    import math

    import pandas as pd

    from analysis.statistics.effects import main_effects

    plan = result.plan
    names = measured_names(plan)
    rows = []
    for candidate in result.candidates:
        table = candidate.first_estimates
        if candidate.rule_set is None or table is None:
            continue
        row = dict(zip((k.name for k in plan.knobs), candidate.rule_set.values, strict=True))
        row.update(estimate_columns(table, names))
        rows.append(row)
    if not rows:
        return []
    base = plan.base.rules.to_dict()
    references = {}
    for knob in plan.knobs:
        same = [v for v in knob.values if _base_value(plan, knob.name, v, base)]
        references[knob.name] = same[0] if same else knob.values[0]
    effects = main_effects(
        pd.DataFrame(rows),
        knobs=[k.name for k in plan.knobs],
        references=references,
        measures=names,
    )
    return [
        {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
        for row in effects.to_dict("records")
    ]


def _base_value(plan, knob: str, value: Any, base: dict) -> bool:
    """Whether ``knob=value`` is the base rules' own value."""
    try:
        return plan.base.rules.with_overrides({knob: value}).to_dict() == base
    except CardsimError:
        return False


def meta_json(meta: dict) -> bytes:
    return (json.dumps(meta, indent=2, allow_nan=True) + "\n").encode("utf-8")


def write_files(folder: Path, result: Result, table=None, meta=None):
    """Write ``explore.csv``, ``best.toml`` and ``explore.json`` into ``folder`` (which
    exists), all or none: each is written under a temporary name first, then they are
    renamed into place, ``explore.json`` (which marks a finished exploration) last; an
    interruption before that removes those already renamed. Returns the table and the
    metadata (``table`` and ``meta`` when given, else made from ``result``)."""
    from ...runs.folder.manifest import write_file

    table = explore_table(result) if table is None else table
    meta = explore_meta(result) if meta is None else meta
    contents = {
        CSV_FILE: table_csv(table),
        BEST_FILE: best_study(result).encode("utf-8"),
        META_FILE: meta_json(meta),
    }
    staged = {name: folder / f".{name}.staged" for name in contents}
    placed: list[Path] = []
    try:
        for name, data in contents.items():
            write_file(staged[name], data)
        for name in contents:  # META_FILE last
            staged[name].replace(folder / name)
            placed.append(folder / name)
    except BaseException:
        for path in (*staged.values(), *placed):  # explore.json is placed last: never here
            path.unlink(missing_ok=True)
        raise
    return table, meta


__all__ = ["explore_table", "read_explore", "write_files"]
