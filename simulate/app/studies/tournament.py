"""Strategy tournaments: every strategy against every other, seat advantage cancelled.

For each ordered pair ``(a, b)`` of the chosen strategies a run seats ``a`` in one seat and
``b`` in all the others, with rotated seatings (every deal is played once with ``a`` in
each seat: the same cards for every seating and every pairing, since deal ``g`` depends only
on ``(seed, g)``). With two players ``(a, b)`` and ``(b, a)`` are the same games, so only
one of them is played. The report (:mod:`analysis.comparisons.tournament`) turns the runs into a
win-share matrix, ratings and a heatmap.
"""

from __future__ import annotations

import json
from pathlib import Path

from ...core.errors import CardsimError
from ...games.registry import resolve_game
from ...runs.cost import estimate_words
from ...runs.folder.lock import lock_folder
from ...runs.folder.writer import RunWriter, holds_run, write_atomic
from ...runs.request import make_request, seat_strategies
from ..api.playing import stream


def pairings(count: int, players: int) -> list[tuple[int, int]]:
    """The pairings ``(i, j)`` of ``count`` strategies (indices) that are played."""
    return [(i, j) for i in range(count) for j in range(count) if i != j and (players > 2 or i < j)]


def ladder_pairings(count: int) -> list[tuple[int, int]]:
    """The pairings of a skill ladder of ``count`` strategies in order of expected
    strength: each rung ``k`` in one seat against rung ``k − 1`` in the others."""
    return [(k, k - 1) for k in range(1, count)]


def run_tournament(
    game: str,
    *,
    strategies: list[str],
    out: str | Path,
    players: int | None = None,
    games: int = 100_000,
    seed: int | None = None,
    rules=None,
    threads: int | None = None,
    force: bool = False,
    progress: bool = False,
    echo=lambda line: None,
    cluster=None,
    ladder: bool = False,
) -> Path:
    """Play every pairing of ``strategies`` into ``out`` (one run folder per pairing, and
    ``tournament.json``); returns ``out``. ``games`` deals per pairing, each played once per
    seat; ``rules``: knob overrides. ``ladder``: the strategies are the rungs of a skill
    ladder, weakest first, and only neighbours are paired (:func:`ladder_pairings`).
    ``cluster``
    (:class:`simulate.runs.cluster.session.Cluster`): where every pairing's games are played, if
    not here (its run folder is written here all the same). Raises CardsimError for a bad
    request."""
    if len(strategies) < 2:
        what = (
            "a ladder needs at least 2 rungs"
            if ladder
            else "a tournament needs at least 2 strategies"
        )
        raise CardsimError(f"{what}, got {len(strategies)}")
    resolve_game(game, "ladder" if ladder else "tournament")
    probe = make_request(
        game,
        players=players,
        games=games,
        seed=seed,
        threads=threads,
        rules=rules,
        strategies=strategies[:1],
    )
    names = list(seat_strategies(game, strategies, len(strategies)))  # each written in full
    if len(set(names)) != len(names):
        raise CardsimError(f"each strategy once, please: {', '.join(names)}")
    out = Path(out)
    if (out / "tournament.json").exists() and not force:
        raise CardsimError(
            f"{out} already holds a tournament; choose another --out or pass --force"
        )
    played = ladder_pairings(len(names)) if ladder else pairings(len(names), probe.players)
    requests = []
    for i, j in played:
        seating = [names[i]] + [names[j]] * (probe.players - 1)
        requests.append(
            make_request(
                game,
                players=probe.players,
                games=games,
                seed=probe.seed,
                threads=threads,
                rules=rules,
                strategies=seating,
                rotate_seats=True,
            )
        )
    info = {
        "game": probe.game.name,
        "players": probe.players,
        "games": games,
        "seed": probe.seed,
        "unit": probe.unit,
        "strategies": names,
        "pairings": played,
        **({"ladder": True} if ladder else {}),
    }
    words = estimate_words(requests)
    if words:
        echo(words)
    with lock_folder(out):
        folders = [out / f"pair-{i}-{j}" for i, j in played]
        held = [folder for folder in folders if holds_run(folder)]
        if held and not force:
            raise CardsimError(f"{held[0]} already holds a run; pass --force to overwrite it")
        write_atomic(out / "tournament.json", (json.dumps(info, indent=2) + "\n").encode())
        for (i, j), request, folder in zip(played, requests, folders, strict=True):
            echo(f"{names[i]} against {probe.players - 1} x {names[j]} -> {folder}")
            with RunWriter(folder, request.meta(), force=force) as writer:
                play = None if cluster is None else cluster.play_chunks
                stream(request, writer, progress=progress, play=play)
    return out
