"""Play the stored differential grids with the readable references (never the kernels) and
write them, each with the hash of the reference's source and the grid's definition:

    python tests/differential/make_differential.py                 # every grid
    python tests/differential/make_differential.py shedding-grid   # only the named ones
    python tests/differential/make_differential.py search-grid     # the strong players'

(from the repository root, with the project's ``.venv``; about 4 minutes for both grids on
two cores). Every game is played under coverage.py with branch coverage of the reference's
files, one context per game; for each configuration (each part of Beggar-My-Neighbour's
grid) the games that together reach every branch its games reach are chosen, greedily, as
its ``covering`` set, which the tests play with the reference again on every run.

Regenerate only when the reference changes (its source hash no longer matches, and the
tests say so) or the grid's definition does; the kernels must then match the new records.
"""

from __future__ import annotations

import sqlite3
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from contextlib import closing
from pathlib import Path

import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from differential import beggar_grid, search_grid, shedding_grid  # noqa: E402
from differential.store import source_closure, write_grid  # noqa: E402


def traced(play, items, modules: tuple[str, ...]) -> tuple[list, list[frozenset]]:
    """``play(item)`` for each item under branch coverage of ``modules``' source closure:
    the results and, for each, the arcs of the reference it took. Each item is a coverage
    context of its own; the arcs are read back from coverage.py's SQLite data file in one
    query (its schema is documented; coverage.py's own queries go one context at a time)."""
    import coverage

    files = [str(path) for path in source_closure(*modules)]
    with tempfile.TemporaryDirectory() as tmp:
        data_file = str(Path(tmp) / "coverage.sqlite")
        cov = coverage.Coverage(branch=True, data_file=data_file, include=files, config_file=False)
        results = []
        cov.start()
        try:
            for i, item in enumerate(items):
                cov.switch_context(str(i))
                results.append(play(item))
        finally:
            cov.stop()
        cov.save()
        arcs: list[set] = [set() for _ in items]
        with closing(sqlite3.connect(data_file)) as db:
            query = (
                "SELECT context.context, file.path, arc.fromno, arc.tono FROM arc "
                "JOIN context ON context.id = arc.context_id JOIN file ON file.id = arc.file_id"
            )
            for context, path, start, stop in db.execute(query):
                if context.isdigit():
                    arcs[int(context)].add((path, start, stop))
    return results, [frozenset(game) for game in arcs]


def covering(arcs: list[frozenset]) -> set[int]:
    """Indices of items whose arcs together are all the items' arcs: greedy, each step the
    item adding the most arcs not yet reached (the first such item on a tie)."""
    left = frozenset().union(*arcs)
    chosen: set[int] = set()
    while left:
        best = max(range(len(arcs)), key=lambda i: (len(arcs[i] & left), -i))
        chosen.add(best)
        left -= arcs[best]
    return chosen


def _shedding_config(index: int) -> pa.Table:
    from simulate.games.shedding import reference

    reference.Game.check_cards = lambda self: None  # records unchanged; its own tests keep it
    config = shedding_grid.CONFIGS[index]
    start = shedding_grid.first_game(config)
    games = list(range(start, start + shedding_grid.GAMES))
    rules = shedding_grid.rules_of(config)
    records, arcs = traced(
        lambda game: shedding_grid.play_reference(config, game, rules),
        games,
        shedding_grid.REFERENCE,
    )
    chosen = {games[i] for i in covering(arcs)}
    print(f"  {config[0]}: {len(games)} games, {len(chosen)} covering", flush=True)
    return shedding_grid.records_table(config, games, records, chosen)


def make_shedding(pool: ProcessPoolExecutor) -> str:
    configs = range(len(shedding_grid.CONFIGS))
    table = pa.concat_tables(pool.map(_shedding_config, configs))
    write_grid(
        shedding_grid.PATH,
        table,
        source=shedding_grid.source(),
        definition=shedding_grid.definition(),
    )
    return f"{table.num_rows} games, {sum(table.column('covering').to_pylist())} covering"


def _beggar_part(items: list) -> tuple[list, list[int]]:
    records, arcs = traced(beggar_grid.play_reference, items, beggar_grid.REFERENCE)
    chosen = sorted(covering(arcs))
    print(f"  {items[0].part}: {len(items)} deals, {len(chosen)} covering", flush=True)
    return records, chosen


def make_beggar(pool: ProcessPoolExecutor) -> str:
    items = beggar_grid.deals()
    parts: dict[str, list[int]] = {}
    for i, item in enumerate(items):
        parts.setdefault(item.part, []).append(i)
    records: list = [None] * len(items)
    chosen: set[int] = set()
    futures = {
        part: pool.submit(_beggar_part, [items[i] for i in at]) for part, at in parts.items()
    }
    for part, future in futures.items():
        part_records, part_chosen = future.result()
        for i, record in zip(parts[part], part_records, strict=True):
            records[i] = record
        chosen |= {parts[part][i] for i in part_chosen}
    table = beggar_grid.records_table(items, records, chosen)
    write_grid(
        beggar_grid.PATH, table, source=beggar_grid.source(), definition=beggar_grid.definition()
    )
    return f"{table.num_rows} deals, {len(chosen)} covering"


def _search_config(index: int) -> pa.Table:
    config = search_grid.CONFIGS[index]
    start = search_grid.first_game(config)
    games = list(range(start, start + search_grid.GAMES))
    records = [search_grid.play_reference(config, game) for game in games]
    print(f"  {config[0]}: {len(games)} games", flush=True)
    return shedding_grid.records_table(config, games, records, set(games))


def make_search(pool: ProcessPoolExecutor) -> str:
    table = pa.concat_tables(pool.map(_search_config, range(len(search_grid.CONFIGS))))
    write_grid(
        search_grid.PATH, table, source=search_grid.source(), definition=search_grid.definition()
    )
    return f"{table.num_rows} games"


GRIDS = {"shedding-grid": make_shedding, "beggar-grid": make_beggar, "search-grid": make_search}


def main(names: list[str]) -> int:
    unknown = [name for name in names if name not in GRIDS]
    if unknown:
        print(f"unknown grid(s): {', '.join(unknown)}; grids: {', '.join(GRIDS)}")
        return 2
    with ProcessPoolExecutor(max_workers=2) as pool:
        for name, make in GRIDS.items():
            if not names or name in names:
                print(f"{name}:", flush=True)
                print(f"{name}: {make(pool)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
