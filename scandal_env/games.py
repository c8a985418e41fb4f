"""Scandal as a record of the suite's game registry.

Registered through the ``cardsuite.games`` entry-point group (``pyproject.toml``);
the CLI, the arena, the agents and training find the game's own parts through
its record (`cardsuite.games.get_game`).
"""

from cardsuite.games import Game

SCANDAL = Game(
    "scandal",
    "scandal_env.scandal_v0",
    "scandal_env.config:ScandalConfig",
    default_players=2,
    title="Scandal",
    engine="scandal_env.engine",
    batched="scandal_env.batched:BatchedScandal",
    rgb="scandal_env.render_rgb",
)
