"""RLlib env runners on the batched engines: the games' contract, the league, training.

The env tests need no Ray instance. The training tests start a small local
Ray (2 CPUs, one env runner of 32 games) and train two tiny iterations.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="ray[rllib] is not installed")

import ray
import torch
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from cardsuite.agents.arena.tournament import run_tournament
from cardsuite.agents.learned.rllib import RLlibAgent, actor_snapshot, spec_scale
from cardsuite.agents.learned.safe_io import save_tensors
from cardsuite.errors import ConfigError
from cardsuite.train.core.league import League
from cardsuite.train.rllib import trainer
from cardsuite.train.rllib.algorithm import ppo_config
from cardsuite.train.rllib.batched_env import BatchedRLlibEnv, single_spaces
from cardsuite.train.rllib.batched_runner import BatchedEnvRunner
from cardsuite.train.rllib.config import load_config
from cardsuite.train.rllib.league import make_league, runner_envs, sync_league
from cardsuite.train.rllib.legacy import load_league
from cardsuite.train.rllib.module import MaskedPPOTorchRLModule

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
    "update_epochs": 1,
    "hidden": 32,
    "layers": 1,
    "eval_deals": 0,
    "snapshot_every": 512,
    "max_snapshots": 2,
}


def _legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.asarray((rng.random(mask.shape) * mask - (1 - mask)).argmax(axis=1))


def _tick(env: BatchedRLlibEnv, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """One tick of every game, the learners playing random legal moves."""
    return env.tick(_legal(env.current_obs()["action_mask"], rng))


@pytest.mark.parametrize(("game", "options", "baselines"), GAMES)
def test_spaces_learner_turns_and_restarts(
    game: str, options: dict[str, Any], baselines: Any
) -> None:
    """Spaces are the per-game env's; the learner's observations lie in them; games end and
    restart inside the step; the terminal observation is all zeros."""
    env = BatchedRLlibEnv({"game": game, "options": options, "num_envs": 16,
                           "baselines": list(baselines)})  # fmt: skip
    obs_space, act_space = single_spaces(game, options)
    assert (env.single_observation_space, env.single_action_space) == (obs_space, act_space)
    zero = env.terminal_obs()
    assert not zero["observation"].any() and not zero["action_mask"].any()
    rng = np.random.default_rng(0)
    env.reset(seed=3)
    endings = 0
    for _ in range(600 if game == "scandal" else 200):
        ready = env.learner_ready()
        obs = env.current_obs()
        assert (obs["action_mask"].sum(axis=1) > 0).all()  # every game has a decision
        for i in np.flatnonzero(ready)[:3]:
            assert obs_space.contains({k: v[i] for k, v in obs.items()})
        _, done, _ = _tick(env, rng)
        endings += int(done.sum())
    assert endings > 0


def test_scum_rewards_arrive_at_the_end_of_the_episode() -> None:
    """Scum pays the learner only when its game ends (scum_v0's rewards)."""
    opts = {"num_players": 4, "reward": "centered"}
    env = BatchedRLlibEnv({"game": "scum", "options": opts, "num_envs": 32, "learner_seat": 0})
    rng = np.random.default_rng(1)
    env.reset(seed=5)
    paid = 0
    for _ in range(300):
        reward, done, _ = _tick(env, rng)
        assert (reward[~done] == 0).all()
        paid += int((reward[done] != 0).sum())
    assert paid > 0


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
    snap = actor_snapshot(weights, 9, "relu", scale)
    x = np.random.default_rng(0).random((5, scale.size)).astype(np.float32) * 10
    with torch.no_grad():
        want = module.pi(torch.from_numpy(x) * module.obs_scale).numpy()
    np.testing.assert_allclose(snap.logits(x * scale), want, rtol=1e-4, atol=1e-4)
    league = make_league(
        load_config(None, game="scum", num_players=4, **{**TINY, "max_snapshots": 1})
    )
    league.add_snapshot(actor_snapshot(weights, 7, "relu", scale))
    league.add_snapshot(snap)  # max_snapshots 1: the older one leaves
    env = BatchedRLlibEnv({"game": "scum", "options": {"num_players": 4}, "num_envs": 16,
                           "self_play": 1.0, "max_snapshots": 1})  # fmt: skip
    env.set_table(league.seat_table())
    assert [m.name for m in env.table] == ["heuristic", "random", "snapshot@9"]
    assert [m.id for m in env.league.members] == [m.id for m in league.members]
    rng = np.random.default_rng(2)
    env.reset(seed=0)
    for _ in range(100):  # the engine raises IllegalActionError on any illegal opponent move
        _tick(env, rng)


class _Group:
    """An env runner group of fake runners (``foreach_env_runner`` runs the call on each)."""

    def __init__(self, runners: list[Any]) -> None:
        self.runners = runners

    def foreach_env_runner(self, fn: Any, local_env_runner: bool = True, **kw: Any) -> list[Any]:
        return [fn(r) for r in self.runners]


def test_the_driver_merges_both_runners_outcomes_and_sends_its_table_back() -> None:
    """Two runners' league games sum into the driver's League; the League's table (PFSP
    weights from every runner's games, the new snapshot) goes back."""
    league = make_league(load_config(None, game="scum", num_players=4, **TINY))
    league.decay = 1.0  # counts add up exactly
    envs = [BatchedRLlibEnv({"game": "scum", "options": {"num_players": 4}, "num_envs": 8,
                             "self_play": 0.0, "seed": s}) for s in (1, 2)]  # fmt: skip
    rng = np.random.default_rng(3)
    for env in envs:
        env.reset(seed=0)
        for _ in range(300):
            _tick(env, rng)
    each = [np.concatenate([ids for ids, _ in env._done]) for env in envs]
    counts = {m.name: sum(int((ids == m.id).sum()) for ids in each) for m in league.members}
    assert all(ids.size for ids in each) and all(counts.values())  # games on both, vs both
    algo = type("Algo", (), {})()
    algo.env_runner_group = _Group([type("Runner", (), {"env": env})() for env in envs])
    snap = actor_snapshot(_scum_module([32])[1], 5, "relu", spec_scale("scum", {"num_players": 4}))
    assert sync_league(algo, league, snap) == sum(counts.values())
    for m in league.members[:2]:
        assert m.games == pytest.approx(2.0 + counts[m.name])
    assert [m.name for m in league.members] == ["heuristic", "random", "snapshot@5"]
    for env in envs:  # the runners draw by the League's weights now, not their own
        assert [m.name for m in env.table] == ["heuristic", "random", "snapshot@5"]
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
        load_config(None, game="scum", sampler="vectorised")
    with pytest.raises(ConfigError, match="baselines: 'ismcts'"):
        load_config(None, game="scandal", sampler="batched", baselines="heuristic,ismcts")
    with pytest.raises(ConfigError, match="learner_seat: 4 is not a seat"):
        load_config(None, game="scum", sampler="batched", learner_seat=4)


@pytest.mark.parametrize(("game", "players"), [("scum", 4), ("scum_party", 6), ("scandal", 2)])
def test_the_league_holds_the_real_heuristic_of_every_game(game: str, players: int) -> None:
    """RLlib trains against the heuristic the other trainers and the evaluator use (issue 20)."""
    from cardsuite.train.core.games import train_game

    env = BatchedRLlibEnv({"game": game, "options": {"num_players": players}, "num_envs": 4,
                           "baselines": ["heuristic", "random"]})  # fmt: skip
    assert type(env.league) is League
    member = {m.name: m for m in env.league.members}["heuristic"]
    tg = train_game(game)
    own = tg.baselines(["heuristic"], tg.make_engine(1, tg.config(players, {})), 0)["heuristic"]
    assert type(member.policy) is type(own)


def test_the_league_round_trips_through_the_checkpoint(tmp_path: Path) -> None:
    """state.json holds League.state (ids, PFSP counts, RNG), league/*.safetensors the
    snapshots: the loaded League draws, weighs and plays exactly as the saved one."""
    config = load_config(None, game="scum", num_players=4, **TINY)
    league = make_league(config)
    _, weights = _scum_module([32])
    scale = spec_scale("scum", {"num_players": 4})
    for step in (1, 2, 3):  # max_snapshots 2 keeps 2 and 3
        league.add_snapshot(actor_snapshot(weights, step, "relu", scale))
    league.record(np.array([0, 0, 4]), np.array([0.0, 0.5, 1.0]))
    state = {"step": 3, "iteration": 3, "due": {"snapshot": 4}, "history": [], "illegal_actions": 0}
    trainer.save_run(config, tmp_path, weights, league, state)
    back = make_league(config)
    saved, module = trainer.read_run(tmp_path, config, back)
    assert (saved["step"], saved["due"]) == (3, {"snapshot": 4}) and set(module) == set(weights)
    assert type(back) is League and back.describe() == league.describe()
    assert [m.id for m in back.members] == [m.id for m in league.members]
    assert np.array_equal(back.draw(50), league.draw(50))
    x = np.random.default_rng(0).random((3, scale.size)).astype(np.float32)
    np.testing.assert_array_equal(
        back.members[-1].snapshot.logits(x),  # type: ignore[union-attr]
        league.members[-1].snapshot.logits(x),  # type: ignore[union-attr]
    )


def test_an_older_checkpoints_league_loads_as_core_snapshots(tmp_path: Path) -> None:
    """Older checkpoints kept a League state (snapshots keyed ``snapshot-N/``), or before that
    only a batched run's snapshots (whole modules, or actors with the module's scale): all
    load as core Snapshots giving the module's logits."""
    module, w = _scum_module([8])
    config = load_config(None, game="scum", num_players=4, **{**TINY, "hidden": 8})
    scale = spec_scale("scum", {"num_players": 4})
    x = np.random.default_rng(1).random((2, scale.size)).astype(np.float32) * 5
    with torch.no_grad():
        want = module.pi(torch.from_numpy(x) * module.obs_scale).numpy()
    actor = {k[3:]: v for k, v in w.items() if k.startswith("pi.")}
    saved = make_league(config)
    saved.add_snapshot(actor_snapshot(w, 4, "relu", scale))
    for doc, tensors in (
        ({"steps": [4]}, {f"0/{k}": v for k, v in w.items()}),
        ({"steps": [4], "actor": True, "activation": "relu"},
         {**{f"0/{k}": v for k, v in actor.items()}, "scale": w["obs_scale"]}),
        ({"state": saved.state(), "activation": "relu"},
         {f"snapshot-4/{k}": v for k, v in saved.snapshots()[0].params.items()}),
    ):  # fmt: skip
        save_tensors(tmp_path / "league.safetensors", tensors)
        (tmp_path / "league.json").write_text(json.dumps(doc), encoding="utf-8")
        league = load_league(tmp_path, config)
        (snap,) = league.snapshots()
        assert (snap.step, snap.activation) == (4, "relu")
        np.testing.assert_allclose(snap.logits(x * scale), want, rtol=1e-4, atol=1e-4)


@pytest.fixture()
def ray_local() -> Any:
    """A small local Ray instance for one test."""
    torch.set_num_threads(1)
    if ray.is_initialized():
        ray.shutdown()
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_batched_scum_trains_refreshes_the_league_and_is_an_arena_agent(
    ray_local: Any, tmp_path: Path
) -> None:
    """Two iterations on batched runners: snapshots reach the runner, the run plays."""
    run_dir = tmp_path / "run"
    config = load_config(None, game="scum", num_players=4, total_steps=1024,
                         run_dir=str(run_dir), **TINY)  # fmt: skip
    lines: list[str] = []
    result = trainer.train(config, log=lines.append)
    text = "\n".join(lines)
    assert "iter 2/2" in text and "illegal actions 0" in text
    assert f"snapshot of main at step {result['step']}" in text
    step = json.loads((run_dir / "checkpoint" / "state.json").read_text())["step"]
    league = make_league(config)  # snapshots at 0, ~512, ~1024: max_snapshots 2 keeps two
    trainer.read_run(run_dir, config, league)
    names = [m.name for m in league.members]
    assert names[:2] == ["heuristic", "random"] and names[-1] == f"snapshot@{step}"
    assert len(names) == 4
    agent = RLlibAgent.load(run_dir, "scum", seed=0)
    assert agent.meta.num_actions == 71
    result = run_tournament(
        "scum", [f"rllib:{run_dir}", "heuristic"], games=4, options={"num_players": 4}, seed=0
    )
    assert result is not None
    # Resume: the runners get the saved snapshots back.
    tr = trainer.Trainer(load_config(None, game="scum", num_players=4, total_steps=2048,
                                     resume=str(run_dir), **TINY))  # fmt: skip
    try:
        tables = tr.algo.env_runner_group.foreach_env_runner(
            lambda r: [m.name for m in runner_envs(r)[0].table], local_env_runner=False
        )
        assert tables == [names]
    finally:
        tr.close()


@pytest.mark.slow
@pytest.mark.parametrize(("game", "options", "baselines"), GAMES[1:])
def test_batched_scandal_and_party_train(
    ray_local: Any, tmp_path: Path, game: str, options: dict[str, Any], baselines: Any
) -> None:
    """One iteration on Scandal and on Scum Party runners; the run loads as an agent."""
    config = load_config(None, game=game, options=options, total_steps=512,
                         run_dir=str(tmp_path / game), baselines=",".join(baselines), **TINY)  # fmt: skip
    trainer.train(config, log=lambda _: None)
    agent = RLlibAgent.load(tmp_path / game, game, seed=0)
    assert agent.meta.num_actions == single_spaces(game, options)[1].n


@pytest.mark.parametrize(
    "name", ["rllib_scum_batched", "rllib_scandal_batched", "rllib_scum_party_batched"]
)
def test_shipped_batched_configs_build(name: str) -> None:
    """The shipped batched run files load and give a PPO config on the batched runners."""
    path = Path(__file__).resolve().parents[2] / "configs" / "train" / f"{name}.yaml"
    config = load_config(str(path))
    assert config.sampler == "batched"
    ppo = ppo_config(config, make_league(config))
    assert ppo.env_runner_cls is BatchedEnvRunner and ppo.restart_failed_env_runners
    assert ppo.num_envs_per_env_runner == config.num_envs_per_env_runner
    assert ppo.num_epochs == config.update_epochs and ppo.clip_param == config.clip_coef


def test_docs_list_every_config_field() -> None:
    """docs/rllib.md carries RLlibTrainConfig's own field table, so the two cannot drift."""
    from cardsuite.train.rllib.config import RLlibTrainConfig

    docs = (Path(__file__).resolve().parents[2] / "docs" / "rllib.md").read_text(encoding="utf-8")
    assert RLlibTrainConfig.doc_table() in docs
