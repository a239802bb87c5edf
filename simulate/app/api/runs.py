"""The API's runs: ``simulate``, ``write_run``, ``balance``, and what is done with a run
folder or one game: ``write_report``, ``verify``, ``replay``, ``play_deal``,
``describe_rules``, ``search``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ...core.errors import CardsimError
from .common import cluster_session, echo_to, refuses_empty_out

if TYPE_CHECKING:
    import pandas as pd

    from analysis.load import Run


DEFAULT_GAMES = 1_000_000
"""Games (matches, in match play) of a run when none are asked for (the engine's
:data:`simulate.runs.request.DEFAULT_GAMES`, which this module does not import: it would load
numpy)."""

BALANCE_GAMES = 100_000
"""Games (matches) of :func:`balance`'s run when none are asked for."""


@refuses_empty_out
def simulate(
    game: str,
    *,
    players: int | None = None,
    games: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    out: str | Path | None = None,
    rules: dict | None = None,
    strategies: Sequence | None = None,
    rotate_seats: bool = False,
    force: bool = False,
    resume: bool = False,
    report: bool = False,
    progress: bool = False,
    log: int | str | None = None,
    scheduler: str | None = None,
    backend: str = "cpu",
    records: str | None = None,
    skip_space_check: bool = False,
    dpi: int | None = None,
    formats: str | Sequence[str] | None = None,
    trace: int | None = None,
    rollouts: int | None = None,
) -> Run:
    """Play a run, as ``cardsim simulate``, and return it as :func:`analysis.load.load_run`
    reads a run folder: a :class:`analysis.load.Run` with ``meta``, ``games`` (one row per
    game, per deal in match play; ``end`` categorical) and ``matches`` (one row per match in
    match play, else None).

    With ``out`` the run folder is written too, as :func:`write_run` writes it (``force``,
    ``resume``, ``report`` and its ``dpi`` and ``formats``, ``skip_space_check``), then read
    back: ``meta`` is its ``run.json`` and ``path`` the folder. Without ``out`` nothing is
    written, ``path`` is None and ``meta`` is what ``run.json`` would open with.
    ``games`` (default 1,000,000), ``players``, ``seed``, ``rules``, ``strategies`` and
    ``rotate_seats`` are those of :func:`simulate.run`. ``log=N`` logs the first N games
    (matches) event by event (``"all"``: every game of a run of at most 100,000): the Run's
    ``events``, one row per event (``events.parquet`` in the run folder), else None.
    ``scheduler`` (``"tcp://HOST:PORT"``, ``"local"``, ``"local:N"``) plays the games on a
    Dask cluster (``docs/cluster.md``): the same records, written here; ``threads`` is then
    each worker's. ``backend="cuda"`` plays the games on an NVIDIA GPU (``docs/gpu.md``;
    built-in strategies only): the same records as ``"cpu"``, the default.
    ``records="none"``: an aggregate-only run (``--records none``): no rows are kept, the
    Run's ``games`` is empty and its ``aggregates`` holds the exact statistics the report
    is built from (:mod:`simulate.runs.folder.aggregates`); ``log=N`` still gives the logged games'
    ``events``. ``trace=N`` traces the first N games (single deals):
    each seat's chance of winning after the deal and after every turn, from ``rollouts``
    rollouts a point (default 64; ``docs/results-format.md``), the Run's ``trace``."""
    from analysis.load import Run, load_run

    from ..commands.runs import new_request
    from .playing import play_run

    settings = {
        "players": players,
        "games": games,
        "seed": seed,
        "threads": threads,
        "rules": rules,
        "strategies": strategies,
        "rotate_seats": rotate_seats,
        "log": log,
        "backend": backend,
        "records": records,
        "trace": trace,
        "rollouts": rollouts,
    }
    if out is not None:
        return load_run(
            write_run(
                game,
                out=out,
                force=force,
                resume=resume,
                report=report,
                progress=progress,
                skip_space_check=skip_space_check,
                dpi=dpi,
                formats=formats,
                scheduler=scheduler,
                **settings,
            )
        )
    for name, given in (("resume", resume), ("report", report)):
        if given:
            raise CardsimError(
                f"{name}=True needs out=DIR: the {'run' if name == 'resume' else 'report'} "
                "is in the run folder"
            )
    request = new_request(game, **settings)
    if scheduler is not None and backend != "cpu":
        raise CardsimError("a cluster run plays on its workers' CPUs: give scheduler or backend")
    logged: list = []
    merged: list = []
    traces: list = []
    with cluster_session(scheduler, threads) as cluster:
        games_table, matches_table = play_run(
            request,
            progress=progress,
            events=logged,
            play=None if cluster is None else cluster.play_chunks,
            aggregates=merged,
            traces=traces,
        )
    meta = request.meta()
    events, trace = (_frame(tables, meta) for tables in (logged, traces))
    if request.records == "none":
        import pandas as pd

        found = merged[0] if merged else None
        games_frame = found.schema.empty_table().to_pandas() if found else pd.DataFrame()
        games_frame.attrs.update(meta)
        return Run(
            path=None, meta=meta, games=games_frame, aggregates=found, events=events, trace=trace
        )
    records = games_table.to_pandas()
    records["end"] = records["end"].astype("category")
    records.attrs.update(meta)
    matches = None
    if matches_table is not None:
        matches = matches_table.to_pandas()
        matches.attrs.update(meta)
    return Run(path=None, meta=meta, games=records, matches=matches, events=events, trace=trace)


