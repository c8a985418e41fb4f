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

from cardsuite.agents.arena.tournament import run_tournament
from cardsuite.errors import ConfigError
from cardsuite.train.core.league import League
from cardsuite.train.rllib import trainer
from cardsuite.train.rllib.batched_env import BatchedRLlibEnv, single_spaces
from cardsuite.train.rllib.config import load_run
from cardsuite.train.rllib.league import (
    actor_snapshot,
    league_names,
    load_league,
    make_league,
    save_league,
    spec_scale,
    sync_league,
)
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


def _scum_module(hidden: list[int]) -> tuple[Any, dict[str, np.ndarray]]:
    """A fresh masked PPO module of 4-player Scum, and its weights as numpy."""
    obs_space, act_space = single_spaces("scum", {"num_players": 4})
    module = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        observation_space=obs_space,
        action_space=act_space,
        model_config={"hidden": hidden, "activation": "relu"},
    ).build()
    return module, {k: v.detach().numpy() for k, v in module.state_dict().items()}  # type: ignore[attr-defined]


def test_a_snapshot_of_the_module_gives_its_logits_and_plays_the_runners_games() -> None:
    """The module's actor as a core Snapshot (its obs scale folded into the first layer) gives
    the module's logits on core-scaled observations; a runner following the driver's League
    seats it (the newest snapshot: self-play games) and plays legal moves only."""
    module, weights = _scum_module([16])
    scale = spec_scale("scum", {"num_players": 4})
    snap = actor_snapshot(weights, 9, {"hidden": [16], "activation": "relu"}, scale)
    x = np.random.default_rng(0).random((5, scale.size)).astype(np.float32) * 10
    with torch.no_grad():
        want = module.pi(torch.from_numpy(x) * module.obs_scale).numpy()
    np.testing.assert_allclose(snap.logits(x * scale), want, rtol=1e-4, atol=1e-4)
    run = load_run(None, game="scum", options={"num_players": 4}, league_size=1, **{
        k: v for k, v in TINY.items() if k != "league_size"})  # fmt: skip
    league = make_league(run)
    league.add_snapshot(actor_snapshot(weights, 7, run.config.model_config(), scale))
    league.add_snapshot(snap)  # league_size 1: the older one leaves
    env = BatchedRLlibEnv({"game": "scum", "options": {"num_players": 4}, "num_envs": 16,
                           "league_prob": 0.0, "league_size": 1})  # fmt: skip
    env.set_table(league.seat_table())
    assert env.league_names() == ["heuristic", "random", "snapshot@9"]
    assert [m.id for m in env.league.members] == [m.id for m in league.members]
    rng = np.random.default_rng(2)
    obs, _ = env.reset(seed=0)
    for _ in range(100):  # the engine raises IllegalActionError on any illegal opponent move
        obs, *_ = env.step(_legal(obs["action_mask"], rng))


class _Group:
    """An env runner group of fake runners (``foreach_env_runner`` runs the call on each)."""

    def __init__(self, runners: list[Any]) -> None:
        self.runners = runners

    def foreach_env_runner(self, fn: Any, local_env_runner: bool = True, **kw: Any) -> list[Any]:
        return [fn(r) for r in self.runners]


class _Runner:
    def __init__(self, env: Any) -> None:
        self.env = env


class _Learners:
    def __init__(self, weights: dict[str, np.ndarray]) -> None:
        self.weights = weights

    def get_weights(self, module_ids: list[str]) -> dict[str, Any]:
        return {module_ids[0]: self.weights}


def test_the_driver_merges_both_runners_outcomes_and_sends_its_table_back() -> None:
    """Two runners' league games (their outcome deltas) sum into the driver's League; the
    League's table (PFSP weights from every runner's games, the new snapshot) goes back."""
    run = load_run(None, game="scum", options={"num_players": 4}, **TINY)
    league = make_league(run)
    league.decay = 1.0  # counts add up exactly
    envs = [BatchedRLlibEnv({"game": "scum", "options": {"num_players": 4}, "num_envs": 8,
                             "league_prob": 1.0, "seed": s}) for s in (1, 2)]  # fmt: skip
    rng = np.random.default_rng(3)
    for env in envs:
        obs, _ = env.reset(seed=0)
        for _ in range(150):
            obs, *_ = env.step(_legal(obs["action_mask"], rng))
    each = [np.concatenate(env._done_ids) for env in envs]
    counts = {m.name: sum(int((ids == m.id).sum()) for ids in each) for m in league.members}
    assert all(ids.size for ids in each) and all(counts.values())  # games on both, vs both
    _, weights = _scum_module([32])
    algo = type("Algo", (), {})()
    algo.env_runner_group = _Group([_Runner(env) for env in envs])
    algo.learner_group = _Learners(weights)
    games = sync_league(algo, run, league, step=5)
    assert games == sum(counts.values())
    for m in league.members[:2]:
        assert m.games == pytest.approx(2.0 + counts[m.name])
    assert [m.name for m in league.members] == ["heuristic", "random", "snapshot@5"]
    for env in envs:  # the runners draw by the League's weights now, not their own
        assert env.league_names() == ["heuristic", "random", "snapshot@5"]
        np.testing.assert_allclose(env.league.probabilities(), league.probabilities())
        assert env.take_outcomes()[0].size == 0  # taken once


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
    from cardsuite.train.core.games import train_game
    from cardsuite.train.core.league import League

    env = BatchedRLlibEnv({"game": game, "options": {"num_players": players}, "num_envs": 4,
                           "baselines": ["heuristic", "random"]})  # fmt: skip
    assert type(env.league) is League
    member = {m.name: m for m in env.league.members}["heuristic"]
    tg = train_game(game)
    own = tg.baselines(["heuristic"], tg.make_engine(1, tg.config(players, {})), 0)["heuristic"]
    assert type(member.policy) is type(own)


