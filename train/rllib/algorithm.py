"""The one place where the training core's config becomes RLlib's ``PPOConfig`` (`ppo_config`):
``per_game`` runs `SuiteRLlibEnv` on RLlib's multi-agent env runner, ``batched`` runs
`BatchedEnvRunner` and `BatchedPPO` (no connectors, so no merge of their states)."""

from __future__ import annotations

from typing import Any

from ray.rllib.algorithms.ppo import PPO, PPOConfig
from ray.rllib.core import DEFAULT_MODULE_ID
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from cardsuite.train.core.league import League
from cardsuite.train.rllib.batched_env import BatchedRLlibEnv, single_spaces
from cardsuite.train.rllib.batched_ppo import BatchedPPO
from cardsuite.train.rllib.batched_runner import BatchedEnvRunner
from cardsuite.train.rllib.config import RLlibTrainConfig
from cardsuite.train.rllib.env import SuiteRLlibEnv
from cardsuite.train.rllib.league import LeagueCallbacks
from cardsuite.train.rllib.module import MaskedPPOTorchRLModule

MAIN = "main"
"""The module id of the trained policy with the per-game sampler."""


def to_main(agent_id: Any, episode: Any, **kwargs: Any) -> str:
    """RLlib's ``policy_mapping_fn``: every seat RLlib sees is ``main``."""
    return MAIN


def module_spec(config: RLlibTrainConfig, *, with_spaces: bool = False) -> RLModuleSpec:
    """The RLModuleSpec of the masked PPO policy; ``with_spaces``: with the game's spaces
    (RLlib infers them from the env when it builds the algorithm)."""
    obs, act = single_spaces(config.game, config.env_options()) if with_spaces else (None, None)
    return RLModuleSpec(module_class=MaskedPPOTorchRLModule, observation_space=obs,
                        action_space=act, model_config=config.model_config())  # fmt: skip


def module_id(config: RLlibTrainConfig) -> str:
    """The id of the trained module: ``main`` (per-game), RLlib's default (batched)."""
    return str(DEFAULT_MODULE_ID) if config.sampler == "batched" else MAIN


def ppo_config(config: RLlibTrainConfig, league: League) -> PPOConfig:
    """The ``PPOConfig`` of ``config`` (module doc); per-game envs seat from ``league``."""
    c, options = config, config.env_options()
    batched = c.sampler == "batched"
    threads = {"OMP_NUM_THREADS": str(c.threads)} if c.threads else {}
    out = (
        PPOConfig(algo_class=BatchedPPO if batched else PPO).framework("torch")
        .env_runners(num_env_runners=c.num_env_runners, sample_timeout_s=c.sample_timeout_s,
                     num_envs_per_env_runner=c.num_envs_per_env_runner,
                     num_cpus_per_env_runner=c.num_cpus_per_env_runner)  # type: ignore[arg-type]
        .learners(num_learners=c.num_learners,
                  num_gpus_per_learner=c.num_gpus_per_learner or float(c.device != "cpu"))
        .training(lr=c.learning_rate, gamma=c.gamma, lambda_=c.gae_lambda, clip_param=c.clip_coef,
                  entropy_coeff=c.ent_coef, vf_loss_coeff=c.vf_coef,
                  grad_clip=c.max_grad_norm or None, train_batch_size_per_learner=c.train_batch_size,
                  minibatch_size=c.minibatch_size, num_epochs=c.update_epochs)
        .fault_tolerance(restart_failed_env_runners=c.restart_failed_env_runners,
                         max_num_env_runner_restarts=c.max_num_env_runner_restarts,
                         env_runner_restore_timeout_s=c.env_runner_restore_timeout_s)
        .python_environment(extra_python_environs_for_driver=threads,
                            extra_python_environs_for_worker=threads)
        .callbacks(LeagueCallbacks).debugging(seed=c.seed)
    )  # fmt: skip
    if not batched:
        env_config = {"game": c.game, "options": options, "table": league.seat_table(),
                      "self_play": c.self_play, "seed": c.seed}  # fmt: skip
        return (out.environment(SuiteRLlibEnv, env_config=env_config)
                .multi_agent(policies={MAIN}, policy_mapping_fn=to_main, policies_to_train=[MAIN])
                .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MAIN: module_spec(c)})))  # fmt: skip
    obs_space, act_space = single_spaces(c.game, options)
    env_config = {"game": c.game, "options": options, "seed": c.seed, "learner_seat": c.learner_seat,
                  "self_play": c.self_play, "baselines": c.names("baselines"), "pfsp": c.pfsp,
                  "max_snapshots": c.max_snapshots}  # fmt: skip
    return (out.environment(BatchedRLlibEnv, env_config=env_config, observation_space=obs_space,
                            action_space=act_space, normalize_actions=False, clip_actions=False)
            .env_runners(env_runner_cls=BatchedEnvRunner, merge_env_runner_states=False,
                         broadcast_env_runner_states=False)
            .rl_module(rl_module_spec=module_spec(c)))  # fmt: skip


def build(config: RLlibTrainConfig, league: League) -> Any:
    """The algorithm of ``config`` (either sampler), holding the driver's ``league``."""
    algo: Any = ppo_config(config, league).build_algo()
    algo.cardsuite_league = league  # LeagueCallbacks sends it to recreated runners
    return algo