def _frame(tables: list, meta: dict):
    """One DataFrame of ``tables`` (events or traces), ``meta`` in its attrs; None for none."""
    if not tables:
        return None
    from ...runs.log_tables import concat_events

    frame = concat_events(tables).to_pandas()
    frame.attrs.update(meta)
    return frame


@refuses_empty_out
def write_run(
    game: str,
    *,
    out: str | Path,
    players: int | None = None,
    games: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    rules: dict | None = None,
    strategies: Sequence | None = None,
    rotate_seats: bool = False,
    force: bool = False,
    resume: bool = False,
    report: bool = False,
    progress: bool = False,
    log: int | str | None = None,
    scheduler: str | None = None,
    backend: str = "cpu",
    records: str | None = None,
    skip_space_check: bool = False,
    dpi: int | None = None,
    formats: str | Sequence[str] | None = None,
    trace: int | None = None,
    rollouts: int | None = None,
) -> Path:
    """Play a run into the folder ``out``, as ``cardsim simulate --out OUT`` does, and
    return ``out``; nothing is read back (a run too big for memory is written all the
    same; :func:`simulate` is this, then ``load_run``).

    The settings are :func:`simulate`'s. ``out`` is refused where it holds a run, unless
    ``force``, and where the records would not fit on its disk (an estimate), unless
    ``skip_space_check``. ``resume=True`` completes the interrupted or crashed run in
    ``out`` with its own settings (any given besides are checked against them, as the
    command checks its options; ``records`` defaults to the run's), playing again any
    chunk found damaged. ``report=True`` writes the report when the run is complete
    (charts in ``formats`` at ``dpi``, as :func:`analysis.reports.write_report`).
    ``progress``: what is played, a progress bar and the report's steps on standard
    error. A signal (Ctrl-C, SIGTERM) raises :class:`simulate.runs.engine.RunInterrupted`
    once the finished chunks are safe."""
    from analysis.rendering.output import chart_dpi, chart_formats

    from ...runs.request import check_records
    from ..commands import runs
    from ..commands.trace_check import play_check

    echo = echo_to(progress)
    out = Path(out)
    if scheduler is not None and backend != "cpu":
        raise CardsimError("a cluster run plays on its workers' CPUs: give scheduler or backend")
    if report:
        dpi, formats = chart_dpi(dpi), chart_formats(formats)
    if records is not None:
        check_records(records, "records")
    plan = runs.plan_run(
        game,
        out,
        resume=resume,
        force=force,
        skip_space_check=skip_space_check,
        threads=threads,
        backend=backend,
        players=players,
        games=games,
        seed=seed,
        rules=rules,
        strategies=strategies,
        rotate_seats=rotate_seats,
        log=log,
        records=records,
        trace=trace,
        rollouts=rollouts,
    )
    with cluster_session(scheduler, threads) as cluster:
        runs.play_plan(plan, cluster=cluster, progress=progress, echo=echo)
        play_check(plan, cluster=cluster, progress=progress, echo=echo)
    if report:
        runs.report(out, progress=progress, dpi=dpi, formats=formats)
    return out


