"""Inside the game: the report section built from a run's event log (``events.parquet``,
written by ``--log``), and the measures behind it as functions of the events DataFrame.

Shedding games: :func:`hand_sizes_by_turn` (cards in hand turn by turn, the eventual
winner against the others), :func:`penalty_stacks` (how long draw-card stacks run, what
they cost and who pays), :func:`stock_timeline` (when the stock first runs dry, reshuffles
by turn). Beggar-My-Neighbour: :func:`pile_sizes` (the piles taken) and
:func:`turning_tricks` (for the longest logged deals, the trick that moved the eventual
winner's card count most). Every function takes the events as :func:`analysis.load.load_run`
gives them (one row per event; columns as ``docs/results-format.md`` describes).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analysis.load import RunFolder
from analysis.rendering import plots
from analysis.rendering.document import Block, Chart, Heading, Paragraph, Table
from analysis.rendering.words import fmt_int, fmt_num

__all__ = [
    "hand_sizes_by_turn",
    "penalty_stacks",
    "stock_timeline",
    "pile_sizes",
    "turning_tricks",
    "read_events",
    "log_section",
]


def read_events(run: RunFolder) -> pd.DataFrame | None:
    """The run's events (None when the run logged no game)."""
    return run.some_games("events", "log")


def _winners(events: pd.DataFrame) -> pd.Series:
    """Each logged game's winner (-1: none), indexed by game."""
    ends = events[events["event"] == "end"]
    return ends.set_index("game")["seat"].astype(int)


def hand_sizes_by_turn(events: pd.DataFrame, *, max_turn: int | None = None) -> pd.DataFrame:
    """Cards in hand at the end of each turn, over the logged games: one row per turn
    (from 0, the deal) and group (``winner``: the game's eventual winner; ``others``: every
    other seat), with ``mean``, ``q25``, ``q75`` (cards) and ``seats`` (seat-games still
    playing at that turn). Games without a winner count only among ``others``."""
    rows = events[(events["seat"] >= 0) & events["hand"].notna() & (events["event"] != "end")]
    last = rows.groupby(["game", "turn", "seat"], sort=True)["hand"].last().reset_index()
    turns = events.groupby("game")["turn"].max()
    winners = _winners(events)
    records = []
    for game, frame in last.groupby("game"):
        wide = frame.pivot(index="turn", columns="seat", values="hand")
        end = int(turns[game]) if max_turn is None else min(int(turns[game]), max_turn)
        wide = wide.reindex(range(end + 1)).ffill()
        winner = int(winners.get(game, -1))
        for seat in wide.columns:
            group = "winner" if seat == winner else "others"
            records.append(
                pd.DataFrame({"turn": wide.index, "group": group, "hand": wide[seat].to_numpy()})
            )
    if not records:
        return pd.DataFrame(columns=["turn", "group", "mean", "q25", "q75", "seats"])
    data = pd.concat(records, ignore_index=True).dropna()
    grouped = data.groupby(["turn", "group"])["hand"]
    out = grouped.agg(
        mean="mean", q25=lambda h: h.quantile(0.25), q75=lambda h: h.quantile(0.75), seats="size"
    )
    return out.reset_index()


def _draw_ranks(rules: dict) -> set[str]:
    """The ranks whose cards make the next seat draw (``draw:N`` effects), from the rules
    as ``run.json`` stores them."""
    effects = rules.get("effects", {}) or {}
    ranks = set()
    for rank, parts in effects.items():
        parts = parts if isinstance(parts, list | tuple) else str(parts).split("+")
        if any(str(part).startswith("draw:") for part in parts):
            ranks.add(str(rank))
    return ranks


