"""cardsuite: reinforcement-learning environments for Scum, Scum Party and Scandal.

The calls of a first session (`cardsuite.api`, ``docs/api/index.md``):
``make(game, **options)`` (the AEC env), ``make_vec(game, num_envs)`` (the
batched engine, or one seat's vector env), ``load_agent(spec, env=env)``,
``play(env, agents)`` (one episode's returns) and ``tournament(env, agents, games=...)``. Importing ``cardsuite`` registers the
Gymnasium ids ``cardsuite/ScumSingle-v0``, ``cardsuite/ScumPartySingle-v0``
and ``cardsuite/ScandalSingle-v0`` and stays light: this core imports no game,
agent or training module (`cardsuite.api`'s functions reach them when called).
"""

from cardsuite.api import load_agent, make, make_vec, play, register_gymnasium, tournament
from cardsuite.cli import package_version
from cardsuite.config import ConfigBase
from cardsuite.errors import (
    CardsuiteError,
    CheckpointError,
    ConfigError,
    DeckError,
    IllegalActionError,
    PresetError,
    StateError,
    TableMismatchError,
)
from cardsuite.obsspec import ObsSpec, Piece

__version__ = package_version()

register_gymnasium()

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
    "TableMismatchError",
    "__version__",
    "load_agent",
    "make",
    "make_vec",
    "play",
    "tournament",
]