@refuses_empty_out
def balance(
    game: str,
    *,
    players: int | None = None,
    games: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    rules: dict | None = None,
    strategies: Sequence | None = None,
    skill: str | None = None,
    skill_games: int | None = None,
    out: str | Path | None = None,
    force: bool = False,
    resume: bool = False,
    skip_space_check: bool = False,
    report: bool = False,
    progress: bool = False,
    scheduler: str | None = None,
    trace: int | None = None,
    rollouts: int | None = None,
) -> pd.DataFrame:
    """Play a run and its skill games, as ``cardsim balance``, and return the balance
    measures (:func:`analysis.balance.balance_measures`): one row per measure
    (``first_seat_advantage``, ``seat_spread``, ``decisive``, ``turns``, ``turns_p90``,
    ``lead_changes``, ``comebacks``, ``skill``), columns ``value``, ``lo``, ``hi`` (95%
    interval) and ``definition``.

    The run is :func:`simulate`'s (``players``, ``games``: default 100,000, ``seed``,
    ``rules``, ``strategies``); the skill games put ``skill`` (any strategy; default
    ``hold-wilds``) in one seat and ``random`` in the others, every deal once per seat on
    the run's seed (so on its deals), ``skill_games`` deals or matches (default
    ``games``). A game without choices plays no skill games: its skill is 0 by
    definition, and ``skill`` or ``skill_games`` is a mistake. With ``out`` the run folder
    is written, the skill games into ``out/skill`` (refused where runs are, unless
    ``force``; ``resume=True`` completes both with their own settings, as ``cardsim
    balance --resume``, keeping what is complete), and ``report=True`` writes the report
    with its Balance section and ``balance.csv`` (the table returned is then its own);
    without ``out`` nothing is written. With ``out`` the measures are read from the folders
    in batches, as the report reads them: the memory does not grow with the run.
    ``scheduler``: the run and its skill games are played on a Dask cluster (one
    connection for both), as for :func:`simulate`. ``trace``: the games (matches) traced (None:
    2,000), from
    ``rollouts`` rollouts a point (None: 64), whose measures (``drama`` ...,
    :mod:`analysis.chances`) join the table."""
    from analysis.balance import balance_table

    from ..commands.balance import (
        balance_trace,
        check_skill_options,
        plan_balance,
        play_balance,
        skill_request,
    )

    settings = {
        "players": players,
        "games": BALANCE_GAMES if games is None and not resume else games,
        "seed": seed,
        "rules": rules,
        "strategies": strategies,
        "trace": trace,
        "rollouts": rollouts,
    }
    if out is not None:
        plan = plan_balance(
            game,
            Path(out),
            skill=skill,
            skill_games=skill_games,
            resume=resume,
            force=force,
            skip_space_check=skip_space_check,
            threads=threads,
            **settings,
        )
        with cluster_session(scheduler, threads) as cluster:
            play_balance(plan, cluster=cluster, progress=progress, echo=echo_to(progress))
        if report:
            from analysis.balance import read_balance

            from ..commands.runs import report as write_report

            write_report(out, progress=progress)
            return read_balance(out, definitions=True)
        from analysis.reports.balance import folder_balance

        return folder_balance(out)
    for name, given in (("resume", resume), ("report", report)):
        if given:
            raise CardsimError(f"{name}=True needs out=DIR: the balance is in the run folder")
    from ...games.registry import resolve_game
    from ...runs.request import DEFAULT_ROLLOUTS, make_request

    info = resolve_game(game)
    check_skill_options(info, skill, skill_games)
    settings["trace"] = balance_trace(info, trace)
    settings["rollouts"] = DEFAULT_ROLLOUTS if rollouts is None else rollouts
    main = make_request(game, threads=threads, **settings)
    skilled = None
    if info.spec.takes_strategies:
        skilled = skill_request(main, skill, skill_games, threads)
    with cluster_session(scheduler, threads) as cluster:
        common = {"threads": threads, "progress": progress, "scheduler": cluster}
        run = simulate(
            game,
            players=main.players,
            games=main.games,
            seed=main.seed,
            rules=main.rules,
            strategies=list(main.specs) or None,
            trace=main.trace,
            rollouts=main.rollouts,
            **common,
        )
        skill_run = None
        if skilled is not None:
            skill_run = simulate(
                game,
                players=skilled.players,
                games=skilled.games,
                seed=skilled.seed,
                rules=main.rules,
                strategies=list(skilled.specs),
                rotate_seats=True,
                **common,
            )
    return balance_table(run, skill=skill_run)


