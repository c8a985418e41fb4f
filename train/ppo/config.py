"""The batched PPO trainer's settings (`PPOConfig`): the core's `BatchedConfig` and
`PPOFamily` plus batched PPO's own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from cardsuite.config import doc_field
from cardsuite.train.core.settings import BatchedConfig, PPOFamily, inherit


@dataclass(frozen=True)
class PPOConfig(BatchedConfig, PPOFamily):
    """Settings of one batched PPO run (cleanrl's ``Args``)."""

    exp_name: str = inherit(BatchedConfig, "exp_name", "scum_ppo")
    backend: Literal["numpy", "torch"] = doc_field(
        "numpy", "engine backend: numpy (CPU) or torch (on the network's device)"
    )
    anneal_lr: bool = doc_field(True, "decay the step size linearly to 0")
    num_minibatches: int = doc_field(4, "minibatches per epoch", ge=1)
    clip_vloss: bool = doc_field(True, "clip the value loss as PPO2 does")
    norm_adv: bool = doc_field(True, "normalise advantages per minibatch")
    target_kl: float = doc_field(
        0.0, "stop an update's epochs above this approximate KL (0: never)", ge=0.0
    )
    bc_dagger: int = doc_field(
        0, "warm start: DAgger rounds after imitation (the copy plays, the heuristic labels)", ge=0
    )
    bc_dagger_epochs: int = doc_field(
        4, "warm start: passes over all the data after each DAgger round", ge=1
    )
    anchor_coef: float = doc_field(
        0.0, "weight of the KL divergence from the actor as PPO starts (kept frozen)", ge=0.0
    )
    critic_warmup: int = doc_field(
        0, "decisions at the start of PPO during which only the critic learns", ge=0
    )
    duplicate_baseline: bool = doc_field(
        False, "subtract the same deals' rewards with the heuristic in every seat; logs dup_margin"
    )
    init: str = doc_field(
        "",
        "start from this agent directory (safe format, e.g. RUN/agent) instead of a fresh network",
    )

    def validate(self) -> None:
        """The shared checks, then: ``sizes`` steps the numpy engines (padding is numpy)."""
        super().validate()
        if self.bc_dagger and not self.bc_steps:
            self._fail("bc_dagger", "DAgger rounds need the warm start (bc_steps above 0)")
        if self.sizes.strip() and (self.backend != "numpy" or self.device != "cpu"):
            self._fail("sizes", "needs backend numpy on device cpu (the padding is numpy)")
