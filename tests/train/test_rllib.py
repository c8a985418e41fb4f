"""Ray RLlib backend: env wrapper, masked module, league mapping, smoke training, reload.

Skipped as a whole when ray[rllib] is not installed. Ray runs with 2 CPUs,
one env runner, torch on one thread; the file takes well under a minute.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip(
    "ray.rllib", reason="ray[rllib] is not installed (pip install 'cardsuite[rllib]')"
)

import gymnasium as gym
import ray
import torch
from pettingzoo import AECEnv
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner

from cardsuite.agents.base import table_info
from cardsuite.agents.learned.rllib import RLlibAgent
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.train.rllib import config as rllib_config
from cardsuite.train.rllib import trainer
from cardsuite.train.rllib.algorithm import module_spec, ppo_config
from cardsuite.train.rllib.config import ILLEGAL_ACTIONS, load_config
from cardsuite.train.rllib.env import EarlyTerminationError, SuiteRLlibEnv, make_aec_env
from cardsuite.train.rllib.league import make_league
from cardsuite.train.rllib.module import MASKED_LOGIT, MaskedPPOTorchRLModule

REPO = Path(__file__).resolve().parents[2]
TINY = {
    "train_batch_size": 256,
    "minibatch_size": 128,
    "update_epochs": 1,
    "hidden": 32,
    "layers": 1,
    "eval_deals": 0,
    "num_env_runners": 1,
    "num_cpus_per_env_runner": 0.5,
}


def _game_available(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


needs_scandal = pytest.mark.skipif(
    not _game_available("scandal_env.scandal_v0"), reason="scandal_env.scandal_v0 not built yet"
)
needs_party = pytest.mark.skipif(
    not _game_available("scum_env.scum_party_v0"), reason="scum_env.scum_party_v0 not built yet"
)


@pytest.fixture(scope="module")
def ray_session() -> Any:
    """A small local Ray instance shared by the training tests."""
    torch.set_num_threads(1)
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


# ------------------------------------------------------------------ env
def _play(env: SuiteRLlibEnv, episodes: int, seed: int) -> None:
    """Random legal play asserting the contract RLlib relies on."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    for _ in range(episodes):
        seen = set(obs)
        while True:
            assert len(obs) == 1
            ((agent, o),) = obs.items()
            legal = np.flatnonzero(o["action_mask"])
            assert legal.size > 0
            obs, rewards, term, trunc, _ = env.step({agent: int(rng.choice(legal))})
            if term["__all__"] or trunc["__all__"]:
                break
            assert not any(v for k, v in term.items() if k != "__all__")
            seen |= set(obs)
        # Everyone ends together, each with a last observation and reward.
        assert set(obs) == set(env.possible_agents)
        assert all(term[a] or trunc[a] for a in env.possible_agents)
        assert set(rewards) == set(env.possible_agents)
        assert seen == set(env.possible_agents)
        obs, _ = env.reset()


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("scum", {}),
        ("scum", {"num_players": 7}),
        pytest.param("scandal", {}, marks=needs_scandal),
        pytest.param("scum_party", {"num_players": 12, "num_hands": 1}, marks=needs_party),
    ],
)
def test_every_seat_observed_and_all_end_together(game: str, options: dict[str, Any]) -> None:
    env = SuiteRLlibEnv({"game": game, "options": options})
    assert env.agents == env.possible_agents == [f"player_{i}" for i in range(len(env.agents))]
    space = env.observation_space[env.possible_agents[0]]
    assert set(space.spaces) == {"observation", "action_mask"}
    _play(env, episodes=3, seed=5)


class _EarlyExit(AECEnv):  # type: ignore[misc]
    """Three seats; player_0 terminates at its first move while the others play on."""

    metadata = {"name": "early_exit_v0"}  # noqa: RUF012

    def __init__(self) -> None:
        super().__init__()
        self.possible_agents = ["player_0", "player_1", "player_2"]
        self._obs = gym.spaces.Dict(
            {
                "observation": gym.spaces.Box(0, 1, (2,), np.float32),
                "action_mask": gym.spaces.Box(0, 1, (2,), np.int8),
            }
        )

    def observation_space(self, agent: str) -> gym.Space[Any]:
        return self._obs

    def action_space(self, agent: str) -> gym.Space[Any]:
        return gym.spaces.Discrete(2)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = "player_0"

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return {"observation": np.zeros(2, np.float32), "action_mask": np.ones(2, np.int8)}

    def step(self, action: Any) -> None:
        if self.terminations[self.agent_selection]:
            self._was_dead_step(action)
            return
        self.terminations["player_0"] = True
        self._skip_agent_selection = "player_1"


