"""The leaderboard: duplicate round-robin, per-deal outcomes, openskill ratings, outputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cardsuite.agents.arena import run_tournament
from cardsuite.agents.leaderboard import deal_outcomes, plot, run_leaderboard, to_markdown
from cardsuite.errors import ConfigError


def test_deal_outcomes_agree_with_the_arena_head_to_head() -> None:
    res = run_tournament("scum", ["heuristic", "random"], games=12, duplicate=True, seed=3)
    won = deal_outcomes(res)
    assert won.shape == (12,)
    assert float(won.mean()) == pytest.approx(res.head_to_head[0][1])


def test_identical_agents_draw_every_deal() -> None:
    res = run_tournament("scum", ["heuristic", "heuristic"], games=5, duplicate=True, seed=0)
    assert deal_outcomes(res).tolist() == [0.5] * 5


def test_round_robin_ranks_the_heuristic_above_random(tmp_path: Path) -> None:
    board = run_leaderboard("scum", 4, ["random", "heuristic", "greedy"], deals=8, seed=1)
    h2h = board.head_to_head
    assert h2h[1][0] is not None and h2h[0][1] is not None
    assert h2h[1][0] + h2h[0][1] == pytest.approx(1.0)
    assert board.agents[board.order()[0]] == "heuristic"
    assert board.mu[1] > board.mu[0]
    text = to_markdown(board, "cardsuite leaderboard scum --players 4 --deals 8")
    assert "| 1 | `heuristic` |" in text and text.count("\n|") >= 8
    png = plot(board, tmp_path / "lb.png")
    assert png.stat().st_size > 1000
    assert np.isfinite(board.sigma).all()


def test_needs_two_agents() -> None:
    with pytest.raises(ConfigError, match="at least 2"):
        run_leaderboard("scum", 4, ["random"], deals=1)


def test_sections_are_replaced_or_appended() -> None:
    from cardsuite.agents.leaderboard import merge_section

    a = "### scum, 4 players\n\nold 4p\n"
    b = "### scum, 6 players\n\n6p\n"
    doc = merge_section(merge_section("", a), b)
    assert doc.startswith("# Leaderboard") and "old 4p" in doc and "6p" in doc
    doc2 = merge_section(doc, "### scum, 4 players\n\nnew 4p\n")
    assert "old 4p" not in doc2 and "new 4p" in doc2 and "6p" in doc2
    assert doc2.index("new 4p") < doc2.index("6p")
