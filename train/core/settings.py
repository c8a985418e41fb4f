"""The one training vocabulary: the config classes every trainer's settings derive from.

`RunConfig` holds what every trainer has, `PPOFamily` the PPO hyperparameters (cleanrl's
names), `BatchedConfig` what batched PPO and Deep Monte-Carlo add. A config's ``RENAMED``
maps its old keys to today's (`RunConfig.upgrade`).
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal, Self

from cardsuite.config import ConfigBase, doc_field
from cardsuite.errors import ConfigError
from cardsuite.games import get_game

DEVICE = re.compile(r"cpu|cuda(:\d+)?|mps")
BASELINES = ("heuristic", "random")


def learning_rate_field(default: float) -> Any:
    """The learning rate of every trainer: one name, one check (> 0)."""
    return doc_field(default, "Adam step size", gt=0.0)


def inherit(base: type[ConfigBase], name: str, default: Any) -> Any:
    """Field ``name`` of ``base`` with another default (same doc line and bounds)."""
    f = {f.name: f for f in dataclasses.fields(base)}[name]
    return dataclasses.field(default=default, metadata=f.metadata)


@dataclass(frozen=True)
class RunConfig(ConfigBase):
    """The settings every trainer shares (module doc)."""

    RENAMED: ClassVar[dict[str, str]] = {}

    seed: int = doc_field(0, "seeds python, numpy, torch and the training deals", ge=0)
    game: str = doc_field("scum", "the game: scum, scum_party or scandal")
    num_players: int = doc_field(
        4, "players at the table (Scum J2, Scum Party P2, Scandal S2)", ge=1
    )
    options: dict[str, Any] = dataclasses.field(
        default_factory=dict, metadata={"doc": "other rule options of the game's config"}
    )
    total_steps: int = doc_field(2_000_000, "learner decisions to train on", ge=1)
    budget_minutes: float = doc_field(
        0.0, "minutes the whole run may take (warm start at most 40%; 0: no limit)", ge=0.0
    )
    device: str = doc_field("cpu", "torch device of the network: cpu or cuda (cuda:N)")
    threads: int = doc_field(
        1, "torch CPU threads (0: torch's default; more than 1 thrashes on a shared machine)", ge=0
    )
    learning_rate: float = learning_rate_field(3e-4)
    hidden: int = doc_field(128, "units per hidden layer", ge=1)
    layers: int = doc_field(2, "hidden layers", ge=1)
    activation: Literal["tanh", "relu"] = doc_field("tanh", "hidden activation")
    snapshot_every: int = doc_field(
        250_000, "learner steps between frozen snapshots added to the league (0: none)", ge=0
    )
    max_snapshots: int = doc_field(8, "snapshots kept in the league", ge=0)
    pfsp: Literal["hard", "variance", "uniform"] = doc_field(
        "hard", "PFSP weighting of the league draw: hard, variance or uniform"
    )
    eval_every: int = doc_field(
        250_000, "learner steps between duplicate evaluations (0: final only)", ge=0
    )
    eval_deals: int = doc_field(400, "duplicate deals per evaluation against each opponent", ge=1)
    eval_against: str = doc_field(
        "heuristic", "evaluation opponents: comma list of heuristic, random"
    )
    keep_best: bool = doc_field(
        False, "also keep the best evaluation's learner (vs first eval_against) as RUN/best_agent"
    )
    checkpoint_every: int = doc_field(
        500_000, "learner steps between checkpoints (0: final only)", ge=0
    )
    run_dir: str = doc_field("", "output folder (default runs/<name>)")
    resume: str = doc_field("", "continue the run (or checkpoint) in this folder")
    tensorboard: bool = doc_field(True, "write TensorBoard events (if tensorboard is installed)")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str | None = None) -> Self:
        """`ConfigBase.from_dict` after `upgrade` (old keys read as their new names, warned)."""
        return super().from_dict(cls.upgrade(data, source, warn=True), source=source)

    @classmethod
    def upgrade(
        cls, data: Mapping[str, Any], source: str | None = None, *, warn: bool = False
    ) -> Mapping[str, Any]:
        """``data`` with every key of `RENAMED` under its new name (ConfigError if both are
        given; with ``warn``, a FutureWarning)."""
        if not isinstance(data, Mapping) or not any(old in data for old in cls.RENAMED):
            return data
        where = f"{source}: " if source else ""
        out = dict(data)
        for old, new in cls.RENAMED.items():
            if old not in out:
                continue
            if new in out:
                raise ConfigError(f"{where}give {new} only ({old} is its old name)")
            if warn:
                warnings.warn(f"{where}{cls.__name__} key {old!r} is now {new!r} (the old "
                              "name will be removed in 0.4)", FutureWarning, stacklevel=4)  # fmt: skip
            out[new] = out.pop(old)
        return out

    def validate(self) -> None:
        """The device (cpu, cuda, cuda:N, mps)."""
        if not DEVICE.fullmatch(self.device):
            self._fail("device", f"must be cpu or cuda (cuda:N), got {self.device!r}")

    def record(self) -> dict[str, Any]:
        """What a new run folder records (``run.json``): the config, less where it runs."""
        config = {k: v for k, v in self.to_dict().items() if k not in ("run_dir", "resume")}
        return {"config": config}

    def names(self, name: str) -> list[str]:
        """The comma list of field ``name`` as names."""
        return [s.strip() for s in str(getattr(self, name)).split(",") if s.strip()]

    def env_options(self) -> dict[str, Any]:
        """The rule options of the game's env: ``options`` and the player count."""
        players = {} if self.num_players is None else {"num_players": self.num_players}
        return {**self.options, **players}

    def game_config(self) -> ConfigBase:
        """The validated config of the game's env."""
        return get_game(self.game).config_class().from_dict(self.env_options())

    def players(self) -> int:
        """Players at the table (``num_players``, or the game's default)."""
        return int(getattr(self.game_config(), get_game(self.game).players_key))

    def check_players(self) -> int:
        """`players`, after checking ``options`` and the player count against the game's
        config (ConfigError naming ``options`` or ``num_players``)."""
        if "num_players" in self.options:
            self._fail("options", "set the player count with num_players, not options")
        try:
            return self.players()
        except ConfigError as err:
            self._fail("num_players" if self.num_players is not None else "options", str(err))


