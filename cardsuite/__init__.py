"""cardsuite: the core that every game of the suite shares.

Like Pgx's ``core.py``, this package holds nothing game-specific, and every
other package imports it while it imports none of them:

* :mod:`cardsuite.errors`: the named errors every entry point raises;
* :mod:`cardsuite.config`: :class:`ConfigBase`, frozen configs loaded from YAML;
* :mod:`cardsuite.obsspec`: observation specs with named views;
* :mod:`cardsuite.aec`: the thin PettingZoo AEC base class of every env;
* :mod:`cardsuite.games`: the game registry (``cardsuite.games`` entry points);
* :mod:`cardsuite.cli`: the ``cardsuite`` command and its subcommand registry.

The agents and the arena are :mod:`cardsuite.agents` and self-play training is
:mod:`cardsuite.train` (the repository folders ``agents/`` and ``train/``).
The games are the packages ``scum_env`` and ``scandal_env``.
"""

from importlib.metadata import PackageNotFoundError, version

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
]
