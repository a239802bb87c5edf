"""What the rest of cardsim asks of a game, in one place.

A game family (Beggar-My-Neighbour; the shedding games) is one :class:`GameSpec`: a
numba-free description (its names, presets and player counts; how to build, check and
describe its rules; its record columns and end reasons) that the command line, studies and
:mod:`analysis` read, and, loaded only when games are played, its :class:`GameEngine`
(kernels). :mod:`simulate.games.registry` maps every name a user may type to a
(spec, preset) pair; a game from another installed package registers through the
``cardsim.games`` entry-point group. ``docs/adding-a-game.md`` walks through a new game.

The rules object a spec builds is the game's own (a frozen dataclass, say), with:

- ``with_overrides(overrides: dict) -> rules``: knobs changed by name (``{"time_limit":
  500}``; values may be strings, as ``--rule K=V`` gives them), raising
  :class:`simulate.core.errors.CardsimError` naming a bad knob or value;
- ``to_dict() -> dict``: JSON-ready, as ``run.json`` stores it;
- ``check_players(players: int) -> None``: raises when these rules cannot seat ``players``;
- ``describe(players: int | None) -> str``: the rules in force, in words;
- ``match_play: bool``: whether ``games`` counts matches of several deals.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import pyarrow as pa


@dataclass(frozen=True)
class Column:
    """One column of a record table. ``name`` may hold ``<i>``: one column per seat,
    ``cards_left_0`` … ``cards_left_{n-1}``. ``type`` is the Arrow type as written
    (``int32``, ``dictionary<string>``); ``unit`` what one counts (``cards``, ``seat``; empty
    for labels)."""

    name: str
    type: str
    unit: str
    meaning: str

    def names(self, players: int) -> list[str]:
        """The column's names at a table of ``players`` seats."""
        if "<i>" not in self.name:
            return [self.name]
        return [self.name.replace("<i>", str(seat)) for seat in range(players)]


@dataclass(frozen=True)
class Preset:
    """A name a user types for a game: the preset's ``name`` (also its rules' base),
    ``aliases``, its display ``title`` and the player count used when none is given."""

    name: str
    title: str
    default_players: int
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Chunk:
    """The records of consecutive games (or matches) of a run."""

    games: pa.Table | None
    """One row per game (per deal in match play)."""
    matches: pa.Table | None = None
    """Match play: one row per match."""
    events: pa.Table | None = None
    """The logged games' events (``events.parquet``; :mod:`simulate.core.logs.events`), None
    when none of the chunk's games is logged."""
    aggregates: Any = None
    """An aggregate-only run (``--records none``): the chunk's statistics
    (:class:`simulate.runs.folder.aggregates.Aggregates`), in place of its records (``games`` and
    ``matches`` are then None); ``events`` and ``trace`` are kept all the same."""
    trace: pa.Table | None = None
    """The traced games' win chances (``trace.parquet``: ``game``, ``turn``, ``seat``,
    ``wins`` of the run's rollouts; see ``docs/results-format.md``), None when none of the
    chunk's games is traced."""

    def parts(self) -> dict[str, Any]:
        """What a run folder keeps of the chunk, by record kind, as
        :meth:`simulate.runs.folder.writer.RunWriter.write` takes it (None: no file)."""
        if self.aggregates is not None:
            return {"aggregates": self.aggregates, "events": self.events, "trace": self.trace}
        return {
            "games": self.games,
            "matches": self.matches,
            "events": self.events,
            "trace": self.trace,
        }


class GameEngine(Protocol):
    """The compiled side of a game, imported only when games are played."""

    def play(self, request: Any, seating: tuple, first: int, count: int, row: int) -> Chunk:
        """The records of games (matches, in match play) ``first .. first + count - 1`` of
        ``request`` (a :class:`simulate.runs.request.Request`) with the seats' strategies
        ``seating`` (the game's own strategy objects; empty for a game without decisions);
        ``row``: the ``game`` number of the first record in match play. ``request.backend``
        says where to play them, one of the spec's ``backends``; the records are the same
        on every backend.

        Optional, for an aggregate-only run (``records="none"``): ``device_chunk(request,
        seating, first, count)``, the same games played on the GPU with their records left
        in device memory (a :class:`simulate.games.device_chunk.DeviceChunk`, which the run
        layer reduces there: :func:`simulate.runs.aggregate_runs.reduced_where_played`), or
        None, before playing anything, where the records are to be reduced on the CPU."""
        ...


