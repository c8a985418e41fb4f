"""The training config: every knob of a self-play MaskablePPO run, documented.

A `TrainConfig` is a frozen dataclass built on the suite's
[`ConfigBase`][cardsuite.config.ConfigBase]: each field has a one-line doc
(``TrainConfig.doc_table()`` renders them for ``docs/training.md``), an
unknown key or a value of the wrong type or range is a
[`ConfigError`][cardsuite.errors.ConfigError] naming the field. Presets live in
``configs/train/*.yaml``; ``cardsuite train --set key=value`` overrides any
field.

This module imports no torch: the CLI and the arena read configs cheaply.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from cardsuite.agents.registry import parse_spec
from cardsuite.config import ConfigBase, doc_field, read_yaml_mapping
from cardsuite.errors import ConfigError
from cardsuite.games import Game, games, get_game
from cardsuite.overrides import merge_overrides, parse_assignments
from cardsuite.train.core.settings import DEVICE, RunConfig, inherit, learning_rate_field

# Fields that may change when a run is resumed: they do not alter what was
# learned so far, only how long and how visibly the run goes on. Changing any
# other field (the game, its options, the network, the optimizer settings)
# makes ``--resume`` a CheckpointError.
RESUME_MUTABLE = frozenset(
    {
        "total_steps",
        "eval_every",
        "eval_games",
        "final_eval_games",
        "eval_baselines",
        "checkpoint_every",
        "progress",
        "vec_env",
        "device",
        "budget_minutes",
        "tensorboard",
    }
)

# The pool's opponent kinds, in the order of their probability fields.
OPPONENT_KINDS = ("random", "heuristic", "snapshot")


def batched_refusal(game: Game) -> str | None:
    """Why ``vec_env: batched`` cannot train ``game``, naming the choices; None if it can.

    The batched VecEnv is the game's one-seat batched vector env, the
    ``sb3_vec_env`` part of its record (`cardsuite.train.sb3.batched`).
    """
    if game.has("sb3_vec_env"):
        return None
    able = ", ".join(g.name for g in games().values() if g.has("sb3_vec_env"))
    return (
        f"'batched' trains on a game's one-seat batched vector env (its record's sb3_vec_env: "
        f"{able}); game {game.name!r} has none: choose 'auto', 'subproc' or 'dummy'"
    )


@dataclass(frozen=True)
class TrainConfig(ConfigBase):
    """A self-play MaskablePPO run: game, PPO hyperparameters, pool, schedules."""

    game: str = doc_field("scum", "the game to train on: `scum`, `scum_party` or `scandal`")
    options: dict[str, Any] = dataclasses.field(
        default_factory=dict,
        metadata={
            "doc": "rule options of the game's env (its config fields), e.g. `{num_players: 4}`"
        },
    )
    total_steps: int = doc_field(200_000, "learner decisions to train for, over all envs")
    seed: int = doc_field(0, "seeds torch, numpy, python and every env (env i gets seed + i)")
    n_envs: int = doc_field(2, "parallel environments (each a worker process with `subproc`)")
    vec_env: Literal["auto", "subproc", "dummy", "batched"] = doc_field(
        "auto",
        "`subproc`: one worker process per env; `dummy`: all envs in this process; "
        "`auto`: subproc when n_envs > 1; `batched` (games whose record names an `sb3_vec_env`: "
        "Scum): `n_envs` games in the batched engine, in this process (see `train/sb3/batched.py`)",
    )
    torch_threads: int = doc_field(1, "torch CPU threads of the learner (1 is fastest on 2 cores)")
    learning_rate: float = learning_rate_field(3e-4)
    n_steps: int = doc_field(512, "decisions per env per rollout; a rollout is n_steps * n_envs")
    batch_size: int = doc_field(256, "minibatch size of each gradient step")
    n_epochs: int = doc_field(4, "passes over each rollout")
    gamma: float = doc_field(0.99, "discount factor per learner decision")
    gae_lambda: float = doc_field(0.95, "GAE lambda")
    clip_range: float = doc_field(0.2, "PPO clipping of the probability ratio")
    ent_coef: float = doc_field(0.01, "entropy bonus coefficient")
    vf_coef: float = doc_field(0.5, "value loss coefficient")
    max_grad_norm: float = doc_field(0.5, "gradient clipping norm")
    hidden_size: int = doc_field(128, "units per hidden layer (policy and value nets)")
    hidden_layers: int = doc_field(2, "hidden layers of the policy and of the value net")
    activation: Literal["tanh", "relu"] = doc_field("tanh", "hidden activation")
    learner_seat: int | None = doc_field(
        None, "the learner's seat; `null` rotates it over episodes (seat = episode mod players)"
    )
    opponent_random: float = doc_field(
        0.2, "League share of `random` (with `pfsp: uniform`: the chance an opponent seat is it)"
    )
    opponent_heuristic: float = doc_field(
        0.3, "League share of `heuristic` (with `pfsp: uniform`: the chance a seat is it)"
    )
    opponent_snapshot: float = doc_field(
        0.5, "League share of the learner's frozen snapshots, split evenly among them"
    )
    snapshot_every: int = doc_field(
        20_000, "steps between snapshots of the learner into the league"
    )
    max_snapshots: int = doc_field(5, "snapshots kept in the league (the oldest leave first)")
    pfsp: Literal["hard", "variance", "uniform"] = inherit(RunConfig, "pfsp", "uniform")
    eval_every: int = doc_field(
        50_000, "steps between evaluations against the baselines (0: only the final one)"
    )
    eval_games: int = doc_field(60, "duplicate games per baseline in each periodic evaluation")
    final_eval_games: int = doc_field(200, "duplicate games per baseline in the final report")
    eval_baselines: str = doc_field(
        "random,heuristic", "comma-separated arena agent specs to evaluate against"
    )
    checkpoint_every: int = doc_field(
        50_000, "steps between checkpoints (0: only at the end and on Ctrl-C)"
    )
    progress: bool = doc_field(True, "show a progress bar")
    device: str = doc_field("cpu", "torch device of the learner: cpu or cuda (cuda:N)")
    budget_minutes: float = doc_field(
        0.0, "also stop after this many minutes of training, then report (0: no limit)", ge=0.0
    )
    tensorboard: bool = doc_field(True, "write TensorBoard events to RUN/tb")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str | None = None) -> TrainConfig:
        """Build from a mapping; the game may be spelled as the registry accepts it
        (``Scum``, ``scum-party``), ``options: null`` means no options."""
        if isinstance(data, Mapping):
            data = dict(data)
            if isinstance(data.get("game"), str):
                try:
                    data["game"] = get_game(data["game"]).name
                except ConfigError as err:
                    where = f"{source}: " if source else ""
                    raise ConfigError(f"{where}TrainConfig.game: {err}") from None
            if "options" in data and data["options"] is None:
                data["options"] = {}
        return super().from_dict(data, source=source)

    def validate(self) -> None:
        """Ranges, the game and its options, and the pool's probabilities."""
        try:
            game = get_game(self.game)
        except ConfigError as err:
            self._fail("game", str(err))
        if game.name != self.game:
            self._fail("game", f"write the game's name {game.name!r}, not {self.game!r}")
        try:
            game.config_class().from_dict(self.options)
        except ConfigError as err:
            self._fail("options", str(err))
        refusal = batched_refusal(game) if self.vec_env == "batched" else None
        if refusal is not None:
            self._fail("vec_env", refusal)
        for name in (
            "total_steps",
            "n_envs",
            "torch_threads",
            "n_steps",
            "batch_size",
            "n_epochs",
            "hidden_size",
            "hidden_layers",
            "snapshot_every",
            "max_snapshots",
            "eval_games",
            "final_eval_games",
        ):
            if getattr(self, name) < 1:
                self._fail(name, f"must be at least 1, got {getattr(self, name)}")
        for name in ("eval_every", "checkpoint_every", "seed"):
            if getattr(self, name) < 0:
                self._fail(name, f"must be 0 or more, got {getattr(self, name)}")
        if self.batch_size > self.n_steps * self.n_envs:
            self._fail(
                "batch_size",
                f"{self.batch_size} is larger than a rollout (n_steps * n_envs = "
                f"{self.n_steps * self.n_envs})",
            )
        # ConfigBase has refused NaN and infinity already; the checks are NaN-safe anyway.
        if not DEVICE.fullmatch(self.device):
            self._fail("device", f"must be cpu or cuda (cuda:N), got {self.device!r}")
        for name in ("clip_range", "max_grad_norm"):
            if not getattr(self, name) > 0:
                self._fail(name, f"must be positive, got {getattr(self, name)}")
        for name in ("gamma", "gae_lambda"):
            if not 0 <= getattr(self, name) <= 1:
                self._fail(name, f"must lie in [0, 1], got {getattr(self, name)}")
        for name in ("ent_coef", "vf_coef"):
            if not getattr(self, name) >= 0:
                self._fail(name, f"must be 0 or more, got {getattr(self, name)}")
        probs = self.opponent_probs()
        for kind, p in probs.items():
            if not p >= 0:
                self._fail(f"opponent_{kind}", f"a probability cannot be negative, got {p}")
            if not p <= 1:
                self._fail(f"opponent_{kind}", f"a probability cannot exceed 1, got {p}")
        if not abs(sum(probs.values()) - 1.0) <= 1e-6:
            self._fail(
                "opponent_snapshot",
                "opponent_random + opponent_heuristic + opponent_snapshot must sum to 1, got "
                + " + ".join(f"{p:g}" for p in probs.values()),
            )
        if not self.baselines():
            self._fail("eval_baselines", "name at least one agent spec, e.g. `random`")
        for spec in self.baselines():
            try:
                parse_spec(spec)  # the kind and the parameters' syntax
            except ConfigError as err:
                self._fail("eval_baselines", str(err))
        players = self.num_players()
        if self.learner_seat is not None and not 0 <= self.learner_seat < players:
            self._fail(
                "learner_seat",
                f"seat {self.learner_seat} does not exist at a {players}-player table "
                f"(seats 0..{players - 1})",
            )

    def opponent_probs(self) -> dict[str, float]:
        """The pool's draw probabilities by opponent kind."""
        return {kind: float(getattr(self, f"opponent_{kind}")) for kind in OPPONENT_KINDS}

    def baselines(self) -> list[str]:
        """The agent specs of `eval_baselines`."""
        return [s.strip() for s in self.eval_baselines.split(",") if s.strip()]

    def game_config(self) -> ConfigBase:
        """The validated config of the game's env."""
        return get_game(self.game).config_class().from_dict(self.options)

    def num_players(self) -> int:
        """Players at the table (the game's player-count field)."""
        game = get_game(self.game)
        return int(getattr(self.game_config(), game.players_key))

    def resume_mismatches(self, saved: TrainConfig) -> list[str]:
        """Fields that differ from ``saved`` and may not change on resume."""
        return [
            name
            for name in self.field_names()
            if name not in RESUME_MUTABLE and getattr(self, name) != getattr(saved, name)
        ]


