"""Guided search with leaves scored by the wrapped agent's critic (``leaf=value``).

* `PPOAgent.value` (numpy) is the trained network's critic (torch), on the
  same scaled observation;
* ``BatchedRollouts.critic_values`` reads every player's observation of a
  leaf as the env shows it to that player (``scandal_v0.observe``), maps the
  critic's values (each hand's net score / ``reward_scale``, S9) to the
  search's reward ``0.5 + (own - mean of others) / 400``, and scores a
  finished hand exactly as the rollouts do;
* a ``search:`` spec with ``leaf=value`` plays a legal seeded game, and is
  refused, naming the parameter, for an agent saved without its critic.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from cardsuite.agents.base import table_info
from cardsuite.agents.learned.netspec import obs_scale
from cardsuite.agents.learned.policy import PPOAgent
from cardsuite.agents.registry import make_agent
from cardsuite.agents.search.rollouts import (
    BatchedRollouts,
    relative_score,
    scandal_score,
    scandal_value_score,
)
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.games import get_game
from cardsuite.train.ppo.network import ActorCritic, agent_meta, save_network


def _agent_with_critic(tmp_path: Path, num_players: int = 2) -> tuple[Path, ActorCritic]:
    """A small random Scandal network saved with its critic, as a PPO run saves it."""
    env = get_game("scandal").make(num_players=num_players)
    env.reset(seed=0)
    spec = env.unwrapped.obs_spec
    torch.manual_seed(1)
    net = ActorCritic(spec.size, int(env.action_space("player_0").n), 16, 1)
    with torch.no_grad():  # values far from zero (the critic's output layer starts small)
        for p in net.critic.parameters():
            p.mul_(5.0)
    meta = agent_meta(net, "scandal", {"num_players": num_players}, 7, {})
    return save_network(tmp_path / "agent", net, meta), net


def test_the_numpy_critic_is_the_trained_networks_critic(tmp_path: Path) -> None:
    path, net = _agent_with_critic(tmp_path)
    agent = PPOAgent.load(path, "scandal")
    assert agent.has_value
    obs = np.random.default_rng(0).random((6, net.obs_size)).astype(np.float32)
    with torch.no_grad():
        want = net.value(torch.from_numpy(obs)).numpy()
    got = agent.value(obs)
    assert got.shape == (6,)
    assert np.allclose(got, want, atol=1e-5)
    assert np.ptp(got) > 1e-3, "the values differ between observations"


def test_a_size_generic_critic_reads_any_table_padded_as_in_training(tmp_path: Path) -> None:
    """`SizeGenericAgent.value` at a 4-player table is the trained network's critic on the
    trainer's own input (`train/core/tables.py`: the padded observation times the generic
    layout's scale), as its logits are; before `reset` it names the missing table."""
    from cardsuite.agents.learned.layout import generic_spec, pad_observation
    from cardsuite.agents.learned.size_generic import SizeGenericAgent, TrainedAgent, generic_scale

    largest = get_game("scandal").make(num_players=6)
    torch.manual_seed(2)
    net = ActorCritic(generic_spec("scandal").size, int(largest.action_space("player_0").n), 16, 1)
    with torch.no_grad():
        for p in net.critic.parameters():
            p.mul_(5.0)
    meta = agent_meta(net, "scandal", {}, 7, {}, layout="generic")
    agent = TrainedAgent.load(save_network(tmp_path / "agent", net, meta), "scandal")
    assert isinstance(agent, SizeGenericAgent) and agent.has_value
    env = get_game("scandal").make(num_players=4)
    env.reset(seed=3)
    raw = np.stack([env.observe(a)["observation"] for a in env.possible_agents]).astype(np.float32)
    with pytest.raises(CheckpointError, match="reset"):
        agent.value(raw)
    agent.reset(table_info(env, "scandal", "player_0"))
    x = pad_observation(raw, env.unwrapped.obs_spec, "scandal") * generic_scale("scandal")
    with torch.no_grad():
        want = net.value(torch.from_numpy(x)).numpy()
    got = agent.value(raw * agent.obs_scale)
    assert got.shape == (4,) and np.allclose(got, want, atol=1e-5)
    assert np.ptp(got) > 1e-3, "the four seats' values differ"


def test_an_actor_only_agent_has_no_value_and_says_so() -> None:
    shipped = make_agent("pretrained:scandal4", "scandal")  # shipped with its actor only
    assert not shipped.has_value
    with pytest.raises(CheckpointError, match="no critic"):
        shipped.value(np.zeros((1, shipped.meta.obs_size), np.float32))
    with pytest.raises(ConfigError, match="leaf=value"):
        make_agent("search:pretrained:scandal4:leaf=value", "scandal")
    with pytest.raises(ConfigError, match="leaf must be one of"):
        make_agent("search:pretrained:scandal2:leaf=critic", "scandal")