def test_seat_ending_early_is_a_named_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """The RLlib trap: a seat ends before the others had an observation."""
    monkeypatch.setattr(
        "cardsuite.train.rllib.env.make_aec_env", lambda game, options: _EarlyExit()
    )
    env = SuiteRLlibEnv({"game": "scum"})
    obs, _ = env.reset()
    assert list(obs) == ["player_0"]
    with pytest.raises(EarlyTerminationError, match=r"player_0 ended .*player_1, player_2 had no"):
        env.step({"player_0": 0})


def test_env_config_errors() -> None:
    with pytest.raises(ConfigError, match="unknown env_config key"):
        SuiteRLlibEnv({"game": "scum", "seats": 4})
    with pytest.raises(ConfigError, match="unknown game"):
        SuiteRLlibEnv({"game": "poker"})
    with pytest.raises(ConfigError, match="mapping"):
        make_aec_env("scum", [("num_players", 4)])  # type: ignore[arg-type]


# --------------------------------------------------------------- module
def _scum_module(**model_config: Any) -> MaskedPPOTorchRLModule:
    env = make_aec_env("scum")
    spec = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        observation_space=env.observation_space("player_0"),
        action_space=env.action_space("player_0"),
        model_config=model_config,
    )
    return spec.build()  # type: ignore[no-any-return]


def test_module_never_samples_an_illegal_action() -> None:
    torch.manual_seed(0)
    module = _scum_module(hidden=[32])
    rng = np.random.default_rng(0)
    n, a = 64, module.action_space.n
    obs = torch.as_tensor(rng.integers(0, 3, (n, 118)), dtype=torch.float32)
    mask = np.zeros((n, a), np.int8)
    for row in mask:  # one to three legal actions per row
        row[rng.choice(a, rng.integers(1, 4), replace=False)] = 1
    mask_t = torch.as_tensor(mask)
    batch = {Columns.OBS: {"observation": obs, "action_mask": mask_t}}
    for forward, dist_cls in (
        (module.forward_exploration, module.get_exploration_action_dist_cls()),
        (module.forward_inference, module.get_inference_action_dist_cls()),
        (module.forward_train, module.get_train_action_dist_cls()),
    ):
        logits = forward(batch)[Columns.ACTION_DIST_INPUTS]
        assert torch.all(logits[mask_t == 0] == MASKED_LOGIT)
        dist = dist_cls.from_logits(logits)
        samples = torch.stack([dist.sample() for _ in range(200)])
        assert mask[np.arange(n)[None, :], samples.numpy()].all()
        greedy = dist.to_deterministic().sample().numpy()
        assert mask[np.arange(n), greedy].all()
    values = module.compute_values(batch)
    assert values.shape == (n,)
    # A terminal observation's all-zero mask gives a finite, uniform distribution.
    zero = {
        Columns.OBS: {"observation": obs[:2], "action_mask": torch.zeros(2, a, dtype=torch.int8)}
    }
    probs = torch.softmax(module.forward_train(zero)[Columns.ACTION_DIST_INPUTS], -1)
    assert torch.allclose(probs, torch.full_like(probs, 1.0 / a))


def test_module_rejects_other_spaces_and_settings() -> None:
    with pytest.raises(ConfigError, match="the suite's layout"):
        RLModuleSpec(
            module_class=MaskedPPOTorchRLModule,
            observation_space=gym.spaces.Box(0, 1, (4,)),
            action_space=gym.spaces.Discrete(2),
        ).build()
    with pytest.raises(ConfigError, match="activation"):
        _scum_module(activation="gelu")


# --------------------------------------------------------------- config
def test_shipped_configs_load() -> None:
    for name, game in (("rllib_scum", "scum"), ("rllib_scandal", "scandal")):
        assert load_config(str(REPO / "configs" / "train" / f"{name}.yaml")).game == game