def penalty_stacks(events: pd.DataFrame, rules: dict) -> pd.DataFrame:
    """One row per penalty that fell due: ``game``, ``turn``, ``seat`` (who pays),
    ``owed`` (cards owed), ``paid`` (cards actually drawn for it, a reshuffle between two
    of them included: fewer when nothing was left to draw) and ``length`` (draw cards in the stack: the draw-rank cards played in a row just
    before it, no other card, draw or penalty between them, a club opening's card not
    counted: it has no effect). ``rules``: the run's rules as ``run.json`` stores them
    (which ranks are draw cards, how the game opens)."""
    draw_ranks = _draw_ranks(rules)
    players = int(events.loc[events["event"] == "deal", "seat"].max()) + 1
    # The club openings' plays have no effect: a 7 played to open starts no stack.
    inert = {"lead_club": 1, "all_lead_club": players}.get(rules.get("start"), 0)
    out = []
    for game, frame in events.groupby("game", sort=True):
        kinds = frame["event"].astype(str).to_numpy()
        cards = frame["card"].astype(object).to_numpy()
        causes = frame["cause"].astype(object).to_numpy()
        turns = frame["turn"].to_numpy()
        for i in np.flatnonzero(kinds == "penalty"):
            length = 0
            for j in range(i - 1, -1, -1):
                if kinds[j] == "play":
                    if str(cards[j])[:-1] not in draw_ranks or turns[j] <= inert:
                        break
                    length += 1
                elif kinds[j] in ("draw", "deal", "penalty"):
                    break
            paid = 0
            for j in range(i + 1, len(kinds)):
                if kinds[j] == "reshuffle":  # the stock ran dry mid-penalty: drawing goes on
                    continue
                if kinds[j] != "draw" or causes[j] != "penalty":
                    break
                paid += 1
            row = frame.iloc[i]
            out.append((game, int(row["turn"]), int(row["seat"]), int(row["count"]), paid, length))
    return pd.DataFrame(out, columns=["game", "turn", "seat", "owed", "paid", "length"])