def write_report(
    run_dir: str | Path,
    *,
    top: int = 10,
    dpi: int | None = None,
    formats: str | Sequence[str] | None = None,
    progress: bool = False,
) -> tuple[Path, Path]:
    """Write the report of the run folder ``run_dir``, as ``cardsim report DIR``
    (the command calls it): ``report.html`` (self-contained), ``report.md`` and the charts
    in ``charts/`` (``formats`` at ``dpi``; ``top``: the longest deals listed). The folder
    is locked while it is written. Returns ``(html_path, markdown_path)``; ``progress``: a
    spinner on standard error that says which step it is at."""
    from contextlib import nullcontext

    from analysis.rendering.output import chart_dpi, chart_formats

    from ...runs.folder.writer import META_FILE, lock_run
    from ..commands.runs import report

    run_dir = Path(run_dir)
    charts = {"dpi": chart_dpi(dpi), "formats": chart_formats(formats)}
    # a folder that is not a run is not locked: the reader names what is missing
    lock = lock_run(run_dir) if (run_dir / META_FILE).is_file() else nullcontext()
    with lock:
        return report(run_dir, progress=progress, top=top, **charts)


def verify(
    run_dir: str | Path,
    *,
    replay: int = 300,
    repair: bool = False,
    threads: int | None = None,
    progress: bool = False,
):
    """Check the run folder ``run_dir`` as ``cardsim verify DIR`` does (the command calls
    it): every chunk file against its checksum, and ``replay`` games (matches) drawn across
    the run played again and compared with their stored records; with ``repair``, the
    damaged or missing chunks are played again (their records come back exactly). Returns
    the verdict: ``problems`` (one line each; none when ``healthy``), ``replayed``,
    ``repaired``, ``notes`` and ``repairable``. ``progress``: what is checked, with a
    progress bar, on standard error."""
    from ..commands.verify import verify_run

    return verify_run(
        run_dir,
        replay=replay,
        repair=repair,
        threads=threads,
        echo=echo_to(progress),
        progress=progress,
    )


def search(
    game: str,
    *,
    games: int = 1_000_000,
    players: int | None = None,
    seed: int | None = None,
    top: int = 10,
    threads: int | None = None,
    rules: dict | None = None,
    scheduler: str | None = None,
    progress: bool = False,
) -> str:
    """Hunt for records as ``cardsim search`` does (the command calls it): play ``games``
    random deals of a game that offers a search (Beggar-My-Neighbour) and return, in
    words, the ``top`` longest and any that never end. ``scheduler``: the deals are played
    on a Dask cluster, as for :func:`simulate`. ``progress``: a progress bar on standard
    error."""
    from ...games.registry import resolve_game
    from ...games.spec import load
    from ...runs.request import make_request

    info = resolve_game(game, "search")
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise CardsimError(f"--top must be at least 1, got {top}")
    request = make_request(
        game, players=players, games=games, seed=seed, threads=threads, rules=rules
    )
    with cluster_session(scheduler, threads) as cluster:
        return load(info.spec.search_path)(request, top=top, progress=progress, cluster=cluster)


