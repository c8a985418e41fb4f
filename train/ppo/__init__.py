"""Batched PPO (``cardsuite ppo``): masked PPO on the batched engines, on the training core.

``config`` (`PPOConfig`), ``trainer`` (the algorithm, one readable loop), ``network`` (the
masked actor-critic), ``rollout`` (per-seat storage, GAE), ``update`` (the clipped epochs),
``imitation`` (the warm start).

May import: the core, the games, ``cardsuite.agents`` and ``cardsuite.train.core``.
"""

from typing import Any

from cardsuite.moved import moved_name, moved_table
from cardsuite.train.ppo.trainer import Trainer, add_command, main, train

__all__ = ["Trainer", "add_command", "main", "train"]

#: Names of 0.2's ``cardsuite.train.ppo`` module that live in the package's modules now.
_MOVED = moved_table(
    "cardsuite.train.ppo.trainer",
    "ANCHOR_FIELDS DAGGER_SEED DUPLICATE_FIELDS PPOTable PROGRESS_FIELDS",
) | moved_table("cardsuite.train.ppo.update", "anchor_kl ppo_update")


def __getattr__(name: str) -> Any:
    """A 0.2 name that moved (`_MOVED`), with a warning naming its home (PEP 562)."""
    return moved_name(__name__, name, _MOVED)
