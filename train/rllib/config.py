"""The RLlib training config: a frozen, validated dataclass loaded from YAML.

A config file (``configs/train/rllib_*.yaml``) holds the fields of
`RLlibTrainConfig` plus an optional ``options`` mapping, the game's
rule options, validated by the game's own config class:

.. code-block:: yaml

    game: scum
    options: {num_players: 4}
    iterations: 200
    num_env_runners: 2

This module does not import ray.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from cardsuite.config import ConfigBase, doc_field, read_yaml_mapping
from cardsuite.errors import ConfigError
from cardsuite.games import get_game
from cardsuite.overrides import merge_overrides, parse_assignments
from cardsuite.train.core.settings import learning_rate_field

ILLEGAL_ACTIONS = "illegal_actions"
"""RLlib metric (lifetime sum over env runners): episodes ended by an illegal action."""


@dataclasses.dataclass(frozen=True)
class RLlibTrainConfig(ConfigBase):
    """Self-play PPO on Ray RLlib: game, scale, PPO, league, evaluation, checkpoints."""

    game: str = doc_field("scum", "game to train on: scum, scum_party or scandal")
    sampler: Literal["batched", "per_game"] = doc_field(
        "per_game",
        "batched: each env runner steps num_envs_per_env_runner games of the batched engine, "
        "one learning seat per game, opponents inside the batch; per_game: the AEC env, "
        "every seat a policy (multi-agent)",
    )
    array_runner: bool = doc_field(
        True,
        "batched: sample with the array env runner (BatchedEnvRunner, one loop per vector "
        "step); false: RLlib's own SingleAgentEnvRunner loop (one pass per game per step)",
    )
    array_batches: bool = doc_field(
        True,
        "batched, with array_runner: runners return flat train batches with GAE done on the "
        "runner (BatchedPPO, LearnerGroup.update(batch=...)); false: episodes through RLlib's "
        "learner connector pipeline",
    )
    tick_sampler: bool = doc_field(
        True,
        "batched, with array_batches: every engine step moves every game and the games where "
        "the learner is to act go through the module together (no waiting for the slowest "
        "game); false: one learner decision per game per vector step",
    )
    self_play_all_seats: bool = doc_field(
        False,
        "batched, with tick_sampler: every seat of a self-play game learns (the current policy "
        "plays them all) instead of one seat against the newest snapshot",
    )
    overlap_sampling: bool = doc_field(
        False,
        "batched, with array_batches and remote runners: the runners sample the next batch "
        "while the learner updates on this one (each batch one update behind the learner)",
    )
    learner_seat: int | None = doc_field(
        None, "batched: the learning seat of every game (null: seats rotate over games)"
    )
    league_baselines: str = doc_field(
        "heuristic,random",
        "comma-separated fixed members of the League besides the snapshots: heuristic (the "
        "game's real heuristic, as ppo, dmc and the evaluator play it) and random",
    )
    pfsp_weighting: Literal["hard", "variance", "uniform"] = doc_field(
        "hard", "PFSP weighting of the League's draw (cardsuite.train.core.league)"
    )
    restart_failed_env_runners: bool = doc_field(
        True, "RLlib fault tolerance: replace an env runner that died instead of failing the run"
    )
    max_num_env_runner_restarts: int = doc_field(
        100, "RLlib fault tolerance: restarts allowed per env runner over the run"
    )
    env_runner_restore_timeout_s: float = doc_field(
        120.0, "RLlib fault tolerance: seconds to wait for a restarted env runner"
    )
    seed: int = doc_field(0, "seed of RLlib (env runners, module init) and of evaluation")
    iterations: int = doc_field(100, "training iterations (one sample + PPO update each)")
    num_env_runners: int = doc_field(
        1, "remote env-runner actors sampling in parallel (0: sample in the driver)"
    )
    num_envs_per_env_runner: int = doc_field(1, "envs stepped in a batch by each env runner")
    num_cpus_per_env_runner: float = doc_field(1.0, "CPUs Ray reserves per env runner")
    num_learners: int = doc_field(
        0, "remote learner actors (0: learn in the driver; >1: data-parallel PPO)"
    )
    num_gpus_per_learner: float = doc_field(0.0, "GPUs per learner (0: CPU)")
    train_batch_size: int = doc_field(
        4000, "env steps per iteration (per learner: RLlib's train_batch_size_per_learner)"
    )
    minibatch_size: int = doc_field(256, "PPO minibatch size")
    num_epochs: int = doc_field(4, "PPO epochs over each batch")
    learning_rate: float = learning_rate_field(3e-4)
    gamma: float = doc_field(0.995, "discount factor")
    gae_lambda: float = doc_field(0.95, "GAE lambda")
    clip_param: float = doc_field(0.2, "PPO clip range")
    entropy_coeff: float = doc_field(0.01, "entropy bonus")
    vf_loss_coeff: float = doc_field(0.5, "value-loss weight")
    hidden_size: int = doc_field(256, "width of each hidden layer (policy and value MLPs)")
    hidden_layers: int = doc_field(2, "hidden layers of each MLP")
    activation: Literal["relu", "tanh"] = doc_field("relu", "hidden activation")
    league_every: int = doc_field(
        10,
        "every this many iterations: merge the runners' league outcomes into the League, add "
        "a snapshot of main, send the League's table to the runners (0: never)",
    )
    league_size: int = doc_field(5, "snapshots the League keeps (the oldest leaves first)")
    league_prob: float = doc_field(
        0.5,
        "share of episodes (per_game) or games (batched) in which main plays one seat and "
        "League members drawn by PFSP the others (the rest: self-play)",
    )
    eval_every: int = doc_field(
        0, "evaluate against the baselines every this many iterations (0: only at the end)"
    )
    eval_episodes: int = doc_field(50, "duplicate deals per evaluation (0: no evaluation)")
    eval_opponent: str = doc_field("random", "agent spec the evaluation plays against")
    checkpoint_dir: str = doc_field("runs/rllib", "where checkpoints and the run record go")
    checkpoint_every: int = doc_field(10, "save a checkpoint every this many iterations")
    budget_minutes: float = doc_field(
        0.0, "also stop (with a checkpoint) after this many minutes (0: no limit)", ge=0.0
    )
    tensorboard: bool = doc_field(
        True, "write per-iteration progress.csv and TensorBoard events to checkpoint_dir"
    )
    torch_threads: int = doc_field(1, "torch threads per process (1 avoids oversubscription)")
    sample_timeout_s: float = doc_field(600.0, "max seconds an env runner may take to sample")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str | None = None) -> RLlibTrainConfig:
        """Build from a mapping; ``lr`` (the name before 0.4, in older run records) is read
        as ``learning_rate``, the name every trainer uses."""
        if isinstance(data, Mapping) and "lr" in data:
            data = dict(data)
            if "learning_rate" in data:
                raise ConfigError("give learning_rate only (lr is its old name)")
            data["learning_rate"] = data.pop("lr")
        return super().from_dict(data, source=source)

    def validate(self) -> None:
        """Check ranges and that the game exists."""
        get_game(self.game)
        positive = (
            "iterations",
            "num_envs_per_env_runner",
            "train_batch_size",
            "minibatch_size",
            "num_epochs",
            "hidden_size",
            "hidden_layers",
            "league_size",
            "checkpoint_every",
            "torch_threads",
        )
        for name in positive:
            if getattr(self, name) < 1:
                self._fail(name, f"must be >= 1, got {getattr(self, name)}")
        for name in (
            "num_env_runners",
            "num_learners",
            "league_every",
            "eval_every",
            "eval_episodes",
        ):
            if getattr(self, name) < 0:
                self._fail(name, f"must be >= 0, got {getattr(self, name)}")
        for name in (
            "num_cpus_per_env_runner",
            "num_gpus_per_learner",
            "entropy_coeff",
            "vf_loss_coeff",
        ):
            if getattr(self, name) < 0:
                self._fail(name, f"must be >= 0, got {getattr(self, name)}")
        for name in ("gamma", "gae_lambda", "league_prob"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                self._fail(name, f"must be in [0, 1], got {getattr(self, name)}")
        if not 0.0 < self.clip_param < 1.0:
            self._fail("clip_param", f"must be in (0, 1), got {self.clip_param}")
        if self.sample_timeout_s <= 0:
            self._fail("sample_timeout_s", f"must be > 0, got {self.sample_timeout_s}")
        if self.minibatch_size > self.train_batch_size:
            self._fail(
                "minibatch_size",
                f"{self.minibatch_size} exceeds train_batch_size {self.train_batch_size}",
            )
        if self.max_num_env_runner_restarts < 0:
            self._fail("max_num_env_runner_restarts", "must be >= 0")
        if self.env_runner_restore_timeout_s <= 0:
            self._fail("env_runner_restore_timeout_s", "must be > 0")
        if self.learner_seat is not None and self.learner_seat < 0:
            self._fail("learner_seat", f"must be a seat (>= 0) or null, got {self.learner_seat}")
        if self.sampler == "batched" and not get_game(self.game).has("batched"):
            self._fail("sampler", f"batched needs a batched engine; {self.game!r} has none")
        if self.sampler == "batched" and not self.baselines():
            self._fail("league_baselines", "needs at least one baseline (e.g. random)")
        if not self.checkpoint_dir:
            self._fail("checkpoint_dir", "must not be empty")

    def baselines(self) -> list[str]:
        """The names in ``league_baselines``."""
        return [b.strip() for b in self.league_baselines.split(",") if b.strip()]

    def model_config(self) -> dict[str, Any]:
        """The ``model_config`` of `MaskedPPOTorchRLModule`."""
        return {"hidden": [self.hidden_size] * self.hidden_layers, "activation": self.activation}


@dataclasses.dataclass(frozen=True)
class RLlibRun:
    """A loaded run file: the training config and the game's validated rule options."""

    config: RLlibTrainConfig
    options: dict[str, Any]

    def env_config(self) -> dict[str, Any]:
        """The ``env_config`` of `SuiteRLlibEnv`."""
        return {"game": self.config.game, "options": dict(self.options)}


