"""The API's searches: ``tune``, ``explore`` and ``write_explore``."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from .common import cluster_session, echo_to, refuses_empty_out, strategy_list

if TYPE_CHECKING:
    import pandas as pd


@refuses_empty_out
def tune(
    game: str,
    *,
    opponents: Sequence[str] | str = ("random",),
    players: int | None = None,
    budget: int = 2_000_000,
    holdout: int | None = None,
    seed: int | None = None,
    rules: dict | None = None,
    threads: int | None = None,
    out: str | Path | None = None,
    progress: bool = False,
    scheduler: str | None = None,
) -> Any:
    """Search the weights of a ``weighted`` strategy against ``opponents``, as
    ``cardsim tune``, and return the game's result (the shedding games':
    ``TuneResult``): ``spec`` (the strategy, ready for
    ``strategies=[...]``), ``weights``, its held-out win ``share`` with ``lo`` and ``hi``,
    ``greedy``'s on the same deals, ``holdout_games`` and ``history`` (per round: the mean
    and best training share; ``pandas.DataFrame(result.history)`` tabulates it). With
    ``out`` the result is also written there as JSON. ``scheduler``: each candidate's
    games are played on a Dask cluster, as for :func:`simulate` (the same result)."""
    from ...games.registry import resolve_game
    from ...games.spec import load

    tune_games = load(resolve_game(game, "tune").spec.tune_path)
    if out is not None:
        from ...runs.folder.paths import check_writable

        check_writable(out, file=True)  # before the search, not after it
    with cluster_session(scheduler, threads) as cluster:
        result = tune_games(
            game,
            opponents=strategy_list(opponents),
            players=players,
            budget=budget,
            seed=seed,
            rules=rules,
            threads=threads,
            holdout=holdout,
            echo=echo_to(progress),
            cluster=cluster,
        )
    if out is not None:
        import json
        from dataclasses import asdict

        from ...runs.folder.writer import write_atomic

        write_atomic(Path(out), (json.dumps(asdict(result), indent=2) + "\n").encode())
    return result


@refuses_empty_out
def explore(
    game: str | Path,
    *,
    vary: dict | Sequence[str] | None = None,
    aim: dict | Sequence[str] | None = None,
    require: Sequence[str] | None = None,
    players: int | None = None,
    budget: int | None = None,
    seed: int | None = None,
    method: str | None = None,
    rules: dict | None = None,
    strategies: Sequence | None = None,
    skill: str | None = None,
    first_round: int | None = None,
    threads: int | None = None,
    out: str | Path | None = None,
    force: bool = False,
    report: bool = True,
    progress: bool = False,
    scheduler: str | None = None,
) -> pd.DataFrame:
    """Search the rule space for the rule sets that best meet the aims, as ``cardsim
    explore``, and return the explore table (``explore.csv``): one row per rule set
    measured, a column per varied knob, ``games`` (every deal it played, skill and
    held-out deals included), for each aim ``<measure>``, ``<measure>_lo``,
    ``<measure>_hi`` (95%; held-out estimates where ``confirmed``), then ``confirmed``,
    ``base``, ``pick`` (1 for the best), ``front``, ``rounds`` and ``dropped``.

    ``game``: a game, or an explore file (``FILE.toml``, which fixes everything but
    ``budget``, ``seed``, ``method``, ``first_round`` and ``threads``). ``vary``:
    ``{knob: values}`` (a list, or a string such as ``"5..9"`` or ``"none,same_rank"``) or
    ``--vary`` items (``["hand_size=5..9"]``); ``aim``: ``{measure: target | "max" | "min"
    | None}`` or ``--aim`` items (``["first_seat_advantage", "turns=min"]``); ``require``:
    ``--require`` items, bounds every answer must keep (``["first_seat_advantage<=1pt",
    "turns<=40"]``). ``budget`` caps the deals played (every seating, match deal, skill
    and held-out deal counted; default 1,000,000); ``method`` is ``auto`` (the default),
    ``exhaustive`` or ``search``; ``first_round``: games per rule set in the first round
    (default 1,000); ``rules`` and ``strategies`` fix the base rules and seats (match play
    off unless ``rules`` sets ``match_deals`` or ``target_score``); ``skill`` the skilled
    strategy when skill is aimed (default ``hold-wilds``). With ``out`` the files and
    (``report``) the report are written there, as :func:`write_explore` writes them;
    without, nothing is written. The table holds the numbers of ``explore.csv`` (read back
    from its text), and the same seed gives the same table, here or with ``scheduler``
    (the games played on a Dask cluster, as for :func:`simulate`; one connection for the
    whole exploration). ``progress``: what is played, on standard error."""
    from ..exploration import cost_words, describe, plan_from
    from ..exploration.files import explore_table, read_explore, table_csv
    from ..exploration.run import run_explore

    settings = {
        "vary": vary,
        "aim": aim,
        "require": require,
        "players": players,
        "budget": budget,
        "seed": seed,
        "method": method,
        "rules": rules,
        "strategies": strategies,
        "skill": skill,
        "first_round": first_round,
        "threads": threads,
    }
    if out is not None:
        found = write_explore(
            game,
            out=out,
            force=force,
            report=report,
            progress=progress,
            scheduler=scheduler,
            **settings,
        )
        return found.table
    plan = plan_from(game, **settings)
    echo = echo_to(progress)
    echo(describe(plan))
    cost = cost_words(plan)
    if cost:
        echo(cost)
    with cluster_session(scheduler, threads) as cluster:
        table = explore_table(run_explore(plan, echo=echo, cluster=cluster))
    return read_explore(io.BytesIO(table_csv(table)))  # the numbers explore.csv holds


class Exploration(NamedTuple):
    """What :func:`write_explore` found and wrote."""

    table: pd.DataFrame
    """The explore table, as :func:`explore` returns it (the numbers of explore.csv)."""
    best: list[str]
    """The picks in words, best first, as ``cardsim explore`` prints them: each rule set,
    its aimed measures on the held-out deals, and where it is worse than the base rules."""


@refuses_empty_out
def write_explore(
    game: str | Path,
    *,
    out: str | Path,
    vary: dict | Sequence[str] | None = None,
    aim: dict | Sequence[str] | None = None,
    require: Sequence[str] | None = None,
    players: int | None = None,
    budget: int | None = None,
    seed: int | None = None,
    method: str | None = None,
    rules: dict | None = None,
    strategies: Sequence | None = None,
    skill: str | None = None,
    first_round: int | None = None,
    threads: int | None = None,
    force: bool = False,
    report: bool = True,
    progress: bool = False,
    scheduler: str | None = None,
) -> Exploration:
    """Search the rule space as :func:`explore` does and write ``explore.csv``,
    ``best.toml`` (a study for :func:`sweep`), ``explore.json`` and (``report``) the report
    into ``out``, as ``cardsim explore --out OUT`` does (the command calls it); ``out`` is
    refused where it holds an exploration, unless ``force``, before anything is played.
    Returns an :class:`Exploration`: the table and the picks in words."""
    from ..exploration import best_words, check_out, cost_words, describe, explore_into, plan_from
    from ..exploration.files import read_explore, table_csv

    plan = plan_from(
        game,
        vary=vary,
        aim=aim,
        require=require,
        players=players,
        budget=budget,
        seed=seed,
        method=method,
        rules=rules,
        strategies=strategies,
        skill=skill,
        first_round=first_round,
        threads=threads,
    )
    out = Path(out)
    check_out(out, force)  # before connecting: refused at once, nothing written
    echo = echo_to(progress)
    echo(describe(plan, out))
    cost = cost_words(plan)
    if cost:
        echo(cost)
    with cluster_session(scheduler, threads) as cluster:
        table, _, result = explore_into(
            plan, out, force=force, report=report, echo=echo, cluster=cluster
        )
    return Exploration(read_explore(io.BytesIO(table_csv(table))), best_words(plan, result))
