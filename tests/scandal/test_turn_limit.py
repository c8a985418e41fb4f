"""S4: the default turn limit cuts fewer than 1 hand in 1,000 when the baseline agents play.

The full measurement is ``benchmarks/scandal_turn_limit.py`` (docs/scandal.md,
"Turn limit"); the slow test re-checks it on a bounded sample: 100 hands per
table and player count, none of them cut by the default ``max_turns``.
"""

from __future__ import annotations

import pytest

from benchmarks.scandal_turn_limit import play_hands, summarize
from scandal_env.config import ScandalConfig


def test_benchmark_records_turns_and_cap() -> None:
    turns = play_hands("greedy", 2, 3, seed=0, cap=400)
    assert len(turns) == 3 and all(0 < t <= 400 for t in turns)
    random = play_hands("random", 2, 2, seed=0, cap=30)
    assert all(0 < t <= 30 for t in random)
    summary = summarize([10, 250, 5000, 5000], cap=5000)
    assert summary["at_cap"] == 2 and summary["max"] == 250
    assert summary["cut_rate"]["200"] == 0.75 and summary["cut_rate"]["300"] == 0.5


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("table", ["heuristic", "mixed", "greedy"])
def test_s4_default_limit_cuts_no_baseline_hand(table: str, players: int) -> None:
    """S4: 100 hands of baseline agents, none cut, the longest under half the limit."""
    limit = ScandalConfig().max_turns
    turns = play_hands(table, players, 100, seed=7, cap=limit)
    assert max(turns) <= limit // 2, sorted(turns)[-5:]
