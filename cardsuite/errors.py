"""Named errors of the suite: every error a user can provoke derives from
[`CardsuiteError`][cardsuite.CardsuiteError] and says what was wrong. Every env module re-exports them."""

__all__ = [
    "CardsuiteError",
    "CheckpointError",
    "ConfigError",
    "DeckError",
    "IllegalActionError",
    "PresetError",
    "StateError",
    "TableMismatchError",
    "UsageError",
]


class CardsuiteError(Exception):
    """Base class of every error raised on purpose by cardsuite."""


class ConfigError(CardsuiteError, ValueError):
    """A config key, type, value or combination of values is invalid."""


class DeckError(ConfigError):
    """A deck file is missing, malformed or breaks a deck invariant."""


class PresetError(CardsuiteError, ValueError):
    """A preset deal or seating passed to ``reset(options=...)`` is invalid."""


class IllegalActionError(CardsuiteError, ValueError):
    """An action is not legal in the current state; the message says why."""


class UsageError(CardsuiteError, ValueError):
    """The env API was called wrongly: a bad argument (seed, agent name) or a call
    out of order (``last`` before ``reset``, ``step`` after the episode ended)."""


class StateError(CardsuiteError, ValueError):
    """A serialized game state is corrupt or does not match its config."""


class CheckpointError(CardsuiteError):
    """A training checkpoint is missing, corrupt or does not match the run."""


class TableMismatchError(ConfigError, CheckpointError):
    """An agent meets a table, or a seat, other than the one it was seated at; the message
    names both tables (game, players, options, observation size, action count) and the fix.

    A `CheckpointError` too: a learned agent's size check raised that before."""


class RunLockedError(CardsuiteError):
    """Another process writes the run folder (its lock file names it)."""
