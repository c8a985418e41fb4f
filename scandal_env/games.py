"""Scandal as a record of the game registry (`cardsuite.games`, through its entry points)."""

from cardsuite.games import Game

SCANDAL = Game(
    "scandal",
    "scandal_env.scandal_v0",
    "scandal_env.config:ScandalConfig",
    default_players=2,
    title="Scandal",
    engine="scandal_env.engine",
    batched="scandal_env.batched:BatchedScandal",
    rgb="scandal_env.render",
)
