"""Scum and Scum Party as entries of the suite's game registry.

Registered through the ``cardsuite.games`` entry-point group (``pyproject.toml``);
the CLI, the arena and training find them with :func:`cardsuite.games.get_game`.
"""

from cardsuite.games import Game

SCUM = Game(
    "scum",
    "scum_env.scum_v0",
    "scum_env.config:ScumConfig",
    batched="scum_env.batched:BatchedScum",
)
SCUM_PARTY = Game(
    "scum_party",
    "scum_env.scum_party_v0",
    "scum_env.party.config:PartyConfig",
    default_players=8,
    batched="scum_env.party.batched:BatchedParty",
)