@dataclass(frozen=True)
class GameSpec:
    """Everything the rest of cardsim asks of a game family; see the module."""

    family: str
    """A short id, as ``run.json`` records it (``beggar``, ``shedding``)."""
    presets: tuple[Preset, ...]
    min_players: int
    max_players: int
    base_rules: Callable[[str], Any]
    """The default rules object of a preset (by its name)."""
    end_reasons: tuple[str, ...]
    """How a game can end (the ``end`` column's values), in the dictionary's order."""
    end_meanings: Mapping[str, str]
    columns: tuple[Column, ...]
    """The per-game record (per deal in match play), in order."""
    length: Column
    """The headline length of a game (Beggar-My-Neighbour: cards; shedding: turns)."""
    required_columns: tuple[str, ...]
    """The columns every games table of the game has, older runs' included."""
    engine_path: str
    """``"module:attribute"`` of the :class:`GameEngine`."""
    match_columns: tuple[Column, ...] = ()
    """The per-match record in match play (none for a game without matches)."""
    unended: tuple[str, ...] = ()
    """End reasons whose games never end, so have no length (Beggar-My-Neighbour's cycles)."""
    takes_strategies: bool = False
    """Whether seats have strategies (``--seats``, tournaments); without, a game has no
    decisions to make."""
    parse_strategy: Callable[[Any], Any] | None = None
    """A seat's strategy (a name such as ``greedy:forget=0.1``, a strategy object or a user
    function) as the game's strategy object, whose ``str`` is its name in full."""
    default_strategy: str = "random"
    """The strategy of a seat given none."""
    report_path: str | None = None
    """``"module:function"`` building the run report, ``build(run, top) -> (blocks,
    figures)``; None: the report of the sections every game shares."""
    search_path: str | None = None
    """``"module:function"`` of ``cardsim search`` (the game's ``search`` command), called
    ``search(request, *, top, progress, cluster) -> str``: the text printed."""
    tune_path: str | None = None
    """``"module:function"`` of ``cardsim tune`` (the game's ``tune`` command), called
    ``tune(game, **options)``: the result (:func:`simulate.app.api.tune` names the options)."""
    commands: frozenset[str] = field(default_factory=frozenset)
    """The optional commands the game takes: ``play`` (a given deal), ``search`` (hunt for
    long deals), ``replay`` (one game in words); ``log``: its engine logs games event by event
    (``--log``); ``trace``: its engine traces each seat's chance of winning (``--trace``)."""
    deal_shape: Callable[[Mapping, int], str] = lambda rules, players: ""
    """What, besides the seed and the players, decides how a game is dealt, in words, from
    the rules as ``run.json`` stores them (two runs deal the same games when these agree);
    raises ValueError naming what the rules do not record."""
    bytes_per_record: Callable[[int], float] = lambda players: 8.0 + 4.0 * players
    """A generous size of one record on disk at ``players`` seats (the space check)."""
    backends: tuple[str, ...] = ("cpu",)
    """Where its engine can play (:data:`simulate.core.gpu.BACKENDS`): ``cpu``, and ``cuda``
    when it has a GPU kernel; its :meth:`GameEngine.play` reads ``request.backend``."""

    def rules(self, preset: str, overrides: Mapping | None = None) -> Any:
        """The rules of ``preset`` with ``overrides`` (knob → value) applied."""
        rules = self.base_rules(preset)
        return rules.with_overrides(dict(overrides)) if overrides else rules

    def engine(self) -> GameEngine:
        """The compiled side, imported on first use."""
        return load(self.engine_path)

    def column_names(self, players: int) -> list[str]:
        return [name for column in self.columns for name in column.names(players)]


def load(path: str) -> Any:
    """The object named by ``"module:attribute"``."""
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)
