"""Scandal as an entry of the suite's game registry.

Registered through the ``cardsuite.games`` entry-point group (``pyproject.toml``);
the CLI, the arena and training find it with :func:`cardsuite.games.get_game`.
"""

from cardsuite.games import Game

SCANDAL = Game(
    "scandal",
    "scandal_env.scandal_v0",
    "scandal_env.config:ScandalConfig",
    default_players=2,
    batched="scandal_env.batched:BatchedScandal",
)
