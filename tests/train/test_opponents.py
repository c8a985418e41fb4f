"""The League's shares and per-seat draws, and numpy snapshots of the learner."""

from __future__ import annotations

import numpy as np
import pytest

from cardsuite.agents.base import table_info
from cardsuite.agents.learned.netspec import Snapshot, obs_scale
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.games import get_game
from cardsuite.train.core.league import League, SnapshotAgent, draw_seat, seat_agent


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

    from cardsuite.train.core.learned import snapshot_of

    policy = tiny_policy(activation)
    snap = snapshot_of(policy, step=7, activation=activation)
    obs = np.random.default_rng(0).random((5, policy.observation_space.shape[0]), dtype=np.float32)
    with torch.no_grad():
        latent = policy.mlp_extractor.forward_actor(policy.extract_features(torch.as_tensor(obs)))
        expected = policy.action_net(latent).numpy()
    np.testing.assert_allclose(snap.logits(obs), expected, rtol=1e-5, atol=1e-5)
    assert snap.step == 7


def test_snapshot_agent_plays_only_legal_actions() -> None:
    from cardsuite.train.core.learned import snapshot_of

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
    from cardsuite.train.core.learned import snapshot_of

    agent = SnapshotAgent(snapshot_of(tiny_policy(), 0, "tanh"))
    env = get_game("scum").make(num_players=6)
    env.reset(seed=0)
    with pytest.raises(CheckpointError, match="expects observations of size"):
        agent.reset(table_info(env, "scum", "player_0"))


def test_snapshot_without_action_layer_is_a_checkpoint_error() -> None:
    snap = Snapshot(0, {"mlp_extractor.policy_net.0.weight": np.zeros((2, 2))}, "tanh")
    with pytest.raises(CheckpointError, match="lacks parameter"):
        snap.layers()


def _fixed_league(shares: dict[str, float], **kwargs: object) -> League:
    """A League of ``random`` and ``heuristic`` members (constant batch policies)."""

    def const(a: int):  # type: ignore[no-untyped-def]
        return lambda obs, mask: np.full(len(obs), a)

    return League({"random": const(0), "heuristic": const(1)}, shares=shares, **kwargs)  # type: ignore[arg-type]


def test_league_shares_keep_the_newest_snapshots_and_split_their_share() -> None:
    league = _fixed_league({"random": 0.0, "heuristic": 0.0, "snapshot": 1.0},
                           max_snapshots=2, weighting="uniform")  # fmt: skip
    # no snapshot yet: no member has a share, so PFSP alone (uniform) draws
    assert [(m.name, m.prob) for m in league.seat_table()] == [("random", 0.5), ("heuristic", 0.5)]
    for i in range(4):
        league.add_snapshot(Snapshot(i, {}, "tanh"))
    table = league.seat_table()
    assert [m.name for m in table] == ["random", "heuristic", "snapshot@2", "snapshot@3"]
    assert [m.prob for m in table] == [0.0, 0.0, 0.5, 0.5]
    assert [m.snapshot.step for m in table if m.snapshot is not None] == [2, 3]


def test_league_shares_multiply_the_pfsp_weights() -> None:
    """hard PFSP: weight share * x**2; heuristic beat the learner twice: x = 3/4, random 1/2."""
    league = _fixed_league({"random": 0.5, "heuristic": 0.5, "snapshot": 0.0}, decay=1.0)
    league.record(np.array([1, 1]), np.array([0.0, 0.0]))
    np.testing.assert_allclose(league.probabilities(), [4 / 13, 9 / 13])


def test_league_share_of_an_unknown_kind_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="league share 'greedy' names no member kind"):
        _fixed_league({"greedy": 1.0})
    with pytest.raises(ConfigError, match="league share of 'random' must be >= 0"):
        _fixed_league({"random": -0.1})


def test_seat_draw_frequencies_follow_the_league_table() -> None:
    from cardsuite.train.core.learned import snapshot_of

    league = _fixed_league({"random": 0.25, "heuristic": 0.0, "snapshot": 0.75},
                           max_snapshots=3, weighting="uniform")  # fmt: skip
    league.add_snapshot(snapshot_of(tiny_policy(), 5, "tanh"))
    table = league.seat_table()
    rng = np.random.default_rng(1)
    drawn = [draw_seat(table, rng) for _ in range(4000)]
    names = [m.name for m in drawn]
    assert names.count("random") + names.count("snapshot@5") == 4000
    assert 0.72 < names.count("snapshot@5") / len(names) < 0.78
    snap = next(m for m in drawn if m.snapshot is not None)
    assert isinstance(seat_agent(snap, "scum"), SnapshotAgent)
    assert seat_agent(table[1], "scum").name == "heuristic"


def test_obs_scale_divides_by_the_declared_bound() -> None:
    spec = get_game("scum").make(num_players=4).unwrapped.obs_spec
    scale = obs_scale(spec)
    _, high = spec.bounds()
    np.testing.assert_allclose(scale, 1.0 / np.maximum(high, 1.0))
