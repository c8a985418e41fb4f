"""Deprecated: the game registry moved to :mod:`cardsuite.games` in 0.2."""

import warnings

from cardsuite.games import Game, games, get_game, parse_options

warnings.warn(
    "agents.games is deprecated and will be removed in cardsuite 0.3; use cardsuite.games",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = ["Game", "games", "get_game", "parse_options"]
