"""The opponent pool and numpy snapshots of the learner."""

from __future__ import annotations

import numpy as np
import pytest

from cardsuite.agents.base import table_info
from cardsuite.errors import CheckpointError
from cardsuite.games import get_game
from cardsuite.train.core.league import OpponentPool, SnapshotAgent
from cardsuite.train.core.netspec import Snapshot, obs_scale


def tiny_policy(activation: str = "tanh"):  # type: ignore[no-untyped-def]
    import gymnasium
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    torch.manual_seed(0)
    env = get_game("scum").make(num_players=4)
    size, actions = env.unwrapped.obs_spec.size, env.unwrapped.num_actions
    act = torch.nn.Tanh if activation == "tanh" else torch.nn.ReLU
    return MaskableActorCriticPolicy(
        gymnasium.spaces.Box(0, 1, (size,)),
        gymnasium.spaces.Discrete(actions),
        lambda _: 1e-3,
        net_arch={"pi": [16, 8], "vf": [16]},
        activation_fn=act,
    )


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_snapshot_logits_equal_the_torch_policy(activation: str) -> None:
    import torch

    from cardsuite.train.policy import snapshot_of

    policy = tiny_policy(activation)
    snap = snapshot_of(policy, step=7, activation=activation)
    obs = np.random.default_rng(0).random((5, policy.observation_space.shape[0]), dtype=np.float32)
    with torch.no_grad():
        latent = policy.mlp_extractor.forward_actor(policy.extract_features(torch.as_tensor(obs)))
        expected = policy.action_net(latent).numpy()
    np.testing.assert_allclose(snap.logits(obs), expected, rtol=1e-5, atol=1e-5)
    assert snap.step == 7


def test_snapshot_agent_plays_only_legal_actions() -> None:
    from cardsuite.train.policy import snapshot_of

    agent = SnapshotAgent(snapshot_of(tiny_policy(), 0, "tanh"), seed=1)
    env = get_game("scum").make(num_players=4)
    env.reset(seed=4)
    moves = 0
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        agent.reset(table_info(env, "scum", name))
        action = agent.act(obs["observation"], obs["action_mask"], {})
        assert obs["action_mask"][action] == 1
        env.step(action)
        moves += 1
    assert moves > 20
    assert not any("illegal_action" in info for info in env.infos.values())


def test_snapshot_agent_rejects_another_table() -> None:
    from cardsuite.train.policy import snapshot_of

    agent = SnapshotAgent(snapshot_of(tiny_policy(), 0, "tanh"))
    env = get_game("scum").make(num_players=6)
    env.reset(seed=0)
    with pytest.raises(CheckpointError, match="expects observations of size"):
        agent.reset(table_info(env, "scum", "player_0"))


def test_snapshot_without_action_layer_is_a_checkpoint_error() -> None:
    snap = Snapshot(0, {"mlp_extractor.policy_net.0.weight": np.zeros((2, 2))}, "tanh")
    with pytest.raises(CheckpointError, match="lacks parameter"):
        snap.layers()


def test_pool_keeps_the_newest_snapshots_and_draws_by_probability() -> None:
    snaps = [Snapshot(i, {}, "tanh") for i in range(4)]
    pool = OpponentPool("scum", {"random": 0.0, "heuristic": 0.0, "snapshot": 1.0}, 2)
    rng = np.random.default_rng(0)
    assert pool.draw(rng).name == "random"  # no snapshot yet: falls back to random
    for s in snaps:
        pool.add(s)
    assert [s.step for s in pool.snapshots] == [2, 3]
    pool.set_snapshots(snaps)
    assert [s.step for s in pool.snapshots] == [2, 3]
    assert pool.describe() == {
        "probs": {"random": 0.0, "heuristic": 0.0, "snapshot": 1.0},
        "max_snapshots": 2,
        "snapshot_steps": [2, 3],
    }


def test_pool_draw_frequencies_follow_the_probabilities() -> None:
    from cardsuite.train.policy import snapshot_of

    pool = OpponentPool("scum", {"random": 0.25, "heuristic": 0.0, "snapshot": 0.75}, 3)
    pool.add(snapshot_of(tiny_policy(), 5, "tanh"))
    rng = np.random.default_rng(1)
    names = [pool.draw(rng).name for _ in range(4000)]
    share = names.count("snapshot@5") / len(names)
    assert names.count("random") + names.count("snapshot@5") == 4000
    assert 0.72 < share < 0.78


def test_obs_scale_divides_by_the_declared_bound() -> None:
    spec = get_game("scum").make(num_players=4).unwrapped.obs_spec
    scale = obs_scale(spec)
    _, high = spec.bounds()
    np.testing.assert_allclose(scale, 1.0 / np.maximum(high, 1.0))
