"""Scum and Scum Party as records of the suite's game registry.

Registered through the ``cardsuite.games`` entry-point group (``pyproject.toml``);
the CLI, the arena, the agents and training find every part of a game through
its record (`cardsuite.games.get_game`). Parts that live in the agents layer
are named as strings and imported only when asked for (`cardsuite.games.PARTS`).
"""

from cardsuite.games import Game

#: The knobs of the climbing heuristic (`ScumParams` fields), Scum and Scum Party alike.
CLIMB_PARAMS = ("break_min_rest", "spend_specials", "special_top_count")

SCUM = Game(
    "scum",
    "scum_env.scum_v0",
    "scum_env.config:ScumConfig",
    title="Scum",
    engine="scum_env.engine",
    batched="scum_env.batched:BatchedScum",
    heuristic="cardsuite.agents.baselines.scum:make",
    batched_heuristic="cardsuite.agents.baselines.batched_scum:BatchedScumHeuristic",
    view="cardsuite.agents.play.views:scum_view",
    rgb="scum_env.render_rgb",
    greedy="cardsuite.agents.baselines.greedy:scum_greedy",
    search="cardsuite.agents.search.reference:scum_search",
    openspiel="cardsuite.agents.external.openspiel.scum",
    sb3_vec_env="scum_env.batched.vector_env:ScumVectorEnv",
    heuristic_params=CLIMB_PARAMS,
    train_options=(("reward", "centered"),),  # J8 points centred in [-1, 1]
    train_reward="centered J8 points",
    warm_start_steps=300,
)
SCUM_PARTY = Game(
    "scum_party",
    "scum_env.scum_party_v0",
    "scum_env.party.config:PartyConfig",
    default_players=8,
    title="Scum Party",
    engine="scum_env.party.engine",
    batched="scum_env.party.batched:BatchedParty",
    heuristic="cardsuite.agents.baselines.party:make",
    batched_heuristic="cardsuite.agents.baselines.batched_party:BatchedPartyHeuristic",
    view="cardsuite.agents.play.views:party_view",
    rgb="scum_env.party.render_rgb",
    greedy="cardsuite.agents.baselines.greedy:party_greedy",
    search="cardsuite.agents.search.reference:party_search",
    openspiel="cardsuite.agents.external.openspiel.party",
    heuristic_params=CLIMB_PARAMS,
    # each hand's P8 points when it is scored: `rank`, paid only at the end of
    # a tournament of about a thousand steps, left PPO on noise (train/core/games.py)
    train_options=(("reward", "points"),),
    train_reward="P8 points per tournament",
    warm_start_steps=1500,  # a tournament is long: enough steps for some to end
)