@dataclass(frozen=True)
class PPOFamily(RunConfig):
    """The PPO hyperparameters (cleanrl's names), shared by every PPO trainer."""

    gamma: float = doc_field(0.995, "discount per decision of a seat", ge=0.0, le=1.0)
    gae_lambda: float = doc_field(0.95, "GAE lambda", ge=0.0, le=1.0)
    update_epochs: int = doc_field(4, "passes over each rollout", ge=1)
    clip_coef: float = doc_field(0.2, "PPO ratio clip", gt=0.0)
    ent_coef: float = doc_field(0.01, "entropy bonus", ge=0.0)
    vf_coef: float = doc_field(0.5, "value loss weight", ge=0.0)
    max_grad_norm: float = doc_field(0.5, "gradient norm clip", gt=0.0)


@dataclass(frozen=True)
class BatchedConfig(RunConfig):
    """A batched trainer's run (PPO, Deep Monte-Carlo): games in flight, seats, warm start."""

    exp_name: str = doc_field(
        "run", "name of the run (its folder is runs/<exp_name>-seed<seed> by default)"
    )
    num_games: int = doc_field(512, "games stepped together", ge=1)
    rollout_steps: int = doc_field(
        32, "engine steps per rollout (every game moves once per step)", ge=1
    )
    self_play: float = doc_field(
        0.5, "share of games where every seat is the learner (the rest face the league)",
        ge=0.0, le=1.0,
    )  # fmt: skip
    baselines: str = doc_field(
        "heuristic", "fixed league members: comma list of heuristic, random (may be empty)"
    )
    learner_seats: int = doc_field(
        1, "seats the learner plays in each league game (the League member plays the others)", ge=1
    )
    bc_steps: int = doc_field(
        0, "warm start: engine steps of heuristic games to learn from (0: start from scratch)", ge=0
    )
    bc_games: int = doc_field(512, "warm start: games played together to make its data", ge=0)
    bc_explore: float = doc_field(
        0.15, "warm start: share of random moves in those games (labels stay the heuristic's)",
        ge=0.0, le=1.0,
    )  # fmt: skip
    bc_epochs: int = doc_field(4, "warm start: passes over its data", ge=0)
    eval_seed: int = doc_field(
        1_000_003, "deal seed of the evaluations (never a training seed)", ge=0
    )
    sizes: str = doc_field(
        "", "player counts trained as one size-generic network, e.g. 5,8,20,50 (empty: num_players)"
    )
    features: Literal["", "counts"] = doc_field(
        "", "derived network inputs: 'counts' adds card counting (Scum and Scum Party)"
    )
    quiet: bool = doc_field(False, "no log lines on stdout")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str | None = None) -> Self:
        """`RunConfig.from_dict`, also taking one player count for ``sizes`` as a number."""
        if isinstance(data, Mapping):
            given = data.get("sizes")
            if isinstance(given, int) and not isinstance(given, bool):
                data = {**data, "sizes": str(given)}
        return super().from_dict(data, source=source)

    def validate(self) -> None:
        """The combinations: game, baseline names, a league to play against, warm start, sizes."""
        from cardsuite.train.core.games import train_game

        super().validate()
        try:
            train_game(self.game)
        except ConfigError as err:
            self._fail("game", str(err))
        for name in ("baselines", "eval_against"):
            for b in self.names(name):
                if b not in BASELINES:
                    self._fail(name, f"unknown baseline {b!r} (heuristic, random)")
        if self.self_play < 1.0 and not self.names("baselines") and not self.snapshot_every:
            self._fail("baselines", "games against the league need baselines or snapshot_every")
        if self.bc_steps and self.bc_games < 1:
            self._fail("bc_games", "must be at least 1 with a warm start")
        self._validate_sizes()
        fewest = min(self.size_list())
        if self.learner_seats >= fewest:
            self._fail("learner_seats", f"must leave the league a seat: below {fewest} players, "
                       f"got {self.learner_seats}")  # fmt: skip
        if self.features:
            self._check_features()

    def _check_features(self) -> None:
        """``features``: the network's layout (one-table or size-generic) can compute them."""
        from cardsuite.agents.learned.layout import generic_spec
        from cardsuite.agents.learned.netspec import obs_scale
        from cardsuite.train.core.games import train_game
        from cardsuite.train.core.learned import table_features

        game, players = train_game(self.game), self.size_list()[0]
        generic = self.game if self.sizes.strip() else ""
        try:
            eng = game.make_engine(1, game.config(players, self.options))
            scale = obs_scale(generic_spec(generic) if generic else eng.obs_spec)
            table_features(self.features, game, eng, players, scale, generic=generic)
        except ConfigError as err:
            self._fail("features", str(err).removeprefix("field 'features': "))

    def _validate_sizes(self) -> None:
        """``sizes``: distinct player counts of a game with a size-generic layout."""
        if not self.sizes.strip():
            return
        from cardsuite.agents.learned.layout import layout_of
        from cardsuite.train.core.games import train_game

        try:
            layout_of(self.game)
        except ConfigError as err:
            self._fail("sizes", str(err))
        sizes = self.size_list()
        if not sizes or len(set(sizes)) != len(sizes):
            self._fail("sizes", f"must list distinct player counts, got {self.sizes!r}")
        for n in sizes:
            try:  # the game's own config checks the player count (P2, S2)
                get_game(self.game).config_class().from_dict(
                    train_game(self.game).config(n, self.options)
                )
            except ConfigError as err:
                self._fail("sizes", f"{n} players: {err}")
        if self.snapshot_every:
            self._fail("snapshot_every", "must be 0 with sizes (the league plays baselines only)")

    def size_list(self) -> list[int]:
        """The player counts of ``sizes`` (``[num_players]`` when empty)."""
        if not self.sizes.strip():
            return [self.num_players]
        try:
            sizes = [int(s) for s in self.sizes.split(",") if s.strip()]
        except ValueError:
            self._fail("sizes", f"must be a comma list of player counts, got {self.sizes!r}")
        return sizes

    def out_dir(self) -> Path:
        """The run folder of a new run."""
        return Path(self.run_dir or f"runs/{self.exp_name}-seed{self.seed}")
