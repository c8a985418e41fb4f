"""The RLlib adapter's settings: `RLlibTrainConfig`, the core's `PPOFamily` plus what only
RLlib has (env runners, learners, batch sizes, fault tolerance). A run file of before 0.3
loads with a warning. This module does not import ray."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from cardsuite import overrides
from cardsuite.config import doc_field, read_yaml_mapping
from cardsuite.errors import ConfigError
from cardsuite.games import get_game
from cardsuite.moved import moved_getattr
from cardsuite.overrides import merge_overrides
from cardsuite.train.core.settings import BASELINES, PPOFamily, inherit

ILLEGAL_ACTIONS = "illegal_actions"
"""RLlib metric (lifetime sum over env runners): episodes ended by an illegal action."""

#: Keys counted in iterations before 0.3; each became learner steps.
PER_ITERATION = {"iterations": "total_steps", "league_every": "snapshot_every",
                 "eval_every": "eval_every", "checkpoint_every": "checkpoint_every"}  # fmt: skip
#: Sampler switches of before 0.3, read and ignored: the batched sampler has one path.
DROPPED = ("array_runner", "array_batches", "tick_sampler", "self_play_all_seats",
           "overlap_sampling")  # fmt: skip


@dataclass(frozen=True)
class RLlibTrainConfig(PPOFamily):
    """Self-play PPO on Ray RLlib: the shared fields, the sampler and RLlib's scale."""

    RENAMED: ClassVar[dict[str, str]] = {
        "lr": "learning_rate", "num_epochs": "update_epochs", "clip_param": "clip_coef",
        "entropy_coeff": "ent_coef", "vf_loss_coeff": "vf_coef", "hidden_size": "hidden",
        "hidden_layers": "layers", "torch_threads": "threads", "league_size": "max_snapshots",
        "pfsp_weighting": "pfsp", "eval_episodes": "eval_deals", "eval_opponent": "eval_against",
        "league_baselines": "baselines", "checkpoint_dir": "run_dir",
    }  # fmt: skip

    # fmt: off
    num_players: int | None = doc_field(  # type: ignore[assignment]
        None, "players at the table (null: the game's default)")
    total_steps: int = inherit(PPOFamily, "total_steps", 400_000)
    hidden: int = inherit(PPOFamily, "hidden", 256)
    activation: Literal["tanh", "relu"] = inherit(PPOFamily, "activation", "relu")
    max_grad_norm: float = doc_field(0.0, "gradient norm clip (0: none, RLlib's default)", ge=0.0)
    snapshot_every: int = inherit(PPOFamily, "snapshot_every", 40_000)
    max_snapshots: int = inherit(PPOFamily, "max_snapshots", 5)
    eval_every: int = inherit(PPOFamily, "eval_every", 0)
    eval_deals: int = doc_field(50, "duplicate deals per evaluation and opponent (0: none)", ge=0)
    eval_against: str = doc_field("random", "evaluation opponents: comma list of agent specs")
    checkpoint_every: int = inherit(PPOFamily, "checkpoint_every", 40_000)
    sampler: Literal["batched", "per_game"] = doc_field(
        "per_game", "batched: each env runner ticks num_envs_per_env_runner games of the batched "
        "engine, one learning seat each; per_game: the AEC env, every seat a policy")
    learner_seat: int | None = doc_field(
        None, "batched: the learning seat of every game (null: seats rotate)", ge=0)
    baselines: str = doc_field(
        "heuristic,random", "fixed League members: comma list of heuristic, random")
    self_play: float = doc_field(
        0.5, "share of self-play episodes (per_game: main in every seat) or games (batched: "
        "against the newest snapshot); the rest face League members", ge=0.0, le=1.0)
    num_env_runners: int = doc_field(1, "remote env runners (0: sample in the driver)", ge=0)
    num_envs_per_env_runner: int = doc_field(1, "envs (batched: games) per env runner", ge=1)
    num_cpus_per_env_runner: float = doc_field(1.0, "CPUs Ray reserves per env runner", ge=0.0)
    num_learners: int = doc_field(0, "remote learners (0: learn in the driver)", ge=0)
    num_gpus_per_learner: float = doc_field(
        0.0, "GPUs per learner (0: one with device cuda)", ge=0.0)
    train_batch_size: int = doc_field(4000, "env steps per iteration and learner", ge=1)
    minibatch_size: int = doc_field(256, "PPO minibatch size", ge=1)
    restart_failed_env_runners: bool = doc_field(True, "replace an env runner that died")
    max_num_env_runner_restarts: int = doc_field(100, "restarts allowed per env runner", ge=0)
    env_runner_restore_timeout_s: float = doc_field(
        120.0, "seconds to wait for a restarted env runner", gt=0.0)
    sample_timeout_s: float = doc_field(600.0, "max seconds of one sample", gt=0.0)
    # fmt: on

    @classmethod
    def upgrade(
        cls, data: Mapping[str, Any], source: str | None = None, *, warn: bool = False
    ) -> Mapping[str, Any]:
        """`RunConfig.upgrade`, then the old keys that are more than a rename (module doc)."""
        data = super().upgrade(data, source, warn=warn)
        if not isinstance(data, Mapping):
            return data
        out = dict(data)
        notes = [k for k in DROPPED if out.pop(k, None) is not None]
        options = out.get("options")
        if isinstance(options, Mapping) and "num_players" in options:
            if "num_players" in out:
                raise ConfigError("give num_players only (options.num_players is its old place)")
            out["options"] = {k: v for k, v in options.items() if k != "num_players"}
            out["num_players"] = options["num_players"]
            notes.append("options.num_players")
        if "league_prob" in out:
            if "self_play" in out:
                raise ConfigError("give self_play only (league_prob is its old complement)")
            out["self_play"] = 1.0 - float(out.pop("league_prob"))
            notes.append("league_prob")
        if "iterations" in out or "league_every" in out:  # a run file counted in iterations
            batch = int(out.get("train_batch_size", cls.train_batch_size))
            for old, new in PER_ITERATION.items():
                if old in out:
                    out[new] = int(out.pop(old)) * batch
                    notes.append(old)
        if warn and notes:
            warnings.warn(f"{source + ': ' if source else ''}RLlibTrainConfig: {', '.join(notes)} "
                          "read in today's terms (docs/rllib.md, 'Config fields'; the old keys "
                          "will be removed in 0.4)", FutureWarning, stacklevel=4)  # fmt: skip
        return out

    def validate(self) -> None:
        """The game and its options, the sampler, the League, the batch sizes."""
        super().validate()
        game = get_game(self.game)
        players = self.check_players()
        if self.learner_seat is not None and self.learner_seat >= players:
            self._fail("learner_seat", f"{self.learner_seat} is not a seat of a {players}-player "
                       f"{self.game} table")  # fmt: skip
        if self.sampler == "batched" and not game.has("batched"):
            self._fail("sampler", f"batched needs a batched engine; {self.game!r} has none")
        for name in self.names("baselines"):
            if name not in BASELINES:
                self._fail("baselines", f"{name!r} is not one of {', '.join(BASELINES)}")
        if self.self_play < 1.0 and not self.names("baselines"):
            self._fail("baselines", "needs at least one baseline (e.g. random)")
        if self.minibatch_size > self.train_batch_size:
            self._fail("minibatch_size",
                       f"{self.minibatch_size} exceeds train_batch_size {self.train_batch_size}")  # fmt: skip

    def model_config(self) -> dict[str, Any]:
        """The ``model_config`` of `MaskedPPOTorchRLModule`."""
        return {"hidden": [self.hidden] * self.layers, "activation": self.activation}

    def iterations(self) -> int:
        """Iterations of ``train_batch_size`` steps in ``total_steps`` (rounded up)."""
        return -(-self.total_steps // self.train_batch_size)


def load_config(path: str | None = None, **overrides: Any) -> RLlibTrainConfig:
    """A run file (or only ``overrides`` when ``path`` is None) as a config; ``overrides`` win,
    an ``options`` mapping among them merged into the file's rule options.

    Raises:
        ConfigError: unreadable file, bad YAML, an unknown key or a bad value.
    """
    source = None if path is None else str(path)
    data = RLlibTrainConfig.upgrade(read_yaml_mapping(source) if source else {}, source, warn=True)
    extra = RLlibTrainConfig.upgrade(overrides, warn=True)
    return RLlibTrainConfig.from_dict(merge_overrides(data, extra, source), source=source)


# Names before 0.3, with a warning (``load_run``'s ``run.options`` is ``env_options()`` now).
__getattr__ = moved_getattr(__name__, {"load_run": (sys.modules[__name__], "load_config"),
                                       "parse_overrides": (overrides, "parse_assignments")})  # fmt: skip
