"""S4: the default turn limit cuts no hand the baseline agents would finish.

The full measurement is ``benchmarks/scandal_turn_limit.py`` (docs/scandal.md,
"Turn limit"); this re-checks its bound on a smaller sample.
"""

from __future__ import annotations

import pytest

from benchmarks.scandal_turn_limit import CYCLE, play_hands, summarize
from scandal_env.config import ScandalConfig


def test_benchmark_records_turns_cycles_and_cap() -> None:
    turns = play_hands("greedy", 2, 3, seed=0, cap=400)
    assert len(turns) == 3 and all(t == CYCLE or 0 < t <= 400 for t in turns)
    random = play_hands("random", 2, 2, seed=0, cap=30)
    assert all(0 < t <= 30 for t in random)
    summary = summarize([10, 250, CYCLE, 5000], cap=5000)
    assert summary["cycles"] == 1 and summary["at_cap"] == 1 and summary["max"] == 250
    assert summary["cut_rate"]["200"] == 0.75 and summary["cut_rate"]["300"] == 0.5


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("table", ["heuristic", "mixed"])
def test_s4_default_limit_is_twice_the_longest_finished_baseline_hand(
    table: str, players: int
) -> None:
    limit = ScandalConfig().max_turns
    turns = play_hands(table, players, 60, seed=7, cap=limit)
    finished = [t for t in turns if t != CYCLE]
    assert len(finished) >= 50
    assert max(finished) <= limit // 2
