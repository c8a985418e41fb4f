"""The MaskablePPO adapter's settings (`TrainConfig`) on the core's vocabulary; SB3's own
names appear only in `maskable_ppo_kwargs`. No torch is imported."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from cardsuite.agents.registry import parse_spec
from cardsuite.config import doc_field, read_yaml_mapping
from cardsuite.errors import ConfigError
from cardsuite.games import Game, games, get_game
from cardsuite.overrides import merge_overrides, parse_assignments
from cardsuite.train.core.settings import PPOFamily, inherit

#: Fields a resume may change: how long and how visibly the run goes on, never what
#: it learned (another game, network or optimizer setting is a CheckpointError).
RESUME_MUTABLE = frozenset({"total_steps", "eval_every", "eval_deals", "final_eval_deals",
                            "eval_against", "checkpoint_every", "progress", "vec_env", "device",
                            "budget_minutes", "tensorboard", "run_dir", "resume"})  # fmt: skip

# The pool's opponent kinds, in the order of their probability fields.
OPPONENT_KINDS = ("random", "heuristic", "snapshot")


def batched_refusal(game: Game) -> str | None:
    """Why ``vec_env: batched`` cannot train ``game``, naming the choices; None if it can
    (the batched VecEnv is the ``sb3_vec_env`` part of the game's record)."""
    if game.has("sb3_vec_env"):
        return None
    able = ", ".join(g.name for g in games().values() if g.has("sb3_vec_env"))
    return (
        f"'batched' trains on a game's one-seat batched vector env (its record's sb3_vec_env: "
        f"{able}); game {game.name!r} has none: choose 'auto', 'subproc' or 'dummy'"
    )


def _share(default: float, doc: str) -> Any:
    return doc_field(default, doc, ge=0.0, le=1.0)


@dataclass(frozen=True)
class TrainConfig(PPOFamily):
    """A self-play MaskablePPO run: game, PPO hyperparameters, pool, schedules."""

    RENAMED: ClassVar[dict[str, str]] = {
        "n_envs": "num_games", "n_steps": "rollout_steps", "n_epochs": "update_epochs",
        "clip_range": "clip_coef", "hidden_size": "hidden", "hidden_layers": "layers",
        "torch_threads": "threads", "eval_games": "eval_deals",
        "final_eval_games": "final_eval_deals", "eval_baselines": "eval_against",
    }  # fmt: skip

    num_players: int | None = doc_field(  # type: ignore[assignment]
        None, "players at the table (null: the game's default)"
    )
    total_steps: int = inherit(PPOFamily, "total_steps", 200_000)
    num_games: int = doc_field(
        2, "parallel environments (each a worker process with `subproc`)", ge=1
    )
    vec_env: Literal["auto", "subproc", "dummy", "batched"] = doc_field(
        "auto",
        "`subproc`: one worker process per env; `dummy`: all envs in this process; "
        "`auto`: subproc when num_games > 1; `batched` (games whose record names an "
        "`sb3_vec_env`: Scum): `num_games` games in the batched engine, in this process",
    )
    rollout_steps: int = doc_field(
        512, "decisions per env per rollout; a rollout is rollout_steps * num_games", ge=1
    )
    batch_size: int = doc_field(256, "minibatch size of each gradient step", ge=1)
    learner_seat: int | None = doc_field(
        None, "the learner's seat; `null` rotates it over episodes (seat = episode mod players)"
    )
    opponent_random: float = _share(
        0.2, "League share of `random` (with `pfsp: uniform`: the chance an opponent seat is it)"
    )
    opponent_heuristic: float = _share(
        0.3, "League share of `heuristic` (with `pfsp: uniform`: the chance a seat is it)"
    )
    opponent_snapshot: float = _share(
        0.5, "League share of the learner's frozen snapshots, split evenly among them"
    )
    snapshot_every: int = doc_field(
        20_000, "steps between snapshots of the learner into the league", ge=1
    )
    max_snapshots: int = doc_field(5, "snapshots kept in the league (the oldest leave first)", ge=1)
    pfsp: Literal["hard", "variance", "uniform"] = inherit(PPOFamily, "pfsp", "uniform")
    eval_every: int = inherit(PPOFamily, "eval_every", 50_000)
    eval_deals: int = inherit(PPOFamily, "eval_deals", 60)
    final_eval_deals: int = doc_field(200, "duplicate deals per opponent in the final report", ge=1)
    eval_against: str = doc_field(
        "random,heuristic", "comma-separated arena agent specs to evaluate against"
    )
    checkpoint_every: int = doc_field(
        50_000, "steps between checkpoints (0: only at the end and on Ctrl-C)", ge=0
    )
    progress: bool = doc_field(True, "show a progress bar")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str | None = None) -> TrainConfig:
        """Build from a mapping; the game may be spelled as the registry accepts it
        (``Scum``, ``scum-party``), ``options: null`` means no options, and the player
        count in ``options`` (before 0.3) is read as ``num_players``, with a warning."""
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

    @classmethod
    def upgrade(
        cls, data: Mapping[str, Any], source: str | None = None, *, warn: bool = False
    ) -> Mapping[str, Any]:
        """`RunConfig.upgrade`, reading the player count in ``options`` as ``num_players``."""
        data = super().upgrade(data, source, warn=warn)
        options = data.get("options") if isinstance(data, Mapping) else None
        if not isinstance(options, Mapping) or "num_players" not in options:
            return data
        if warn:
            warnings.warn(f"{source + ': ' if source else ''}TrainConfig key "
                          "'options.num_players' is now 'num_players' (the old place will be "
                          "removed in 0.4)", FutureWarning, stacklevel=4)  # fmt: skip
        if "num_players" in data:
            raise ConfigError("give num_players only (options.num_players is its old place)")
        rest = {k: v for k, v in options.items() if k != "num_players"}
        return {**data, "num_players": options["num_players"], "options": rest}

    def validate(self) -> None:
        """The game, options, rollout size, pool shares, opponents and learner seat."""
        super().validate()
        try:
            game = get_game(self.game)
        except ConfigError as err:
            self._fail("game", str(err))
        if game.name != self.game:
            self._fail("game", f"write the game's name {game.name!r}, not {self.game!r}")
        players = self.check_players()
        refusal = batched_refusal(game) if self.vec_env == "batched" else None
        if refusal is not None:
            self._fail("vec_env", refusal)
        if self.batch_size > self.rollout_steps * self.num_games:
            self._fail("batch_size", f"{self.batch_size} is larger than a rollout (rollout_steps "
                       f"* num_games = {self.rollout_steps * self.num_games})")  # fmt: skip
        probs = self.opponent_probs()
        if not abs(sum(probs.values()) - 1.0) <= 1e-6:
            self._fail(
                "opponent_snapshot",
                "opponent_random + opponent_heuristic + opponent_snapshot must sum to 1, got "
                + " + ".join(f"{p:g}" for p in probs.values()),
            )
        if not self.baselines():
            self._fail("eval_against", "name at least one agent spec, e.g. `random`")
        for spec in self.baselines():
            try:
                parse_spec(spec)  # the kind and the parameters' syntax
            except ConfigError as err:
                self._fail("eval_against", str(err))
        if self.learner_seat is not None and not 0 <= self.learner_seat < players:
            self._fail("learner_seat", f"seat {self.learner_seat} does not exist at a "
                       f"{players}-player table (seats 0..{players - 1})")  # fmt: skip

    @classmethod
    def read_saved(cls, data: Mapping[str, Any]) -> TrainConfig:
        """The config a checkpoint saved, its keys of before 0.3 read silently."""
        return cls.from_dict(cls.upgrade(data))

    def opponent_probs(self) -> dict[str, float]:
        """The pool's draw probabilities by opponent kind."""
        return {kind: float(getattr(self, f"opponent_{kind}")) for kind in OPPONENT_KINDS}

    def baselines(self) -> list[str]:
        """The agent specs of ``eval_against``."""
        return self.names("eval_against")

    def resume_mismatches(self, saved: TrainConfig) -> list[str]:
        """Fields that differ from ``saved`` and may not change on resume."""
        return [
            name
            for name in self.field_names()
            if name not in RESUME_MUTABLE and getattr(self, name) != getattr(saved, name)
        ]


parse_overrides = parse_assignments  # the suite's one override parser, under its 0.2 name


def load_config(path: str | None, overrides: Mapping[str, Any] | None = None) -> TrainConfig:
    """The config of a YAML file (or the defaults) with ``overrides`` merged in."""
    data = TrainConfig.upgrade(read_yaml_mapping(path) if path else {}, path, warn=True)
    overrides = TrainConfig.upgrade(overrides or {}, warn=True)
    return TrainConfig.from_dict(merge_overrides(data, overrides, path), source=path)


def check_baselines(config: TrainConfig) -> None:
    """Build every evaluation opponent once, so a bad spec fails before training (ConfigError,
    or CheckpointError for a ``ppo:``/``rllib:`` one that cannot be loaded)."""
    from cardsuite.agents.registry import make_agent

    for spec in config.baselines():
        try:
            make_agent(spec, config.game, seed=0)
        except ConfigError as err:
            raise ConfigError(f"TrainConfig.eval_against: {err}") from None
