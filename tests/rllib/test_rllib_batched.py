"""RLlib env runners on the batched engines: the vector env's contract, the league, training.

The env tests need no Ray instance. The training test starts a small local
Ray (2 CPUs, one env runner of 32 games) and trains two tiny iterations.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="ray[rllib] is not installed")

import ray
import torch
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from cardsuite.agents.arena import run_tournament
from cardsuite.errors import ConfigError
from cardsuite.train.core.league import League
from cardsuite.train.core.netspec import Snapshot
from cardsuite.train.rllib import trainer
from cardsuite.train.rllib.batched import (
    build_batched,
    driver_league,
    kept,
    league_names,
    load_league,
    main_weights,
    save_league,
)
from cardsuite.train.rllib.batched_env import BatchedRLlibEnv, single_spaces
from cardsuite.train.rllib.config import load_run
from cardsuite.train.rllib.module import MaskedPPOTorchRLModule
from cardsuite.train.rllib.policy import RLlibAgent

GAMES = [
    ("scum", {"num_players": 4}, ("heuristic", "random")),
    ("scandal", {"max_hands": 1}, ("random",)),
    ("scum_party", {"num_players": 8, "num_hands": 1}, ("heuristic", "random")),
]
TINY = {
    "sampler": "batched",
    "num_env_runners": 1,
    "num_envs_per_env_runner": 32,
    "num_cpus_per_env_runner": 0.5,
    "train_batch_size": 512,
    "minibatch_size": 256,
    "num_epochs": 1,
    "hidden_size": 32,
    "hidden_layers": 1,
    "eval_episodes": 0,
    "league_every": 1,
    "league_size": 2,
}


def _legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.asarray((rng.random(mask.shape) * mask - (1 - mask)).argmax(axis=1))


@pytest.mark.parametrize(("game", "options", "baselines"), GAMES)
def test_next_step_autoreset_and_spaces(game: str, options: dict[str, Any], baselines: Any) -> None:
    """Spaces are the per-game env's; an ended game shows a zero mask, then its next game."""
    env = BatchedRLlibEnv(
        {"game": game, "options": options, "num_envs": 16, "baselines": baselines}
    )
    obs_space, act_space = single_spaces(game, options)
    assert env.single_observation_space == obs_space
    assert env.single_action_space == act_space
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=3)
    ended_before = np.zeros(16, dtype=bool)
    endings = 0
    for _ in range(400 if game == "scandal" else 150):
        acts = _legal(obs["action_mask"], rng)
        obs, _reward, term, trunc, _ = env.step(acts)
        done = term | trunc
        # The step after an ending starts the next game: not done, a decision to make.
        assert not (done & ended_before).any()
        assert (obs["action_mask"][ended_before].sum(axis=1) > 0).all()
        # An ending shows the all-zero terminal observation; others a live decision in space.
        assert (obs["action_mask"][done] == 0).all()
        live = ~done
        assert (obs["action_mask"][live].sum(axis=1) > 0).all()
        for i in np.flatnonzero(live)[:4]:
            assert obs_space.contains({k: v[i] for k, v in obs.items()})
        ended_before = done
        endings += int(done.sum())
    assert endings > 0


def test_scum_rewards_arrive_at_the_end_of_the_episode() -> None:
    """Scum rewards only at a game's end (scum_v0's), and the centered rewards sum to zero."""
    opts = {"num_players": 4, "reward": "centered"}
    env = BatchedRLlibEnv({"game": "scum", "options": opts, "num_envs": 32, "learner_seat": 0})
    rng = np.random.default_rng(1)
    obs, _ = env.reset(seed=5)
    for _ in range(200):
        obs, reward, term, trunc, _ = env.step(_legal(obs["action_mask"], rng))
        assert (reward[~(term | trunc)] == 0).all()
    assert env._returns.shape == (32, 4)


def test_league_snapshot_from_module_weights_plays_self_play_games() -> None:
    """A module's weights join the runner's league; self-play games then use the snapshot."""
    opts = {"num_players": 4}
    obs_space, act_space = single_spaces("scum", opts)
    config = {"hidden": [16], "activation": "relu"}
    module = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        observation_space=obs_space,
        action_space=act_space,
        model_config=config,
    ).build()
    weights = {k: v.detach().numpy() for k, v in module.state_dict().items()}  # type: ignore[attr-defined]
    env = BatchedRLlibEnv(
        {
            "game": "scum",
            "options": opts,
            "num_envs": 16,
            "league_prob": 0.0,
            "model_config": config,
            "league_size": 1,
        }
    )
    env.add_snapshot(weights, 7)
    env.add_snapshot(weights, 9)  # league_size 1: the older one leaves
    assert env.league_names() == ["heuristic", "random", "snapshot@9"]
    rng = np.random.default_rng(2)
    obs, _ = env.reset(seed=0)
    for _ in range(100):  # the engine raises IllegalActionError on any illegal opponent move
        obs, *_ = env.step(_legal(obs["action_mask"], rng))


