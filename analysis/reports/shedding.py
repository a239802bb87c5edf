"""The report of a shedding-game run (Pis Yedili, Crazy Eights and relatives)."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from analysis.load import RunFolder, scan
from analysis.rendering import plots
from analysis.rendering.document import Block, Chart, Heading, Paragraph, Table
from analysis.rendering.words import (
    all_count_text,
    chart_title,
    fmt_ci,
    fmt_int,
    fmt_num,
    fmt_pct,
    fmt_points,
    fmt_quantity,
    fmt_range,
    fmt_share_lead,
    fmt_wilson,
    game_name,
    non_default_rules,
    shedding_rules,
    strategies_text,
)
from analysis.reports.common import (
    BOOTSTRAP_NOTE,
    convergence_section,
    count_text,
    end_table,
    incomplete_text,
    length_table,
    run_details,
    win_table,
)
from analysis.reports.matches import has_matches, matches_section, matches_summary, read_matches
from analysis.reports.scores import OthersByFinish, multiplier_section, score_section
from analysis.statistics.bootstrap import mean_interval
from analysis.statistics.convergence import Convergence
from analysis.statistics.stats import (
    end_reason_table,
    first_seat_advantage,
    length_summary,
    strategy_shares,
    win_share_table,
)
from analysis.statistics.tally import LabelCounts, Longest, Values, WinCounts, where_in
from simulate.runs.folder.batch import lead_column

#: The counts of a game, in the order of the length table: (column, row label).
LENGTH_UNITS = (
    ("turns", "turns"),
    ("plays", "cards played"),
    ("draws", "cards drawn"),
    ("passes", "passes"),
    ("wilds", "suits named"),
    ("reshuffles", "reshuffles"),
)


def end_meanings(rules: dict) -> dict[str, str]:
    """What each shedding end reason means under ``rules`` (the run's rules dict)."""
    lowest = "the seat with the fewest points in hand wins"
    blocked = (
        lowest if rules.get("blocked_winner", "lowest_hand") == "lowest_hand" else ("no winner")
    )
    max_plays = rules.get("max_plays")
    max_turns = rules.get("max_turns")
    return {
        "out": "a seat played its last card and won",
        "stock_out": (
            "a seat had to draw from an empty stock (`stock_empty = end`, or a club opening "
            f"found no club); {lowest}"
        ),
        "blocked": f"every seat passed in turn with nothing left to draw; {blocked}",
        "play_cap": (
            "the `max_plays` cap on cards played ("
            f"{'none set' if max_plays is None else fmt_int(max_plays)}) was reached; no winner"
        ),
        "turn_cap": (
            "the `max_turns` safety cap ("
            f"{'none' if max_turns is None else count_text(max_turns, 'turn')}) was reached; "
            "no winner"
        ),
    }


def build_shedding_report(run: RunFolder, top: int = 10) -> tuple[list[Block], dict[str, Figure]]:
    """The shedding report's blocks and its charts (chart name → Figure), from one pass over
    the games (and one over ``matches.parquet`` when the run has one)."""
    meta, players = run.meta, run.players
    rules = meta.get("rules", {})
    strategies = seat_strategies(run)
    lead = lead_column(run)
    rotating = "deal" in run.columns or rules.get("first_seat", "seat0") != "seat0"
    # --rotate-seats: the strategy of base seat p sits in seat (p + rotation) mod n.
    rotated = "rotation" in run.columns
    # What replays a game: its match and deal in match play, its seating when rotated.
    where_played = [c for c in ("match", "deal", "rotation") if c in run.columns]
    multipliers = rules.get("finish_multiplier") or {}
    units = [(col, label) for col, label in LENGTH_UNITS if col in run.columns]
    per_seat = [
        f"{prefix}_{seat}"
        for prefix in ("cards_left", "points", "score")
        for seat in range(players)
        if f"{prefix}_{seat}" in run.columns
    ]

    def accumulators() -> list:
        found = [
            WinCounts(players, lead),
            WinCounts(players, "rotation" if rotated else None),
            LabelCounts("end"),
            Convergence(run.rows, players, "turns", lead=lead),
            Longest(top, "turns", (*where_played, "plays", "draws", "winner", "end")),
            *(Values(col) for col, _ in units),
            *(Values(col) for col in per_seat),
        ]
        if multipliers:
            found += [
                LabelCounts("finish_rank", where_in("end", ["out"]), needs=("end",)),
                OthersByFinish(players, multipliers),
            ]
        return found

    wins, by_base_seat, ends, convergence, longest, *rest = scan(run, accumulators)
    dists = {acc.column: acc.dist for acc in rest[: len(units) + len(per_seat)]}
    finish = rest[len(units) + len(per_seat) :]
    n = wins.n
    title = chart_title(meta, n)
    shares = win_share_table(wins.seats)
    positions = win_share_table(wins.positions, position_labels(players)) if lead else None
    first = positions if positions is not None else shares
    if not rotating:
        positions = None  # seat 0 always leads: the positions are the seats
    # Strategy shares count each game's winning seat by the strategy it played: with rotated
    # seatings, by the base seat it holds in that game's seating.
    strategy_wins = by_base_seat.positions if rotated else wins.seats
    by_strategy = strategy_shares(strategy_wins, strategies) if strategies else None
    advantage = first_seat_advantage(first, players)
    lengths = {col: length_summary(dists[col]) for col, _ in units}
    intervals = {col: mean_interval(dists[col]) for col, _ in units}
    reasons = end_reason_table(ends.counts, run.spec.end_reasons)
    table = convergence.table()
    matches = read_matches(run) if has_matches(run) else None

    figures = {
        "length_histogram": plots.histograms(
            [
                (dists["turns"], "turns per deal"),
                (dists["plays"], "cards played per deal"),
                (dists["draws"], "cards drawn per deal"),
            ],
            title,
        ),
        "survival": plots.survival_chart(*dists["turns"].survival(), title, "turns"),
        "win_share": plots.win_share_chart(shares, title),
        "score_distribution": plots.score_chart(
            {f"seat {s}": dists[f"score_{s}"] for s in range(players) if f"score_{s}" in dists},
            title,
            "score per deal",
        ),
        "convergence": plots.convergence_chart(table, title, "first seat", "turns", players),
    }
    blocks: list[Block] = [
        Heading(title, 1),
        Paragraph(
            _summary(
                run, n, strategies, first, lead, advantage, lengths, intervals, reasons, matches
            )
        ),
        *_details(meta, n, strategies),
        *_win_section(shares, positions, advantage, by_strategy, players, n, rules),
        *_length_section(lengths, intervals),
        Heading("End reasons"),
        end_table(reasons, end_meanings(rules)),
        # With rotated seatings a seat plays every strategy in turn: no strategy per seat.
        *score_section(dists, players, [] if rotated else strategies, rules),
        *(multiplier_section(*finish, multipliers) if multipliers else []),
    ]
    if matches is not None:
        match_blocks, match_figures = matches_section(matches, meta)
        blocks += match_blocks
        figures |= match_figures
    blocks += [
        *convergence_section(table, "first seat", "turns"),
        *_longest_section(longest.rows, meta, strategies),
    ]
    return blocks, figures


def position_labels(players: int) -> list[str]:
    """Names of the seats relative to the deal's leader: ``leader``, ``leader + 1`` …"""
    return ["leader"] + [f"leader + {k}" for k in range(1, players)]


def seat_strategies(run: RunFolder) -> list[str]:
    """Each seat's strategy: from ``run.json``'s ``strategies`` when it has one per seat,
    else from the ``strategy_<i>`` columns' first game; ``[]`` when neither."""
    listed = run.meta.get("strategies")
    if isinstance(listed, list) and len(listed) == run.players:
        return [str(s) for s in listed]
    columns = [f"strategy_{seat}" for seat in range(run.players)]
    if not all(c in run.columns for c in columns):
        return []
    first = run.records("games").batches(columns, 1)
    row = next(first).to_pylist()[0]
    return [str(row[c]) for c in columns]


def _summary(
    run, n, strategies, first, lead, advantage, lengths, intervals, reasons, matches
) -> str:
    meta, players = run.meta, run.players
    rules = meta.get("rules", {})
    context = [count_text(n, "deal")]
    if strategies:
        context.append(strategies_text(strategies, bool(meta.get("rotate_seats"))))
    changed = non_default_rules(meta)
    context.append("rules changed: " + ", ".join(changed) if changed else "default rules")
    lead = first.iloc[0]
    random_first = rules.get("first_seat", "seat0") != "seat0"
    who = "seat 0" if random_first and lead is None else "the first seat"
    text = (
        f"In {players}-player {game_name(meta['game'])} ({'; '.join(context)}), {who} wins "
        f"{fmt_share_lead(lead['share'], lead['lo'], lead['hi'])} of deals "
        f"(95% Wilson interval {fmt_wilson(lead['lo'], lead['hi'])}), against an equal share "
        f"of {fmt_pct(1 / players)}: an advantage of {_points(advantage['diff'])} "
        f"({_points(advantage['lo'])} to {_points(advantage['hi'])})"
    )
    if random_first:
        text += " (the first seat is drawn at random each deal)"
    elif "deal" in run.columns:
        text += " (in a match the lead rotates; the first seat is the one leading the deal)"
    turns, plays, draws = lengths["turns"], lengths["plays"], lengths["draws"]
    text += (
        f"; deals last {fmt_quantity(turns['mean'], 'turn')} on average (95% CI "
        f"{fmt_range(*intervals['turns'])}; median {fmt_num(turns['median'])}), with "
        f"{fmt_quantity(plays['mean'], 'card')} played and {fmt_num(draws['mean'])} drawn."
    )
    no_winner = first.iloc[-1]
    ends = [
        f"{fmt_pct(row['share'])} `{reason}`" for reason, row in reasons.iterrows() if row["count"]
    ]
    text += f" Deals ended {', '.join(ends)}"
    text += (
        f"; {fmt_pct(no_winner['share'])} had no winner."
        if no_winner["wins"]
        else "; every deal had a winner."
    )
    if matches is not None:
        text += " " + matches_summary(matches, rules)
    return text + incomplete_text(meta, n)


_points = fmt_points


def _details(meta: dict, n: int, strategies: list[str]) -> list[Block]:
    rotated = bool(meta.get("rotate_seats"))
    extra = [["strategies", strategies_text(strategies, rotated)]] if strategies else []
    knobs = shedding_rules(meta)
    preset = meta.get("rules", {}).get("preset", meta["game"])
    rule_rows = [["rules: preset", str(preset)]]
    changed = [(name, text) for name, text, default in knobs if not default]
    rule_rows += [["rule", f"{name} = {text} (changed)"] for name, text in changed]
    rule_rows.append(
        [
            "other rules",
            f"all other knobs at the {preset} preset's defaults (`cardsim rules {preset}` "
            "lists them)"
            if len(changed) < len(knobs) or not knobs
            else "none",
        ]
    )
    return run_details(meta, n, rule_rows, extra)


def _win_section(shares, positions, advantage, by_strategy, players, n, rules) -> list[Block]:
    leads = (
        "Seat 0 plays first."
        if rules.get("first_seat", "seat0") == "seat0"
        else "The first seat is drawn at random each deal."
    )
    if positions is not None:
        rotation = (
            f"In a match the lead rotates (deal k is led by seat k mod {players})"
            if rules.get("first_seat", "seat0") == "seat0"
            else "The first seat is drawn at random each deal"
        )
        leads = (
            f"{rotation}, so a seat's share mixes the positions; the second table counts "
            "wins by position relative to the seat that led the deal."
        )
    first = "the leader's" if positions is not None else "seat 0's"
    blocks: list[Block] = [
        Heading("Win share by seat"),
        Paragraph(
            f"Shares are of {all_count_text(n, 'deal')}, so deals without a winner count "
            f"against every seat; with equal chances each seat would win "
            f"{fmt_pct(1 / players)}. {leads} Intervals are 95% Wilson score intervals."
        ),
        win_table(shares),
    ]
    if positions is not None:
        blocks.append(win_table(positions, "position"))
    blocks += [
        Paragraph(
            f"First seat's advantage ({first} share minus 1/{players}): "
            f"{_points(advantage['diff'])}, 95% CI {_points(advantage['lo'])} to "
            f"{_points(advantage['hi'])}."
        ),
        Chart("win_share", "Win share by seat with 95% Wilson intervals and the equal share"),
    ]
    if by_strategy is not None and len(by_strategy) == 1:
        blocks += [
            Heading("Win share by strategy"),
            Paragraph(
                f"Every seat plays `{by_strategy['strategy'].iloc[0]}`, so the seats' shares "
                "above are the strategy's."
            ),
        ]
    elif by_strategy is not None:
        rows = [
            [
                row.strategy,
                fmt_int(row.seats),
                fmt_int(row.wins),
                fmt_pct(row.share, 2),
                fmt_ci(row.lo, row.hi, 2),
                fmt_pct(row.equal, 2),
                fmt_pct(row.per_seat, 2),
            ]
            for row in by_strategy.itertuples()
        ]
        blocks += [
            Heading("Win share by strategy"),
            Paragraph(
                "Deals won by any seat playing the strategy, as a share of all deals, with "
                "its 95% Wilson interval; the equal share is the strategy's seats over "
                "the players, and the last column the share per seat."
            ),
            Table(
                ["strategy", "seats", "wins", "share", "95% CI", "equal share", "per seat"],
                rows,
                "lrrrrrr",
                frozenset({0}),
            ),
        ]
    return blocks


def _length_section(lengths: dict, intervals: dict) -> list[Block]:
    columns = [col for col, _ in LENGTH_UNITS if col in lengths]
    return [
        Heading("Game length"),
        Paragraph(
            "Turns taken (a skipped seat takes none; an extra play is no new turn), cards "
            "played, cards drawn (penalties included, not the deal), passes, suits named "
            "and reshuffles per deal, over every deal. Percentiles are interpolated. "
            f"{BOOTSTRAP_NOTE}"
        ),
        length_table(
            [(label, lengths[col]) for col, label in LENGTH_UNITS if col in lengths],
            [intervals[col] for col in columns],
        ),
        Chart("length_histogram", "Histograms of turns, cards played and cards drawn per deal"),
        Paragraph(
            "The survival curve gives the share of deals lasting more than x turns; its log "
            "scale shows the rare very long deals."
        ),
        Chart("survival", "Survival curve: share of deals longer than x turns, log scale"),
    ]


def _longest_section(longest: pd.DataFrame, meta: dict, strategies: list[str]) -> list[Block]:
    extra = [c for c in ("match", "deal", "rotation") if c in longest.columns]
    rows = [
        [
            str(g.game),
            *(str(int(getattr(g, c))) for c in extra),
            fmt_int(g.turns),
            fmt_int(g.plays),
            fmt_int(g.draws),
            "none" if g.winner < 0 else f"seat {g.winner}",
            str(g.end),
        ]
        for g in longest.itertuples()
    ]
    seed = meta.get("seed")
    command = f"cardsim replay {meta['game']} --seed {seed if seed is not None else 'S'} "
    which = "--match MATCH --deal DEAL" if "match" in extra else "--game GAME"
    command += f"{which} --players {meta['players']}"
    if strategies and set(strategies) != {"random"}:
        command += "".join(f" --strategy {s}" for s in strategies)
    hint = f"Replay one turn by turn with `{command}`"
    hint += ", adding the changed rules as `--rule KNOB=VALUE`" if non_default_rules(meta) else ""
    if "rotation" in extra:
        hint += (
            "; a game of rotation r was played with those strategies turned by r seats "
            "(seat i + r played seat i's)"
        )
    return [
        Heading("Longest deals"),
        Paragraph(f"The {count_text(len(rows), 'longest deal')} by turns. {hint}."),
        Table(
            ["game", *extra, "turns", "plays", "draws", "winner", "end"],
            rows,
            "r" * (1 + len(extra)) + "rrrll",
        ),
    ]