def stock_timeline(events: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """``(dry, reshuffles)``: the turn at which each logged game's stock first ran out
    (indexed by game; games whose stock never ran dry are left out), and the number of
    reshuffles at each turn over the logged games (indexed by turn)."""
    played = events[(events["turn"] > 0) & events["stock"].notna()]
    empty = played[played["stock"] == 0]
    dry = empty.groupby("game")["turn"].min()
    reshuffles = events[events["event"] == "reshuffle"].groupby("turn").size()
    return dry, reshuffles


def pile_sizes(events: pd.DataFrame) -> pd.Series:
    """Beggar-My-Neighbour: how many piles of each size were taken (index: cards)."""
    takes = events[events["event"] == "take"]
    return takes["count"].astype(int).value_counts().sort_index()


def turning_tricks(events: pd.DataFrame, *, top: int = 5) -> pd.DataFrame:
    """Beggar-My-Neighbour: for the ``top`` longest logged deals with a winner, the trick
    that moved the eventual winner's card count most: ``game``, ``tricks``, ``winner``,
    ``trick``, ``change`` (cards gained, negative: lost) and ``before`` (the winner's cards
    before that trick)."""
    winners = _winners(events)
    lengths = events[events["event"] == "take"].groupby("game").size()
    games = [g for g in lengths.sort_values(ascending=False).index if winners.get(g, -1) >= 0]
    out = []
    for game in games[:top]:
        winner = int(winners[game])
        frame = events[(events["game"] == game) & (events["seat"] == winner)]
        frame = frame[frame["hand"].notna()]
        after = frame.groupby("turn")["hand"].last()
        first = events[(events["game"] == game) & (events["event"] == "play")]
        dealt = _dealt(first, winner)
        before = after.shift(1).fillna(dealt)
        change = after - before
        trick = int(change.abs().idxmax())
        out.append(
            (game, int(lengths[game]), winner, trick, int(change[trick]), int(before[trick]))
        )
    return pd.DataFrame(out, columns=["game", "tricks", "winner", "trick", "change", "before"])


def _dealt(plays: pd.DataFrame, seat: int) -> int:
    """A seat's cards before its first logged play (its hand after it, plus one)."""
    own = plays[plays["seat"] == seat]
    return int(own["hand"].iloc[0]) + 1 if len(own) else 0


# --- the report section ---------------------------------------------------------------------


def log_section(run: RunFolder) -> tuple[list[Block], dict[str, Figure]]:
    """The "Inside the game" section of a run that logged games (nothing otherwise)."""
    events = read_events(run)
    if events is None:
        return [], {}
    games = events["game"].nunique()
    blocks: list[Block] = [
        Heading("Inside the game (logged games)"),
        Paragraph(
            f"From the event log of the run's {fmt_int(games)} logged games (deals) "
            f"({fmt_int(len(events))} events, `events/`)."
        ),
    ]
    figures: dict[str, Figure] = {}
    if (events["event"] == "take").any():
        _beggar_blocks(events, blocks)
        return blocks, figures
    sizes = hand_sizes_by_turn(events)
    figures["log_hand_sizes"] = _hand_size_chart(sizes)
    blocks.append(
        Chart(
            "log_hand_sizes",
            "Mean cards in hand by turn for the eventual winner and the other seats, "
            "with interquartile bands",
        )
    )
    stacks = penalty_stacks(events, run.meta.get("rules", {}))
    if len(stacks):
        blocks.append(
            Paragraph(
                f"{fmt_int(len(stacks))} penalties fell due: stacks of "
                f"{fmt_num(stacks['length'].mean())} draw cards on average (longest "
                f"{fmt_int(stacks['length'].max())}), {fmt_num(stacks['owed'].mean())} cards "
                f"owed and {fmt_num(stacks['paid'].mean())} drawn on average."
            )
        )
        by_length = stacks.groupby("length").agg(
            stacks=("owed", "size"), owed=("owed", "mean"), paid=("paid", "mean")
        )
        blocks.append(
            Table(
                ["draw cards in the stack", "stacks", "mean cards owed", "mean cards drawn"],
                [
                    [fmt_int(length), fmt_int(row.stacks), fmt_num(row.owed), fmt_num(row.paid)]
                    for length, row in by_length.iterrows()
                ],
                "rrrr",
            )
        )
        payers = stacks.groupby("seat").agg(penalties=("owed", "size"), cards=("paid", "sum"))
        blocks.append(
            Table(
                ["seat", "penalties paid", "cards drawn for them"],
                [
                    [fmt_int(seat), fmt_int(row.penalties), fmt_int(row.cards)]
                    for seat, row in payers.iterrows()
                ],
                "rrr",
            )
        )
    else:
        blocks.append(Paragraph("No penalty fell due in the logged games."))
    dry, reshuffles = stock_timeline(events)
    if len(dry):
        blocks.append(
            Paragraph(
                f"The stock ran dry in {fmt_int(len(dry))} of {fmt_int(games)} logged games, "
                f"first at turn {fmt_int(dry.median())} (median; quartiles "
                f"{fmt_int(dry.quantile(0.25))} to {fmt_int(dry.quantile(0.75))}); "
                f"{fmt_int(reshuffles.sum())} reshuffles in all."
            )
        )
    else:
        blocks.append(Paragraph("The stock never ran dry in the logged games."))
    return blocks, figures


def _hand_size_chart(sizes: pd.DataFrame) -> Figure:
    fig = plots.new_figure("Cards in hand by turn · logged games", 7.0, 3.6)
    ax = fig.add_subplot()
    for group, color in (("winner", "C0"), ("others", "C1")):
        part = sizes[sizes["group"] == group]
        if part.empty:
            continue
        label = "eventual winner" if group == "winner" else "other seats"
        ax.plot(part["turn"], part["mean"], color=color, label=label)
        ax.fill_between(part["turn"], part["q25"], part["q75"], color=color, alpha=0.2)
    if sizes.empty:
        plots.no_data(ax, "logged turns")
    ax.set_xlabel("turn")
    ax.set_ylabel("cards in hand")
    ax.legend(loc="upper right")
    return fig


def _beggar_blocks(events: pd.DataFrame, blocks: list[Block]) -> None:
    piles = pile_sizes(events)
    weights = piles.to_numpy()
    mean = float((piles.index.to_numpy() * weights).sum() / weights.sum()) if len(piles) else 0
    blocks.append(
        Paragraph(
            f"{fmt_int(weights.sum())} piles were taken, of {fmt_num(mean)} cards on average "
            f"(largest {fmt_int(piles.index.max() if len(piles) else 0)})."
        )
    )
    turning = turning_tricks(events)
    if len(turning):
        blocks.append(Paragraph("The trick that turned each of the longest logged deals:"))
        blocks.append(
            Table(
                ["game", "tricks", "winner", "trick", "winner's cards before", "change"],
                [
                    [
                        fmt_int(row.game),
                        fmt_int(row.tricks),
                        f"seat {row.winner}",
                        fmt_int(row.trick),
                        fmt_int(row.before),
                        f"{row.change:+d}",
                    ]
                    for row in turning.itertuples()
                ],
                "rrrrrr",
            )
        )
