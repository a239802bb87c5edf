"""``cardsim verify``: is a run folder's data what was written, and is it what the rules
give? And ``--repair``: play the damaged chunks again.

Two checks, each catching what the other cannot:

- every chunk file's bytes against the size and SHA-256 the manifest recorded when it was
  written (a truncated copy, a flipped bit, a deleted file, a manifest line lost);
- a replay of a sample of games, drawn across the run, against their stored records (the
  only check a folder written before the manifest allows, and one that would also catch
  records that were wrong when written).

Since every record is a pure function of (seed, game index), a damaged chunk is healed by
playing its games again: the repaired folder's records equal an undamaged run's.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ...core.chances import CHECK_FOLDER
from ...core.errors import CardsimError
from ...core.skill import SKILL_FOLDER
from ...runs.folder import manifest as mf
from ...runs.folder.writer import (
    FORMAT,
    META_FILE,
    RunWriter,
    crashed,
    lock_run,
    progress_text,
    read_meta,
)

DEFAULT_REPLAY = 300
"""Games replayed by default: enough to catch a systematic fault, a second or two."""


@dataclass
class Verdict:
    """What :func:`verify_run` found: ``problems`` (one line each; none when healthy),
    ``replayed`` games compared with a replay, ``repaired`` (what ``repair`` healed) and
    ``notes`` (facts that are no damage: a crashed run, a replay that was not possible)."""

    problems: list[str] = field(default_factory=list)
    replayed: int = 0
    repaired: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    tick: Callable[[int], None] = field(default=lambda count: None, repr=False)
    """Hears each game replayed (a progress bar's)."""
    not_repairable: str | None = None
    """Why ``--repair`` may not play the problems away (records that are intact do not
    replay; run.json does not give the run's settings), or None."""

    @property
    def repairable(self) -> bool:
        return self.not_repairable is None

    @property
    def healthy(self) -> bool:
        return not self.problems


def verify_run(
    folder: str | Path,
    *,
    replay: int = DEFAULT_REPLAY,
    repair: bool = False,
    threads: int | None = None,
    echo: Callable[[str], None] = lambda line: None,
    progress: bool = False,
) -> Verdict:
    """Check the run folder ``folder`` (and with ``repair`` heal it); see the module.

    Raises :class:`CardsimError` for bad input: not a run folder, ``replay`` under 1, a
    run in progress, a repair that is not possible (a user strategy's run)."""
    folder = Path(folder)
    if isinstance(replay, bool) or not isinstance(replay, int) or replay < 1:
        raise CardsimError(f"--replay must be a whole number of at least 1, got {replay!r}")
    if not (folder / META_FILE).is_file():
        raise CardsimError(f"{folder} is not a run folder (no {META_FILE})")
    with lock_run(folder):
        verdict = Verdict()
        try:
            meta = read_meta(folder)
            if not isinstance(meta, dict):
                raise CardsimError(f"{folder / META_FILE} holds no settings")
        except CardsimError as exc:
            verdict.problems.append(f"{exc} (a run folder's settings)")
            verdict.not_repairable = f"no game can be played again without {META_FILE}"
            if repair:
                verdict.notes.append(f"nothing repaired: {verdict.not_repairable}")
            return verdict
        if crashed(folder, meta):
            verdict.notes.append(
                f"the run crashed after {progress_text(folder, meta)}; complete it with: "
                f"cardsim simulate {meta.get('game')} --out {folder} --resume"
            )
        if (folder / SKILL_FOLDER / META_FILE).is_file():
            verdict.notes.append(
                f"{folder / SKILL_FOLDER} holds the run's skill games, a run folder of its own: "
                f"check it with cardsim verify {folder / SKILL_FOLDER}"
            )
        if (folder / CHECK_FOLDER / META_FILE).is_file():
            verdict.notes.append(
                f"{folder / CHECK_FOLDER} holds the trace's check, a run folder of its own: "
                f"check it with cardsim verify {folder / CHECK_FOLDER}"
            )
        request = _request(meta, verdict, threads)
        with _replay_bar(progress, replay, folder, meta) as tick:
            verdict.tick = tick
            _check_all(folder, meta, request, replay, verdict)
        if repair and verdict.problems:
            if request is None and verdict.repairable:
                raise CardsimError(f"{folder} cannot be repaired: {verdict.notes[-1]}")
            if not verdict.repairable:
                verdict.notes.append(f"nothing repaired: {verdict.not_repairable}")
                return verdict
            _repair(folder, request, verdict, echo)
            again = Verdict()
            _check_all(folder, read_meta(folder), request, replay, again)
            verdict.problems, verdict.replayed = again.problems, again.replayed
            verdict.not_repairable = again.not_repairable
        return verdict


@contextmanager
def _replay_bar(shown: bool, replay: int, folder: Path, meta: dict):
    """A progress bar over the games to replay (``replay``, at most the run's), on stderr;
    yields the function that advances it (nothing is shown unless ``shown``)."""
    if not shown:
        yield lambda count: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    units = "matches" if meta.get("unit") == "match" else "games"
    done = mf.read_manifest(folder).completed if meta.get("format") == FORMAT else replay
    total = min(replay, max(done, 1))
    bar = Progress(
        TextColumn(f"replaying {units}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    task = bar.add_task("replay", total=total)
    with bar:
        yield lambda count: bar.advance(task, count)


def _check_all(folder: Path, meta: dict, request, replay: int, verdict: Verdict) -> None:
    """:func:`_check`, and what its replays that differ mean."""
    if _check(folder, meta, request, replay, verdict):
        verdict.problems.append(
            NOT_REPLAYING if meta.get("format") == FORMAT else LEGACY_NOT_REPLAYING
        )
        verdict.not_repairable = (
            "records that do not replay are never overwritten, and the settings that would "
            "play the damaged chunks again are in doubt"
        )


def _request(meta: dict, verdict: Verdict, threads: int | None):
    from ...runs.request import has_user_strategy, request_from_meta

    try:
        return request_from_meta(meta, threads=threads)
    except CardsimError as exc:
        if has_user_strategy(meta):
            verdict.notes.append(f"no game can be replayed: {exc}")
        else:  # a run.json that cardsim wrote always gives its settings
            verdict.problems.append(f"{META_FILE} does not give the run's settings: {exc}")
            verdict.not_repairable = (
                f"no game can be played again before {META_FILE} gives the run's settings"
            )
        return None


def _check(folder: Path, meta: dict, request, replay: int, verdict: Verdict) -> bool:
    """Fill ``verdict`` with the folder's problems; returns whether a replay found records
    that are intact (or, before checksums, readable) yet not what the rules give."""
    if meta.get("format") != FORMAT:
        return _check_legacy(folder, meta, request, replay, verdict)
    manifest = mf.read_manifest(folder)
    complete = meta.get("status") == "complete" and request is not None
    problems = mf.check(folder, manifest, request.games if complete else None)
    verdict.problems += [problem.text for problem in problems]
    damaged = {id(problem.entry) for problem in problems if problem.entry is not None}
    healthy = [entry for entry in manifest.entries if id(entry) not in damaged]
    if request is None or not healthy:
        return False
    if meta.get("records") == "none":
        return _check_kept(folder, meta, request, healthy, replay, verdict)
    wrong = False
    key = "match" if request.match_play else "game"
    for entry, games in _sample(healthy, replay, int(meta.get("seed", 0))):
        stored = _read_part(folder, entry.parts["games"], key, games)
        matches = None
        if "matches" in entry.parts:
            matches = _read_part(folder, entry.parts["matches"], "match", games)
        file = entry.parts["games"].file
        wrong = _compare(request, key, games, stored, matches, file, verdict) or wrong
        if "trace" in entry.parts:
            wrong = (
                _compare_trace(folder, entry.parts["trace"], request, key, stored, verdict) or wrong
            )
    return wrong


TRACE_REPLAYS = 3
"""Traced games of a chunk whose trace ``verify`` plays again (a trace costs its
rollouts: about 60 games' work a turn)."""


def _compare_trace(folder: Path, part: mf.Part, request, key: str, records, verdict) -> bool:
    """Trace again the first :data:`TRACE_REPLAYS` traced games among the sampled games of
    one chunk (``records``: their stored records) and compare their rows with the stored
    trace ``part``; a difference is a problem of that file. Whether any differed."""
    stored = _read_part(folder, part, key, sorted(set(records[key].to_pylist())))
    traced = sorted(set(stored[key].to_pylist()))[:TRACE_REPLAYS]
    if not traced:
        return False
    chosen = pa.array(traced, pa.int64())
    replayed = _replay(request, key, traced, records).trace
    have = stored.filter(pc.is_in(stored[key], chosen))
    want = None if replayed is None else replayed.filter(pc.is_in(replayed[key], chosen))
    difference = "none replayed" if want is None else _differs(have, want)
    if difference:
        verdict.problems.append(
            f"{part.file}: the trace of {key}s {', '.join(map(str, traced))} differs from "
            f"their trace played again ({difference})"
        )
    return bool(difference)


def _check_kept(folder: Path, meta: dict, request, healthy, replay: int, verdict) -> bool:
    """An aggregate-only run keeps no row per game: the whole records it keeps (the
    longest and first games of each chunk) are replayed, up to ``replay`` of them, in
    single games; a match-play run keeps no whole match, so only the checksums check it.
    Returns whether any kept record differs from its replay."""
    from ...runs.folder.aggregates import Aggregates

    if request.match_play:
        verdict.notes.append(
            "an aggregate-only run of matches keeps no whole match to replay: its files' "
            "checksums check it"
        )
        return False
    wrong = False
    rng = np.random.default_rng([int(meta.get("seed", 0)) & (2**63 - 1), 0x5EED])
    for entry in healthy:
        if verdict.replayed >= replay or "aggregates" not in entry.parts:
            continue
        kept = Aggregates.from_bytes((folder / entry.parts["aggregates"].file).read_bytes())
        stored = pa.concat_tables([kept.longest, kept.first]).combine_chunks()
        games = sorted(set(stored["game"].to_pylist()))
        chosen = rng.permutation(games)[: replay - verdict.replayed].tolist()
        differing = []
        for game in sorted(chosen):
            difference = _kept_differs(request, game, stored)
            verdict.replayed += 1
            verdict.tick(1)
            if difference:
                differing.append((game, difference))
        if differing:
            file = entry.parts["aggregates"].file
            verdict.problems.append(_differ_line(file, "game", differing, len(chosen)))
            wrong = True
    return wrong


def _kept_differs(request, game: int, stored: pa.Table) -> str | None:
    """What differs between the records of ``game`` kept in ``stored`` (some of its
    seatings, perhaps twice: longest and first) and a replay of it, or None."""
    from ..api.playing import play_one

    have = stored.filter(pc.equal(stored["game"], game))
    want = play_one(request, game).games
    if "rotation" in have.column_names:
        rotations = sorted(set(have["rotation"].to_pylist()))
        have = pa.concat_tables(
            [have.filter(pc.equal(have["rotation"], r)).slice(0, 1) for r in rotations]
        )
        want = want.filter(pc.is_in(want["rotation"], pa.array(rotations, pa.int8())))
    else:
        have = have.slice(0, 1)
    return _differs(have, want)


def _compare(request, key: str, games: list[int], stored, matches, file: str, verdict) -> bool:
    """Replay ``games`` (sorted, of one chunk) and compare them with their ``stored``
    records (and ``matches``), noting in ``verdict`` the first difference and how many of
    them differed (one line per file, however many); whether any differed.

    The replayed games are compared with their records as whole columns, however they
    were played (:func:`_replay`)."""
    chosen = pa.array(games, pa.int64())
    replayed = _replay(request, key, games, stored)
    found = _differing_games(
        key, stored.filter(pc.is_in(stored[key], chosen)), replayed.games, chosen, ""
    )
    if matches is not None and replayed.matches is not None:
        pick = pc.is_in(matches["match"], chosen)
        more = _differing_games("match", matches.filter(pick), replayed.matches, chosen, "matches ")
        found = {**more, **found}
    verdict.replayed += len(games)
    verdict.tick(len(games))
    if found:
        verdict.problems.append(_differ_line(file, key, sorted(found.items()), len(games)))
    return bool(found)


def _replay(request, key: str, games: list[int], stored: pa.Table):
    """The records of ``games`` (sorted, of one chunk) played again, as one chunk: by one
    kernel call over their span when they are dense enough in it, else one by one (a game
    without a stored record, which gives no row to number a match's deals from, is left
    out: it is reported as such)."""
    from ...games.spec import Chunk
    from ..api.playing import play_one, play_span

    def row_of(game: int) -> int | None:
        rows = stored.filter(pc.equal(stored[key], game))
        return int(rows["game"][0].as_py()) if rows.num_rows else None

    first, stop = games[0], games[-1] + 1
    if len(games) * DENSE >= stop - first and row_of(first) is not None:
        return play_span(request, first, stop - first, row_of(first))
    chunks = [play_one(request, game, row) for game in games if (row := row_of(game)) is not None]
    if not chunks:
        return Chunk(stored.slice(0, 0), None)
    matches = [chunk.matches for chunk in chunks if chunk.matches is not None]
    traces = [chunk.trace for chunk in chunks if chunk.trace is not None]
    return Chunk(
        pa.concat_tables([chunk.games for chunk in chunks]),
        pa.concat_tables(matches) if matches else None,
        trace=pa.concat_tables(traces) if traces else None,
    )


DENSE = 100
"""Sampled games at least one in :data:`DENSE` of their chunk's span are replayed by one
kernel call over the span (a game alone costs a kernel call's overhead, about as much as a
hundred games played together), else one by one."""


def _differing_games(
    key: str, have: pa.Table, want: pa.Table, games: pa.Array, label: str
) -> dict[int, str]:
    """The games (matches) of ``games`` whose stored rows ``have`` differ from the
    replayed rows ``want`` (which may hold more games), each with its first difference."""
    want = want.filter(pc.is_in(want[key], games))
    found: dict[int, str] = {}
    have_keys = have[key].to_numpy()
    want_keys = want[key].to_numpy()
    listed, have_counts = np.unique(have_keys, return_counts=True)
    counts = dict(zip(listed.tolist(), have_counts.tolist(), strict=True))
    listed, want_counts = np.unique(want_keys, return_counts=True)
    for game, n in zip(listed.tolist(), want_counts.tolist(), strict=True):
        if counts.get(game, 0) != n:
            found[game] = f"{label}{counts.get(game, 0)} records stored, {n} replayed"
    for game in games.to_pylist():
        if game not in counts and game not in found:
            found[game] = "no stored record"
    if found:  # rows of those games do not line up: compare the others only
        keep = pa.array(sorted(set(games.to_pylist()) - set(found)), pa.int64())
        have = have.filter(pc.is_in(have[key], keep))
        want = want.filter(pc.is_in(want[key], keep))
        have_keys, want_keys = have[key].to_numpy(), want[key].to_numpy()
    # each game's rows together, in the order written (seatings in order)
    have = have.take(pa.array(np.argsort(have_keys, kind="stable")))
    want = want.take(pa.array(np.argsort(want_keys, kind="stable")))
    keys = np.sort(want_keys, kind="stable")
    for name in want.column_names:
        if name not in have.column_names:
            for game in np.unique(keys).tolist():
                found.setdefault(game, f"{label}column {name} missing")
            continue
        same = _equal(have[name], want[name])
        for game in np.unique(keys[~same]).tolist():
            found.setdefault(game, f"{label}column {name}")
    return found


def _equal(have: pa.ChunkedArray, want: pa.ChunkedArray) -> np.ndarray:
    """Row by row, whether two columns hold the same value (nulls equal to nulls)."""
    have, want = have.combine_chunks(), want.combine_chunks()
    if pa.types.is_dictionary(have.type):
        have = have.cast(have.type.value_type)
    if pa.types.is_dictionary(want.type):
        want = want.cast(want.type.value_type)
    if have.type != want.type:
        try:
            have = have.cast(want.type)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return np.zeros(len(want), bool)
    equal = pc.fill_null(pc.equal(have, want), False)
    both_null = pc.and_(pc.is_null(have), pc.is_null(want))
    return pc.or_(equal, both_null).to_numpy(zero_copy_only=False)


def _differ_line(file: str, key: str, differing: list[tuple[int, str]], replayed: int) -> str:
    game, difference = differing[0]
    more = len(differing) - 1
    also = f"; {more:,} more of the {replayed:,} replayed from it differ" if more else ""
    return f"{file}: {key} {game:,} differs from its replay ({difference}){also}"


NOT_REPLAYING = (
    "the records above are intact (their checksums hold) but a replay gives other records: "
    "run.json's settings (seed, players, rules) were changed after the run, or another "
    "version of cardsim played it; verify --repair overwrites no intact record"
)
"""Why records whose checksums hold yet do not replay are not played again."""
LEGACY_NOT_REPLAYING = (
    "the records above are readable but a replay gives other records: run.json's settings "
    "were changed after the run, or the records were, which a folder written before "
    "checksums cannot tell apart; verify --repair overwrites none of them"
)


def _check_legacy(folder: Path, meta: dict, request, replay: int, verdict: Verdict) -> bool:
    """A folder written before the manifest: no checksums, so only a replay."""
    verdict.notes.append("written before checksums: only a replay of sampled games checks it")
    path = folder / "games.parquet"
    try:
        rows = pq.ParquetFile(path).metadata.num_rows
    except (pa.ArrowException, OSError) as exc:
        verdict.problems.append(f"games.parquet: unreadable ({str(exc).splitlines()[0]})")
        return False
    if request is None:
        return False
    wrong = False
    key = "match" if request.match_play else "game"
    count = int(meta.get("completed_games", rows))
    entry = mf.Entry(0, max(count, 1), {})
    for _, games in _sample([entry], replay, int(meta.get("seed", 0))):
        try:
            stored = pq.read_table(path, filters=[(key, "in", games)])
            matches = None
            if (folder / "matches.parquet").exists():
                matches = pq.read_table(
                    folder / "matches.parquet", filters=[("match", "in", games)]
                )
        except (pa.ArrowException, OSError) as exc:
            verdict.problems.append(f"games.parquet: unreadable ({str(exc).splitlines()[0]})")
            return False
        wrong = _compare(request, key, games, stored, matches, "games.parquet", verdict) or wrong
    return wrong


def _sample(entries: list[mf.Entry], count: int, seed: int) -> list[tuple[mf.Entry, list[int]]]:
    """``count`` games (matches) drawn evenly at random across ``entries``, grouped by
    chunk; the first and last game of the run always among them."""
    sizes = np.array([entry.count for entry in entries], np.int64)
    total = int(sizes.sum())
    rng = np.random.default_rng([seed & (2**63 - 1), 0x5EED])
    picks = {0, total - 1} if count > 1 else {0}
    if count > len(picks):
        draws = rng.choice(total, size=min(count, total), replace=False).tolist()
        picks |= set([draw for draw in draws if draw not in picks][: count - len(picks)])
    ends = np.cumsum(sizes)
    grouped: dict[int, list[int]] = {}
    for pick in sorted(picks):
        index = int(np.searchsorted(ends, pick, side="right"))
        entry = entries[index]
        offset = pick - (int(ends[index]) - entry.count)
        grouped.setdefault(index, []).append(entry.first + offset)
    return [(entries[index], games) for index, games in grouped.items()]


def _read_part(folder: Path, part: mf.Part, key: str, games: list[int]) -> pa.Table:
    table = pq.read_table(folder / part.file)
    return table.filter(pc.is_in(table[key], pa.array(games, pa.int64())))


def _differs(have: pa.Table, want: pa.Table, label: str = "") -> str | None:
    """The first difference between stored records ``have`` and replayed ``want``."""
    if have.num_rows != want.num_rows:
        return f"{label}{have.num_rows} records stored, {want.num_rows} replayed"
    for name in want.column_names:
        if name not in have.column_names:
            return f"{label}column {name} missing"
        if have[name].to_pylist() != want[name].to_pylist():
            return f"{label}column {name}"
    return None


def _repair(folder: Path, request, verdict: Verdict, echo) -> None:
    """Play again every damaged or missing chunk of ``folder`` (never one whose bytes are
    intact)."""
    from ..api.playing import DEFAULT_CHUNK, play_chunks

    meta = read_meta(folder)
    end = mf.manifest_end(mf.read_manifest(folder)) if meta.get("format") == FORMAT else 0
    if meta.get("status") == "complete" or meta.get("format") != FORMAT:
        end = max(end, int(meta.get("completed_games", 0)))
    with RunWriter.reopen(folder) as writer:
        spans = [(first, min(stop, end)) for first, stop in writer.todo(end) if first < end]
        rows_before = writer.manifest.rows_before  # the chunks kept, not those replayed
        for first, stop in spans:
            echo(f"playing again games {first:,}-{stop - 1:,}")
        chunks = play_chunks(request, DEFAULT_CHUNK, False, spans, rows_before)
        for first, count, chunk in chunks:
            if meta.get("records") == "none":
                from ...runs.aggregate_runs import reduced

                chunk = reduced(chunk, meta)
            writer.write(first, count, chunk.parts())
        writer.finish({"status": meta.get("status", "interrupted")})
    verdict.repaired = [f"games {first:,}-{stop - 1:,}" for first, stop in spans]
