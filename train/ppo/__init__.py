"""Batched PPO (``cardsuite ppo``): masked PPO on the batched engines, on the training core.

``config`` (`PPOConfig`), ``trainer`` (the algorithm, one readable loop), ``network`` (the
masked actor-critic), ``rollout`` (per-seat storage, GAE), ``update`` (the clipped epochs),
``imitation`` (the warm start).

May import: the core, the games, ``cardsuite.agents`` and ``cardsuite.train.core``.
"""

from cardsuite.moved import moved_getattr, moved_table
from cardsuite.train.ppo.trainer import Trainer, add_command, main, train

__all__ = ["Trainer", "add_command", "main", "train"]

# Names of 0.2's ``cardsuite.train.ppo`` module that live in the package's modules now, with a warning (PEP 562).
__getattr__ = moved_getattr(
    __name__,
    moved_table(
        "cardsuite.train.ppo.trainer",
        "ANCHOR_FIELDS DAGGER_SEED DUPLICATE_FIELDS PPOTable PROGRESS_FIELDS",
    )
    | moved_table("cardsuite.train.ppo.update", "anchor_kl ppo_update"),
)
