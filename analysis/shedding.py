"""The report of a shedding-game run (Pis Yedili, Crazy Eights and relatives)."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from analysis import plots
from analysis.describe import (
    chart_title,
    fmt_ci,
    fmt_int,
    fmt_num,
    fmt_pct,
    game_name,
    non_default_rules,
    shedding_rules,
    strategies_text,
)
from analysis.document import Block, Chart, Heading, Paragraph, Table
from analysis.load import Run
from analysis.sections import (
    count_text,
    end_table,
    incomplete_text,
    length_table,
    run_details,
    win_table,
)
from analysis.stats import (
    SHEDDING_END_REASONS,
    end_reasons,
    finish_ranks,
    first_seat_advantage,
    length_summary,
    others_score_by_finish,
    score_summary,
    seat_columns,
    seat_strategies,
    strategy_shares,
    win_shares,
)

#: The counts of a game, in the order of the length table: (column, row label).
LENGTH_UNITS = (
    ("turns", "turns"),
    ("plays", "cards played"),
    ("draws", "cards drawn"),
    ("passes", "passes"),
    ("wilds", "suits named"),
    ("reshuffles", "reshuffles"),
)

SCORING_MEANINGS = {
    "penalty": (
        "each losing seat scores the points left in its hand, the winner 0, so lower is better"
    ),
    "winner_collects": (
        "the winner scores the points left in every other hand, the others 0, so higher is better"
    ),
    "minus_hand": (
        "each losing seat scores minus the points left in its hand, the winner 0, so "
        "higher is better"
    ),
}


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
            f"`max_plays` ({'none set' if max_plays is None else fmt_int(max_plays)}) cards "
            "were played; no winner"
        ),
        "turn_cap": (
            f"the `max_turns` safety cap ({'none' if max_turns is None else fmt_int(max_turns)}"
            " turns) was reached; no winner"
        ),
    }


def build_shedding_report(run: Run, top: int = 10) -> tuple[list[Block], dict[str, Figure]]:
    """The shedding report's blocks and its charts (chart name → Figure)."""
    games, meta, players = run.games, run.meta, run.players
    rules = meta.get("rules", {})
    n = len(games)
    title = chart_title(meta, n)
    strategies = seat_strategies(games, players, meta)
    shares = win_shares(games, players)
    by_strategy = strategy_shares(games, strategies) if strategies else None
    advantage = first_seat_advantage(shares, players)
    lengths = {col: length_summary(games[col]) for col, _ in LENGTH_UNITS if col in games}
    reasons = end_reasons(games, SHEDDING_END_REASONS)
    scores = score_summary(games, players)
    multipliers = rules.get("finish_multiplier") or {}

    score_frame = seat_columns(games, "score", players)
    score_frame = score_frame.set_axis(
        [c.replace("score_", "seat ") for c in score_frame.columns], axis=1
    )
    figures = {
        "length_histogram": plots.histograms(
            [
                (games["turns"], "turns per deal"),
                (games["plays"], "cards played per deal"),
                (games["draws"], "cards drawn per deal"),
            ],
            title,
        ),
        "win_share": plots.win_share_chart(shares, title),
        "score_distribution": plots.score_chart(score_frame, title, "score per deal"),
    }
    blocks: list[Block] = [
        Heading(title, 1),
        Paragraph(_summary(run, strategies, shares, advantage, lengths, reasons)),
        *_details(meta, n, strategies),
        *_win_section(shares, advantage, by_strategy, players, n, rules),
        *_length_section(lengths),
        Heading("End reasons"),
        end_table(reasons, end_meanings(rules)),
        *_score_section(scores, strategies, rules),
        *_multiplier_section(games, players, multipliers),
        *_longest_section(games, top, meta, strategies),
    ]
    return blocks, figures


def _summary(run, strategies, shares, advantage, lengths, reasons) -> str:
    meta, n, players = run.meta, len(run.games), run.players
    rules = meta.get("rules", {})
    context = [strategies_text(strategies)] if strategies else []
    changed = non_default_rules(meta)
    if changed:
        context.append("rules changed: " + ", ".join(changed))
    context_text = f" ({'; '.join(context)})" if context else ""
    first = shares.iloc[0]
    who = "the first seat" if rules.get("first_seat", "seat0") == "seat0" else "seat 0"
    text = (
        f"In {count_text(n, 'deal')} of {players}-player {game_name(meta['game'])}"
        f"{context_text}, {who} wins {fmt_pct(first['share'])} of deals "
        f"(95% Wilson interval {fmt_ci(first['lo'], first['hi'])}), against an equal share "
        f"of {fmt_pct(1 / players)}: an advantage of {_points(advantage['diff'])} "
        f"({_points(advantage['lo'])} to {_points(advantage['hi'])})"
    )
    if who == "seat 0":
        text += " (the first seat is drawn at random each deal)"
    turns, plays, draws = lengths["turns"], lengths["plays"], lengths["draws"]
    text += (
        f"; games last {fmt_num(turns['mean'])} turns on average (median "
        f"{fmt_num(turns['median'])}), with {fmt_num(plays['mean'])} cards played and "
        f"{fmt_num(draws['mean'])} drawn."
    )
    no_winner = shares.iloc[-1]
    ends = [
        f"{fmt_pct(row['share'])} `{reason}`" for reason, row in reasons.iterrows() if row["count"]
    ]
    text += f" Deals ended {', '.join(ends)}"
    text += (
        f"; {fmt_pct(no_winner['share'])} had no winner."
        if no_winner["wins"]
        else "; every deal had a winner."
    )
    return text + incomplete_text(meta, n)


