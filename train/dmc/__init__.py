"""Deep Monte-Carlo (``cardsuite dmc``): the DouZero recipe on the batched engines.

``config`` (`DMCConfig`), ``trainer`` (the algorithm), ``parts`` (the Q-network,
Monte-Carlo returns, replay and warm start).

May import: the core, the games, ``cardsuite.agents`` and ``cardsuite.train.core``.
"""

from cardsuite.moved import moved_getattr, moved_table
from cardsuite.train.dmc.trainer import DMCTrainer, add_command, main, train

__all__ = ["DMCTrainer", "add_command", "main", "train"]

# Names of 0.2's ``cardsuite.train.dmc`` module that live in the package's modules now, with a warning (PEP 562).
__getattr__ = moved_getattr(
    __name__, moved_table("cardsuite.train.dmc.trainer", "PENDING PROGRESS_FIELDS TRAINER")
)
