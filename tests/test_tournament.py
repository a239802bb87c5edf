"""Strategy tournaments: the pairings' runs, the win-share matrix and the Luce ratings."""

import json

import numpy as np
import pytest
from run_helpers import completed

from analysis.comparisons.tournament import (
    Pairing,
    luce_strengths,
    ratings,
    read_pairings,
    win_matrix,
    write_tournament_report,
)
from analysis.load import load_run
from simulate.app.studies.tournament import pairings, run_tournament
from simulate.core.errors import CardsimError


def test_pairings_are_ordered_except_for_two_players():
    assert pairings(3, 4) == [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]
    assert pairings(3, 2) == [(0, 1), (0, 2), (1, 2)]


def test_two_strategies_two_seats_is_bradley_terry():
    # With two seats the Luce model is Bradley-Terry: r_a / r_b = wins_a / wins_b (here with
    # the half win added to each).
    r = luce_strengths(["a", "b"], [Pairing("a", "b", 100, 60, 30)], 2)
    assert r[0] / r[1] == pytest.approx(60.5 / 30.5)
    assert np.prod(r) == pytest.approx(1.0)


def test_luce_fit_recovers_known_strengths():
    # Expected win counts under known strengths, 4 seats: the fit gives them back.
    truth = {"x": 2.0, "y": 1.0, "z": 0.5}
    names = list(truth)
    data = []
    for a in names:
        for b in names:
            if a != b:
                p = truth[a] / (truth[a] + 3 * truth[b])
                data.append(Pairing(a, b, 10**6, int(p * 10**6), 10**6 - int(p * 10**6)))
    r = luce_strengths(names, data, 4)
    assert r[0] / r[1] == pytest.approx(2.0, rel=1e-3)
    assert r[1] / r[2] == pytest.approx(2.0, rel=1e-3)


@pytest.mark.end_to_end
def test_tournament_runs_and_report(tmp_path):
    out = tmp_path / "t"
    run_tournament(
        "crazy-eights",
        strategies=["random", "first", "uniform"],
        players=3,
        games=300,
        seed=5,
        out=out,
    )
    info, found = read_pairings(out)
    assert info["strategies"] == ["random", "first", "uniform"]
    assert len(found) == 6
    for (i, j), pairing in zip(info["pairings"], found, strict=True):
        games = load_run(out / f"pair-{i}-{j}").games
        assert len(games) == 900  # 300 deals, once per seat of the single strategy
        assert completed(out / f"pair-{i}-{j}") == 300
        seat_of_a = [
            [s for s in range(3) if row[f"strategy_{s}"] == pairing.a]
            for _, row in games.iterrows()
        ]
        assert all(len(seats) == 1 for seats in seat_of_a)
        assert sorted(seats[0] for seats in seat_of_a) == [0] * 300 + [1] * 300 + [2] * 300
        a_wins = sum(w == seats[0] for w, seats in zip(games["winner"], seat_of_a, strict=True))
        assert pairing.a_wins == a_wins and pairing.games == 900
    share, lo, hi, counts = win_matrix(info["strategies"], found, 3)
    assert np.isnan(share.loc["first", "first"])
    assert (lo <= share).where(share.notna(), True).all().all()
    table = ratings(info["strategies"], found, 3)
    assert table["rating"].mean() == pytest.approx(0.0, abs=1e-9)
    assert (table["lo"] <= table["rating"]).all() and (table["rating"] <= table["hi"]).all()
    html, md = write_tournament_report(out)
    text = md.read_text()
    assert "Win share against each other strategy" in text and "Ratings" in text
    assert (out / "charts" / "tournament.png").exists() and (out / "matrix.csv").exists()
    assert "data:image/png;base64" in html.read_text()
    with pytest.raises(CardsimError, match="already holds a tournament"):
        run_tournament(
            "crazy-eights", strategies=["random", "first"], players=3, games=10, seed=5, out=out
        )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((["random"],), "at least 2 strategies"),
        ((["random", "random"],), "each strategy once"),
        ((["random", "bogus"],), "unknown strategy 'bogus'"),
    ],
)
def test_bad_tournaments(tmp_path, args, message):
    with pytest.raises(CardsimError, match=message):
        run_tournament(
            "crazy-eights", strategies=args[0], players=3, games=10, seed=1, out=tmp_path / "t"
        )
    assert not (tmp_path / "t" / "tournament.json").exists()


def test_tournament_json_is_plain(tmp_path):
    out = tmp_path / "t"
    run_tournament(
        "openspiel", strategies=["random", "first"], players=2, games=50, seed=3, out=out
    )
    info = json.loads((out / "tournament.json").read_text())
    assert info["pairings"] == [[0, 1]] and info["players"] == 2
