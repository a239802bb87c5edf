"""``cardsim explore``: a search of the rule space for the rule sets that best meet a
designer's aims, raced on common random numbers and confirmed on held-out deals.

- :mod:`.space`: ``--vary`` and ``--aim`` read and checked, the product of the knobs'
  values, the unplayable rule sets skipped and counted;
- :mod:`.plan`: the whole exploration checked before anything is played (the base rules,
  the method, the budget);
- :mod:`.measure`: a candidate played on a range of deal indices (and its skill games),
  every deal charged to the budget, measured by :mod:`analysis.balance`;
- :mod:`.racing`: which candidates are clearly beaten; the Pareto front; the best;
- :mod:`.search`: optuna's proposals (asked and told in order, one seeded sampler);
- :mod:`.run`: the rounds and the confirmation;
- :mod:`.files`: ``explore.csv``, ``best.toml``, ``explore.json``; :mod:`.file`: explore
  files (``cardsim explore FILE.toml``).

The report is :mod:`analysis.exploration`'s. ``docs/designing-house-rules.md`` walks
through an exploration.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ...core.errors import CardsimError

FILES = ("explore.csv", "best.toml", "explore.json")


def check_out(out: Path, force: bool) -> None:
    """Refuse a folder that holds an exploration unless ``force``, or that cannot be
    written (nothing is written)."""
    from ...runs.folder.paths import check_writable

    check_writable(out)
    held = [name for name in FILES if (Path(out) / name).exists()]
    if held and not force:
        raise CardsimError(
            f"{out} already holds an exploration ({held[0]}); choose another --out or pass "
            "--force to overwrite it"
        )


RUN_SETTINGS = ("budget", "seed", "method", "first_round", "threads")
"""What may change an explore file's run (the rest is the file's)."""


def plan_from(game: str | Path, **settings):
    """The :class:`~simulate.app.exploration.plan.Plan` of ``game``, a game's name or an
    explore file (``FILE.toml``). ``settings`` are :func:`~.plan.plan_explore`'s; those
    that are None are the file's, else the defaults. An explore file fixes its game, knobs,
    aims, bounds, base rules, seats, players and skill: only ``budget``, ``seed``,
    ``method``, ``first_round`` and ``threads`` may change its run (one CardsimError
    naming the first that clashes; errors in the file name its line)."""
    from .file import is_explore_file, locate, read_explore_file
    from .plan import plan_explore

    given = {key: value for key, value in settings.items() if value is not None}
    if not is_explore_file(str(game)):
        return plan_explore(str(game), **({"vary": [], "aim": []} | given))
    clash = [key for key in given if key not in RUN_SETTINGS]
    if clash:
        raise CardsimError(
            f"{clash[0]} is not taken with an explore file ({game}): it comes from the file; "
            f"{', '.join(RUN_SETTINGS)} may change a file's run"
        )
    name, fixed, title = read_explore_file(game)
    try:
        return plan_explore(name, **(fixed | given), title=title)
    except CardsimError as exc:
        raise locate(game, exc) from None


def describe(plan, out: Path | None = None) -> str:
    """The line that says what an exploration plays: the space, the method, the budget,
    the seed, and where it goes."""
    where = "" if out is None else f" -> {out}"
    return (
        f"{plan.title}: {plan.space.size:,} rule sets ({len(plan.space.valid):,} playable), "
        f"method {plan.method}, budget {plan.budget:,} deals, seed {plan.seed}{where}"
    )


def cost_words(plan) -> str | None:
    """When a seat or the skill games search (strong players), a line estimating what the
    budget will take: the budget counts deals, and a strong seat's deal costs hundreds of
    others'. Each unit (a game of the base rules and its skill games, every seating) is
    timed on a pilot (:func:`simulate.runs.cost.estimate`), and the budget's units are
    assumed to cost as much."""
    import dataclasses

    from ...runs.cost import estimate_words

    units = max(1, plan.budget // plan.unit_deals(plan.space.valid[0].index))
    base = dataclasses.replace(plan.base, games=units)
    skill = plan.skill_request(base)
    requests = [base] if skill is None else [base, dataclasses.replace(skill, games=units)]
    words = estimate_words(requests)
    return None if words is None else f"{words}, the base rules' deals for the whole budget"


def best_words(plan, result) -> list[str]:
    """The exploration's picks in words, best first, as ``cardsim explore`` prints them:
    each rule set, its aimed measures on the held-out deals, and the measures on which it
    is worse than the base rules."""
    from .files import held_out_words
    from .versus import against_base

    asked = [*(a.measure for a in plan.aims), *(r.measure for r in plan.requires)]
    lines = []
    for rank, candidate in enumerate(result.picks, start=1):
        label = candidate.rule_set.label(plan.knobs)
        versus = against_base(candidate, result.base, plan.aims, plan.requires)
        worse = [m for m in dict.fromkeys(asked) if versus.get(m) == "worse"]
        note = f"; worse than the base rules on {', '.join(worse)}" if worse else ""
        lines.append(f"best {rank}: {label}: {held_out_words(plan, candidate)} (held out){note}")
    return lines


def explore_into(
    plan,
    out: str | Path,
    *,
    force: bool = False,
    report: bool = True,
    echo: Callable[[str], None] = lambda line: None,
    dpi=None,
    formats=None,
    cluster=None,
):
    """Run the exploration ``plan`` (:func:`simulate.app.exploration.plan.plan_explore`) and write
    its files (and, with ``report``, its report) into ``out``. Returns ``(table, meta,
    result)``: the ``explore.csv`` table, the ``explore.json`` dict, the
    :class:`~simulate.app.exploration.run.Result`. ``cluster``: where the games are played,
    if not here (:func:`~simulate.app.exploration.run.run_explore`)."""
    from ...runs.folder.lock import lock_folder
    from .files import explore_meta, explore_table, write_files
    from .run import run_explore

    out = Path(out)
    check_out(out, force)
    result = run_explore(plan, echo=echo, cluster=cluster)
    with lock_folder(out):
        # the report first, then the files all or none (explore.json last): an interruption
        # leaves no exploration that a rerun would take for a finished one
        table, meta = explore_table(result), explore_meta(result)
        if report:
            from analysis.exploration import write_explore_report

            write_explore_report(out, table, meta, dpi=dpi, formats=formats)
        write_files(out, result, table, meta)
    return table, meta, result
