"""The games the batched trainers play: one `TrainGame` per batched engine, from the game's
record, the agents layer's parts and this layer's table `TRAINING` (the reward each game
trains on; a rule option of the run overrides it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cardsuite.agents.parts import PARTS, part
from cardsuite.batched.policies import RandomPolicy
from cardsuite.errors import ConfigError
from cardsuite.games import Game, games


@dataclass(frozen=True)
class Training:
    """What the trainers set for one game: engine ``options`` unless the run sets them, the
    ``reward`` in words (``cardsuite exploit``) and the warm start's ``warm_start_steps``."""

    options: tuple[tuple[str, Any], ...]
    reward: str
    warm_start_steps: int


#: This layer's per-game table (module doc).
TRAINING: dict[str, Training] = {
    "scum": Training((("reward", "centered"),), "centered J8 points", 300),  # J8 in [-1, 1]
    # a tournament is long: enough warm-start steps for some to end
    "scum_party": Training((("reward", "points"),), "P8 points per tournament", 1500),
    # one hand per episode: its net score / reward_scale
    "scandal": Training((("episode", "hand"),), "hand score / 100", 600),
}


@dataclass(frozen=True)
class TrainGame:
    """How the batched trainers play one game (its ``record``), its parts and `Training`."""

    record: Game

    @property
    def name(self) -> str:
        """The game's registry name (``cardsuite.games``), written into the agent."""
        return self.record.name

    @property
    def defaults(self) -> dict[str, Any]:
        """Engine options the trainer sets unless the run's options do (the reward)."""
        return dict(TRAINING[self.record.name].options)

    def config(self, num_players: int, options: dict[str, Any]) -> dict[str, Any]:
        """The engine config of a run: the player count, the trainer's defaults, ``options``."""
        if "num_players" in options:
            raise ConfigError("options: set the player count with num_players, not options")
        return {"num_players": num_players, **self.defaults, **options}

    def make_engine(self, num_games: int, config: dict[str, Any], **kwargs: Any) -> Any:
        """``num_games`` games with ``config`` (``kwargs``: backend, device, autoreset)."""
        return self.record.batched_class()(num_games, **kwargs, **config)

    def heuristic(self, engine: Any, **params: Any) -> Any:
        """The game's real heuristic as a batch policy over ``engine`` (its batched twin)."""
        return part(self.record.name, "batched_heuristic").from_engine(engine, **params)

    def baselines(self, names: Sequence[str], engine: Any, seed: int) -> dict[str, Any]:
        """The batch policies of the named baselines (``heuristic``, ``random``)."""
        make = {"heuristic": lambda: self.heuristic(engine), "random": lambda: RandomPolicy(seed)}
        for name in names:
            if name not in make:
                raise ConfigError(f"unknown baseline {name!r} (heuristic, random)")
        return {name: make[name]() for name in names}


def trainable(record: Game) -> bool:
    """Whether the batched trainers can play ``record`` (its engine, heuristic, `TRAINING`)."""
    return record.has("batched") and record.name in PARTS and record.name in TRAINING


def train_games() -> dict[str, TrainGame]:
    """Every installed game the batched trainers play, by name."""
    return {name: TrainGame(g) for name, g in games().items() if trainable(g)}


def train_game(name: str) -> TrainGame:
    """The `TrainGame` of ``name``; ConfigError naming the games the trainer plays."""
    found = train_games()
    key = name.replace("-", "_").lower() if isinstance(name, str) else name
    if key not in found:
        raise ConfigError(
            f"field 'game': the batched trainer plays {', '.join(found)}; got {name!r}"
        )
    return found[key]
