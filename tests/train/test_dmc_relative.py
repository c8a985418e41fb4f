"""Deep Monte-Carlo on relative rewards (``relative_reward``): each seat's reward minus the others'.

Scandal's hand scores are not zero-sum (S9), and DMC trained on its own
score falls below its warm start (``docs/results.md``, "Deep Monte-Carlo on
Scandal"); ``configs/train/dmc_scandal2.yaml`` trains on relative rewards.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from cardsuite.train.dmc.config import DMCConfig
from cardsuite.train.dmc.parts import relative_rewards
from cardsuite.train.dmc.trainer import DMCTrainer
from cardsuite.train.ppo.imitation import heuristic_dataset


def test_two_player_hand_scores_become_their_difference() -> None:
    got = relative_rewards(np.array([[1.75, 0.5], [0.0, 0.0], [-0.25, 1.0]], dtype=np.float32))
    np.testing.assert_allclose(got, [[1.25, -1.25], [0.0, 0.0], [-1.25, 1.25]])


@settings(max_examples=50, deadline=None)
@given(arrays(np.float32, st.tuples(st.integers(1, 5), st.integers(2, 6)),
              elements=st.floats(-5, 5, width=32)))  # fmt: skip
def test_relative_rewards_sum_to_zero_and_keep_each_games_order(r: np.ndarray) -> None:
    rel = relative_rewards(r)
    np.testing.assert_allclose(rel.sum(axis=1), 0.0, atol=1e-4)
    # seat i minus seat j is scaled by p / (p - 1): the order within a game never changes
    p = r.shape[1]
    diff_r = r[:, :, None] - r[:, None, :]
    diff_rel = rel[:, :, None] - rel[:, None, :]
    np.testing.assert_allclose(diff_rel, diff_r * p / (p - 1), atol=1e-3)


def test_dmc_targets_are_relative_returns(tmp_path: Path) -> None:
    """Scum 4p centered rewards already sum to zero, so relative ones are 4/3 of them."""
    cfg = DMCConfig.from_dict({
        "total_steps": 1500, "num_games": 16, "rollout_steps": 80, "hidden": 16, "layers": 1,
        "batch_size": 64, "buffer_size": 2048, "eval_every": 0, "eval_deals": 4, "quiet": True,
        "self_play": 1.0, "relative_reward": True, "run_dir": str(tmp_path / "run"),
    })  # fmt: skip
    tr = DMCTrainer(cfg)
    tr.rollout()
    assert tr.replay.size > 0
    allowed = np.array([-1.0, -1 / 3, 1 / 3, 1.0]) * 4 / 3
    ret = tr.replay.ret[: tr.replay.size].numpy()
    assert np.isclose(ret[:, None], allowed[None], atol=1e-5).any(axis=1).all()


def test_warm_start_returns_are_relative_too() -> None:
    cfg = {"num_players": 4, "reward": "centered"}
    own = heuristic_dataset(8, 120, 0.1, 3, cfg, "scum")
    rel = heuristic_dataset(8, 120, 0.1, 3, cfg, "scum", relative=True)
    np.testing.assert_array_equal(own["label"], rel["label"])
    np.testing.assert_allclose(rel["ret"], own["ret"] * 4 / 3, atol=1e-5)


def test_the_scandal_preset_trains_on_relative_rewards() -> None:
    from cardsuite.train.core.cli import preset

    assert DMCConfig.from_dict(preset("configs/train/dmc_scandal2.yaml")).relative_reward
    assert not DMCConfig.from_dict(preset("configs/train/dmc_scum4.yaml")).relative_reward
