"""The suite's games by name: one record per game, holding the game's own parts.

Games register themselves through the ``cardsuite.games`` entry-point group
(`ENTRY_POINT_GROUP`), so this core module names none of them.

A [Game][cardsuite.games.Game] record names the game's own parts as
``"module[:attribute]"`` strings, imported only when asked for. The layers
above keep their own per-game tables keyed by the game's name
(`cardsuite.agents.parts`, `cardsuite.train.core.games`).
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from typing import Any

from cardsuite.config import ConfigBase
from cardsuite.errors import ConfigError

#: The parts a record may name, each a ``"module"`` or ``"module:attribute"`` string:
#: part -> what it is (the contract its consumers rely on).
PARTS: dict[str, str] = {
    "engine": "the engine module of pure functions (legal_mask, apply, why_illegal, clone)",
    "batched": "the batched engine class: cls(num_games, **options)",
    "rgb": "the drawing module: render_rgb(env), table_model(state), LEGEND",
    "sb3_vec_env": "the one-seat batched vector env MaskablePPO's `vec_env: batched` trains on: "
    "cls(num_envs, learner=, seed=, **options), a BatchedVectorEnv with an `engine`",
}

#: The parts a record may leave out while every other trainer and agent still plays the game.
OPTIONAL_PARTS = ("sb3_vec_env",)


def resolve(spec: str) -> Any:
    """The object a ``"module"`` or ``"module:attribute"`` string names (imported now)."""
    module, _, attr = spec.partition(":")
    found = importlib.import_module(module)
    return getattr(found, attr) if attr else found


@dataclass(frozen=True)
class Game:
    """One game of the suite: its name and where each of its parts lives.

    Attributes:
        name: the registry name (``scum``): commands, agent files and runs use it.
        module: the env module with ``env()`` and ``raw_env()``.
        config: ``"module:Class"`` of the config dataclass (a `ConfigBase`).
        players_key: the config field that holds the player count.
        default_players: the player count commands use when none is given.
        title: the readable name (``Scum Party``) for logs and pages.
        engine, batched, rgb, sb3_vec_env: the parts of `PARTS`, as
            ``"module[:attribute]"`` strings; None where the game has no such part.
    """

    name: str
    module: str
    config: str
    players_key: str = "num_players"
    default_players: int = 4
    title: str = ""
    engine: str | None = None
    batched: str | None = None
    rgb: str | None = None
    sb3_vec_env: str | None = None

    def config_class(self) -> type[ConfigBase]:
        """The game's config dataclass."""
        return resolve(self.config)  # type: ignore[no-any-return]

    def env_module(self) -> Any:
        """The env module (``env``, ``raw_env``)."""
        return importlib.import_module(self.module)

    def make(self, *, raw: bool = False, render_mode: str | None = None, **options: Any) -> Any:
        """Create the env with validated options."""
        module = self.env_module()
        factory = module.raw_env if raw else module.env
        return factory(render_mode=render_mode, **options)

    def has(self, part: str) -> bool:
        """Whether the record names ``part`` (one of `PARTS`)."""
        return self._spec(part) is not None

    def part(self, part: str) -> Any:
        """The object the record names for ``part`` (one of `PARTS`), imported now.

        Raises:
            ConfigError: ``part`` is not a part name, or the game has none.
        """
        spec = self._spec(part)
        if spec is None:
            raise ConfigError(f"game {self.name!r} has no {part} ({PARTS[part]})")
        return resolve(spec)

    def _spec(self, part: str) -> str | None:
        if part not in PARTS:
            raise ConfigError(f"unknown game part {part!r}; parts: {', '.join(PARTS)}")
        spec: str | None = getattr(self, part)
        return spec

    def batched_class(self) -> Any:
        """The game's batched engine class; ConfigError if the game has none."""
        return self.part("batched")


#: The entry-point group through which game packages register their games;
#: each entry point names a `Game`. The core names no game itself.
ENTRY_POINT_GROUP = "cardsuite.games"


@functools.cache
def games() -> dict[str, Game]:
    """Every installed game by name (``scum``, ``scum_party``, ``scandal``, ...).

    Raises:
        ConfigError: when no game is registered, i.e. cardsuite's metadata is
            not installed (``pip install -e .`` in a checkout).
    """
    from importlib.metadata import entry_points

    found: dict[str, Game] = {}
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        game = ep.load()
        if not isinstance(game, Game):
            raise ConfigError(f"game entry point {ep.name!r} ({ep.value}) is not a Game")
        found.setdefault(game.name, game)
    if not found:
        raise ConfigError(
            "no game is registered: install cardsuite (pip install -e . in a checkout)"
        )
    return found


def __getattr__(name: str) -> Any:
    if name == "GAMES":  # the table as a module constant, as before 0.2
        return games()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_game(name: str) -> Game:
    """The game called ``name``; ConfigError listing the games otherwise."""
    table = games()
    key = name.replace("-", "_").lower() if isinstance(name, str) else name
    if key not in table:
        raise ConfigError(f"unknown game {name!r}; games: {', '.join(sorted(table))}")
    return table[key]


def game_of_env(env: Any) -> Game:
    """The record of the game an env plays (matched by its env module's name).

    The env's PettingZoo ``metadata["name"]`` (``scum_v0``) is the last part
    of the record's ``module`` (``scum_env.scum_v0``).

    Raises:
        ConfigError: no registered game plays this env.
    """
    name = str(getattr(env.unwrapped, "metadata", {}).get("name", ""))
    for game in games().values():
        if game.module.rpartition(".")[2] == name:
            return game
    raise ConfigError(f"no registered game plays env {name!r}")


def parse_options(game: Game, tokens: list[str]) -> dict[str, Any]:
    """Turn ``["--carousel", "true", "--trade_rules", "spanish"]`` into options.

    The suite's one override parser (`cardsuite.overrides.parse_flags`):
    values are read as YAML scalars (``true``, ``5``, ``null``...), keys may
    use ``-`` or ``_``, and an unknown key is a ConfigError naming it (before
    any value is read, so ``--dupliate`` is unknown, not missing a value).
    """
    from cardsuite.overrides import parse_flags

    return parse_flags(tokens, game.config_class().field_names(), what=game.name)
