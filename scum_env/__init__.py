"""Scum environments of cardsuite; importing registers them with PettingZoo.

* ``cardsuite/scum-v0`` — `scum_env.scum_v0`, Scum (4J rules).
* ``cardsuite/scum_party-v0`` — `scum_env.scum_party_v0`, Scum Party (5–50 players).
"""

from __future__ import annotations

import pettingzoo

from cardsuite.moved import alias_modules
from scum_env import scum_party_v0, scum_v0

# The old module names, with a warning.
alias_modules(
    {
        "scum_env.phase": "scum_env.state",
        "scum_env.render_rgb": "scum_env.render",
        "scum_env.party.render_rgb": "scum_env.party.render",
    }
)

__all__ = ["scum_party_v0", "scum_v0"]

pettingzoo.register("aec", "cardsuite/scum-v0", entry_point="scum_env.scum_v0:env")
pettingzoo.register("aec", "cardsuite/scum_party-v0", entry_point="scum_env.scum_party_v0:env")