@pytest.mark.parametrize("name", ["scandal2", "scandal2_table"])
def test_pretrained_scandal2_ships_a_critic_of_the_hand_score(name: str) -> None:
    """It carries the critic its catalogue line names; a search reads it at the leaves."""
    agent = make_agent(f"pretrained:{name}", "scandal")
    assert agent.has_value and agent.meta.config["critic"]["critic_warmup"] > 0
    search = make_agent(f"search:pretrained:{name}:leaf=value", "scandal")
    assert search.leaf == "value"
    env = get_game("scandal").make(num_players=2)
    env.reset(seed=0)
    search.reset(table_info(env, "scandal", "player_0"), seed=0)
    agent.reset(table_info(env, "scandal", "player_0"))  # a size-generic one pads for its table
    values = agent.value(env.observe("player_0")["observation"][None] * search._scale())
    assert values.shape == (1,) and np.isfinite(values).all()
    assert -5.0 < float(values[0]) < 5.0, "a hand's net score / 100, at the deal"


def test_critic_values_map_each_hand_score_to_the_search_reward() -> None:
    engine = type("E", (), {"config": type("C", (), {"reward_scale": 100.0})()})()
    # 2 players: +100 and -50 points -> 0.5 +- 150 / 400
    got = scandal_value_score(engine, np.array([[1.0, -0.5], [0.0, 0.0]]))
    assert np.allclose(got, [[0.875, 0.125], [0.5, 0.5]])
    # 3 players: own minus the mean of the others, clipped to [0, 1]
    got = relative_score(np.array([[100.0, -100.0, 20.0], [300.0, -300.0, 0.0]]))
    assert np.allclose(got, [[0.85, 0.1, 0.55], [1.0, 0.0, 0.5]])


def _scandal_positions(num_players: int, moves: int, seed: int) -> tuple[Any, list[Any]]:
    """A real game of random legal moves: after each move, a copy of its state and
    every player's observation as the env shows it to that player."""
    env = get_game("scandal").make(num_players=num_players)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    positions = []
    for _ in range(moves):
        _o, _r, term, trunc, _i = env.last()
        if term or trunc:
            break
        env.step(int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
        seen = [env.observe(f"player_{p}")["observation"].copy() for p in range(num_players)]
        positions.append((env.unwrapped.game.clone(), seen))
    return env, positions


@pytest.mark.parametrize("num_players", [2, 3])
def test_critic_values_read_every_players_own_observation(num_players: int) -> None:
    env, positions = _scandal_positions(num_players, 12, seed=num_players)
    config = env.unwrapped.config
    rollouts = BatchedRollouts("scandal", config, "heuristic", 20, 5, {})
    weights = np.random.default_rng(3).normal(size=env.unwrapped.obs_spec.size) / 50.0

    def critic(obs: np.ndarray) -> np.ndarray:
        return np.asarray(obs, float) @ weights

    got = rollouts.critic_values([s for s, _seen in positions], critic)  # chunks of at most 5
    assert got.shape == (12, num_players)
    for row, (_state, seen) in zip(got, positions, strict=True):
        values = np.array([[critic(obs[None])[0] for obs in seen]])
        assert np.allclose(row, relative_score(values * config.reward_scale)[0])
    assert len({tuple(np.round(r, 9)) for r in got.tolist()}) > 1, "the leaves differ"


def test_a_finished_hand_is_scored_exactly_not_by_the_critic() -> None:
    env = get_game("scandal").make(num_players=2)
    env.reset(seed=11)
    rng = np.random.default_rng(11)
    while True:
        _o, _r, term, trunc, _i = env.last()
        if term or trunc:
            break
        env.step(int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
    config = env.unwrapped.config
    rollouts = BatchedRollouts("scandal", config, "heuristic", 20, 4, {})
    state = env.unwrapped.game.clone()
    got = rollouts.critic_values([state], lambda obs: np.full(obs.shape[0], 9.0))
    exact = rollouts.values([state], np.random.default_rng(0))  # nothing left to roll out
    assert np.array_equal(got, exact)
    assert np.array_equal(exact, scandal_score(rollouts.engine, 1, np.zeros((1, 2)))), (
        "the hand as the engine scores it"
    )
    assert not np.allclose(exact, 0.5), "a critic of equal values would have given 0.5 each"


def test_a_value_leaf_search_plays_a_legal_seeded_game(tmp_path: Path) -> None:
    path, _net = _agent_with_critic(tmp_path)
    spec = f"search:ppo:{path}:leaf=value,budget=6,batch=3"
    env = get_game("scandal").make(num_players=2)
    env.reset(seed=4)
    search = make_agent(spec, "scandal", seed=0)
    other = make_agent("heuristic", "scandal", seed=0)
    search.reset(table_info(env, "scandal", "player_0"), seed=0)
    other.reset(table_info(env, "scandal", "player_1"), seed=0)
    assert search.leaf == "value"
    assert np.array_equal(search._scale(), obs_scale(env.unwrapped.obs_spec))
    moves = 0
    for name in env.agent_iter():
        obs, _r, term, trunc, info = env.last()
        if term or trunc:
            break
        player = search if name == "player_0" else other
        action = player.act(obs["observation"], obs["action_mask"], info)
        assert obs["action_mask"][action]
        env.step(action)
        moves += 1
    assert moves > 10
