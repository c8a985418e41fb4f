"""The command-line grammar the arena and play commands share.

``tournament``, ``simulate``, ``leaderboard``, ``benchmark``, ``play`` and
``serve`` take the same arguments under the same spellings: the game, the
players, the seed, the agents, the workers, the output files. `add_arguments`
adds the ones a command names, each with that command's help text; the rule
options that follow as ``--key value`` (after an optional ``--config``
preset) are read by `rule_options`.
"""

from __future__ import annotations

from typing import Any

from cardsuite.config import read_yaml_mapping
from cardsuite.errors import ConfigError
from cardsuite.games import Game, parse_options

#: The help of the game argument.
GAME_HELP = "scum, scum_party or scandal"

#: name -> (flag, the argparse settings every command that takes it shares).
SHARED: dict[str, tuple[str, dict[str, Any]]] = {
    "game": ("game", {}),
    "players": ("--players", {"type": int, "default": None}),
    "games": ("--games", {"type": int, "default": 100}),
    "seed": ("--seed", {"type": int, "default": 0}),
    "agents": ("--agents", {"nargs": "+"}),
    "workers": ("--workers", {"type": int, "default": 1}),
    "out": ("--out", {"default": None}),
    "record": ("--record", {"default": None}),
    "checkpoint": ("--checkpoint", {"default": None}),
    "resamples": ("--resamples", {"type": int}),
    "no_progress": ("--no-progress", {"action": "store_true"}),
}


def add_arguments(parser: Any, **helps: str | tuple[str, dict[str, Any]]) -> None:
    """Add the shared arguments named (keys of `SHARED`), in the order given.

    Each value is the command's help text, or ``(help, settings)`` whose
    settings override the shared ones (``default``, ``required``, ``metavar``;
    ``flag`` turns the positional ``game`` into ``--game``).
    """
    for name, value in helps.items():
        text, extra = (value, {}) if isinstance(value, str) else value
        flag, settings = SHARED[name]
        settings = {**settings, **extra, "help": text}
        parser.add_argument(settings.pop("flag", flag), **settings)


def rule_options(game: Game, config: str | None, extra: list[str]) -> dict[str, Any]:
    """Rule options from a ``--config`` preset (file or shipped name), then ``--key value`` flags."""
    base: dict[str, Any] = {}
    if config:
        base = read_yaml_mapping(config)
        game.config_class().from_dict(base, source=str(config))  # unknown keys named
    return {**base, **parse_options(game, extra)}


def no_extra(extra: list[str], why: str = "") -> None:
    """ConfigError naming the arguments a command does not take (``why`` appended)."""
    if extra:
        raise ConfigError(f"unknown arguments: {' '.join(extra)}{why}")
