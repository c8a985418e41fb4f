"""Shared fixtures of the training tests: tiny configs and one tiny trained run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cardsuite.train.ppo.config import PPOConfig
from cardsuite.train.sb3.config import TrainConfig


def tiny_config(**changes: Any) -> TrainConfig:
    """A config that trains in seconds in this process (one env, no workers)."""
    base: dict[str, Any] = {
        "game": "scum",
        "num_players": 4,
        "options": {"reward": "centered"},
        "total_steps": 256,
        "num_games": 1,
        "vec_env": "dummy",
        "rollout_steps": 128,
        "batch_size": 64,
        "update_epochs": 1,
        "hidden": 16,
        "layers": 1,
        "opponent_random": 0.5,
        "opponent_heuristic": 0.0,
        "opponent_snapshot": 0.5,
        "snapshot_every": 128,
        "max_snapshots": 2,
        "eval_every": 0,
        "eval_deals": 2,
        "final_eval_deals": 2,
        "eval_against": "random",
        "checkpoint_every": 128,
        "progress": False,
    }
    base.update(changes)
    return TrainConfig.from_dict(base)


def tiny_ppo(run_dir: Path, **changes: Any) -> PPOConfig:
    """A batched PPO config that trains a Scum table in seconds."""
    base: dict[str, Any] = dict(
        num_games=32, rollout_steps=8, total_steps=600, hidden=16, layers=1, eval_deals=4,
        eval_every=0, snapshot_every=0, checkpoint_every=0, tensorboard=False, quiet=True,
        threads=1, self_play=0.5, baselines="heuristic", run_dir=str(run_dir),
        learning_rate=3e-3,
    )  # fmt: skip
    base.update(changes)
    return PPOConfig(**base)


@pytest.fixture(autouse=True)
def _one_thread() -> None:
    """Two shared cores: torch uses one thread in every training test."""
    import torch

    torch.set_num_threads(1)


@pytest.fixture(scope="session")
def trained_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run directory trained for 256 steps by the tiny config (final eval skipped)."""
    import torch

    from cardsuite.train.sb3.trainer import Trainer

    torch.set_num_threads(1)
    run = tmp_path_factory.mktemp("runs") / "tiny"
    trainer = Trainer(tiny_config(), run)
    try:
        trainer.model.learn(256, reset_num_timesteps=False)
        trainer.add_snapshot()
        trainer.save()
    finally:
        trainer.close()
    return run