def test_config_errors_name_the_problem(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown config key 'env_runners'"):
        load_config(None, env_runners=2)
    with pytest.raises(ConfigError, match="self_play"):
        load_config(None, self_play=1.5)
    with pytest.raises(ConfigError, match="num_players"):
        load_config(None, num_players=99)
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(str(tmp_path / "missing.yaml"))
    with pytest.raises(ConfigError, match="--set expects key=value, got 'x'"):
        trainer.run(None, ["--set", "x"])


def test_a_run_file_of_before_loads_in_the_cores_terms() -> None:
    """Old keys are read as today's, with a warning: renamed ones, options.num_players,
    league_prob (self_play's complement), iteration counts (steps of train_batch_size),
    and the dropped sampler switches (ignored)."""
    old = {"num_epochs": 2, "hidden_size": 64, "league_prob": 0.25, "iterations": 3,
           "league_every": 2, "eval_every": 5, "checkpoint_every": 1, "train_batch_size": 1000,
           "options": {"num_players": 5}, "array_runner": True, "tick_sampler": False,
           "eval_episodes": 7, "checkpoint_dir": "runs/x"}  # fmt: skip
    with pytest.warns(FutureWarning, match="league_prob, iterations"):
        c = load_config(None, **old)
    assert (c.update_epochs, c.hidden, c.self_play, c.num_players, c.options) == (
        2,
        64,
        0.75,
        5,
        {},
    )
    assert (c.total_steps, c.snapshot_every, c.eval_every, c.checkpoint_every) == (
        3000, 2000, 5000, 1000)  # fmt: skip
    assert (c.eval_deals, c.run_dir, c.iterations()) == (7, "runs/x", 3)
    with pytest.warns(DeprecationWarning, match="load_config"):
        load_run = rllib_config.load_run  # its name before 0.3
    assert load_run is load_config


def _league_env(self_play: float, seed: int = 0) -> tuple[Any, SuiteRLlibEnv]:
    league = make_league(load_config(None, game="scum", num_players=4))
    env = SuiteRLlibEnv({"game": "scum", "options": {"num_players": 4},
                         "table": league.seat_table(), "self_play": self_play, "seed": seed})  # fmt: skip
    return league, env


def _random_episode(env: SuiteRLlibEnv, rng: np.random.Generator) -> set[str]:
    """Play one episode with random legal actions; the agents RLlib saw."""
    obs, _ = env.reset(seed=int(rng.integers(1000)))
    seen = set(obs)
    while True:
        (agent,) = obs  # one agent to act at a time
        mask = obs[agent]["action_mask"]
        obs, _, term, _, _ = env.step({agent: int(rng.choice(np.flatnonzero(mask)))})
        seen |= set(obs)
        if term["__all__"]:
            return seen
        assert len(obs) == 1


def test_per_game_env_seats_the_core_leagues_members_around_one_rllib_seat() -> None:
    """Per-game RLlib draws its opponents from the core League's table: the game's real
    heuristic among them; RLlib sees only its own seat in a league episode, and every seat's
    outcome comes back by member id."""
    from cardsuite.agents.baselines.heuristic import HeuristicAgent

    league, env = _league_env(0.0)
    assert [m.name for m in league.seat_table()] == ["heuristic", "random"]
    rng = np.random.default_rng(0)
    kinds: set[str] = set()
    for _ in range(6):
        seen = _random_episode(env, rng)
        assert len(seen) == 1
        kinds |= {type(a).__name__ for a in env.seated.values()}
        assert len(env.seated) == 3 and set(seen).isdisjoint(env.seated)
    assert HeuristicAgent.__name__ in kinds and "RandomAgent" in kinds
    ids, outcomes = env.take_outcomes()
    assert ids.size == 6 * 3 and set(ids.tolist()) <= {0, 1}
    assert set(outcomes.tolist()) <= {0.0, 0.5, 1.0}
    assert env.take_outcomes()[0].size == 0
    _, selfplay = _league_env(1.0)  # self_play 1: every seat is RLlib's
    assert len(_random_episode(selfplay, rng)) == 4 and selfplay.take_outcomes()[0].size == 0


def test_pfsp_weights_follow_the_recorded_outcomes_and_the_env_gets_them() -> None:
    """Outcomes merged into the League move its PFSP weights toward the member that beats
    the learner; the env draws by the new table."""
    from cardsuite.train.rllib.league import merge_outcomes

    league, env = _league_env(0.0, seed=1)
    before = league.probabilities()
    assert merge_outcomes(league, [(np.zeros(40, np.int64), np.zeros(40)),  # heuristic wins
                                   (np.ones(40, np.int64), np.ones(40))]) == 80  # fmt: skip
    after = league.probabilities()
    assert after[0] > before[0] and after[1] < before[1] and after[0] > 0.9
    env.set_table(league.seat_table())
    rng = np.random.default_rng(1)
    names = []
    for _ in range(10):
        _random_episode(env, rng)
        names += [m.name for m in env.seats.values()]
    assert names.count("heuristic") > names.count("random")


# ------------------------------------------------------------ training
def _check_agent(run_dir: Path, game: str) -> None:
    """The run as an rllib: arena agent plays whole episodes with legal actions only."""
    agent = RLlibAgent.load(run_dir, game, seed=0)
    env = make_aec_env(game, {"illegal_action": "raise"})
    env.reset(seed=1)
    for name in env.possible_agents:
        agent.reset(table_info(env, game, name), seed=1)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else agent.act(obs["observation"], obs["action_mask"], {}))
    with pytest.raises(CheckpointError, match=rf"trained on '{game}'"):
        RLlibAgent.load(run_dir, "scum_party", seed=0)


