"""Deep Monte-Carlo (``cardsuite dmc``): the DouZero recipe on the batched engines.

* ``config``: `DMCConfig`, its settings; ``trainer``: the algorithm;
* ``parts``: the Q-network, Monte-Carlo targets, replay and warm start.

May import: the core, the games, ``cardsuite.agents`` and ``cardsuite.train.core``.
"""

from cardsuite.train.dmc.trainer import DMCTrainer, add_command, main, train

__all__ = ["DMCTrainer", "add_command", "main", "train"]
