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
import pytest
from matplotlib.figure import Figure

from cardsuite.agents.arena import run_tournament
from cardsuite.agents.results import TournamentResult


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
    assert {"mean_score", "score_ci", "win_low", "win_high", "mu", "spec"} <= set(frame.columns)


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
    assert "± 95% CI" in header and "win %" in header and "95% CI" in header
    for a in result.agents:
        line = next(row for row in table.splitlines() if row.startswith(a.name))
        assert f"{100 * a.win_low:.1f}-{100 * a.win_high:.1f}" in line
        assert 0.0 <= a.win_low <= a.win_rate <= a.win_high <= 1.0