def test_bad_env_config_and_baseline_are_named() -> None:
    """Unknown keys, a bad seat and an unknown baseline are ConfigErrors naming them."""
    with pytest.raises(ConfigError, match="bogus"):
        BatchedRLlibEnv({"game": "scum", "bogus": 1})
    with pytest.raises(ConfigError, match="learner_seat"):
        BatchedRLlibEnv({"game": "scum", "learner_seat": 9})
    with pytest.raises(ConfigError, match="ismcts"):
        BatchedRLlibEnv({"game": "scandal", "baselines": ["ismcts"]})
    with pytest.raises(ConfigError, match="sampler"):
        load_run(None, game="scum", sampler="vectorised")
    from cardsuite.train.rllib.batched import build_batched_config

    with pytest.raises(ConfigError, match="league_baselines: 'ismcts'"):
        build_batched_config(load_run(None, game="scandal", sampler="batched",
                                      league_baselines="heuristic,ismcts"))  # fmt: skip
    with pytest.raises(ConfigError, match="learner_seat: 4"):
        build_batched_config(load_run(None, game="scum", sampler="batched", learner_seat=4))


@pytest.mark.parametrize(("game", "players"), [("scum", 4), ("scum_party", 6), ("scandal", 2)])
def test_the_league_holds_the_real_heuristic_of_every_game(game: str, players: int) -> None:
    """RLlib trains against the heuristic the other trainers and the evaluator use (issue 20)."""
    from cardsuite.train.core.league import League
    from cardsuite.train.ppo_games import train_game

    env = BatchedRLlibEnv({"game": game, "options": {"num_players": players}, "num_envs": 4,
                           "baselines": ["heuristic", "random"]})  # fmt: skip
    assert type(env.league) is League
    member = {m.name: m for m in env.league.members}["heuristic"]
    tg = train_game(game)
    own = tg.baselines(["heuristic"], tg.make_engine(1, tg.config(players, {})), 0)["heuristic"]
    assert type(member.policy) is type(own)


def test_driver_league_round_trips_through_safetensors(tmp_path: Path) -> None:
    """The driver's League (the core class) keeps the newest snapshots by the core's rule;
    they are saved without pickle and load back equal, oldest first, with the scale."""
    league = driver_league(2)
    assert type(league) is League
    league.scale = np.full(3, 0.5, dtype=np.float32)
    for step in (1, 2, 3):
        league.add_snapshot(Snapshot(step, {"w": np.full((2, 3), step, np.float32)}, "tanh"))
    save_league(league, tmp_path)
    back = load_league(tmp_path, 2, {"activation": "relu"})
    assert type(back) is League and not back.retired
    assert [s.step for s in kept(back)] == [2, 3]
    assert [s.activation for s in kept(back)] == ["tanh", "tanh"]
    assert np.array_equal(kept(back)[1].params["w"], np.full((2, 3), 3, dtype=np.float32))
    assert np.array_equal(back.scale, league.scale)


def test_an_older_checkpoints_whole_module_league_loads_as_actor_snapshots(tmp_path: Path) -> None:
    """Before the driver kept core snapshots, league.safetensors held main's whole module:
    its actor becomes the Snapshot (same logits as the module's ``pi``), ``obs_scale`` the scale."""
    import json

    from cardsuite.train.safe_io import save_tensors

    rng = np.random.default_rng(0)
    w = {"obs_scale": rng.random(5).astype(np.float32),
         "pi.0.weight": rng.normal(size=(8, 5)).astype(np.float32),
         "pi.0.bias": rng.normal(size=8).astype(np.float32),
         "pi.2.weight": rng.normal(size=(3, 8)).astype(np.float32),
         "pi.2.bias": rng.normal(size=3).astype(np.float32),
         "vf.0.weight": np.zeros((8, 5), np.float32)}  # fmt: skip
    save_tensors(tmp_path / "league.safetensors", {f"0/{k}": v for k, v in w.items()})
    (tmp_path / "league.json").write_text(json.dumps({"steps": [4]}), encoding="utf-8")
    league = load_league(tmp_path, 2, {"hidden": [8], "activation": "relu"})
    (snap,) = kept(league)
    assert (snap.step, snap.activation) == (4, "relu")
    assert np.array_equal(league.scale, w["obs_scale"])
    x = rng.random((2, 5)).astype(np.float32)
    hidden = np.maximum(x @ w["pi.0.weight"].T + w["pi.0.bias"], 0.0)
    np.testing.assert_allclose(
        snap.logits(x), hidden @ w["pi.2.weight"].T + w["pi.2.bias"], rtol=1e-5, atol=1e-5
    )


