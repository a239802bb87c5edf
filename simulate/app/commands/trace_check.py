"""The trace's check: a traced run's first games (matches) traced again at twice the
rollouts, into ``DIR/trace-check`` (:data:`simulate.core.chances.CHECK_FOLDER`), a run
folder of its own; the report says which chance measures moved when the rollouts doubled.
``cardsim simulate --trace`` and ``cardsim balance`` play it after the run."""

from __future__ import annotations

from pathlib import Path

from ...core.chances import CHECK_FOLDER, CHECK_GAMES
from ...runs.cost import plural
from .runs import Echo, RunPlan, play_plan, silent


def check_plan(main, folder: Path, threads: int | None) -> RunPlan | None:
    """The plan of the trace's check in ``folder``: the first
    :data:`~simulate.core.chances.CHECK_GAMES` traced games of ``main`` (a request) traced
    again at twice its rollouts (their records are the run's); kept where the folder holds
    it complete, played again otherwise (it is derived, and takes seconds). None for an
    untraced run, or one at more than half the most rollouts."""
    from ...runs.folder.writer import holds_run, read_meta
    from ...runs.request import MAX_ROLLOUTS, make_request

    if not main.trace or 2 * main.rollouts > MAX_ROLLOUTS:
        return None
    games = min(CHECK_GAMES, main.trace)
    request = make_request(
        main.game.name,
        players=main.players,
        games=games,
        seed=main.seed,
        threads=threads,
        rules=main.rules,
        strategies=list(main.specs) or None,
        rotate_seats=main.rotate_seats,
        trace=games,
        rollouts=2 * main.rollouts,
    )
    if holds_run(folder):
        meta = read_meta(folder)
        if meta.get("status") == "complete" and _same(meta, request.meta()):
            return RunPlan(request, folder, resume=True, kept=True)
    return RunPlan(request, folder, force=True)


def _same(held: dict, asked: dict) -> bool:
    """Whether two run.json's describe the same games (threads and versions aside)."""
    keys = ("game", "players", "games", "seed", "rules", "strategies", "rotate_seats")
    keys += ("trace", "rollouts")
    return all(held.get(key) == asked.get(key) for key in keys)


def play_check(run: RunPlan, *, cluster=None, progress: bool = False, echo: Echo = silent) -> None:
    """Play the trace's check of the run of ``run`` (a plan whose folder now holds it),
    unless the run is untraced or the check is there, complete."""
    plan = check_plan(run.request, Path(run.out) / CHECK_FOLDER, run.request.threads)
    if plan is None or plan.kept:
        return
    request = plan.request
    echo(
        f"trace check: the first {request.games:,} traced {plural(request.unit, request.games)} "
        "again at "
        f"{request.rollouts} rollouts a point"
    )
    play_plan(plan, cluster=cluster, progress=progress, echo=echo)
