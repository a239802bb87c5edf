"""Study files: a base game, player counts, games, a seed and named variants, in TOML.

A study is read and fully validated (:func:`load_study`, then :meth:`Study.cells`) before
anything is written; every mistake is one :class:`CardsimError` line that names the file,
the line of the offending key where it can be found, the bad key or value and what is
allowed. The format (README, "Studies")::

    title = "Pis Yedili: 7s adding vs doubling"   # optional
    game = "pis-yedili"          # a game or shedding preset, as for `cardsim simulate`
    players = [4]                # or 4; default: the game's
    games = 1000000              # games per cell
    seed = 7                     # every cell's seed: common random numbers
    rules = { }                  # optional: overrides for every variant
    strategies = ["random"]      # optional: every variant's seats (shedding games)
    skill = "hold-wilds"         # optional: also play each cell's skill games (its /skill)
    records = "none"             # optional: aggregate-only cells, as --records none

    [[variant]]                  # two or more; the first is the base of the comparison
    name = "adding"              # letters, digits, '-', '_' and '.'; unique
    rules = { }                  # overrides on top of the study's, as --rule / --config
    # strategies = ["first", "random", "random", "random"]   (or "first,random,...")
    # description = "..."        (optional, free text)

A cell is one variant at one player count; it is run as an ordinary run folder,
``OUT/<variant>-<players>p``. Every cell uses the study's seed, so game ``i`` of every
cell is dealt from the same random stream: where two variants deal the same number of cards
from the same decks, game ``i`` starts from the same deal in both.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ...core.errors import CardsimError
from ...core.rng import MAX_SEED
from ...core.skill import skill_seats
from .tomlines import KeyLines

STUDY_KEYS = (
    "title",
    "game",
    "players",
    "games",
    "seed",
    "rules",
    "strategies",
    "skill",
    "records",
    "variant",
)
VARIANT_KEYS = ("name", "rules", "strategies", "description")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class Variant:
    """One named variant: rule overrides (as in a --config file) and seat strategies."""

    name: str
    rules: dict
    strategies: tuple[str, ...] | None
    index: int
    """Position in the file (0 is the base of the comparison)."""


@dataclass(frozen=True)
class Cell:
    """One variant at one player count, with its validated run request."""

    variant: Variant
    players: int
    request: object
    """The :class:`simulate.runs.engine.Request` of the cell's run."""
    skill: object = None
    """With the study's ``skill``: the request of the cell's skill games (the skilled
    strategy in seat 0, random in the others, rotated over the seats, on the cell's seed and
    rules), played into ``<cell>/skill``; else None."""

    @property
    def folder_name(self) -> str:
        return f"{self.variant.name}-{self.players}p"


