"""A run and its skill games, as ``cardsim balance`` and :func:`simulate.app.api.balance` play
them into a folder: the run into ``DIR`` as ``cardsim simulate`` plays it, the skill games
(the skilled strategy in one seat, ``random`` in the others, every deal once per seat on
the run's seed, so on the run's deals) into ``DIR/skill``, a run folder of its own. A game
without choices plays no skill games (its skill is 0 by definition). With ``--resume`` each
folder is completed with its own settings, or kept where complete.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...core.errors import CardsimError
from ...core.skill import DEFAULT_SKILL, OPPONENT, SKILL_FOLDER, skill_seats
from .runs import Echo, RunPlan, plan_run, play_plan, run_request, silent
from .trace_check import play_check

BALANCE_TRACE = 2_000
"""Games (matches: every deal of them) a balance run traces when no ``--trace`` is given."""


def balance_trace(info, trace: int | None) -> int:
    """``--trace`` of a balance run of ``info``'s game: ``trace`` as given, else
    :data:`BALANCE_TRACE` where the game can be traced, else 0."""
    if trace is not None:
        return trace
    return BALANCE_TRACE if "trace" in info.spec.commands else 0


@dataclass(frozen=True)
class BalancePlan:
    """The run's plan and its skill games' (None for a game without choices)."""

    run: RunPlan
    skill: RunPlan | None


def plan_balance(
    game: str,
    out: Path,
    *,
    skill: str | None = None,
    skill_games: int | None = None,
    resume: bool = False,
    force: bool = False,
    skip_space_check: bool = False,
    threads: int | None = None,
    **settings,
) -> BalancePlan:
    """The plans of the run in ``out`` (``settings``: :func:`~.runs.plan_run`'s) and of its
    skill games in ``out/skill``, everything checked and nothing written. ``skill`` (None:
    :data:`~simulate.core.skill.DEFAULT_SKILL`, or the skill games' own when resumed) and
    ``skill_games`` (None: the run's games, or the skill games' own) are refused for a
    game without choices; skill games already in ``out/skill`` are refused unless
    ``force``, or completed (``resume``) when their settings are those asked."""
    from ...games.registry import resolve_game
    from ...runs.folder.writer import check_space, holds_run, read_meta

    out = Path(out)
    info = resolve_game(game)
    check_skill_options(info, skill, skill_games)
    if not resume:
        settings["trace"] = balance_trace(info, settings.get("trace"))
    run = plan_run(
        game,
        out,
        resume=resume,
        force=force,
        skip_space_check=skip_space_check,
        keep_complete=True,
        threads=threads,
        **settings,
    )
    if not info.spec.takes_strategies:
        return BalancePlan(run, None)
    folder = out / SKILL_FOLDER
    held = resume and holds_run(folder)
    if held:  # the skill games' own settings, unless given
        meta = read_meta(folder)
        skill = skill if skill is not None else (meta.get("strategies") or [None])[0]
        skill_games = skill_games if skill_games is not None else meta.get("games")
    request = skill_request(run.request, skill, skill_games, threads)
    if held:
        check_skill_folder(folder, request)
        kept = read_meta(folder).get("status") == "complete"
        return BalancePlan(
            run,
            RunPlan(run_request(game, folder, threads), folder, resume=True, kept=kept),
        )
    if holds_run(folder) and not force:
        raise CardsimError(
            f"{folder} already holds skill games; choose another --out, pass --force to "
            "overwrite them, or --resume to complete them"
        )
    if not resume and not skip_space_check:
        check_space(out, request.meta(), request.games)
    # Refused above when the folder held skill games without --force.
    return BalancePlan(run, RunPlan(request, folder, force=True))


def check_skill_options(info, skill: str | None, skill_games: int | None) -> None:
    """Refuse ``skill`` or ``skill_games`` (given: not None) for a game without choices
    (``info``: its :class:`~simulate.games.registry.GameInfo`)."""
    if not info.spec.takes_strategies and (skill is not None or skill_games is not None):
        given = "--skill" if skill is not None else "--skill-games"
        raise CardsimError(
            f"{given}: {info.name} has no choices to make, so no skill games (its skill is 0 "
            "by definition); drop the option"
        )


def skill_request(main, skill: str | None, skill_games: int | None, threads: int | None):
    """The skill games' request: ``main``'s game, players, rules and seed, the skilled
    strategy (None: :data:`~simulate.core.skill.DEFAULT_SKILL`) in seat 0 and random in the
    others, every deal once per seat."""
    from ...runs.request import make_request

    name = DEFAULT_SKILL if skill is None else skill
    try:
        return make_request(
            main.game.name,
            players=main.players,
            games=main.games if skill_games is None else skill_games,
            seed=main.seed,
            threads=threads,
            rules=main.rules,
            strategies=skill_seats(name, main.players),
            rotate_seats=True,
        )
    except CardsimError as exc:
        option = "--skill-games" if "games" in str(exc) and skill_games is not None else "--skill"
        raise CardsimError(f"{option}: {exc}") from None


def check_skill_folder(folder: Path, request) -> None:
    """Refuse to resume skill games whose settings differ from those asked (their request
    identity, the number of games aside: a resume completes the folder's own)."""
    from ...runs.folder.writer import read_meta
    from ...runs.request import request_from_meta

    held, asked = request_from_meta(read_meta(folder)).identity(), request.identity()
    for key in ("game", "players", "seed", "rules", "strategies", "rotate_seats"):
        if held[key] != asked[key]:
            raise CardsimError(
                f"{folder} holds skill games with other {key} ({held[key]!r}, asked: "
                f"{asked[key]!r}); pass --force to play the run and its skill games again"
            )


def play_balance(
    plan: BalancePlan, *, cluster=None, progress: bool = False, echo: Echo = silent
) -> None:
    """Play the run of ``plan`` (:func:`plan_balance`), then its skill games, on
    ``cluster`` where given (one connection for both); each says first what a strong
    player will cost (:func:`.runs.play_plan`)."""
    play_plan(plan.run, cluster=cluster, progress=progress, echo=echo)
    play_check(plan.run, cluster=cluster, progress=progress, echo=echo)
    if plan.skill is not None:
        if plan.skill.kept:
            echo(f"{plan.skill.out}: the skill games are complete, kept")
            return
        strategy = plan.skill.request.strategies[0]
        echo(f"skill games: {strategy} in one seat, {OPPONENT} in the others")
        play_plan(plan.skill, cluster=cluster, progress=progress, echo=echo)