def test_the_league_round_trips_through_the_core_format(tmp_path: Path) -> None:
    """league.json holds League.state (ids, PFSP counts, RNG), league.safetensors the
    snapshots: the loaded League draws, weighs and plays exactly as the saved one."""
    run = load_run(None, game="scum", options={"num_players": 4}, **TINY)
    league = make_league(run)
    _, weights = _scum_module([32])
    scale = spec_scale("scum", {"num_players": 4})
    for step in (1, 2, 3):  # league_size 2 keeps 2 and 3
        league.add_snapshot(actor_snapshot(weights, step, run.config.model_config(), scale))
    league.record(np.array([0, 0, 4]), np.array([0.0, 0.5, 1.0]))
    save_league(league, tmp_path)
    back = load_league(tmp_path, run)
    assert type(back) is League and back.describe() == league.describe()
    assert [m.id for m in back.members] == [m.id for m in league.members]
    assert np.array_equal(back.draw(50), league.draw(50))
    x = np.random.default_rng(0).random((3, scale.size)).astype(np.float32)
    np.testing.assert_array_equal(
        back.members[-1].snapshot.logits(x),  # type: ignore[union-attr]
        league.members[-1].snapshot.logits(x),
    )  # type: ignore[union-attr]


def test_an_older_checkpoints_league_loads_as_core_snapshots(tmp_path: Path) -> None:
    """cardsuite 0.4 kept only a batched run's snapshots (whole modules, or actors with the
    module's scale): they load as core Snapshots giving the module's logits."""
    import json

    from cardsuite.agents.learned.safe_io import save_tensors

    module, w = _scum_module([8])
    run = load_run(None, game="scum", options={"num_players": 4}, hidden_size=8, hidden_layers=1,
                   **{k: v for k, v in TINY.items() if not k.startswith("hidden")})  # fmt: skip
    scale = spec_scale("scum", {"num_players": 4})
    x = np.random.default_rng(1).random((2, scale.size)).astype(np.float32) * 5
    with torch.no_grad():
        want = module.pi(torch.from_numpy(x) * module.obs_scale).numpy()
    actor = {k[3:]: v for k, v in w.items() if k.startswith("pi.")}
    for doc, tensors in (
        ({"steps": [4]}, {f"0/{k}": v for k, v in w.items()}),
        ({"steps": [4], "actor": True, "activation": "relu"},
         {**{f"0/{k}": v for k, v in actor.items()}, "scale": w["obs_scale"]}),
    ):  # fmt: skip
        save_tensors(tmp_path / "league.safetensors", tensors)
        (tmp_path / "league.json").write_text(json.dumps(doc), encoding="utf-8")
        league = load_league(tmp_path, run)
        (snap,) = league.snapshots()
        assert (snap.step, snap.activation) == (4, "relu")
        np.testing.assert_allclose(snap.logits(x * scale), want, rtol=1e-4, atol=1e-4)


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
    league = load_league(ckpt, run)
    assert [m.name for m in league.members] == ["heuristic", "random", "snapshot@1", "snapshot@2"]
    agent = RLlibAgent.load(ckpt, "scum", seed=0)
    assert agent.meta.num_actions == 71
    result = run_tournament(
        "scum", [f"rllib:{ckpt}", "heuristic"], games=4, options={"num_players": 4}, seed=0
    )
    assert result is not None
    # Resume: the runners get the saved snapshots back.
    algo, _ = trainer.restore(run, tmp_path / "run")
    try:
        names = league_names(algo)
        assert names == [["heuristic", "random", "snapshot@1", "snapshot@2"]]
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
    assert RLlibAgent.load(ckpt, game, seed=0).meta.num_actions == single_spaces(game, options)[1].n


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
    league = make_league(run)
    algo = trainer.build(run, league)
    sync_league(algo, run, league, 0)
    try:
        for _ in range(3):
            result = algo.train()
            assert algo.trained_rows == 512  # whole minibatches of the runner's round
            assert set(algo.phase_seconds) == {"sample", "learn", "sync"}
        assert algo._in_flight  # the next round is already sampling
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 3 * 512
    finally:
        algo.stop()
