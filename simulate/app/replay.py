"""``cardsim replay DIR``: one game of a run folder, from its log or played again.

The run's ``run.json`` gives the rules, players, strategies, seating and seed. A game the
folder logged (``--log``) is printed from ``events/``; any other is played again (by the
logging kernel where the game has one, so the text is the same either way; else by the
game's readable reference). No numba is imported until a game is played.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from ..core.errors import CardsimError
from ..core.logs.header import header_line

FORMATS = ("text", "json", "csv")


def is_run_folder(path: str | Path) -> bool:
    """Whether ``path`` is a folder holding a run (its ``run.json``)."""
    return Path(path).is_dir() and (Path(path) / "run.json").is_file()


def replay_run(
    folder: str | Path,
    *,
    game: int | None = None,
    match: int | None = None,
    deal: int | None = None,
    rotation: int = 0,
    hands: bool = False,
    form: str = "text",
) -> str:
    """Game ``game`` (or deal ``deal`` of match ``match``) of the run in ``folder``, in
    words (``form="text"``) or as its events (``"json"``: one object per event; ``"csv"``).
    ``rotation``: the seating, in a run with rotated seats. Raises CardsimError for a game
    outside the run, a folder that is not a run, or a game that cannot give its events."""
    from ..runs.folder.writer import read_meta
    from ..runs.request import request_from_meta

    folder = Path(folder)
    if not is_run_folder(folder):
        raise CardsimError(f"{folder} is not a run folder (it has no run.json)")
    if form not in FORMATS:
        raise CardsimError(f"--format must be one of {', '.join(FORMATS)}, got {form!r}")
    meta = read_meta(folder)
    request = request_from_meta(meta, threads=1)
    unit = request.games
    if request.match_play:
        if match is None:
            raise CardsimError(
                f"{folder} holds a match-play run: name a deal with --match M --deal K, not --game"
            )
        if game is not None:
            raise CardsimError("give --match M --deal K for a match-play run, not --game")
        index, deal = match, deal or 0
        which = f"match {match}, deal {deal}"
    else:
        if match is not None:
            raise CardsimError(f"{folder} holds single games, not matches: give --game I")
        index = game or 0
        which = f"game {index}"
    if not 0 <= index < unit or (deal is not None and deal < 0):
        units = "matches" if request.match_play else "games"
        raise CardsimError(f"{which} is not in the run: it has {unit:,} {units} (numbered from 0)")
    players = request.players
    if not 0 <= rotation < (players if request.rotate_seats else 1):
        allowed = f"0 to {players - 1}" if request.rotate_seats else "0 (its seats do not rotate)"
        raise CardsimError(f"--rotation must be {allowed} for this run, got {rotation}")
    seated = _seated(request, rotation)
    if request.rotate_seats:
        which += f", rotation {rotation}"
    spec = request.game.spec
    events = _logged_events(folder, meta, index, deal if request.match_play else None, rotation)
    if events is not None and events.num_rows == 0:
        events = None  # no such deal in the log: the kernel says how many the match has
    engine = spec.engine()
    if events is None and "log" in spec.commands:
        if request.match_play:
            events = engine.log_one(seated, index, rotation=rotation, deal=deal)
        else:
            events = engine.log_one(seated, index, rotation=rotation)
    header = header_line(seated, which)
    if form != "text":
        if events is None:
            raise CardsimError(
                f"{request.game.name} cannot give a game's events yet: replay it as text"
            )
        return events_text(events, form)
    if events is not None:
        return engine.replay_text(seated, events, header=header, hands=hands)
    return engine.replay(seated, game=index, match=match, deal=deal or 0)


def _seated(request, rotation: int):
    """``request`` with its strategies in the seats of ``rotation`` (one seating)."""
    if not request.rotate_seats:
        return request
    n = len(request.specs)
    specs = tuple(request.specs[(i - rotation) % n] for i in range(n))
    return replace(
        request, specs=specs, strategies=tuple(str(one) for one in specs), rotate_seats=False
    )


def _logged_events(folder: Path, meta: dict, index: int, deal: int | None, rotation: int):
    """The rows of the game (deal) the folder logged, or None when it did not log it."""
    if index >= int(meta.get("log", 0)) or meta.get("format", 1) < 2:
        return None
    from ..runs.folder.records import record_files

    files = record_files(folder, meta, "events")
    if not files:
        return None
    table = files.read()
    key = "match" if deal is not None else "game"
    mask = pc.equal(table[key], index)
    if deal is not None:
        mask = pc.and_(mask, pc.equal(table["deal"], deal))
    if "rotation" in table.column_names:
        mask = pc.and_(mask, pc.equal(table["rotation"], rotation))
    rows = table.filter(mask)
    return rows if rows.num_rows else None


def events_text(events: pa.Table, form: str) -> str:
    """One game's events as JSON (a list of objects) or CSV (a header, one row each)."""
    rows = events.to_pylist()
    if form == "json":
        return json.dumps(rows, indent=None)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=events.column_names, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue().rstrip("\n")
