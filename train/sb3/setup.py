"""The SB3 side of a run: its vectorised envs, League and MaskablePPO model, fresh
(`build_model`) or given a checkpoint's tensors (`restore_model`, never
``MaskablePPO.load``, which unpickles)."""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.logger import Logger, TensorBoardOutputFormat
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

from cardsuite.agents.learned.netspec import obs_scale
from cardsuite.errors import CheckpointError
from cardsuite.train.core.games import train_game
from cardsuite.train.core.league import League, SeatMember
from cardsuite.train.core.log import summary_writer
from cardsuite.train.sb3.batched import make_batched_vec_env
from cardsuite.train.sb3.checkpoint import Checkpoint, restore_optimizer
from cardsuite.train.sb3.config import TrainConfig
from cardsuite.train.sb3.single_seat import SelfPlayEnv


def make_league(config: TrainConfig) -> League:
    """The run's League: random, heuristic and snapshots by the ``opponent_*`` shares."""
    tg = train_game(config.game)
    eng = tg.make_engine(1, tg.config(config.players(), config.options))
    return League.of(config.game, eng, ["random", "heuristic"], seed=config.seed,
                     max_snapshots=config.max_snapshots, pfsp=config.pfsp,
                     scale=obs_scale(eng.obs_spec), shares=config.opponent_probs())  # fmt: skip


def make_env_fn(config: TrainConfig, table: list[SeatMember], worker: bool) -> Callable[[], Any]:
    """A factory of one monitored `SelfPlayEnv` (run inside its worker)."""

    def init() -> Any:
        if worker:  # Ctrl-C reaches the whole process group; only the trainer handles it
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        env = SelfPlayEnv(
            config.game, config.env_options(), league=table, learner_seat=config.learner_seat
        )
        return Monitor(env)

    return init


def make_vec_env(config: TrainConfig, table: list[SeatMember] | None = None) -> VecEnv:
    """``num_games`` envs, in worker processes unless ``vec_env`` says ``dummy`` or
    ``batched``, seating from the League's draw ``table`` (default: a fresh League's)."""
    if not table:
        table = make_league(config).seat_table()
    if config.vec_env == "batched":
        return make_batched_vec_env(
            config.game,
            config.env_options(),
            num_envs=config.num_games,
            learner=config.learner_seat,
            table=table,
            seed=config.seed,
        )
    subproc = config.vec_env == "subproc" or (config.vec_env == "auto" and config.num_games > 1)
    fns = [make_env_fn(config, table, worker=subproc) for _ in range(config.num_games)]
    return SubprocVecEnv(fns) if subproc else DummyVecEnv(fns)


def maskable_ppo_kwargs(config: TrainConfig) -> dict[str, Any]:
    """The config in MaskablePPO's own names (the one place SB3's names appear)."""
    hidden = [config.hidden] * config.layers
    activation = torch.nn.Tanh if config.activation == "tanh" else torch.nn.ReLU
    return {
        "learning_rate": config.learning_rate, "n_steps": config.rollout_steps,
        "batch_size": config.batch_size, "n_epochs": config.update_epochs,
        "gamma": config.gamma, "gae_lambda": config.gae_lambda, "clip_range": config.clip_coef,
        "ent_coef": config.ent_coef, "vf_coef": config.vf_coef,
        "max_grad_norm": config.max_grad_norm, "seed": config.seed, "device": config.device,
        "policy_kwargs": {"net_arch": {"pi": hidden, "vf": hidden}, "activation_fn": activation},
    }  # fmt: skip


def build_model(config: TrainConfig, venv: VecEnv) -> MaskablePPO:
    """A fresh MaskablePPO with the config's hyperparameters and network."""
    return MaskablePPO("MlpPolicy", venv, verbose=0, **maskable_ppo_kwargs(config))


def restore_model(config: TrainConfig, venv: VecEnv, loaded: Checkpoint) -> MaskablePPO:
    """A MaskablePPO built from the config, given a checkpoint's weights and optimizer (never
    unpickled); CheckpointError when they do not fit the network."""
    model = build_model(config, venv)
    try:
        model.policy.load_state_dict(loaded.weights, strict=True)
    except RuntimeError as err:
        raise CheckpointError(
            f"checkpoint {str(loaded.path)!r}: agent/ does not fit the config's network: {err}"
        ) from None
    restore_optimizer(model.policy.optimizer, loaded.optimizer_tensors, loaded.optimizer_groups)
    model.num_timesteps = loaded.state.step
    model._n_updates = loaded.state.counters.get("n_updates", 0)
    return model


def derive_seed(*words: int) -> int:
    """A 31-bit seed from integers (for envs restarted on resume)."""
    return int(np.random.SeedSequence(list(words)).generate_state(1)[0] & 0x7FFFFFFF)


def tensorboard_logger(folder: Path, purge_step: int | None, enabled: bool = True) -> Any:
    """An SB3 logger writing TensorBoard events through the core's `summary_writer` (with
    ``purge_step`` on resume); none when ``enabled`` is False."""

    class Purging(TensorBoardOutputFormat):
        def __init__(self, folder: str) -> None:  # SB3's, with purge_step
            self.writer = summary_writer(Path(folder), purge_step)
            self._is_closed = False

    if not enabled:
        return Logger(folder=None, output_formats=[])
    folder.mkdir(parents=True, exist_ok=True)
    return Logger(folder=str(folder), output_formats=[Purging(str(folder))])
