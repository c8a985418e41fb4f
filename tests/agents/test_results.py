"""`TournamentResult` in a notebook: `.table()`, `.to_pandas()` / `.records()`, `.plot()` (issue 23).

`.plot()` returns a matplotlib Figure built without pyplot: the backend a
notebook (or any caller) chose is left as it was, and no pyplot figure stays
open.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure

from cardsuite.agents.arena.ratings import ELO_PER_UNIT, fit_strengths
from cardsuite.agents.arena.results import TournamentResult
from cardsuite.agents.arena.stats import GameResult
from cardsuite.agents.arena.tournament import run_tournament


@pytest.fixture(scope="module")
def result() -> TournamentResult:
    return run_tournament("scum", ["random", "heuristic"], games=4, seed=1)


def test_plot_returns_a_figure_and_leaves_the_backend_alone(
    result: TournamentResult, tmp_path: Path
) -> None:
    import matplotlib.pyplot as plt

    before = matplotlib.get_backend()
    matplotlib.use("svg")  # a backend other than Agg, as a notebook's inline backend is
    try:
        open_before = plt.get_fignums()
        fig = result.plot()
        assert isinstance(fig, Figure)
        assert matplotlib.get_backend() == "svg"
        assert plt.get_fignums() == open_before  # nothing registered with pyplot
        left, right, _colorbar = fig.axes
        assert [t.get_text() for t in left.get_xticklabels()] == result.names
        assert right.get_title() == "head-to-head: row beats column"
        path = tmp_path / "r.png"
        assert isinstance(result.plot(path), Figure)
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert matplotlib.get_backend() == "svg"
    finally:
        matplotlib.use(before)


def test_records_are_the_csv_rows(result: TournamentResult) -> None:
    rows = result.records()
    per_agent = result.to_dict()["per_agent"]
    assert [r["agent"] for r in rows] == result.names == ["random", "heuristic"]
    for row in rows:
        assert {k: v for k, v in row.items() if k not in ("agent", "spec")} == per_agent[
            row["agent"]
        ]
    json.dumps(rows)  # plain data


def test_to_pandas_is_a_dataframe_indexed_by_agent(result: TournamentResult) -> None:
    pd = pytest.importorskip("pandas")
    frame = result.to_pandas()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.index) == result.names
    assert frame.loc["heuristic", "win_rate"] == result.agents[1].win_rate
    assert {"mean_score", "score_ci", "win_low", "win_high", "rating", "spec"} <= set(frame.columns)


def test_to_pandas_without_pandas_is_the_records_list(
    result: TournamentResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas -> ImportError
    rows = result.to_pandas()
    assert isinstance(rows, list) and rows == result.records()


def test_table_is_the_printable_table_with_intervals(result: TournamentResult) -> None:
    table = result.table()
    assert table == result.format_table()
    assert table.startswith("scum: 4 games, 4 players, seed 1 (seats rotated)")
    header = table.splitlines()[2]
    assert "± 95% CI" in header and "wins" in header and "95% CI" in header
    for a in result.agents:
        line = next(row for row in table.splitlines() if row.startswith(a.name))
        assert f"{100 * a.win_low:.1f}-{100 * a.win_high:.1f}" in line
        assert 0.0 <= a.win_low <= a.win_rate <= a.win_high <= 1.0


# ------------------------------------------------------------------ ratings
def _scripted_games() -> list[GameResult]:
    """3 agents at 3 seats, 8 deals x 3 rotations; agent 2 has the best unit score in
    6 deals, agent 1 in 2; agent 0 is last in every deal."""
    games = []
    for deal in range(8):
        unit = (0.0, 1.0, 2.0) if deal < 6 else (0.0, 2.0, 1.0)
        for rot in range(3):
            seating = tuple((s + rot) % 3 for s in range(3))
            rewards = tuple(unit[a] for a in seating)
            ranks = tuple(3 - int(r) for r in rewards)
            games.append(GameResult(deal * 3 + rot, deal, rot, seating, rewards, ranks))
    return games


def _result(
    games: list[GameResult],
    names: tuple[str, ...] = ("random", "greedy", "heuristic"),
    *,
    seats: int = 3,
    duplicate: bool = True,
) -> TournamentResult:
    return TournamentResult.from_games(
        game="scum",
        names=list(names),
        specs=list(names),
        seats=seats,
        options={},
        seed=0,
        duplicate=duplicate,
        deals=len({g.deal for g in games}),
        rotations=len({g.rotation for g in games}),
        results=games,
    )


def test_scripted_tournament_ratings_are_the_bradley_terry_fit() -> None:
    r = _result(_scripted_games())
    d = r.to_dict()
    ratings = [d["per_agent"][n]["rating"] for n in r.names]
    assert d["rating_anchor"] == "random" and ratings[0] == 0.0
    assert ratings[2] > ratings[1] > ratings[0]  # heuristic > greedy > random
    wins = np.array([[0, 0, 0], [8, 0, 2], [8, 6, 0]], dtype=float)  # deals row beat column
    assert np.allclose(ratings, fit_strengths(wins, anchor=0) * ELO_PER_UNIT)
    for n in r.names:
        a = d["per_agent"][n]
        assert a["rating_low"] <= a["rating"] <= a["rating_high"]
    assert d["rating_resamples"] == 1000
    assert "rating: Elo" in r.table() and "random = 0" in r.table()
    # random won no deal: its distance to the others is the prior's, and the result says so
    assert d["rating_unmeasured"] is not None and "{`random`}" in d["rating_unmeasured"]
    assert "won or tied a deal" in r.table()


@settings(max_examples=15, deadline=None)
@given(st.permutations(list(range(24))), st.permutations(list(range(8))))
def test_the_same_games_in_another_order_give_identical_ratings(
    order: list[int], deal_order: list[int]
) -> None:
    """Games listed in any order, and deals played in any order (renumbered): same ratings.

    (openskill, which the arena used before, updates game by game: there the
    order changed the ratings.)
    """
    base = _result(_scripted_games()).to_dict()["per_agent"]
    games = _scripted_games()
    moved = []
    for i in order:  # deal d is played as deal deal_order[d], with game indices to match
        g = games[i]
        deal = deal_order[g.deal]
        moved.append(
            GameResult(deal * 3 + g.rotation, deal, g.rotation, g.seating, g.rewards, g.ranks)
        )
    again = _result(moved).to_dict()["per_agent"]
    for name, stats in base.items():
        for key in ("rating", "rating_low", "rating_high"):
            assert again[name][key] == stats[key], (name, key)
