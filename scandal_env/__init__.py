"""Scandal: a rummy-like melding game of political scandals, as an RL environment.

Importing the package registers ``cardsuite/scandal-v0`` with PettingZoo
(`scandal_env.scandal_v0` is the documentation page).
"""

from __future__ import annotations

import pettingzoo

from cardsuite.moved import alias_modules
from scandal_env import scandal_v0

# The old module names, with a warning.
alias_modules(
    {"scandal_env.knowledge": "scandal_env.state", "scandal_env.render_rgb": "scandal_env.render"}
)

__all__ = ["scandal_v0"]

pettingzoo.register("aec", "cardsuite/scandal-v0", entry_point="scandal_env.scandal_v0:env")
