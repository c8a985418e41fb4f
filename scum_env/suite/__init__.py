"""Suite-wide building blocks shared by every cardsuite environment.

The games of the suite (Scum, Scum Party, Scandal) share the same plumbing:
named errors, frozen configs loaded from YAML, observation specs with named
views, and a thin PettingZoo AEC base class. They live here, beside the first
game, so that each env package stays a small set of game-specific modules.
Nothing here imports gymnasium or pettingzoo except :mod:`scum_env.suite.aec`.
"""

from scum_env.suite.config import ConfigBase
from scum_env.suite.errors import (
    CardsuiteError,
    CheckpointError,
    ConfigError,
    DeckError,
    IllegalActionError,
    PresetError,
    StateError,
)
from scum_env.suite.obsspec import ObsSpec, Piece

__all__ = [
    "CardsuiteError",
    "CheckpointError",
    "ConfigBase",
    "ConfigError",
    "DeckError",
    "IllegalActionError",
    "ObsSpec",
    "Piece",
    "PresetError",
    "StateError",
]
