"""Scandal as a record of the suite's game registry.

Registered through the ``cardsuite.games`` entry-point group (``pyproject.toml``);
the CLI, the arena, the agents and training find every part of the game through
its record (`cardsuite.games.get_game`). Parts that live in the agents layer
are named as strings and imported only when asked for (`cardsuite.games.PARTS`).
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
    heuristic="cardsuite.agents.baselines.scandal:make",
    batched_heuristic="cardsuite.agents.baselines.batched_scandal:BatchedScandalHeuristic",
    view="cardsuite.agents.play.views:scandal_view",
    rgb="scandal_env.render_rgb",
    greedy="cardsuite.agents.baselines.greedy:scandal_greedy",
    search="cardsuite.agents.search.reference:scandal_search",
    openspiel="cardsuite.agents.external.openspiel.scandal",
    heuristic_params=("take_cost", "deep_margin"),
    train_options=(("episode", "hand"),),  # one hand per episode: its net score / reward_scale
    train_reward="hand score / 100",
    warm_start_steps=600,
)
