"""Settings of a Deep Monte-Carlo run (:class:`DMCArgs`), from a YAML preset and flags.

Every field has one doc line (the ``# ...`` comment beside it). A preset
(``configs/train/dmc_scum4.yaml``) sets any fields; ``--seed`` and
``--run-dir`` on the command line override it. Unknown keys, wrong types and
out-of-range values raise :class:`~cardsuite.errors.ConfigError` naming the
field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cardsuite.config import read_yaml_mapping
from cardsuite.errors import ConfigError
from cardsuite.train.ppo_args import RunFields


@dataclass
class DMCArgs(RunFields):
    """Settings of one Deep Monte-Carlo run (:mod:`cardsuite.train.dmc`)."""

    # fmt: off
    exp_name: str = "dmc_scum4"  # name of the run (its folder is runs/<exp_name>-seed<seed> by default)
    seed: int = 0  # seeds python, numpy, torch and the training deals
    game: str = "scum"  # the game: scum, scum_party or scandal (its batched engine)
    num_players: int = 4  # players at the table
    options: dict[str, Any] = field(default_factory=dict)  # other rule options of the game's config
    total_steps: int = 2_000_000  # learner decisions to play
    budget_minutes: float = 0.0  # also stop after this many minutes (0: no limit)
    num_games: int = 256  # games stepped together
    rollout_steps: int = 32  # engine steps per rollout between updates
    threads: int = 1  # torch CPU threads (0: torch's default)
    hidden: int = 256  # units per hidden layer of the Q-network
    layers: int = 3  # hidden layers
    activation: str = "relu"  # relu or tanh
    learning_rate: float = 3e-4  # Adam step size
    batch_size: int = 1024  # decisions per gradient step
    replay_ratio: float = 1.0  # times each finished decision is trained on, on average
    buffer_size: int = 65_536  # finished decisions kept (first in, first out)
    max_grad_norm: float = 10.0  # gradient norm clip (0: none)
    epsilon: float = 0.01  # share of random legal moves of the learner in rollouts
    self_play: float = 0.5  # share of games where every seat is the learner (the rest face a baseline)
    baselines: str = "heuristic"  # opponents of the other games: comma list of heuristic, random
    bc_steps: int = 0  # warm start: engine steps of heuristic games to fit (0: none)
    bc_games: int = 512  # warm start: games played together for its data
    bc_explore: float = 0.05  # warm start: share of random moves in those games
    bc_epochs: int = 4  # warm start: passes over its data
    bc_margin: float = 0.05  # warm start: Q of the heuristic's move must beat others by this
    bc_margin_coef: float = 1.0  # warm start: weight of the margin loss beside the return regression
    eval_every: int = 1_000_000  # learner decisions between duplicate evaluations (0: final only)
    eval_first: bool = False  # also evaluate before training (the warm start alone)
    eval_deals: int = 400  # duplicate deals per evaluation against each baseline
    eval_seed: int = 1_000_003  # deal seed of the evaluations (never a training seed)
    eval_against: str = "heuristic,random"  # evaluation opponents: comma list of heuristic, random
    run_dir: str = ""  # output folder (default runs/<exp_name>-seed<seed>)
    quiet: bool = False  # no log lines on stdout
    # fmt: on

    def __post_init__(self) -> None:
        """Check every field (ConfigError naming it)."""
        positive = ("total_steps", "num_games", "rollout_steps", "hidden", "layers",
                    "batch_size", "buffer_size", "eval_deals", "num_players")  # fmt: skip
        for name in positive:
            _int(self, name, 1)
        for name in ("threads", "seed", "bc_steps", "bc_games", "bc_epochs", "eval_every",
                     "eval_seed"):  # fmt: skip
            _int(self, name, 0)
        for name, low, high in (("epsilon", 0.0, 1.0), ("self_play", 0.0, 1.0),
                                ("bc_explore", 0.0, 1.0), ("budget_minutes", 0.0, 1e6),
                                ("replay_ratio", 1e-6, 1e3), ("learning_rate", 1e-9, 1.0),
                                ("max_grad_norm", 0.0, 1e9), ("bc_margin", 0.0, 1e3),
                                ("bc_margin_coef", 0.0, 1e3)):  # fmt: skip
            v = getattr(self, name)
            if not low <= v <= high:
                raise ConfigError(f"field {name!r} must be in [{low:g}, {high:g}], got {v!r}")
        if self.activation not in ("tanh", "relu"):
            raise ConfigError(f"field 'activation' must be tanh or relu, got {self.activation!r}")
        for name in ("baselines", "eval_against"):
            for b in self.names(name):
                if b not in ("heuristic", "random"):
                    raise ConfigError(f"field {name!r}: unknown baseline {b!r} (heuristic, random)")
        if self.self_play < 1.0 and not self.names("baselines"):
            raise ConfigError("field 'baselines' is empty but self_play < 1 needs opponents")
        if self.bc_steps and self.bc_games < 1:
            raise ConfigError("field 'bc_games' must be at least 1 with a warm start")
        if not isinstance(self.options, dict):
            raise ConfigError("field 'options' must be a mapping of rule options")
        from cardsuite.train.ppo_games import train_game

        train_game(self.game)


def _int(args: DMCArgs, name: str, low: int) -> None:
    v = getattr(args, name)
    if isinstance(v, bool) or not isinstance(v, int) or v < low:
        raise ConfigError(f"field {name!r} must be an integer >= {low}, got {v!r}")


def load_args(config: str | None, **overrides: Any) -> DMCArgs:
    """A preset file (or none) with ``overrides`` (fields set on the command line) applied."""
    doc = read_yaml_mapping(config) if config else {}
    doc.update({k: v for k, v in overrides.items() if v is not None})
    return DMCArgs.from_dict(doc)