@dataclass(frozen=True)
class Study:
    """A study file, read and checked (its keys, types and variant names)."""

    path: Path
    text: str
    title: str
    game: str
    players: tuple[int, ...] | None
    """None: the game's default player count."""
    games: int
    seed: int
    rules: dict
    strategies: tuple[str, ...] | None
    variants: tuple[Variant, ...]
    skill: str | None = None
    """The skilled strategy whose skill games each cell also plays, or None."""
    records: str = "all"
    """What each cell keeps: ``all`` its records, ``none`` its statistics alone (an
    aggregate-only study, :mod:`simulate.runs.paired_runs`)."""

    def error(self, key_path: tuple, message: str) -> CardsimError:
        """A one-line error naming this file and the line of ``key_path``."""
        return located_error(self.path, KeyLines(self.text).line_of(key_path), message)

    def cells(self, games: int | None = None, threads: int | None = None) -> list[Cell]:
        """Every (player count, variant) cell, player counts outer, each with its checked
        request; ``games`` overrides the study's count (a quick trial)."""
        if games is not None and (isinstance(games, bool) or games < 1):
            raise CardsimError(f"--games must be a whole number of at least 1, got {games}")
        from ...games.registry import resolve_game

        info = resolve_game(self.game)
        rules_of = {variant.name: self.variant_rules(variant) for variant in self.variants}
        from ...runs.request import make_request

        make_request(self.game, games=1, seed=0, threads=threads)  # checks --threads alone
        counts = self.players or (info.default_players,)
        cells = []
        for players in counts:
            for variant in self.variants:
                rules = rules_of[variant.name]
                strategies = variant.strategies or self.strategies
                where = ("variant", variant.index)
                try:
                    request = make_request(
                        self.game,
                        players=players,
                        games=self.games if games is None else games,
                        seed=self.seed,
                        threads=threads,
                        rules=rules,
                        strategies=strategies,
                    )
                except CardsimError as exc:
                    key = _request_key(str(exc), variant)
                    raise self.error(
                        key if key[0] != "variant" else where + key[1:],
                        f"variant '{variant.name}' with {players} players: {exc}",
                    ) from None
                cells.append(Cell(variant, players, request, self._skill(request)))
        return cells

    def _skill(self, request):
        """The skill games' request of a cell's ``request`` (None without ``skill``)."""
        if self.skill is None:
            return None
        from ...runs.request import make_request

        try:
            return make_request(
                self.game,
                players=request.players,
                games=request.games,
                seed=request.seed,
                threads=request.threads,
                rules=request.rules,
                strategies=skill_seats(self.skill, request.players),
                rotate_seats=True,
            )
        except CardsimError as exc:
            raise self.error(("skill",), f"skill {self.skill!r}: {exc}") from None

    def variant_rules(self, variant: Variant):
        """The resolved rules object of a variant: the game's defaults, the study's rules,
        then the variant's (each knob's error located at its line)."""
        from ...games.registry import resolve_game

        base = resolve_game(self.game).base_rules()
        rules = apply_overrides(base, self.rules, ("rules",), self)
        return apply_overrides(rules, variant.rules, ("variant", variant.index, "rules"), self)


def located_error(path: Path, line: int | None, message: str) -> CardsimError:
    where = f"{path} line {line}" if line is not None else str(path)
    return CardsimError(f"{where}: {message}")


def _request_key(message: str, variant: Variant) -> tuple:
    """Which key of the study a make_request error is about (for its line)."""
    if "strateg" in message:
        return ("variant", "strategies") if variant.strategies else ("strategies",)
    if "players" in message or "deck" in message or "stock" in message:
        return ("players",)
    if "seed" in message:
        return ("seed",)
    if "games" in message:
        return ("games",)
    return ("variant",)


def apply_overrides(base, overrides: dict, where: tuple, source):
    """``base.with_overrides(overrides)``; on an error, find the knob that causes it and
    raise the error at that knob's line of ``source`` (a :class:`Study` or
    :class:`RuleFile`)."""
    try:
        return base.with_overrides(overrides)
    except CardsimError as exc:
        culprit: tuple = ()
        for path, value in _flatten(overrides):
            try:
                base.with_overrides({".".join(path): value})
            except CardsimError:
                culprit = path
                break
        raise source.error(where + culprit, str(exc)) from None


def _flatten(overrides: dict, prefix: tuple = ()) -> list[tuple[tuple, object]]:
    """``{"effects": {"A": "skip"}, "stacking": "none"}`` ->
    ``[(("effects", "A"), "skip"), (("stacking",), "none")]``."""
    items = []
    for key, value in overrides.items():
        if isinstance(value, dict) and value:
            items.extend(_flatten(value, (*prefix, str(key))))
        else:
            items.append(((*prefix, str(key)), value))
    return items


@dataclass(frozen=True)
class RuleFile:
    """A ``--config`` rule file, read so that its errors can name their line."""

    path: Path
    text: str
    overrides: dict
    prefix: tuple
    """``("rules",)`` when the knobs sit in a ``[rules]`` table, else ``()``."""

    def error(self, key_path: tuple, message: str) -> CardsimError:
        return located_error(self.path, KeyLines(self.text).line_of(key_path), message)

    def check(self, base) -> None:
        """Apply the file's knobs to ``base`` (a rules object), raising a located error."""
        apply_overrides(base, self.overrides, self.prefix, self)


