"""The top-level API, used as a newcomer would: ``import cardsuite`` and four calls.

``cardsuite.make``, ``make_vec``, ``load_agent``, ``tournament`` and the
Gymnasium ids of the single-seat envs (issue 23). Everything here runs on the
core install (numpy only); the torch backend is checked where torch is present.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import cardsuite
from cardsuite.agents.arena.results import TournamentResult
from cardsuite.agents.arena.tournament import run_tournament
from cardsuite.errors import ConfigError

GAMES = {"scum": 4, "scum_party": 8, "scandal": 2}  # game -> its default table size


def test_import_cardsuite_stays_light() -> None:
    """No game, agent, training module nor torch is imported by ``import cardsuite``."""
    code = (
        "import sys, cardsuite\n"
        "heavy = [m for m in sys.modules if m.split('.')[0] in "
        "('scum_env', 'scandal_env', 'torch', 'ray', 'stable_baselines3') "
        "or m.startswith(('cardsuite.agents', 'cardsuite.train'))]\n"
        "print(heavy)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("game", sorted(GAMES))
def test_make_is_the_registered_aec_env_with_the_options(game: str) -> None:
    players = GAMES[game] + 1
    env = cardsuite.make(game, num_players=players)
    env.reset(seed=0)
    assert env.possible_agents == [f"player_{i}" for i in range(players)]
    obs = env.observe(env.agent_selection)
    assert (
        obs["observation"].shape == env.observation_space(env.agent_selection)["observation"].shape
    )
    assert obs["action_mask"].any()


def test_make_names_a_wrong_option_and_a_wrong_game() -> None:
    with pytest.raises(ConfigError, match="carousle"):
        cardsuite.make("scum", carousle=True)
    with pytest.raises(ConfigError, match="unknown game 'poker'"):
        cardsuite.make("poker")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_make_vec_is_the_batched_engine_with_the_env_layout(game: str) -> None:
    env = cardsuite.make(game)
    env.reset(seed=0)
    space = env.observation_space(env.agent_selection)
    engine = cardsuite.make_vec(game, 3)
    obs, mask, to_act = engine.reset(seed=0)
    assert engine.num_games == 3
    assert obs.shape == (3, *space["observation"].shape)
    assert mask.shape == (3, *space["action_mask"].shape)
    assert to_act.shape == (3,)
    res = engine.step(np.array([int(np.flatnonzero(m)[0]) for m in mask]))
    assert res.rewards.shape == (3, engine.num_players)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_make_vec_torch_deals_what_numpy_deals(game: str) -> None:
    """docs/batched.md: both backends play identical games for the same seed."""
    pytest.importorskip("torch")
    obs_np, mask_np, act_np = cardsuite.make_vec(game, 4).reset(seed=5)
    obs_t, mask_t, act_t = cardsuite.make_vec(game, 4, backend="torch").reset(seed=5)
    np.testing.assert_array_equal(obs_np, obs_t.cpu().numpy())
    np.testing.assert_array_equal(mask_np, mask_t.cpu().numpy())
    np.testing.assert_array_equal(act_np, act_t.cpu().numpy())


def test_make_vec_with_a_learner_is_a_gymnasium_vector_env() -> None:
    venv = cardsuite.make_vec("scum", 5, learner=2, num_players=5)
    assert isinstance(venv, gymnasium.vector.VectorEnv)
    obs, _info = venv.reset(seed=0)
    assert obs.shape == (5, *venv.single_observation_space.shape)
    masks = venv.action_masks()
    obs, rewards, terminated, truncated, _info = venv.step(
        np.array([int(np.flatnonzero(m)[0]) for m in masks])
    )
    assert rewards.shape == terminated.shape == truncated.shape == (5,)


def test_make_vec_refuses_bad_arguments_by_name() -> None:
    with pytest.raises(ConfigError, match="backend must be 'numpy' or 'torch', got 'jax'"):
        cardsuite.make_vec("scum", 4, backend="jax")
    with pytest.raises(ConfigError, match="num_games must be a positive integer, got 0"):
        cardsuite.make_vec("scum", 0)
    with pytest.raises(ConfigError, match="opponents play the other seats"):
        cardsuite.make_vec("scum", 4, opponents=object())
    with pytest.raises(ConfigError, match="learner must be a player id from 0 to 3, got 4"):
        cardsuite.make_vec("scum", 4, learner=4)


@pytest.mark.parametrize(
    ("spec", "game", "players"),
    [
        ("pretrained:scum4", "scum", 4),
        ("pretrained:scandal2", "scandal", 2),
        ("heuristic", "scum_party", 8),
        ("ismcts:budget=8", "scum", 4),
    ],
)
def test_load_agent_is_ready_to_act_legally(spec: str, game: str, players: int) -> None:
    env = cardsuite.make(game, num_players=players)
    env.reset(seed=3)
    seat = env.agent_selection
    agent = cardsuite.load_agent(spec, game, seat=seat, seed=0, num_players=players)
    obs = env.observe(seat)
    info = {"agent": seat, **env.infos[seat]}
    action = agent.act(obs["observation"], obs["action_mask"], info)
    assert obs["action_mask"][action] == 1


def test_load_agent_names_a_wrong_seat_and_a_wrong_spec() -> None:
    with pytest.raises(ConfigError, match="seat 7 is not at this table"):
        cardsuite.load_agent("random", "scum", seat=7)
    with pytest.raises(ConfigError, match="no pretrained agent 'scum5'"):
        cardsuite.load_agent("pretrained:scum5", "scum")


def test_tournament_returns_the_results_of_the_named_agents() -> None:
    result = cardsuite.tournament(
        "scum", ["heuristic", "random"], games=2, duplicate=True, num_players=4
    )
    assert isinstance(result, TournamentResult)
    assert result.names == ["heuristic", "random"]
    assert result.seats == 4
    assert result.options["num_players"] == 4
    same = run_tournament("scum", ["heuristic", "random"], games=2, duplicate=True, players=4)
    assert result.to_dict() == same.to_dict()


def test_run_tournament_takes_num_players_like_the_config_field() -> None:
    result = run_tournament("scandal", ["random", "greedy"], games=1, num_players=3)
    assert result.seats == 3
    with pytest.raises(ConfigError, match="players=4 contradicts num_players=5"):
        run_tournament("scum", ["random", "greedy"], games=1, players=4, num_players=5)


@pytest.mark.parametrize(
    ("env_id", "game"),
    [
        ("cardsuite/ScumSingle-v0", "scum"),
        ("cardsuite/ScumPartySingle-v0", "scum_party"),
        ("cardsuite/ScandalSingle-v0", "scandal"),
    ],
)
def test_gymnasium_ids_make_single_seat_envs_that_pass_the_checker(env_id: str, game: str) -> None:
    assert cardsuite.api.gymnasium_ids()[game] == env_id
    env = gymnasium.make(env_id, opponents="heuristic")
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert set(info["opponents"].values()) == {"heuristic"}
    mask = env.unwrapped.action_masks()
    _obs, reward, _term, _trunc, _info = env.step(int(np.flatnonzero(mask)[0]))
    assert isinstance(reward, float)


def test_the_single_seat_env_takes_rule_options_and_refuses_unknown_opponents() -> None:
    env = gymnasium.make("cardsuite/ScumSingle-v0", num_players=6, learner_seat=5)
    _obs, info = env.reset(seed=1)
    assert info["learner"] == "player_5"
    with pytest.raises(ConfigError, match="opponents: unknown kind 'expert'"):
        gymnasium.make("cardsuite/ScandalSingle-v0", opponents="expert")


def test_presets_are_read_by_name_and_options_win_over_them() -> None:
    assert len(cardsuite.make("scum", preset="six_players").possible_agents) == 6
    env = cardsuite.make("scum", preset="scum/six_players", num_players=5)
    assert len(env.possible_agents) == 5
    assert cardsuite.make_vec("scum", 2, preset="six_players").num_players == 6
    result = cardsuite.tournament("scandal", ["random", "greedy"], games=1, preset="four_players")
    assert result.seats == 4
    with pytest.raises(ConfigError, match="seven_players"):
        cardsuite.make("scum", preset="seven_players")


def test_sb3_maskable_ppo_trains_on_a_registered_id(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The SB3 user's path: gymnasium.make(id) straight into MaskablePPO (train extra)."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path))  # SB3's default logger folder, not /tmp
    env = gymnasium.make("cardsuite/ScandalSingle-v0", opponents="heuristic")
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0)
    model.learn(32)
    obs, _info = env.reset(seed=1)
    mask = env.unwrapped.action_masks()
    action, _state = model.predict(obs, action_masks=mask, deterministic=True)
    assert mask[int(action)]
