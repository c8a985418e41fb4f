"""The batched PPO trainer's settings (:class:`Args`), from YAML presets and command-line flags.

Every field has one doc line (the ``# ...`` comment beside it), shown by
``cardsuite ppo --help``. A preset (``configs/train/ppo_*.yaml``) sets any
fields; flags override it: ``--total-steps 2000000 --device cuda``.
Unknown keys and wrong types raise :class:`~cardsuite.errors.ConfigError`
naming the field.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import re
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Self

import yaml

from cardsuite.config import read_yaml_mapping
from cardsuite.errors import ConfigError


class RunFields:
    """What the batched trainers' settings share: comma lists, the run folder, dict round trip.

    A dataclass with ``exp_name``, ``seed`` and ``run_dir`` fields inherits it
    (:class:`Args` here, :class:`~cardsuite.train.dmc_args.DMCArgs`).
    """

    exp_name: str
    seed: int
    run_dir: str

    def names(self, name: str) -> list[str]:
        """The comma list of field ``name`` as names."""
        return [s.strip() for s in str(getattr(self, name)).split(",") if s.strip()]

    def out_dir(self) -> Path:
        """The run folder."""
        return Path(self.run_dir or f"runs/{self.exp_name}-seed{self.seed}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly copy."""
        return asdict(self)  # type: ignore[call-overload]

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> Self:
        """Args from a mapping; ConfigError for unknown fields or wrong types."""
        known = {f.name: f for f in fields(cls)}  # type: ignore[arg-type]
        values: dict[str, Any] = {}
        for key, value in doc.items():
            if key not in known:
                raise ConfigError(f"unknown field {key!r}; fields: {', '.join(known)}")
            default = _default(known[key])
            if (
                isinstance(default, float)
                and isinstance(value, int)
                and not isinstance(value, bool)
            ):
                value = float(value)
            if type(value) is not type(default):
                raise ConfigError(
                    f"field {key!r} must be a {type(default).__name__}, got {value!r}"
                )
            values[key] = value
        return cls(**values)


@dataclass
class Args(RunFields):
    """Settings of one batched PPO run (cleanrl's ``Args``)."""

    # fmt: off
    exp_name: str = "scum_ppo"  # name of the run (its folder under run_dir's parent by default)
    seed: int = 0  # seeds python, numpy, torch and the training deals
    game: str = "scum"  # the game: scum, scum_party or scandal (its batched engine)
    num_players: int = 4  # players at the table (Scum J2, Scum Party P2, Scandal S2)
    options: dict[str, Any] = field(default_factory=dict)  # other rule options of the game's config
    total_steps: int = 2_000_000  # learner decisions to train on
    budget_minutes: float = 0.0  # also stop after this many minutes of training (0: no limit)
    num_games: int = 512  # games stepped together
    rollout_steps: int = 32  # engine steps per rollout (every game moves once per step)
    backend: str = "numpy"  # engine backend: numpy (CPU) or torch (any device)
    device: str = "cpu"  # torch device of the network (cuda: the engine runs there too)
    threads: int = 1  # torch CPU threads (0: torch's default; more than 1 thrashes on a shared machine)
    learning_rate: float = 3e-4  # Adam step size
    anneal_lr: bool = True  # decay the step size linearly to 0
    gamma: float = 0.995  # discount per decision of a seat
    gae_lambda: float = 0.95  # GAE lambda
    num_minibatches: int = 4  # minibatches per epoch
    update_epochs: int = 4  # passes over each rollout
    clip_coef: float = 0.2  # PPO ratio clip
    clip_vloss: bool = True  # clip the value loss as PPO2 does
    ent_coef: float = 0.01  # entropy bonus
    vf_coef: float = 0.5  # value loss weight
    max_grad_norm: float = 0.5  # gradient norm clip
    norm_adv: bool = True  # normalise advantages per minibatch
    target_kl: float = 0.0  # stop an update's epochs above this approximate KL (0: never)
    hidden: int = 128  # units per hidden layer (actor and critic)
    layers: int = 2  # hidden layers
    activation: str = "tanh"  # tanh or relu
    init: str = ""  # start from this agent directory (safe format, e.g. RUN/agent) instead of a fresh network
    bc_steps: int = 0  # warm start: engine steps of heuristic games to imitate (0: start from scratch)
    bc_games: int = 512  # warm start: games played together to make the imitation data
    bc_explore: float = 0.15  # warm start: share of random moves in those games (labels stay the heuristic's)
    bc_epochs: int = 4  # warm start: passes over the imitation data
    self_play: float = 0.5  # share of games where every seat is the learner (the rest face the league)
    baselines: str = "heuristic"  # fixed league members: comma list of heuristic, random (may be empty)
    snapshot_every: int = 250_000  # learner steps between frozen snapshots added to the league (0: none)
    max_snapshots: int = 8  # snapshots kept in the league
    pfsp: str = "hard"  # PFSP weighting: hard, variance or uniform
    eval_every: int = 250_000  # learner steps between duplicate evaluations (0: final only)
    eval_deals: int = 400  # duplicate deals per evaluation against each baseline
    eval_seed: int = 1_000_003  # deal seed of the evaluations (never a training seed)
    eval_against: str = "heuristic"  # evaluation opponents: comma list of heuristic, random
    run_dir: str = ""  # output folder (default runs/<exp_name>-seed<seed>)
    checkpoint_every: int = 500_000  # learner steps between checkpoints (0: final only)
    resume: bool = False  # continue from run_dir/checkpoint
    tensorboard: bool = True  # write TensorBoard events (if tensorboard is installed)
    quiet: bool = False  # no log lines on stdout
    # fmt: on

    def __post_init__(self) -> None:
        """Check every field (ConfigError naming it)."""
        positive = ("total_steps", "num_games", "rollout_steps", "num_minibatches",
                    "update_epochs", "hidden", "layers", "eval_deals", "num_players")  # fmt: skip
        for name in positive:
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ConfigError(f"field {name!r} must be a positive integer, got {v!r}")
        for name in ("snapshot_every", "eval_every", "checkpoint_every", "threads", "seed",
                     "max_snapshots", "eval_seed", "bc_steps", "bc_games", "bc_epochs"):  # fmt: skip
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ConfigError(f"field {name!r} must be an integer >= 0, got {v!r}")
        if self.budget_minutes < 0:
            raise ConfigError(f"field 'budget_minutes' must be >= 0, got {self.budget_minutes!r}")
        if not 0.0 <= self.bc_explore <= 1.0:
            raise ConfigError(f"field 'bc_explore' must be in [0, 1], got {self.bc_explore!r}")
        if self.bc_steps and self.bc_games < 1:
            raise ConfigError("field 'bc_games' must be at least 1 with a warm start")
        if not 0.0 <= self.self_play <= 1.0:
            raise ConfigError(f"field 'self_play' must be in [0, 1], got {self.self_play!r}")
        if self.backend not in ("numpy", "torch"):
            raise ConfigError(f"field 'backend' must be numpy or torch, got {self.backend!r}")
        if self.activation not in ("tanh", "relu"):
            raise ConfigError(f"field 'activation' must be tanh or relu, got {self.activation!r}")
        if self.pfsp not in ("hard", "variance", "uniform"):
            raise ConfigError(f"field 'pfsp' must be hard, variance or uniform, got {self.pfsp!r}")
        for name in ("baselines", "eval_against"):
            for b in self.names(name):
                if b not in ("heuristic", "random"):
                    raise ConfigError(f"field {name!r}: unknown baseline {b!r} (heuristic, random)")
        if self.self_play < 1.0 and not self.names("baselines") and not self.snapshot_every:
            raise ConfigError("games against the league need 'baselines' or 'snapshot_every'")
        if not isinstance(self.options, dict):
            raise ConfigError("field 'options' must be a mapping of rule options")
        from cardsuite.train.ppo_games import train_game

        train_game(self.game)