@pytest.fixture()
def ray_local() -> Any:
    """A small local Ray instance for one test."""
    torch.set_num_threads(1)
    if ray.is_initialized():
        ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_batched_scum_trains_refreshes_the_league_and_is_an_arena_agent(
    ray_local: Any, tmp_path: Path
) -> None:
    """Two iterations on batched runners: snapshots reach the runner, the checkpoint plays."""
    run = load_run(None, game="scum", options={"num_players": 4}, iterations=2,
                   checkpoint_dir=str(tmp_path / "run"), **TINY)  # fmt: skip
    lines: list[str] = []
    ckpt = trainer.train(run, log=lines.append)
    text = "\n".join(lines)
    assert "iter 2/2" in text and "illegal actions 0" in text
    assert "snapshot of main at iteration 2" in text
    # The checkpoint holds the league (snapshots at 0, 1, 2; league_size 2 keeps 1 and 2).
    league = load_league(ckpt, 2, run.config.model_config())
    assert type(league) is League
    assert [s.step for s in kept(league)] == [1, 2]
    agent = RLlibAgent.load(ckpt, "scum", seed=0)
    assert agent.num_actions == 71
    result = run_tournament(
        "scum", [f"rllib:{ckpt}", "heuristic"], games=4, options={"num_players": 4}, seed=0
    )
    assert result is not None
    # Resume: the runners get the saved snapshots back.
    algo, _ = trainer.restore(run, tmp_path / "run")
    try:
        names = league_names(algo)
        assert names == [["heuristic", "random", "snapshot@1", "snapshot@2"]]
        assert set(main_weights(algo)) >= {"obs_scale", "pi.0.weight", "vf.0.weight"}
    finally:
        algo.stop()


@pytest.mark.slow
@pytest.mark.parametrize(("game", "options", "baselines"), GAMES[1:])
def test_batched_scandal_and_party_train(
    ray_local: Any, tmp_path: Path, game: str, options: dict[str, Any], baselines: Any
) -> None:
    """One iteration on Scandal and on Scum Party runners; the checkpoint loads as an agent.

    Scum Party samples with RLlib's own runner loop (``array_runner: false``).
    """
    run = load_run(None, game=game, options=options, iterations=1,
                   checkpoint_dir=str(tmp_path / game), league_baselines=",".join(baselines),
                   array_runner=game != "scum_party", **TINY)  # fmt: skip
    ckpt = trainer.train(run, log=lambda _: None)
    assert RLlibAgent.load(ckpt, game, seed=0).num_actions == single_spaces(game, options)[1].n
    assert build_batched is not None


@pytest.mark.parametrize(
    "name", ["rllib_scum_batched", "rllib_scandal_batched", "rllib_scum_party_batched"]
)
def test_shipped_batched_configs_build(name: str) -> None:
    """The shipped batched run files load and give RLlib's vector-entry-point PPO config."""
    from cardsuite.train.rllib.batched import build_batched_config

    run = load_run(Path(__file__).resolve().parents[2] / "configs" / "train" / f"{name}.yaml")
    assert run.config.sampler == "batched"
    config = build_batched_config(run)
    assert config.gym_env_vectorize_mode == "vector_entry_point"
    assert config.restart_failed_env_runners
    assert config.num_envs_per_env_runner == run.config.num_envs_per_env_runner


