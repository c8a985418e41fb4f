"""Batched PPO (``cardsuite ppo``): masked PPO on the batched engines, on the training core.

* ``config``: `PPOConfig`; ``trainer``: the algorithm, one readable loop;
* ``network``: the masked actor-critic; ``rollout``: per-seat storage and GAE;
  ``update``: the clipped PPO epochs; ``imitation``: the warm start (imitation, DAgger).

May import: the core, the games, ``cardsuite.agents`` and ``cardsuite.train.core``.
"""

from cardsuite.train.ppo.trainer import Trainer, add_command, main, train

__all__ = ["Trainer", "add_command", "main", "train"]
