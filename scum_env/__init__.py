"""Scum environments of cardsuite; importing registers them with PettingZoo.

* ``cardsuite/scum-v0`` — :mod:`scum_env.scum_v0`, Scum (4J rules).
"""

from __future__ import annotations

import pettingzoo

from scum_env import scum_v0

__all__ = ["scum_v0"]

pettingzoo.register("aec", "cardsuite/scum-v0", entry_point="scum_env.scum_v0:env")
