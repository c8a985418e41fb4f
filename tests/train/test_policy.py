"""PPOAgent: a checkpoint as an arena agent (``ppo:PATH``)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cardsuite.agents.base import table_info
from cardsuite.agents.learned.policy import PPOAgent
from cardsuite.agents.registry import make_agent
from cardsuite.errors import CheckpointError
from cardsuite.games import get_game


def torch_model(run: Path) -> Any:
    """The MaskablePPO of a run's checkpoint, rebuilt by the trainer's resume path."""
    from cardsuite.train.sb3.checkpoint import load_checkpoint
    from cardsuite.train.sb3.trainer import make_vec_env, restore_model

    loaded = load_checkpoint(run)
    venv = make_vec_env(loaded.state.config, [])
    return restore_model(loaded.state.config, venv, loaded)


def test_agent_acts_like_predict_with_masks(trained_run: Path) -> None:
    agent = PPOAgent.load(trained_run, "scum", seed=0)
    model = torch_model(trained_run)
    env = get_game("scum").make(num_players=4, reward="centered")
    env.reset(seed=1)
    agent.reset(table_info(env, "scum", "player_0"))
    scale = agent._scale
    assert scale is not None
    decisions = 0
    for _name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = agent.act(obs["observation"], obs["action_mask"], {})
        expected, _ = model.predict(
            obs["observation"] * scale,
            action_masks=obs["action_mask"].astype(bool),
            deterministic=True,
        )
        assert action == int(expected)
        assert obs["action_mask"][action] == 1
        env.step(action)
        decisions += 1
    assert decisions > 20


def test_registry_builds_it_from_a_run_a_checkpoint_or_an_agent_dir(trained_run: Path) -> None:
    for path in (trained_run, trained_run / "checkpoint", trained_run / "checkpoint" / "agent"):
        agent = make_agent(f"ppo:{path}", "scum", seed=0)
        assert isinstance(agent, PPOAgent)


def test_arena_tournament_with_the_agent(trained_run: Path) -> None:
    from cardsuite.agents.arena.tournament import run_tournament

    result = run_tournament(
        "scum",
        [f"ppo:{trained_run}", "random"],
        games=2,
        options={"num_players": 4, "reward": "centered"},
        duplicate=True,
    ).to_dict()
    assert result["games"] == 4  # 2 deals x 2 rotations
    assert all(a["illegal_actions"] == 0 for a in result["per_agent"].values())


def test_wrong_game_or_table_is_a_checkpoint_error(trained_run: Path) -> None:
    with pytest.raises(CheckpointError, match="was trained on 'scum', not 'scandal'"):
        PPOAgent.load(trained_run, "scandal")
    agent = PPOAgent.load(trained_run, "scum")
    env = get_game("scum").make(num_players=5)
    env.reset(seed=0)
    with pytest.raises(CheckpointError, match="different rule options or player count"):
        agent.reset(table_info(env, "scum", "player_0"))


def test_missing_or_corrupt_model_is_a_checkpoint_error(trained_run: Path, tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="does not exist"):
        PPOAgent.load(tmp_path / "nothing", "scum")
    with pytest.raises(CheckpointError, match="neither a checkpoint"):
        PPOAgent.load(tmp_path, "scum")
    bad = tmp_path / "model.zip"
    bad.write_bytes(b"not a zip file")
    with pytest.raises(CheckpointError, match=r"stable-baselines3 zip.*run arbitrary code"):
        PPOAgent.load(bad, "scum")
    copy = tmp_path / "run"
    shutil.copytree(trained_run, copy)
    (copy / "checkpoint" / "agent" / "agent.json").write_text("{ not json")
    with pytest.raises(CheckpointError, match=r"agent\.json.*: not valid JSON"):
        PPOAgent.load(copy, "scum")
    shutil.rmtree(copy / "checkpoint" / "agent")
    with pytest.raises(CheckpointError, match="has no agent/"):
        PPOAgent.load(copy, "scum")


def test_sampled_actions_follow_the_masked_policy(trained_run: Path) -> None:
    import torch

    env = get_game("scum").make(num_players=4, reward="centered")
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)
    agent = PPOAgent.load(trained_run, "scum", deterministic=False)
    agent.reset(table_info(env, "scum", env.agent_selection), seed=0)
    assert agent._scale is not None
    counts = np.zeros(len(obs["action_mask"]))
    for _ in range(3000):
        counts[agent.act(obs["observation"], obs["action_mask"], {})] += 1
    policy = torch_model(trained_run).policy
    with torch.no_grad():
        dist = policy.get_distribution(
            torch.as_tensor(obs["observation"] * agent._scale)[None],
            action_masks=obs["action_mask"].astype(bool)[None],
        )
        probs = dist.distribution.probs[0].numpy()
    assert counts[obs["action_mask"] == 0].sum() == 0
    np.testing.assert_allclose(counts / 3000, probs, atol=0.03)


def test_sampling_agent_is_reproducible_with_a_seed(trained_run: Path) -> None:
    env = get_game("scum").make(num_players=4, reward="centered")
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)
    picks = []
    for _ in range(2):
        agent = PPOAgent.load(trained_run, "scum", deterministic=False)
        agent.reset(table_info(env, "scum", env.agent_selection), seed=9)
        picks.append([agent.act(obs["observation"], obs["action_mask"], {}) for _ in range(20)])
    assert picks[0] == picks[1]
    assert all(obs["action_mask"][a] == 1 for a in picks[0])