def _points(diff: float) -> str:
    """A difference of shares in percentage points: ``+2.1 pts``."""
    return f"{100 * diff:+.1f} pts"


def _details(meta: dict, n: int, strategies: list[str]) -> list[Block]:
    extra = [["strategies", strategies_text(strategies)]] if strategies else []
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


def _win_section(shares, advantage, by_strategy, players, n, rules) -> list[Block]:
    leads = (
        "Seat 0 plays first."
        if rules.get("first_seat", "seat0") == "seat0"
        else "The first seat is drawn at random each deal."
    )
    blocks: list[Block] = [
        Heading("Win share by seat"),
        Paragraph(
            f"Shares are of all {count_text(n, 'deal')}, so deals without a winner count "
            f"against every seat; with equal chances each seat would win "
            f"{fmt_pct(1 / players)}. {leads} Intervals are 95% Wilson score intervals."
        ),
        win_table(shares),
        Paragraph(
            f"First seat's advantage (seat 0's share minus 1/{players}): "
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


def _length_section(lengths: dict) -> list[Block]:
    return [
        Heading("Game length"),
        Paragraph(
            "Turns taken (a skipped seat takes none; an extra play is no new turn), cards "
            "played, cards drawn (penalties included, not the deal), passes, suits named "
            "and reshuffles per deal, over every deal. Percentiles are interpolated."
        ),
        length_table([(label, lengths[col]) for col, label in LENGTH_UNITS if col in lengths]),
        Chart("length_histogram", "Histograms of turns, cards played and cards drawn per deal"),
    ]


def _score_section(scores: pd.DataFrame, strategies: list[str], rules: dict) -> list[Block]:
    scoring = rules.get("scoring", "")
    meaning = SCORING_MEANINGS.get(scoring, "")
    multiplier = (
        " When the winner went out on a rank with a finishing multiplier, the others' "
        "points are multiplied by it."
        if rules.get("finish_multiplier")
        else ""
    )
    rows = [
        [
            f"seat {seat}",
            strategies[seat] if seat < len(strategies) else "",
            fmt_num(row.cards_left_mean),
            fmt_num(row.points_mean),
            fmt_num(row.score_mean),
            fmt_num(row.score_p10),
            fmt_num(row.score_median),
            fmt_num(row.score_p90),
        ]
        for seat, row in scores.iterrows()
    ]
    columns = [
        "seat",
        "strategy",
        "cards left",
        "points",
        "score",
        "10th pct",
        "median",
        "90th pct",
    ]
    return [
        Heading("Points and scores"),
        Paragraph(
            f"Cards left and penalty points in hand at the end of the deal, and the deal's "
            f"score, per seat: means, and the score's percentiles. Scoring is "
            f"`{scoring or 'unknown'}`"
            + (f": {meaning}." if meaning else ".")
            + multiplier
            + " A deal without a winner scores every seat its own hand."
        ),
        Table(columns, rows, "llrrrrrr"),
        Chart(
            "score_distribution",
            "Score per deal by seat: box of quartiles, whiskers at the 10th and 90th "
            "percentiles, mean as a diamond",
        ),
    ]


def _multiplier_section(games: pd.DataFrame, players: int, multipliers: dict) -> list[Block]:
    if not multipliers:
        return []
    ranks = finish_ranks(games, multipliers)
    n_out = int(ranks["count"].sum())
    special = ", ".join(f"{rank} ×{m}" for rank, m in multipliers.items())
    rank_rows = [
        [str(rank), f"×{row.multiplier}", fmt_int(row.count), fmt_pct(row.share, 2)]
        for rank, row in zip(ranks.index, ranks.itertuples(), strict=True)
    ]
    others = others_score_by_finish(games, players, multipliers)
    other_rows = [
        [label, fmt_int(row["games"]), fmt_num(row["mean"]), fmt_num(row["median"])]
        for label, row in others.iterrows()
    ]
    return [
        Heading("Finishing multipliers"),
        Paragraph(
            f"The rules multiply the losers' points when the winner goes out on {special}. "
            f"Of the {count_text(n_out, 'deal')} won by going out, the winner's last card "
            "was of these ranks:"
        ),
        Table(["last card", "multiplier", "deals", "share"], rank_rows, "lrrr"),
        Paragraph(
            "Mean score of the seats other than the winner, in deals won by going out, when "
            "the last card carried a multiplier and when it did not (the median is of each "
            "deal's mean over the others):"
        ),
        Table(["winner's last card", "deals", "others' mean score", "median"], other_rows, "lrrr"),
    ]


def _longest_section(
    games: pd.DataFrame, top: int, meta: dict, strategies: list[str]
) -> list[Block]:
    longest = games.sort_values(["turns", "game"], ascending=[False, True]).head(top)
    rows = [
        [
            str(g.game),
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
    command += f"--game GAME --players {meta['players']}"
    if strategies and set(strategies) != {"random"}:
        command += "".join(f" --strategy {s}" for s in strategies)
    hint = f"Replay one turn by turn with `{command}`"
    hint += ", adding the changed rules as `--rule KNOB=VALUE`." if non_default_rules(meta) else "."
    return [
        Heading("Longest deals"),
        Paragraph(f"The {count_text(len(rows), 'longest deal')} by turns. {hint}"),
        Table(["game", "turns", "plays", "draws", "winner", "end"], rows, "rrrrll"),
    ]
