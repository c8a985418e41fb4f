"""Deep Monte-Carlo (``cardsuite dmc``): the DouZero recipe on the batched engines.

``config`` (`DMCConfig`), ``trainer`` (the algorithm), ``parts`` (the Q-network,
Monte-Carlo returns, replay and warm start).

May import: the core, the games, ``cardsuite.agents`` and ``cardsuite.train.core``.
"""

from typing import Any

from cardsuite.moved import moved_name, moved_table
from cardsuite.train.dmc.trainer import DMCTrainer, add_command, main, train

__all__ = ["DMCTrainer", "add_command", "main", "train"]

#: Names of 0.2's ``cardsuite.train.dmc`` module that live in the package's modules now.
_MOVED = moved_table("cardsuite.train.dmc.trainer", "PENDING PROGRESS_FIELDS TRAINER")


def __getattr__(name: str) -> Any:
    """A 0.2 name that moved (`_MOVED`), with a warning naming its home (PEP 562)."""
    return moved_name(__name__, name, _MOVED)