def describe_rules(game: str, *, players: int | None = None, rules: dict | None = None) -> str:
    """The rules of ``game`` (with ``rules``' knob overrides) in plain words, as ``cardsim
    rules`` prints them (the command calls it): ``"Pis Yedili: ..."``. ``players``: the
    rules as they stand at that player count (checked against the game and the rules)."""
    from ...games.registry import check_players, resolve_game

    info = resolve_game(game)
    resolved = info.spec.rules(info.name, rules)
    if players is not None:
        check_players(info, players)
        resolved.check_players(players)
    return f"{info.title}: {resolved.describe(players)}"


class PlayedDeal(NamedTuple):
    """How a given deal ends (:func:`play_deal`)."""

    outcome: dict
    """The game's own figures (Beggar-My-Neighbour: ``cards``, ``tricks``, ``winner``,
    ``end``, ``cycle_cards``, ``cycle_tricks``, ``held``)."""
    text: str
    """The outcome in words; with ``trace``, the deal trick by trick before it."""


def play_deal(
    game: str,
    *,
    deal: str,
    rules: dict | None = None,
    trace: bool = False,
    hands: bool = False,
) -> PlayedDeal:
    """Play one given deal of a game that takes deals (Beggar-My-Neighbour), as ``cardsim
    play --deal`` does (the command calls it): ``deal`` is one hand per seat separated by
    ``/``, top card first (``"J23/4J5"``). ``trace``: the text holds the deal trick by
    trick; ``hands``: every seat's hand after each trick too."""
    from ...games.registry import resolve_game

    info = resolve_game(game, "play")
    resolved = info.spec.rules(info.name, rules)
    engine = info.spec.engine()
    if trace or hands:
        outcome, lines = engine.play_traced(resolved, deal, hands=hands)
        return PlayedDeal(outcome, "\n".join([*lines, engine.outcome_text(outcome)]))
    outcome = engine.play_given(resolved, deal)
    return PlayedDeal(outcome, engine.outcome_text(outcome))


def replay(
    source: str | Path,
    *,
    game: int | None = None,
    match: int | None = None,
    deal: int | None = None,
    rotation: int = 0,
    hands: bool = False,
    form: str = "text",
    seed: int | None = None,
    players: int | None = None,
    strategies: Sequence | str | None = None,
    rules: dict | None = None,
) -> str:
    """One game turn by turn, as ``cardsim replay`` prints it (the command calls it).

    ``source``: a run folder (its rules, seats and seed; its log when it holds the game;
    ``form`` ``json`` or ``csv`` gives its events) or a game's name (then ``seed`` is
    needed, and ``players``, ``strategies`` and ``rules`` say the rest, as for
    :func:`simulate`). ``game``: the game's index in the run (default 0); in match play
    ``match`` and ``deal`` name it instead; ``rotation``: the seating, in a run with
    rotated seats; ``hands``: every seat's hand after each turn."""
    from ...games.registry import resolve_game
    from ...runs.request import make_request
    from ..replay import is_run_folder, replay_run

    if is_run_folder(str(source)):
        given = [
            f"--{name}"
            for name, value in (("seed", seed), ("players", players), ("strategy", strategies))
            if value
        ] + (["--rule/--config"] if rules else [])
        if given:
            raise CardsimError(
                f"{source} is a run folder, which gives the game's settings: drop "
                f"{', '.join(given)}"
            )
        for name, value in (("--game", game), ("--match", match), ("--deal", deal)):
            if value is not None and value < 0:
                raise CardsimError(f"{name} must be at least 0, got {value}")
        return replay_run(
            source, game=game, match=match, deal=deal, rotation=rotation, hands=hands, form=form
        )
    info = resolve_game(str(source), "replay")
    if seed is None:
        raise CardsimError(f"--seed is needed to replay a game of {info.name} by its name")
    if form != "text":
        raise CardsimError("--format json|csv needs a run folder: cardsim replay DIR --game I")
    index = 0 if game is None else game
    deal = 0 if deal is None else deal
    request = make_request(
        str(source), players=players, games=1, seed=seed, rules=rules, strategies=strategies
    )
    if index < 0 or (match is not None and (match < 0 or deal < 0)):
        raise CardsimError(f"game, match and deal must be at least 0, got {index}, {match}, {deal}")
    options = {"hands": True} if hands else {}
    return info.spec.engine().replay(request, game=index, match=match, deal=deal, **options)
