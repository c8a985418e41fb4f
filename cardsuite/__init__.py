"""cardsuite: reinforcement-learning environments for Scum, Scum Party and Scandal.

The four calls of a first session (`cardsuite.api`):

* `cardsuite.make(game, **options)`: the game's PettingZoo AEC env;
* `cardsuite.make_vec(game, num_envs, backend="numpy")`: many games as arrays
  (the batched engine), or a Gymnasium vector env of one seat (``learner=0``);
* `cardsuite.load_agent(spec, game)`: any agent spec (``"heuristic"``,
  ``"pretrained:scum4"``, ``"ppo:RUN/agent"``...), ready to ``act``;
* `cardsuite.tournament(game, agents, games=...)`: a tournament's results.

Importing ``cardsuite`` registers the Gymnasium ids ``cardsuite/ScumSingle-v0``,
``cardsuite/ScumPartySingle-v0`` and ``cardsuite/ScandalSingle-v0`` (one
learning seat, the others played inside), and stays light: games, agents and
training load when first used.

This package is the core every game shares, like Pgx's ``core.py``: nothing
game-specific; every other package imports it, it imports none of them (only
`cardsuite.api`'s functions reach the games, agents and training, when
called). [`errors`][cardsuite.errors], [`config`][cardsuite.config]
([`ConfigBase`][cardsuite.ConfigBase]), [`obsspec`][cardsuite.obsspec],
[`aec`][cardsuite.aec] (the AEC base of every env), [`games`][cardsuite.games]
(the registry), ``cli`` and ``batched`` (the shared batched layer). The
agents are `cardsuite.agents`, training `cardsuite.train`; the games are the
packages ``scum_env`` and ``scandal_env``.
"""

from cardsuite.api import load_agent, make, make_vec, register_gymnasium, tournament
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
    "__version__",
    "load_agent",
    "make",
    "make_vec",
    "tournament",
]
