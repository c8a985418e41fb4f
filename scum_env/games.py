"""Scum and Scum Party as records of the game registry (`cardsuite.games`, entry points)."""

from cardsuite.games import Game
from cardsuite.moved import moved_getattr

SCUM = Game(
    "scum",
    "scum_env.scum_v0",
    "scum_env.config:ScumConfig",
    title="Scum",
    engine="scum_env.engine",
    batched="scum_env.batched:BatchedScum",
    rgb="scum_env.render",
    sb3_vec_env="scum_env.batched:ScumVectorEnv",
)
SCUM_PARTY = Game(
    "scum_party",
    "scum_env.scum_party_v0",
    "scum_env.party.config:PartyConfig",
    default_players=8,
    title="Scum Party",
    engine="scum_env.party.engine",
    batched="scum_env.party.batched:BatchedParty",
    rgb="scum_env.party.render",
)


# ``CLIMB_PARAMS``, the heuristic's knobs, in `cardsuite.agents.parts` since 0.3 (loaded only
# when asked for: the game does not import the agents layer).
__getattr__ = moved_getattr(__name__, {"CLIMB_PARAMS": "cardsuite.agents.parts"})
