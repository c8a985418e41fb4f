"""The suite's games by name: config class, env factory, option parsing.

Games register themselves through the ``cardsuite.games`` entry-point group
(:data:`ENTRY_POINT_GROUP`), so this core module names none of them.

Every command (simulate, tournament, play, train) names a game and passes
rule options as ``--key value``; this module turns those into a validated
config and an env, so each command handles every game the same way.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from typing import Any

from cardsuite.config import ConfigBase
from cardsuite.errors import ConfigError


@dataclass(frozen=True)
class Game:
    """One game of the suite."""

    name: str
    module: str  # the env module with env()/raw_env()
    config: str  # "module:Class" of the config dataclass
    players_key: str = "num_players"
    default_players: int = 4
    batched: str | None = None  # "module:Class" of the batched engine, if the game has one

    def config_class(self) -> type[ConfigBase]:
        """The game's config dataclass."""
        mod, cls = self.config.split(":")
        return getattr(importlib.import_module(mod), cls)  # type: ignore[no-any-return]

    def env_module(self) -> Any:
        """The env module (``env``, ``raw_env``)."""
        return importlib.import_module(self.module)

    def make(self, *, raw: bool = False, render_mode: str | None = None, **options: Any) -> Any:
        """Create the env with validated options."""
        module = self.env_module()
        factory = module.raw_env if raw else module.env
        return factory(render_mode=render_mode, **options)

    def batched_class(self) -> Any:
        """The game's batched engine class; ConfigError if the game has none."""
        if self.batched is None:
            raise ConfigError(f"game {self.name!r} has no batched engine")
        mod, cls = self.batched.split(":")
        return getattr(importlib.import_module(mod), cls)


#: The entry-point group through which game packages register their games;
#: each entry point names a :class:`Game`. The core names no game itself.
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


def parse_options(game: Game, tokens: list[str]) -> dict[str, Any]:
    """Turn ``["--carousel", "true", "--trade_rules", "spanish"]`` into options.

    The suite's one override parser (:func:`cardsuite.overrides.parse_flags`):
    values are read as YAML scalars (``true``, ``5``, ``null``...), keys may
    use ``-`` or ``_``, and an unknown key is a ConfigError naming it (before
    any value is read, so ``--dupliate`` is unknown, not missing a value).
    """
    from cardsuite.overrides import parse_flags

    return parse_flags(tokens, game.config_class().field_names(), what=game.name)
