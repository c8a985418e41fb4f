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
``league_size`` snapshots in a core `League` of its own (`driver_league`;
core `Snapshot` objects of the learner's actor, sent as they are to the
runners): a runner that RLlib restarts after a failure gets them again
(`LeagueCallbacks`), and a checkpoint stores them as
``league.safetensors`` (never a pickle).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite import safe_json
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.games import get_game
from cardsuite.train.core.league import League
from cardsuite.train.core.netspec import Snapshot
from cardsuite.train.rllib.batched_env import snapshot_from_weights
from cardsuite.train.rllib.config import RLlibRun
from cardsuite.train.rllib.env import IllegalActionCounter

LEAGUE_FILE = "league.safetensors"
LEAGUE_INDEX = "league.json"


def driver_league(size: int) -> League:
    """The driver's League: the core class, holding the snapshots sent to the runners.

    It has no fixed members (each runner's League holds the baselines and
    draws by its own PFSP counts); its snapshots are core `Snapshot` objects
    of the learner's actor and `League.scale` is the module's observation
    scale, kept by the core's rule (the newest ``size``).
    """
    return League({}, max_snapshots=size)


def kept(league: League) -> list[Snapshot]:
    """The driver League's snapshots, oldest first (retired ones are never kept)."""
    return [m.snapshot for m in league.members if m.snapshot is not None]


def save_league(league: League, folder: Path) -> None:
    """Write the snapshots as ``league.safetensors`` plus ``league.json`` (steps, activation)."""
    from cardsuite.train.safe_io import save_tensors

    snaps = kept(league)
    tensors = {f"{i}/{k}": np.asarray(v) for i, s in enumerate(snaps) for k, v in s.params.items()}
    if tensors:
        tensors["scale"] = np.asarray(league.scale, dtype=np.float32)
        save_tensors(folder / LEAGUE_FILE, tensors)
    index = {"steps": [s.step for s in snaps], "actor": True,
             "activation": snaps[0].activation if snaps else None}  # fmt: skip
    (folder / LEAGUE_INDEX).write_text(json.dumps(index), encoding="utf-8")


def load_league(folder: Path, size: int, model_config: dict[str, Any]) -> League:
    """The driver League saved in ``folder`` (empty if it has no league files).

    Checkpoints written before the driver kept core snapshots hold the whole
    ``main`` module's weights per snapshot: their actors are taken out here.
    """
    from cardsuite.train.safe_io import load_tensors

    league = driver_league(size)
    if not (folder / LEAGUE_INDEX).is_file():
        return league
    index = safe_json.read_file(folder / LEAGUE_INDEX, "league index", error=CheckpointError)
    steps = index.get("steps") if isinstance(index, dict) else None
    if not isinstance(steps, list) or not all(
        isinstance(s, int) and not isinstance(s, bool) for s in steps
    ):
        raise CheckpointError(f"{folder / LEAGUE_INDEX}: 'steps' must be a list of integers")
    actor = index.get("actor") is True
    activation = index.get("activation") or str(model_config.get("activation", "relu"))
    if activation not in ("tanh", "relu"):
        raise CheckpointError(f"{folder / LEAGUE_INDEX}: 'activation' must be tanh or relu")
    tensors = load_tensors(folder / LEAGUE_FILE) if steps else {}
    for i, step in enumerate(steps):
        prefix = f"{i}/"
        w = {k[len(prefix) :]: np.asarray(v) for k, v in tensors.items() if k.startswith(prefix)}
        if not w or (actor and "scale" not in tensors):
            raise CheckpointError(f"{folder / LEAGUE_FILE}: snapshot {i} is missing")
        if actor:
            snap, scale = Snapshot(int(step), w, activation), np.asarray(tensors["scale"])
        else:
            snap, scale = snapshot_from_weights(w, int(step), model_config)
        league.scale = np.asarray(scale, dtype=np.float32)
        league.add_snapshot(snap)
    league.prune(np.zeros(0, dtype=np.int64))
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


def _push(env_runner: Any, snapshots: list[Snapshot], scale: np.ndarray) -> int:
    """On a runner: add the driver's snapshots to its env's league; the league's size after."""
    env = getattr(env_runner, "env", None)
    if env is None:
        return 0
    inner = env.unwrapped
    for snap in snapshots:
        inner.join(snap, scale)
    return len(inner.league.members)


def push_snapshot(algo: Any, league: League, step: int) -> None:
    """Snapshot ``main`` into the driver's League and into every runner's League."""
    snap, scale = snapshot_from_weights(main_weights(algo), step, algo.cardsuite_model_config)
    league.scale = scale
    league.add_snapshot(snap)
    league.prune(np.zeros(0, dtype=np.int64))  # the driver plays no game: retired ones go
    algo.env_runner_group.foreach_env_runner(
        lambda r: _push(r, [snap], scale), local_env_runner=True
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
        league: League | None = getattr(algorithm, "cardsuite_league", None)
        if league is None or is_evaluation or not kept(league):
            return
        snaps, scale = kept(league), league.scale
        env_runner_group.foreach_env_runner(
            lambda r: _push(r, snaps, scale),
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


def build_batched(run: RLlibRun, resume: Path | None = None) -> tuple[Any, League]:
    """Build (or restore from checkpoint ``resume``) a batched algorithm and its league.

    A new run starts the league with a snapshot of the initial weights (the
    self-play opponent); a resumed one sends the checkpoint's snapshots to
    every runner (the caller then loads the saved weights).
    """
    c = run.config
    algo = build_batched_config(run).build_algo()
    algo.cardsuite_model_config = c.model_config()
    if resume is None:
        league = driver_league(c.league_size)
        algo.cardsuite_league = league
        push_snapshot(algo, league, 0)
        return algo, league
    # the snapshots here; the learner's weights: checkpoints.restore
    league = load_league(resume, c.league_size, c.model_config())
    algo.cardsuite_league = league
    snaps, scale = kept(league), league.scale
    algo.env_runner_group.foreach_env_runner(
        lambda r: _push(r, snaps, scale), local_env_runner=True
    )
    return algo, league
