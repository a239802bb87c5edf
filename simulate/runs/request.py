"""A run request, validated once, without numba: every check of what a user asks for.

:func:`make_request` checks a game, its players, the seats' strategies, the rules, the
seed, the number of games and threads, and returns a :class:`Request` that the engine
plays as is. The command line, studies, tournaments and Python callers all come through
here; mistakes raise :class:`~simulate.core.errors.CardsimError` with one line naming the bad
value and what is allowed (words, not command-line flags: the CLI adds those).
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import CardsimError
from ..core.gpu import BACKENDS, check_gpu
from ..core.rng import MAX_SEED
from ..games.registry import GameInfo, check_players, resolve_game
from ..games.registry import specs as game_specs

DEFAULT_GAMES = 1_000_000
MAX_LOG_ALL = 100_000
"""The most games (matches) a run may log with ``log="all"``."""
DEFAULT_ROLLOUTS = 64
"""Rollouts per point of a traced game (``rollouts``)."""
MAX_ROLLOUTS = 4096
"""The most rollouts a point may take (a point's wins are kept as int16)."""
RECORDS = ("all", "none")
"""What a run may keep (``records``): every game's row, or its statistics only."""


def max_threads() -> int:
    """The threads numba may use here (``NUMBA_NUM_THREADS``, else the usable cores), found
    without importing numba."""
    configured = os.environ.get("NUMBA_NUM_THREADS")
    if configured and configured.strip().isdigit() and int(configured) > 0:
        return int(configured)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def default_threads() -> int:
    """The threads a run plays on when none are asked for: all of :func:`max_threads`."""
    return max_threads()


@dataclass(frozen=True)
class Request:
    """A validated run request."""

    game: GameInfo
    players: int
    games: int
    seed: int
    rules: Any
    """The game's rules object (see :mod:`simulate.games.spec`)."""
    threads: int
    strategies: tuple[str, ...] = ()
    """Each seat's strategy, written in full (empty for a game without decisions)."""
    rotate_seats: bool = False
    """Play every deal (match) once per cyclic seating of the strategies."""
    specs: tuple = field(default=(), compare=False, repr=False)
    """The strategies as the game's strategy objects (a user strategy's function
    included)."""
    log: int = 0
    """The first ``log`` games (matches) are logged event by event (``events.parquet``)."""
    backend: str = "cpu"
    """Where the games are played (:data:`simulate.core.gpu.BACKENDS`); never changes a record
    (logged games are played on the CPU whatever it is)."""
    records: str = "all"
    """What the run keeps (:data:`RECORDS`): ``all``, every game's row; ``none``, its
    statistics only (an aggregate-only run, :mod:`simulate.runs.folder.aggregates`)."""
    trace: int = 0
    """The first ``trace`` games are traced: each seat's chance of winning after the deal
    and after every turn, from ``rollouts`` rollouts (``trace.parquet``)."""
    rollouts: int = DEFAULT_ROLLOUTS

    def seatings(self) -> list[tuple]:
        """The specs' seatings: rotation r puts seat i's strategy in seat i + r."""
        if not self.rotate_seats:
            return [self.specs]
        n = len(self.specs)
        return [tuple(self.specs[(i - r) % n] for i in range(n)) for r in range(n)]

    @property
    def match_play(self) -> bool:
        """Whether the rules make matches: then ``games`` counts matches, and each deal of
        a match is a record."""
        return bool(self.rules.match_play)

    def records_before(self, first: int) -> int | None:
        """The records (deals) that games (matches) ``0 .. first - 1`` hold, in every
        seating, where that is known before they are played: ``first`` a record each in
        single games, ``first`` times the deals of a match where every match has as
        many; None where matches have any length (a target score)."""
        if not self.match_play:
            return first * len(self.seatings())
        # the match-play knobs of every rules object that plays matches
        if getattr(self.rules, "target_score", None) is not None:
            return None
        return first * self.rules.match_deals * len(self.seatings())

    @property
    def unit(self) -> str:
        """What ``games`` counts: ``"game"`` or ``"match"``."""
        return "match" if self.match_play else "game"

    def identity(self) -> dict:
        """What decides the run's records, apart from how it is played (threads, backend,
        cluster, chunk size): requests with equal identities give equal records. A
        ``--resume`` compares the flags given with the run's own on these alone."""
        return {
            "game": self.game.name,
            "players": self.players,
            "games": self.games,
            "seed": self.seed,
            "rules": self.rules.to_dict(),
            "strategies": self.strategies,
            "rotate_seats": self.rotate_seats,
            "log": self.log,
            "records": self.records,
            **self.traced(),
        }

    def traced(self) -> dict:
        """``{"trace": N, "rollouts": R}`` for a traced run, else empty (as run.json keeps
        it)."""
        return {"trace": self.trace, "rollouts": self.rollouts} if self.trace else {}

    def meta(self) -> dict:
        """The request as stored in ``run.json``, the one place it is written from (an
        aggregate-only run says ``"records": "none"``; a run of every record says nothing,
        as runs did before aggregate-only runs)."""
        meta = {
            "game": self.game.name,
            "family": self.game.family,
            "players": self.players,
            "games": self.games,
            "seed": self.seed,
            "rules": self.rules.to_dict(),
            "threads": self.threads,
        }
        if self.strategies:
            meta["strategies"] = list(self.strategies)
        if self.match_play:
            meta["unit"] = "match"
        if self.rotate_seats:
            meta["rotate_seats"] = True
        if self.log:
            meta["log"] = self.log
        meta.update(self.traced())
        if self.backend != "cpu":
            meta["backend"] = self.backend  # information only: records never depend on it
        if self.records != "all":
            meta["records"] = self.records
        return meta


def make_request(
    game: str,
    *,
    players: int | None = None,
    games: int = DEFAULT_GAMES,
    seed: int | None = None,
    threads: int | None = None,
    rules=None,
    strategies=None,
    rotate_seats: bool = False,
    log: int | str = 0,
    backend: str = "cpu",
    records: str = "all",
    trace: int = 0,
    rollouts: int = DEFAULT_ROLLOUTS,
) -> Request:
    """Validate a run's parameters (raising CardsimError) and fill in the defaults.

    ``rules`` is a rules object of the game, or a dict of knob overrides such as
    ``{"time_limit": 500}``. A missing seed is drawn at random (and recorded, so the run
    can be repeated). ``strategies`` names each seat's strategy in seat order
    (``"greedy"``, ``"random:forget=0.1"``, ``"weighted:points=1,wild=-2"``, or a user
    function); seats without one play the game's default. ``rotate_seats`` plays every deal
    once per cyclic seating. ``log``: how many of the first games (matches) to log event by
    event (more than ``games`` logs them all), or ``"all"`` (runs of at most
    ``MAX_LOG_ALL`` games). ``backend``: ``"cpu"`` or ``"cuda"`` (a GPU; refused when the
    game has no GPU kernel or no usable GPU is found); the records are the same.
    ``records``: ``"all"`` keeps every game's row, ``"none"`` the statistics only (an
    aggregate-only run, for any game, single games and match play alike). ``trace``: how
    many of the first games to trace (each seat's chance of winning through the game,
    from ``rollouts`` rollouts a point; more than ``games`` traces them all).
    """
    check_records(records)
    info = resolve_game(game)
    players = info.default_players if players is None else players
    check_players(info, players)
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise CardsimError(f"games must be a whole number of at least 1, got {games!r}")
    if seed is None:
        seed = secrets.randbits(63)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise CardsimError(f"seed must be a whole number from 0 to {MAX_SEED}, got {seed!r}")
    most = max_threads()
    threads = default_threads() if threads is None else threads
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= most:
        raise CardsimError(f"threads must be from 1 to {most} on this machine, got {threads!r}")
    base = info.base_rules()
    if rules is None:
        rules = base
    elif isinstance(rules, dict):
        rules = base.with_overrides(rules)
    elif type(rules) is not type(base):
        raise CardsimError(f"rules must be a dict of knob overrides, got {type(rules).__name__}")
    rules.check_players(players)
    if backend != "cpu":
        check_backend(backend, game=info.name, backends=info.spec.backends)
    logged = logged_games(log, games)
    if logged and "log" not in info.spec.commands:
        raise CardsimError(f"{info.name} cannot log its games event by event yet")
    traced = traced_games(info, trace, rollouts, games)
    spec = info.spec
    if not spec.takes_strategies:
        if strategies:
            raise CardsimError(f"{info.name} has no decisions to make: it takes no strategies")
        if rotate_seats:
            raise CardsimError(f"{info.name} has no strategies to rotate")
        return Request(
            info, players, games, seed, rules, threads, log=logged, backend=backend,
            records=records, trace=traced, rollouts=rollouts,
        )  # fmt: skip
    specs = seat_specs(info, strategies, players)
    names = tuple(str(one) for one in specs)
    if backend != "cpu" and any(name.startswith("user:") for name in names):
        raise CardsimError(
            f"backend {backend} plays the built-in strategies only, not a user strategy (a "
            "Python function); play it with backend cpu"
        )
    searching = searching_strategies(specs)
    if backend != "cpu" and searching:
        raise CardsimError(
            f"backend {backend} does not play strong players ({', '.join(searching)}): their "
            "rollouts run on the CPU; play them with backend cpu"
        )
    return Request(
        info,
        players,
        games,
        seed,
        rules,
        threads,
        names,
        bool(rotate_seats),
        specs,
        logged,
        backend,
        records,
        traced,
        rollouts,
    )


def check_records(records: str, name: str = "records") -> None:
    """Refuse, in one line naming ``name`` (the CLI's ``--records``), a ``records`` value
    not in :data:`RECORDS`."""
    if records not in RECORDS:
        raise CardsimError(f"{name} is {' or '.join(RECORDS)}, got {records!r}")


def logged_games(log: int | str, games: int) -> int:
    """How many games a run of ``games`` logs for ``log`` (a number, or ``"all"``)."""
    if isinstance(log, str) and log.strip().lower() == "all":
        if games > MAX_LOG_ALL:
            raise CardsimError(
                f"log all is for runs of at most {MAX_LOG_ALL:,} games, this one has "
                f"{games:,}; give a number of games to log"
            )
        return games
    if isinstance(log, str) and log.strip().isdigit():
        log = int(log)
    if isinstance(log, bool) or not isinstance(log, int) or log < 0:
        raise CardsimError(f"log must be a whole number of games from 0, or all, got {log!r}")
    return min(log, games)


def traced_games(info: GameInfo, trace, rollouts, games: int) -> int:
    """How many games (matches: every deal of them) a run of ``games`` traces for
    ``trace``, checked with ``rollouts`` (refused in one line: not whole numbers, out of
    range, a game that cannot be traced)."""
    if isinstance(trace, bool) or not isinstance(trace, int) or trace < 0:
        raise CardsimError(f"trace must be a whole number of games from 0, got {trace!r}")
    bad = isinstance(rollouts, bool) or not isinstance(rollouts, int)
    if bad or not 1 <= rollouts <= MAX_ROLLOUTS:
        raise CardsimError(f"rollouts must be from 1 to {MAX_ROLLOUTS}, got {rollouts!r}")
    if not trace:
        return 0
    if "trace" not in info.spec.commands:
        raise CardsimError(f"{info.name} cannot trace its games' win chances yet")
    return min(trace, games)


def seat_specs(info: GameInfo, strategies, players: int) -> tuple:
    """Each seat's strategy object: those given (names, specs or user functions), in seat
    order, then the game's default strategy."""
    given = list(strategies or [])
    if len(given) > players:
        raise CardsimError(f"{len(given)} strategies given for {players} seats")
    parse = info.spec.parse_strategy
    default = [info.spec.default_strategy] * (players - len(given))
    return tuple(parse(strategy) for strategy in given + default)


def searching_strategies(specs) -> list[str]:
    """The strategies among ``specs`` (strategy objects) that search by rollouts (strong
    players such as ``pimc:K``, whose games cost hundreds of others'), each once, in full, in
    the order they come."""
    return list(dict.fromkeys(str(one) for one in specs if getattr(one, "searches", False)))


def seat_strategies(game: str, strategies, players: int) -> tuple[str, ...]:
    """Each seat's strategy, written in full: those given, in seat order, then the
    game's default."""
    return tuple(str(one) for one in seat_specs(resolve_game(game), strategies, players))


def has_user_strategy(meta: dict) -> bool:
    """Whether a run folder's ``run.json`` names a user strategy (a Python function, which
    run.json cannot give back)."""
    return any(str(name).startswith("user:") for name in meta.get("strategies") or [])


def traced(meta: dict) -> dict:
    """The trace settings that ``run.json``'s ``meta`` records, as :func:`make_request`
    takes them."""
    return {"trace": meta.get("trace", 0), "rollouts": meta.get("rollouts", DEFAULT_ROLLOUTS)}


def request_from_meta(meta: dict, *, threads: int | None = None) -> Request:
    """The request that a run folder's ``run.json`` records (to resume or verify it)."""
    if has_user_strategy(meta):
        raise CardsimError(
            "this run has a user strategy (a Python function): run it again from Python, "
            "it cannot be resumed from run.json"
        )
    try:
        return make_request(
            meta["game"],
            players=meta["players"],
            games=meta["games"],
            seed=meta["seed"],
            threads=threads,
            rules={key: value for key, value in meta["rules"].items() if key != "preset"},
            strategies=meta.get("strategies"),
            rotate_seats=meta.get("rotate_seats", False),
            log=meta.get("log", 0),
            records=meta.get("records", "all"),
            **traced(meta),
        )
    except KeyError as exc:
        raise CardsimError(f"run.json lacks {exc}; it cannot be resumed") from None


def check_backend(backend, *, game: str, backends: tuple[str, ...]) -> str:
    """``backend`` checked for ``game`` (whose engine plays on ``backends``); raises
    CardsimError with one line when it is unknown, when the game has no kernel for it, or
    when it is ``cuda`` and no usable GPU is found (nor the simulator asked for)."""
    if backend not in BACKENDS:
        raise CardsimError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if backend not in backends:
        games = ", ".join(
            preset.name
            for spec in game_specs()
            if backend in spec.backends
            for preset in spec.presets
        )
        raise CardsimError(
            f"{game} has no {backend} kernel yet; backend {backend} plays: {games or 'none'}"
        )
    if backend == "cuda":
        check_gpu()
    return backend
