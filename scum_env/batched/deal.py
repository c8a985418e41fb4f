"""Hashed deals, now shared by every game: `cardsuite.batched.deal`.

Kept so that ``scum_env.batched.deal`` imports keep working. Scum uses the
streams ``TAG_DEAL`` (the cards of a series, counter = deal number) and
``TAG_ROLES`` (the role draw of a new game, J3).
"""

from cardsuite.batched.deal import (
    GOLDEN,
    M32,
    TAG_DEAL,
    TAG_ROLES,
    mix32,
    mix32_int,
    permutations,
    split_seed,
    stream_keys,
)

__all__ = [
    "GOLDEN",
    "M32",
    "TAG_DEAL",
    "TAG_ROLES",
    "mix32",
    "mix32_int",
    "permutations",
    "split_seed",
    "stream_keys",
]