def _default(f: Any) -> Any:
    return f.default_factory() if f.default is MISSING else f.default


def field_docs() -> dict[str, str]:
    """The doc comment of each field, read from this module's source."""
    src = inspect.getsource(Args)
    return dict(re.findall(r"^\s+(\w+): [^=]+=.*?#\s*(.+)$", src, flags=re.M))


def load_preset(path: str | Path) -> dict[str, Any]:
    """A YAML preset as a mapping: a file, or a shipped preset by name (``train/ppo_scum4``).

    Read by :func:`cardsuite.config.read_yaml_mapping` (plain data only, no
    key given twice, bounded size and depth); ConfigError naming the file.
    """
    return read_yaml_mapping(path)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One ``--flag`` per field (documented), plus ``--config PRESET``."""
    docs = field_docs()
    parser.add_argument("--config", help="YAML preset of fields (flags override it)")
    for f in fields(Args):
        flag = "--" + f.name.replace("_", "-")
        parser.add_argument(flag, dest=f.name, default=None, metavar=f.name.upper(),
                            help=f"{docs.get(f.name, '')} (default {_default(f)!r})")  # fmt: skip


def args_from_namespace(ns: argparse.Namespace) -> Args:
    """Args from a preset and flags (flag values are read as Python/YAML literals)."""
    doc = load_preset(ns.config) if getattr(ns, "config", None) else {}
    for f in fields(Args):
        raw = getattr(ns, f.name, None)
        if raw is None:
            continue
        doc[f.name] = _parse_flag(f.name, raw, _default(f))
    return Args.from_dict(doc)


def _parse_flag(name: str, raw: str, default: Any) -> Any:
    if isinstance(default, str):
        return raw
    if isinstance(default, dict):
        value = yaml.safe_load(raw)
        if not isinstance(value, dict):
            raise ConfigError(f"--{name.replace('_', '-')} must be a mapping like '{{a: 1}}'")
        return value
    try:
        value = yaml.safe_load(raw.replace("_", "")) if not isinstance(default, bool) else None
        if isinstance(default, bool):
            value = {"true": True, "false": False}.get(raw.lower())
            if value is None:
                raise ValueError(raw)
        elif isinstance(default, float):
            value = float(ast.literal_eval(raw))
    except (ValueError, SyntaxError, yaml.YAMLError):
        raise ConfigError(f"--{name.replace('_', '-')}: cannot read {raw!r}") from None
    return value