def read_toml(path: str | Path, what: str) -> tuple[str, dict]:
    """The text and the parsed contents of a TOML file; ``what`` names it in errors."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CardsimError(f"{what} {path} not found") from None
    except IsADirectoryError:
        raise CardsimError(f"{what} {path} is a folder, not a TOML file") from None
    except UnicodeDecodeError:
        raise CardsimError(f"cannot read {what} {path}: not UTF-8 text") from None
    except OSError as exc:
        raise CardsimError(f"cannot read {what} {path}: {exc.strerror}") from None
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = re.search(r"\s*\(at line (\d+), column (\d+)\)$", message)
        if found:
            line = int(found.group(1))
            message = f"{message[: found.start()]} (column {found.group(2)})"
        else:
            line = len(text.splitlines()) if message.endswith("(at end of document)") else None
        raise located_error(path, line, f"invalid TOML in this {what}: {message}") from None


def read_rule_file(path: str | Path) -> RuleFile:
    """A ``--config`` file: knobs at the top level or in a ``[rules]`` table."""
    text, data = read_toml(path, "rule file")
    if "rules" in data and isinstance(data["rules"], dict):
        return RuleFile(Path(path), text, data["rules"], ("rules",))
    return RuleFile(Path(path), text, data, ())


def load_study(path: str | Path) -> Study:
    """Read and check a study file (keys, types, names; the rules are checked by
    :meth:`Study.cells`)."""
    path = Path(path)
    text, data = read_toml(path, "study file")
    lines = KeyLines(text)

    def fail(key_path: tuple, message: str) -> CardsimError:
        return located_error(path, lines.line_of(key_path), message)

    for key in data:
        if key not in STUDY_KEYS:
            raise fail((key,), f"unknown key '{key}'; a study has: {', '.join(STUDY_KEYS)}")
    for key in ("game", "games", "seed"):
        if key not in data:
            example = {"game": 'game = "pis-yedili"', "games": "games = 100000"}
            raise fail((), f"no '{key}'; add a line such as {example.get(key, 'seed = 1')}")
    game = data["game"]
    if not isinstance(game, str):
        raise fail(("game",), f"game must be a name in quotes, got {game!r}")
    from ...games.registry import resolve_game

    try:
        resolve_game(game)
    except CardsimError as exc:
        raise fail(("game",), str(exc)) from None
    title = _text(data, "title", fail) or path.stem
    players = _players(data.get("players"), fail)
    games = _whole(data["games"], "games", 1, None, fail)
    seed = _whole(data["seed"], "seed", 0, MAX_SEED, fail)
    rules = _table(data.get("rules", {}), ("rules",), fail)
    strategies = _strategies(data.get("strategies"), ("strategies",), fail)
    variants = _variants(data.get("variant"), fail)
    skill = _skill(data.get("skill"), game, fail)
    records = _records(data.get("records", "all"), fail)
    return Study(
        path, text, title, game, players, games, seed, rules, strategies, variants, skill, records
    )


def _records(value, fail) -> str:
    """The ``records`` key: ``all`` or ``none``, as ``--records`` takes it."""
    from ...runs.request import RECORDS

    if value not in RECORDS:
        raise fail(("records",), f"records must be {' or '.join(RECORDS)} in quotes, got {value!r}")
    return value


def _skill(value, game: str, fail) -> str | None:
    """The ``skill`` key: a strategy of the game, as ``--skill`` takes it."""
    if value is None:
        return None
    from ...games.registry import resolve_game

    info = resolve_game(game)
    if not info.spec.takes_strategies:
        raise fail(
            ("skill",),
            f"skill: {info.name} has no choices to make, so no skill games (its skill is 0 by "
            "definition); drop the key",
        )
    if not isinstance(value, str) or not value.strip():
        raise fail(
            ("skill",), f'skill must be a strategy name in quotes, as "hold-wilds", got {value!r}'
        )
    try:
        info.spec.parse_strategy(value.strip())
    except CardsimError as exc:
        raise fail(("skill",), f"skill: {exc}") from None
    return value.strip()


def _text(data: dict, key: str, fail) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise fail((key,), f"{key} must be text in quotes, got {value!r}")
    return value


def _whole(value, key: str, low: int, high: int | None, fail) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise fail((key,), f"{key} must be a whole number of at least {low}, got {value!r}")
    if high is not None and value > high:
        raise fail((key,), f"{key} must be a whole number from {low} to {high}, got {value!r}")
    return value


def _players(value, fail) -> tuple[int, ...] | None:
    if value is None:
        return None
    counts = value if isinstance(value, list) else [value]
    if not counts:
        raise fail(("players",), "players must be a number or a list of numbers, got []")
    for count in counts:
        _whole(count, "players", 2, None, fail)
    if len(set(counts)) != len(counts):
        raise fail(("players",), f"players lists a count twice: {counts}")
    return tuple(counts)


def _table(value, key_path: tuple, fail) -> dict:
    if not isinstance(value, dict):
        raise fail(
            key_path, f'rules must be a table of knobs, as {{ stacking = "none" }}, got {value!r}'
        )
    return value


def split_seats(text: str) -> list[str]:
    """``"weighted:points=1,wild=-0.5,random"`` -> ``["weighted:points=1,wild=-0.5",
    "random"]``: seats are separated by commas, and a piece ``PARAM=VALUE`` (no ``:``)
    after a ``NAME:PARAM=VALUE`` spec continues that spec."""
    seats: list[str] = []
    for piece in (part.strip() for part in text.split(",")):
        if seats and "=" in piece and ":" not in piece and ":" in seats[-1]:
            seats[-1] += "," + piece
        else:
            seats.append(piece)
    return seats


def _strategies(value, key_path: tuple, fail) -> tuple[str, ...] | None:
    """A list of strategy specs, or one comma-separated string (as ``--seats``)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = split_seats(value)
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise fail(
            key_path, f'strategies must be a list of names, as ["first", "random"], got {value!r}'
        )
    return tuple(value)


