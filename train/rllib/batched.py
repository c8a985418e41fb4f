"""RLlib on the batched engines: the PPO config of a batched run.

With ``sampler: batched`` every env runner is RLlib's own
``SingleAgentEnvRunner`` (or the array runner `BatchedEnvRunner`) whose env
is a `BatchedRLlibEnv` of ``num_envs_per_env_runner`` games
(``gym_env_vectorize_mode="vector_entry_point"``): RLlib batches the
module's forward pass over every game of the runner and the engine steps them
all with array calls. The opponents inside the batch follow the driver's
core League (`cardsuite.train.rllib.league`).
"""

from __future__ import annotations

from typing import Any

from cardsuite.errors import ConfigError
from cardsuite.games import get_game
from cardsuite.train.rllib.config import RLlibRun
from cardsuite.train.rllib.league import LeagueCallbacks


def env_config(run: RLlibRun) -> dict[str, Any]:
    """The ``env_config`` of the batched env of ``run``."""
    c = run.config
    return {
        "game": c.game,
        "options": dict(run.options),
        "seed": c.seed,
        "learner_seat": c.learner_seat,
        "league_prob": c.league_prob,
        "baselines": c.baselines(),
        "pfsp": c.pfsp_weighting,
        "league_size": c.league_size,
        "tick": c.tick_sampler,
        "overlap": c.overlap_sampling,
        "all_seats": c.self_play_all_seats,
    }


def build_batched_config(run: RLlibRun) -> Any:
    """The ``PPOConfig`` of a batched run: one module, the batched env on every runner."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from cardsuite.train.rllib.batched_env import BatchedRLlibEnv, check_baselines, single_spaces
    from cardsuite.train.rllib.batched_ppo import BatchedPPO
    from cardsuite.train.rllib.batched_runner import BatchedEnvRunner
    from cardsuite.train.rllib.module import MaskedPPOTorchRLModule

    c = run.config
    check_baselines(c.game, c.baselines())
    obs_space, act_space = single_spaces(c.game, run.options)
    players = len(get_game(c.game).make(**run.options).possible_agents)
    if c.learner_seat is not None and c.learner_seat >= players:
        raise ConfigError(
            f"learner_seat: {c.learner_seat} is not a seat of a {players}-player {c.game} table"
        )
    threads = str(c.torch_threads)
    arrays = c.array_runner and c.array_batches
    return (
        (PPOConfig(algo_class=BatchedPPO) if arrays else PPOConfig())
        .environment(
            BatchedRLlibEnv,
            env_config=env_config(run),
            observation_space=obs_space,
            action_space=act_space,
            # Discrete actions: nothing to unsquash or clip (skips a per-game pass)
            normalize_actions=False,
            clip_actions=False,
        )
        .framework("torch")
        .env_runners(
            num_env_runners=c.num_env_runners,
            num_envs_per_env_runner=c.num_envs_per_env_runner,
            num_cpus_per_env_runner=c.num_cpus_per_env_runner,  # type: ignore[arg-type]
            sample_timeout_s=c.sample_timeout_s,
            gym_env_vectorize_mode="vector_entry_point",
            env_runner_cls=BatchedEnvRunner if c.array_runner else None,
            # The array runners run no connectors: no state to merge or
            # broadcast after each iteration (RLlib's blocking get_state round
            # trip, which would also wait for an overlapped sampling round).
            merge_env_runner_states=not arrays,
            broadcast_env_runner_states=not arrays,
        )
        .learners(num_learners=c.num_learners, num_gpus_per_learner=c.num_gpus_per_learner)
        .training(
            lr=c.learning_rate,
            gamma=c.gamma,
            lambda_=c.gae_lambda,
            clip_param=c.clip_param,
            entropy_coeff=c.entropy_coeff,
            vf_loss_coeff=c.vf_loss_coeff,
            train_batch_size_per_learner=c.train_batch_size,
            minibatch_size=c.minibatch_size,
            num_epochs=c.num_epochs,
        )
        .rl_module(
            rl_module_spec=RLModuleSpec(
                module_class=MaskedPPOTorchRLModule, model_config=c.model_config()
            )
        )
        .fault_tolerance(
            restart_failed_env_runners=c.restart_failed_env_runners,
            max_num_env_runner_restarts=c.max_num_env_runner_restarts,
            env_runner_restore_timeout_s=c.env_runner_restore_timeout_s,
        )
        .python_environment(
            extra_python_environs_for_driver={"OMP_NUM_THREADS": threads},
            extra_python_environs_for_worker={"OMP_NUM_THREADS": threads},
        )
        .callbacks(LeagueCallbacks)
        .debugging(seed=c.seed)
    )