def parse_overrides(items: list[str]) -> dict[str, Any]:
    """Turn ``["total_steps=20000", "options.num_players=5"]`` into field values.

    The suite's one override parser (`cardsuite.overrides.parse_assignments`):
    YAML values, ``options.NAME`` sets one rule option. An unknown field is a
    ConfigError naming it (with the closest field) when the config is built.
    """
    return parse_assignments(items)


def load_config(path: str | None, overrides: Mapping[str, Any] | None = None) -> TrainConfig:
    """The config of a YAML file (or the defaults) with ``overrides`` applied.

    ``overrides["options"]`` is merged into the file's options rather than
    replacing them, so ``--set options.num_players=5`` keeps the other rules.
    """
    data = read_yaml_mapping(path) if path is not None else {}
    return TrainConfig.from_dict(merge_overrides(data, overrides or {}, path), source=path)


def check_baselines(config: TrainConfig) -> None:
    """Build every evaluation baseline once, so a bad spec fails before training.

    Raises:
        ConfigError: an unknown agent or parameter (``ismcts:budgt=3``), named.
        CheckpointError: a ``ppo:``/``rllib:`` baseline that cannot be loaded.
    """
    from cardsuite.agents.registry import make_agent

    for spec in config.baselines():
        try:
            make_agent(spec, config.game, seed=0)
        except ConfigError as err:
            raise ConfigError(f"TrainConfig.eval_baselines: {err}") from None
