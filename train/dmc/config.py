"""Settings of a Deep Monte-Carlo run (`DMCConfig`): the core's `BatchedConfig` with DMC's own
defaults (a wider ReLU network, a uniform draw over the baselines, no snapshots) and fields."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from cardsuite.config import doc_field
from cardsuite.train.core.settings import BatchedConfig, inherit


@dataclass(frozen=True)
class DMCConfig(BatchedConfig):
    """Settings of one Deep Monte-Carlo run (`cardsuite.train.dmc.trainer`)."""

    exp_name: str = inherit(BatchedConfig, "exp_name", "dmc_scum4")
    num_games: int = inherit(BatchedConfig, "num_games", 256)
    hidden: int = inherit(BatchedConfig, "hidden", 256)
    layers: int = inherit(BatchedConfig, "layers", 3)
    activation: Literal["tanh", "relu"] = inherit(BatchedConfig, "activation", "relu")
    snapshot_every: int = inherit(BatchedConfig, "snapshot_every", 0)
    pfsp: Literal["hard", "variance", "uniform"] = inherit(BatchedConfig, "pfsp", "uniform")
    bc_explore: float = inherit(BatchedConfig, "bc_explore", 0.05)
    eval_every: int = inherit(BatchedConfig, "eval_every", 1_000_000)
    eval_against: str = inherit(BatchedConfig, "eval_against", "heuristic,random")
    checkpoint_every: int = inherit(BatchedConfig, "checkpoint_every", 1_000_000)
    batch_size: int = doc_field(1024, "decisions per gradient step", ge=1)
    replay_ratio: float = doc_field(
        1.0, "times each finished decision is trained on, on average", gt=0.0, le=1000.0
    )
    buffer_size: int = doc_field(65_536, "finished decisions kept (first in, first out)", ge=1)
    max_grad_norm: float = doc_field(10.0, "gradient norm clip (0: none)", ge=0.0)
    epsilon: float = doc_field(
        0.01, "share of random legal moves of the learner in rollouts", ge=0.0, le=1.0
    )
    bc_margin: float = doc_field(
        0.05, "warm start: Q of the heuristic's move must beat the others by this", ge=0.0
    )
    bc_margin_coef: float = doc_field(
        1.0, "warm start: weight of the margin loss beside the return regression", ge=0.0
    )
    polyak: float = doc_field(
        0.0, "Polyak average of the weights that is played and saved (0: none)", ge=0.0, le=0.99999
    )
    eval_first: bool = doc_field(False, "also evaluate before training (the warm start alone)")
    relative_reward: bool = doc_field(
        False, "train on each seat's reward minus the others' mean (games not zero-sum: Scandal)"
    )
    reward_scale: float = doc_field(
        1.0, "factor on the trained rewards and returns (0.1 brings Scum Party's to Scum's)", gt=0.0
    )
