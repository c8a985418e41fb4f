"""RULINGS S4 on the batched engine: the default ``max_turns`` almost never binds.

``tests/scandal/test_turn_limit.py`` checks the per-game engine with the
per-game agents; this checks the batched engine with the batched heuristic
(differentially equal to the per-game one, tests/agents), the pair trainers
use: at every player count, no hand of the sample is cut by the default
limit, and a cut hand would be reported as truncated, never terminated.
"""

from __future__ import annotations

import numpy as np
import pytest

from cardsuite.agents.baselines.batched_scandal import BatchedScandalHeuristic
from scandal_env.batched import BatchedScandal
from scandal_env.config import ScandalConfig


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_s4_default_limit_cuts_no_batched_heuristic_hand(players: int) -> None:
    eng = BatchedScandal(32, num_players=players)
    assert eng.config.max_turns == ScandalConfig().max_turns
    policy = BatchedScandalHeuristic(eng.config.to_dict())
    obs, mask, _ = eng.reset(11)
    hands = cut = 0
    while hands < 100:
        res = eng.step(policy(obs, mask))
        obs, mask = res.obs, res.mask
        done, truncated = np.asarray(res.done), np.asarray(res.truncated)
        assert not (truncated & ~done).any()
        hands += int(done.sum())
        cut += int((done & truncated).sum())
    assert cut == 0


def test_s4_a_hand_at_the_limit_is_truncated_and_scored() -> None:
    """A tiny limit binds at once: the hands end as truncated, and they are scored (S4, S9)."""
    eng = BatchedScandal(8, num_players=3, max_turns=3)
    policy = BatchedScandalHeuristic(eng.config.to_dict())
    obs, mask, _ = eng.reset(2)
    ended = np.zeros(8, dtype=bool)
    scored = False
    for _ in range(100):  # a turn is several steps: draw, melds, discard
        res = eng.step(policy(obs, mask))
        obs, mask = res.obs, res.mask
        done, truncated = np.asarray(res.done), np.asarray(res.truncated)
        np.testing.assert_array_equal(done, truncated)  # three turns: no hand goes out first
        scored |= bool((np.asarray(res.rewards)[done] != 0).any())  # scored like any hand
        ended |= done
        if ended.all():
            break
    assert ended.all() and scored
