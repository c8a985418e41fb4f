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

The core that every game of the suite shares.

Like Pgx's ``core.py``, this package holds nothing game-specific, and every
other package imports it while it imports none of them (only the functions of
`cardsuite.api` reach the games, agents and training, when called):

* [`cardsuite.errors`][cardsuite.errors]: the named errors every entry point raises;
* [`cardsuite.config`][cardsuite.config]: [`ConfigBase`][cardsuite.ConfigBase], frozen configs loaded from YAML;
* [`cardsuite.obsspec`][cardsuite.obsspec]: observation specs with named views;
* [`cardsuite.aec`][cardsuite.aec]: the thin PettingZoo AEC base class of every env;
* [`cardsuite.games`][cardsuite.games]: the game registry (``cardsuite.games`` entry points);
* `cardsuite.cli`: the ``cardsuite`` command and its subcommand registry.

The agents and the arena are `cardsuite.agents` and self-play training is
`cardsuite.train` (the repository folders ``agents/`` and ``train/``).
The games are the packages ``scum_env`` and ``scandal_env``.
"""

from importlib.metadata import PackageNotFoundError, version

from cardsuite.api import load_agent, make, make_vec, register_gymnasium, tournament
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

try:
    __version__ = version("cardsuite")
except PackageNotFoundError:  # running from a checkout that is not installed
    __version__ = "0+unknown"

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