def check_options(game: str, options: Any, source: str | None = None) -> dict[str, Any]:
    """Validate rule ``options`` with the game's config class; return them as a dict.

    Raises:
        ConfigError: not a mapping, an unknown option or a bad value (named).
    """
    where = f"{source}: " if source else ""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ConfigError(
            f"{where}options must be a mapping of {game} rule options, got {type(options).__name__}"
        )
    get_game(game).config_class().from_dict(options, source=source)
    return dict(options)


def parse_overrides(items: list[str]) -> dict[str, Any]:
    """``--set key=value`` items of a run, through the suite's one override parser.

    Keys are `RLlibTrainConfig` fields or ``options.NAME`` (one rule
    option); an unknown key is a ConfigError naming it when the run is loaded.
    """
    return parse_assignments(items)


def load_run(path: str | Path | None = None, **overrides: Any) -> RLlibRun:
    """Load a run file (or only ``overrides`` when ``path`` is None).

    ``overrides`` win over the file; an ``options`` mapping among them is
    merged into the file's rule options, one option at a time.

    Raises:
        ConfigError: unreadable file, bad YAML, an unknown key or a bad value.
    """
    data: dict[str, Any] = {}
    source = None
    if path is not None:
        source = str(path)
        data = read_yaml_mapping(path)
    data = merge_overrides(data, overrides, source)
    options = data.pop("options", None)
    config = RLlibTrainConfig.from_dict(data, source=source)
    return RLlibRun(config, check_options(config.game, options, source))
