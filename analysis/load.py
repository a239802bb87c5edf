"""Reading a run folder: ``run.json`` (metadata) and ``games.parquet`` (one row per game)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from analysis.errors import ReportError

#: Columns every games table must have, per game family (see the README's run format).
REQUIRED_COLUMNS = {
    "beggar": ("game", "cards", "tricks", "winner", "end", "cycle_cards", "cycle_tricks"),
    "shedding": ("game", "winner", "end", "turns", "plays", "draws", "passes", "wilds"),
}


@dataclass(frozen=True)
class Run:
    """One run folder, loaded.

    ``meta`` is the parsed ``run.json``; ``games`` has one row per game, in game-index
    order, with ``end`` as a plain string column.
    """

    path: Path
    meta: dict[str, Any]
    games: pd.DataFrame

    @property
    def players(self) -> int:
        """Number of seats at the table."""
        return int(self.meta["players"])


def load_run(path: str | Path) -> Run:
    """Load the run folder at ``path``; raise :class:`ReportError` if it is not a usable one."""
    path = Path(path)
    if not path.is_dir():
        raise ReportError(f"{path}: run folder not found")
    meta = _read_meta(path / "run.json")
    games = _read_games(path / "games.parquet", meta["players"], family(meta["game"]))
    return Run(path=path, meta=meta, games=games)


def _read_meta(json_path: Path) -> dict[str, Any]:
    if not json_path.is_file():
        raise ReportError(f"{json_path}: missing (is {json_path.parent} a run folder?)")
    try:
        meta = json.loads(json_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{json_path}: cannot read: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise ReportError(f"{json_path}: invalid JSON: {exc}") from exc
    if not isinstance(meta, dict):
        raise ReportError(f"{json_path}: expected a JSON object")
    for key in ("game", "players"):
        if key not in meta:
            raise ReportError(f"{json_path}: no {key!r} entry")
    if not isinstance(meta["players"], int) or meta["players"] < 1:
        raise ReportError(f"{json_path}: 'players' must be a positive integer")
    meta.setdefault("rules", {})
    return meta


def family(game: str) -> str:
    """``beggar`` for Beggar-My-Neighbour, ``shedding`` for the shedding-game presets."""
    return "beggar" if game == "beggar-my-neighbour" else "shedding"


def _read_games(parquet_path: Path, players: int, game_family: str) -> pd.DataFrame:
    if not parquet_path.is_file():
        raise ReportError(f"{parquet_path}: missing (is {parquet_path.parent} a run folder?)")
    try:
        games = pd.read_parquet(parquet_path)
    except (pa.ArrowException, OSError, ValueError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ReportError(f"{parquet_path}: unreadable Parquet file: {reason}") from exc
    missing = [c for c in REQUIRED_COLUMNS[game_family] if c not in games.columns]
    if missing:
        raise ReportError(f"{parquet_path}: missing columns {', '.join(missing)}")
    if games.empty:
        raise ReportError(f"{parquet_path}: no games recorded")
    bad = (games["winner"] < -1) | (games["winner"] >= players)
    if bad.any():
        raise ReportError(
            f"{parquet_path}: winner out of range for {players} players "
            f"(game {int(games.loc[bad, 'game'].iloc[0])})"
        )
    if not games["game"].is_monotonic_increasing:
        games = games.sort_values("game", kind="stable", ignore_index=True)
    # ``end`` stays categorical (the engine writes a dictionary column): comparisons with
    # strings work on it, and it costs one byte a game instead of a Python string.
    games["end"] = games["end"].astype("category")
    return games