def _variants(value, fail) -> tuple[Variant, ...]:
    if value is None:
        raise fail((), "no [[variant]] tables; a study compares two or more variants")
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise fail(("variant",), "variant must be [[variant]] tables, each with a name")
    if len(value) < 2:
        raise fail(("variant",), f"a study needs two or more [[variant]] tables, got {len(value)}")
    variants: list[Variant] = []
    seen: dict[str, int] = {}
    for index, entry in enumerate(value):
        where = ("variant", index)
        for key in entry:
            if key not in VARIANT_KEYS:
                raise fail(
                    (*where, key),
                    f"unknown key '{key}' in a [[variant]]; a variant has: {', '.join(VARIANT_KEYS)}",
                )
        name = entry.get("name")
        if not isinstance(name, str) or not _NAME.match(name):
            raise fail(
                (*where, "name"),
                f"variant {index + 1} needs a name of letters, digits, '-', '_' or '.' "
                f"(it names a folder), got {name!r}",
            )
        if name.lower() in seen:
            raise fail((*where, "name"), f"two variants are named '{name}'")
        seen[name.lower()] = index
        if "description" in entry and not isinstance(entry["description"], str):
            raise fail((*where, "description"), "description must be text in quotes")
        variants.append(
            Variant(
                name=name,
                rules=_table(entry.get("rules", {}), (*where, "rules"), fail),
                strategies=_strategies(entry.get("strategies"), (*where, "strategies"), fail),
                index=index,
            )
        )
    return tuple(variants)