def _state(run_dir: Path) -> dict[str, Any]:
    return json.loads((run_dir / "checkpoint" / "state.json").read_text())


@pytest.mark.slow  # 25 s: CI runs it in the slow job
def test_smoke_scum_train_checkpoint_resume(ray_session: Any, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    config = tmp_path / "run.yaml"
    config.write_text(json.dumps({**TINY, "game": "scum", "snapshot_every": 256,
                                  "run_dir": str(run_dir)}), encoding="utf-8")  # fmt: skip
    assert trainer.run(config, ["--iterations", "1"]) == 0
    state = _state(run_dir)
    assert state["iteration"] == 1 and state["illegal_actions"] == 0 and state["step"] >= 256
    assert (run_dir / "agent" / "agent.json").is_file() and (run_dir / "progress.csv").is_file()

    resumed = load_config(str(config), num_env_runners=0, resume=str(run_dir), eval_deals=2)
    tr = trainer.Trainer(resumed, log=lambda _line: None)
    try:  # the League comes back from the checkpoint: baselines, the snapshot of main
        assert (tr.iteration, tr.step) == (1, state["step"])
        names = ["heuristic", "random", f"snapshot@{state['step']}"]
        assert [m.name for m in tr.league.members] == names
        assert [m.name for m in tr.algo.env_runner.env.envs[0].unwrapped.table] == names
        assert tr.league.members[0].games > 2.0  # the PFSP counts of iteration 1's games
        rows = tr.evaluate()
        assert [(r.against, r.deals) for r in rows] == [("random", 2)]
        assert (run_dir / "eval.csv").is_file()
    finally:
        tr.close()
    _check_agent(run_dir, "scum")
    with pytest.raises(CheckpointError, match="field 'num_players' is 5"):
        trainer.Trainer(load_config(str(config), num_players=5, resume=str(run_dir)))


@needs_scandal
def test_smoke_scandal_train_and_reload(ray_session: Any, tmp_path: Path) -> None:
    config = load_config(None, game="scandal", total_steps=256, run_dir=str(tmp_path), **TINY)
    lines: list[str] = []
    result = trainer.train(config, log=lines.append)
    assert result["step"] >= 256 and _state(tmp_path)["illegal_actions"] == 0
    assert any(line.startswith("iter 1/1") for line in lines)
    _check_agent(tmp_path, "scandal")


def test_illegal_action_metric_counts_unmasked_actions() -> None:
    """The metric the smoke test relies on sees illegal actions when there are some."""
    config = load_config(None, game="scum", num_env_runners=0, hidden=16, layers=1)
    runner = MultiAgentEnvRunner(config=ppo_config(config, make_league(config)))
    try:
        runner.sample(num_episodes=3, random_actions=True)
        assert runner.get_metrics()[ILLEGAL_ACTIONS].peek() > 0
    finally:
        runner.stop()


@needs_party
def test_party_50_players_sampled_through_rllib() -> None:
    config = load_config(None, game="scum_party", num_players=50, options={"num_hands": 1},
                         num_env_runners=0, self_play=1.0,  # all 50 seats are RLlib's
                         hidden=16, layers=1)  # fmt: skip
    runner = MultiAgentEnvRunner(config=ppo_config(config, make_league(config)))
    try:
        episodes = runner.sample(num_episodes=1)
        assert episodes[-1].is_done
        assert len(episodes[-1].agent_episodes) == 50
        assert runner.get_metrics()[ILLEGAL_ACTIONS].peek() == 0
    finally:
        runner.stop()


def test_bad_checkpoints_are_named(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="does not exist"):
        RLlibAgent.load(tmp_path / "nope", "scum")
    with pytest.raises(CheckpointError, match="neither a checkpoint"):
        RLlibAgent.load(tmp_path, "scum")
    with pytest.raises(CheckpointError, match="neither a checkpoint"):
        trainer.Trainer(load_config(None, resume=str(tmp_path)))


def test_cli_namespace_and_tokens_become_the_config(tmp_path: Path) -> None:
    """``cardsuite train`` passes a Namespace (--set as ``overrides``, --out); tokens work too;
    the training commands' shared flags set the config's fields."""
    import argparse

    cli = argparse.Namespace(config=None, out=str(tmp_path), resume=None, backend="rllib",
                             overrides=["num_env_runners=3", "options.reward=points",
                                        "self_play=0.25"])  # fmt: skip
    c = trainer.config_of(trainer.namespace(cli))
    assert (c.run_dir, c.num_env_runners, c.options, c.self_play) == (
        str(tmp_path), 3, {"reward": "points"}, 0.25)  # fmt: skip
    # RLlib's own flags that ``cardsuite train``'s parser left over join the Namespace
    left = trainer.namespace(cli, ["--num-envs-per-env-runner", "4", "--iterations", "2"])
    c = trainer.config_of(left)
    assert (c.run_dir, c.num_env_runners, c.num_envs_per_env_runner, c.total_steps) == (
        str(tmp_path), 3, 4, 2 * 4000)  # fmt: skip
    with pytest.raises(ConfigError, match="did you mean --num-env-runners"):
        trainer.namespace(cli, ["--num-env-runner", "2"])
    tokens = trainer.namespace(["--num-env-runners", "2", "--address", "auto"])
    assert tokens.address == "auto" and trainer.config_of(tokens).num_env_runners == 2
    preset = str(REPO / "configs/train/rllib_scum.yaml")
    shared = trainer.namespace(["--config", preset, "--players", "5", "--device", "cuda",
                                "--no-tensorboard", "--budget-minutes", "2", "--seed", "7",
                                "--iterations", "3", "--checkpoint-dir", str(tmp_path)])  # fmt: skip
    c = trainer.config_of(shared)
    assert (c.num_players, c.device, c.tensorboard, c.budget_minutes, c.seed) == (
        5, "cuda", False, 2.0, 7)  # fmt: skip
    assert (c.total_steps, c.run_dir, c.options) == (
        3 * 4000,
        str(tmp_path),
        {"reward": "centered"},
    )
    assert trainer.config_of(trainer.namespace(["--total-steps", "9000"])).total_steps == 9000
    with pytest.raises(ConfigError, match="did you mean --total-steps"):
        trainer.namespace(["--total-step", "5"])


class _Boom:
    """Unpickling this writes a marker file: proof that a pickle was loaded."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        return (Path.write_text, (Path(self.marker), "pwned"))


def _module_weights(config: Any) -> dict[str, np.ndarray]:
    module = module_spec(config, with_spaces=True).build()
    return {k: v.detach().numpy() for k, v in module.state_dict().items()}  # type: ignore[attr-defined]


@pytest.mark.slow  # 25 s: CI runs it in the slow job
def test_resume_reads_only_safe_files(ray_session: Any, tmp_path: Path) -> None:
    """Issue 12: a checkpoint holds no pickle, and a file its manifest does not list (a crafted
    *.pkl) is refused; an older run's iter_NNNNNN/ resumes from its JSON and safetensors
    only, its RLlib pickles never run."""
    import pickle

    marker = tmp_path / "marker"
    config = load_config(None, total_steps=256, run_dir=str(tmp_path / "run"), **TINY)
    trainer.train(config, log=lambda _line: None)
    ckpt = tmp_path / "run" / "checkpoint"
    assert not list(ckpt.rglob("*.pkl"))
    (ckpt / "state.pkl").write_bytes(pickle.dumps(_Boom(str(marker))))
    with pytest.raises(CheckpointError, match=r"does not list state\.pkl"):
        trainer.Trainer(load_config(None, resume=str(tmp_path / "run"), **TINY))
    old = tmp_path / "old" / "iter_000003"  # an older cardsuite's checkpoint folder
    (old / "learner_group").mkdir(parents=True)
    (old.parent / "LATEST").write_text(old.name)
    for name in ("state.pkl", "learner_group/class_and_ctor_args.pkl"):
        (old / name).write_bytes(pickle.dumps(_Boom(str(marker))))
    record = {"game": "scum", "options": {}, "iteration": 3,
              "config": {"hidden_size": 32, "hidden_layers": 1, "activation": "relu"}}  # fmt: skip
    (old / "cardsuite_run.json").write_text(json.dumps(record))
    with pytest.raises(CheckpointError, match="never loads"):
        trainer.Trainer(load_config(None, resume=str(old.parent), **TINY))
    from cardsuite.agents.learned.rllib import export_module

    export_module(_module_weights(config), old)
    tr = trainer.Trainer(load_config(None, resume=str(old.parent), **TINY), log=lambda _l: None)
    try:
        assert (tr.iteration, tr.step, tr.run_dir) == (3, 3 * 256, old.parent)
    finally:
        tr.close()
    assert RLlibAgent.load(old.parent, "scum").meta.num_actions == 71
    assert not marker.exists()


def test_the_checkpoint_plays_the_modules_policy_as_a_ppo_agent(tmp_path: Path) -> None:
    """Every checkpoint holds the learner in the safe agent format, so ``ppo:RUN`` (and
    ``rllib:RUN``) play the module's greedy action at every decision of a whole game, and
    without ray or torch imported."""
    import subprocess
    import sys

    from cardsuite import load_agent

    config = load_config(None, game="scum", num_players=4, hidden=16)
    module = module_spec(config, with_spaces=True).build()
    with torch.no_grad():
        module.pi[-1].weight.mul_(300.0)  # well-separated logits: no near-ties to flip
    weights = {k: v.numpy() for k, v in module.state_dict().items()}
    state = {"step": 3, "iteration": 1, "due": {}, "history": [], "illegal_actions": 0}
    trainer.save_run(config, tmp_path, weights, make_league(config), state)
    env = make_aec_env("scum", {"num_players": 4, "illegal_action": "raise"})
    env.reset(seed=3)
    agents = {a: load_agent(f"ppo:{tmp_path}", "scum", seat=a, num_players=4) for a in env.agents}
    assert {type(a.inner).__name__ for a in agents.values()} == {"PPOAgent"}
    decisions = 0
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = agents[name].act(obs["observation"], obs["action_mask"], {"agent": name})
        batch = {Columns.OBS: {"observation": torch.as_tensor(obs["observation"][None]),
                               "action_mask": torch.as_tensor(obs["action_mask"][None])}}  # fmt: skip
        with torch.no_grad():
            logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0]
        assert action == int(torch.argmax(logits))  # the module's greedy action
        env.step(action)
        decisions += 1
    assert decisions > 20
    code = (f"import sys; sys.modules['ray'] = None; import cardsuite; "
            f"a = cardsuite.load_agent('rllib:{tmp_path}', 'scum', num_players=4); "
            "assert 'torch' not in sys.modules; print(a.meta.trainer)")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "rllib-ppo"


def test_a_run_stopped_before_its_first_checkpoint_starts_again(
    ray_session: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """The RLlib run folder records its config (run.json) when made; after a crash before any
    checkpoint, ``--resume RUN`` trains it again from the start with it (issue 59)."""
    run = tmp_path / "run"
    config = load_config(None, game="scum", total_steps=256, run_dir=str(run), **TINY)
    real = trainer.build

    def dies(*args: Any) -> Any:
        raise RuntimeError("power cut")

    monkeypatch.setattr(trainer, "build", dies)
    with pytest.raises(RuntimeError, match="power cut"):
        trainer.train(config)
    assert (run / "run.json").is_file() and not (run / "checkpoint").exists()
    monkeypatch.setattr(trainer, "build", real)
    again = trainer.config_of(trainer.namespace(["--resume", str(run)]))
    assert again.total_steps == 256 and again.hidden == TINY["hidden"]
    assert trainer.train(again)["step"] >= 256
    assert "training it again from the start" in capsys.readouterr().err
    assert (run / "checkpoint" / "state.json").is_file()