def test_array_runner_episodes_are_rllibs_episodes() -> None:
    """BatchedEnvRunner's chunks: valid RLlib episodes, legal actions, exact log-probs, continuations."""
    from cardsuite.train.rllib.batched import build_batched_config
    from cardsuite.train.rllib.batched_runner import BatchedEnvRunner

    torch.set_num_threads(1)
    run = load_run(None, game="scum", options={"num_players": 4, "reward": "centered"},
                   **{**TINY, "num_env_runners": 0, "num_envs_per_env_runner": 8})  # fmt: skip
    runner = BatchedEnvRunner(config=build_batched_config(run))
    first = runner.sample(num_timesteps=8 * 30)
    assert sum(len(e) for e in first) == 8 * 30
    for ep in first:
        ep.validate()
        assert ep.is_numpy
        obs = ep.get_observations(slice(0, len(ep)))
        acts = ep.get_actions(slice(0, len(ep)))
        assert (obs["action_mask"][np.arange(len(ep)), acts] == 1).all()  # legal actions only
        logits = torch.as_tensor(
            ep.get_extra_model_outputs("action_dist_inputs", slice(0, len(ep)))
        )
        logp = ep.get_extra_model_outputs("action_logp", slice(0, len(ep)))
        expect = torch.log_softmax(logits, -1)[torch.arange(len(ep)), torch.as_tensor(acts)]
        assert np.allclose(logp, expect.numpy(), atol=1e-5)
        if ep.is_terminated:
            assert ep.get_observations(-1)["action_mask"].sum() == 0  # the terminal observation
            rewards = ep.get_rewards(slice(0, len(ep)))
            assert (rewards[:-1] == 0).all()  # Scum pays at the end of the game only
    running = {e.id_: e for e in first if not e.is_done}
    assert len(running) == 8  # one running chunk per game
    second = runner.sample(num_timesteps=8 * 5)
    continued = [e for e in second if e.id_ in running]
    assert continued
    for ep in continued:
        before = running[ep.id_]
        assert ep.t_started == before.t_started + len(before)
        assert np.array_equal(ep.get_observations(0)["observation"],
                              before.get_observations(-1)["observation"])  # fmt: skip


def test_docs_list_every_config_field() -> None:
    """docs/rllib.md carries RLlibTrainConfig's own field table, so the two cannot drift."""
    from cardsuite.train.rllib.config import RLlibTrainConfig

    docs = (Path(__file__).resolve().parents[2] / "docs" / "rllib.md").read_text(encoding="utf-8")
    assert RLlibTrainConfig.doc_table() in docs


def test_array_runner_plays_exactly_like_rllibs_own_loop() -> None:
    """Differential: same weights, greedy actions, heuristic opponents: the same episodes.

    RLlib's ``SingleAgentEnvRunner`` (``NEXT_STEP`` env, one pass per game)
    and ``BatchedEnvRunner`` (``SAME_STEP``, arrays) sample the same env
    config; every finished episode, keyed by its first observation, has the
    same actions and rewards in both.
    """
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

    from cardsuite.train.rllib.batched import build_batched_config
    from cardsuite.train.rllib.batched_runner import BatchedEnvRunner

    torch.set_num_threads(1)
    run = load_run(None, game="scum", options={"num_players": 4}, sampler="batched", seed=3,
                   num_env_runners=0, num_envs_per_env_runner=8, league_prob=1.0,
                   league_baselines="heuristic", hidden_size=32, hidden_layers=1)  # fmt: skip
    config = build_batched_config(run)
    array, rllib = BatchedEnvRunner(config=config), SingleAgentEnvRunner(config=config)
    source: Any = array.module
    target: Any = rllib.module
    target.load_state_dict(source.state_dict())

    def finished(episodes: list[Any]) -> dict[bytes, tuple[Any, ...]]:
        out = {}
        for e in episodes:
            if e.is_terminated and e.t_started == 0:
                n = len(e)
                out[e.get_observations(0)["observation"].tobytes()] = (
                    e.get_actions(slice(0, n)).tolist(),
                    np.round(e.get_rewards(slice(0, n)), 5).tolist(),
                )
        return out

    a = finished(array.sample(num_timesteps=8 * 60, explore=False))
    b = finished(rllib.sample(num_timesteps=8 * 60, explore=False))
    assert len(a) >= 16 and a.keys() == b.keys()
    assert a == b


def test_overlapped_sampling_trains_from_the_previous_round(ray_local: Any) -> None:
    """overlap_sampling: every iteration trains on a round sampled beside the previous update."""
    run = load_run(None, game="scum", options={"num_players": 4}, iterations=3,
                   overlap_sampling=True, **{**TINY, "league_every": 0})  # fmt: skip
    algo, _ = build_batched(run)
    try:
        for _ in range(3):
            result = algo.train()
            assert algo.trained_rows == 512  # whole minibatches of the runner's round
            assert set(algo.phase_seconds) == {"sample", "learn", "sync"}
        assert algo._in_flight  # the next round is already sampling
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 3 * 512
    finally:
        algo.stop()
