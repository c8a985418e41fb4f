"""RLlib on the batched engines: the PPO config, the league on the env runners, its checkpoint.

With ``sampler: batched`` every env runner is RLlib's own
``SingleAgentEnvRunner`` whose env is a `BatchedRLlibEnv`
of ``num_envs_per_env_runner`` games (``gym_env_vectorize_mode=
"vector_entry_point"``): RLlib batches the module's forward pass over every
game of the runner and the engine steps them all with array calls.

The league lives on the runners (one `League`
per runner, PFSP estimates of its own games) and is refreshed from the
driver on the league's schedule: every ``league_every`` iterations the
learner's weights of the ``main`` module are sent to every runner and join
its league as a snapshot (`push_snapshot`). The driver keeps the newest
``league_size`` snapshots (`DriverLeague`): a runner that RLlib
restarts after a failure gets them again (`LeagueCallbacks`), and a
checkpoint stores them as ``league.safetensors`` (never a pickle).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite import safe_json
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.games import get_game
from cardsuite.train.rllib.config import RLlibRun
from cardsuite.train.rllib.env import IllegalActionCounter

LEAGUE_FILE = "league.safetensors"
LEAGUE_INDEX = "league.json"


@dataclass
class DriverLeague:
    """The snapshots the driver has sent to the runners: ``(step, weights)``, oldest first."""

    size: int
    snapshots: list[tuple[int, dict[str, np.ndarray]]] = field(default_factory=list)

    def add(self, step: int, weights: dict[str, np.ndarray]) -> None:
        """Keep a new snapshot (the oldest leaves beyond ``size``, as on the runners)."""
        self.snapshots.append((int(step), weights))
        del self.snapshots[: max(0, len(self.snapshots) - self.size)]

    def save(self, folder: Path) -> None:
        """Write the snapshots as ``league.safetensors`` plus ``league.json`` (their steps)."""
        from cardsuite.train.safe_io import save_tensors

        tensors = {f"{i}/{k}": v for i, (_, w) in enumerate(self.snapshots) for k, v in w.items()}
        if tensors:
            save_tensors(folder / LEAGUE_FILE, tensors)
        steps = [s for s, _ in self.snapshots]
        (folder / LEAGUE_INDEX).write_text(json.dumps({"steps": steps}), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path, size: int) -> DriverLeague:
        """The snapshots saved in ``folder`` (none if it has no league files)."""
        from cardsuite.train.safe_io import load_tensors

        league = cls(size)
        if not (folder / LEAGUE_INDEX).is_file():
            return league
        index = safe_json.read_file(folder / LEAGUE_INDEX, "league index", error=CheckpointError)
        steps = index.get("steps") if isinstance(index, dict) else None
        if not isinstance(steps, list) or not all(
            isinstance(s, int) and not isinstance(s, bool) for s in steps
        ):
            raise CheckpointError(f"{folder / LEAGUE_INDEX}: 'steps' must be a list of integers")
        tensors = load_tensors(folder / LEAGUE_FILE) if steps else {}
        for i, step in enumerate(steps):
            prefix = f"{i}/"
            w = {
                k[len(prefix) :]: np.asarray(v) for k, v in tensors.items() if k.startswith(prefix)
            }
            if not w:
                raise CheckpointError(f"{folder / LEAGUE_FILE}: snapshot {i} is missing")
            league.add(int(step), w)
        return league


def main_module_id() -> str:
    """The module id of the trained policy in a batched (single-agent) run."""
    from ray.rllib.core import DEFAULT_MODULE_ID

    return str(DEFAULT_MODULE_ID)


def main_weights(algo: Any) -> dict[str, np.ndarray]:
    """The learner's current weights of the trained module, as numpy arrays."""
    mid = main_module_id()
    weights = algo.learner_group.get_weights(module_ids=[mid])[mid]
    return {k: np.asarray(v.detach().cpu().numpy() if hasattr(v, "detach") else v)
            for k, v in weights.items()}  # fmt: skip


def _push(env_runner: Any, snapshots: list[tuple[int, dict[str, np.ndarray]]]) -> int:
    """On a runner: add the snapshots to its env's league; the league's size after."""
    env = getattr(env_runner, "env", None)
    if env is None:
        return 0
    inner = env.unwrapped
    for step, weights in snapshots:
        inner.add_snapshot(weights, step)
    return len(inner.league.members)


def push_snapshot(algo: Any, league: DriverLeague, step: int) -> None:
    """Snapshot ``main`` into the driver's league and into every runner's league."""
    weights = main_weights(algo)
    league.add(step, weights)
    algo.env_runner_group.foreach_env_runner(
        lambda r: _push(r, [(step, weights)]), local_env_runner=True
    )


def league_names(algo: Any) -> list[list[str]]:
    """The league member names of every remote env runner (for tests and logs)."""
    return list(
        algo.env_runner_group.foreach_env_runner(
            lambda r: r.env.unwrapped.league_names(), local_env_runner=False
        )
    )


class LeagueCallbacks(IllegalActionCounter):
    """The illegal-action metric, plus: a recreated env runner gets the league back."""

    def on_env_runners_recreated(
        self,
        *,
        algorithm: Any,
        env_runner_group: Any,
        env_runner_indices: list[int],
        is_evaluation: bool,
        **kwargs: Any,
    ) -> None:
        """Send the driver's snapshots to the restarted runners (their league starts empty)."""
        league: DriverLeague | None = getattr(algorithm, "cardsuite_league", None)
        if league is None or is_evaluation or not league.snapshots:
            return
        snaps = list(league.snapshots)
        env_runner_group.foreach_env_runner(
            lambda r: _push(r, snaps),
            local_env_runner=False,
            remote_worker_ids=list(env_runner_indices),
        )


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
        "model_config": c.model_config(),
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


def build_batched(run: RLlibRun, resume: Path | None = None) -> tuple[Any, DriverLeague]:
    """Build (or restore from checkpoint ``resume``) a batched algorithm and its league.

    A new run starts the league with a snapshot of the initial weights (the
    self-play opponent); a resumed one sends the checkpoint's snapshots to
    every runner (the caller then loads the saved weights).
    """
    c = run.config
    algo = build_batched_config(run).build_algo()
    if resume is None:
        league = DriverLeague(c.league_size)
        algo.cardsuite_league = league
        push_snapshot(algo, league, 0)
        return algo, league
    league = DriverLeague.load(resume, c.league_size)  # the weights: checkpoints.restore
    algo.cardsuite_league = league
    snaps = list(league.snapshots)
    algo.env_runner_group.foreach_env_runner(lambda r: _push(r, snaps), local_env_runner=True)
    return algo, league
