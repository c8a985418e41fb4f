"""Counter-based random deals: every game has its own stream, whatever N is.

A deal is a function of ``(seed, game index, deal number)`` only: 32-bit keys
hashed (``mix32``) from those counters and the card index are sorted stably
into the deck's permutation. The hash runs in int64 with 32-bit masks, so
numpy and torch deal exactly the same cards. Streams (the ``tag``):
``TAG_DEAL`` for the cards, ``TAG_ROLES`` for the seat or role draw; a game
that deals several packs at once keeps them apart through its ``counters``.
"""

from __future__ import annotations

from cardsuite.batched.backend import Array, Backend
from cardsuite.errors import ConfigError

M32 = 0xFFFFFFFF
TAG_DEAL = 0x5EA1
TAG_ROLES = 0x0E0E
GOLDEN = 0x9E3779B9


def mix32(x: Array) -> Array:
    """The ``lowbias32`` integer hash of 32-bit values held in an int64 array."""
    x = x ^ (x >> 16)
    x = (x * 0x7FEB352D) & M32
    x = x ^ (x >> 15)
    x = (x * 0x846CA68B) & M32
    return x ^ (x >> 16)


def split_seed(seed: int) -> tuple[int, int]:
    """A seed in ``0 .. 2**64-1`` as its low and high 32-bit halves; ConfigError otherwise."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ConfigError(f"seed must be an integer from 0 to 2**64 - 1, got {seed!r}")
    return seed & M32, seed >> 32


def stream_keys(
    xp: Backend, seed: int, tag: int, games: Array, counters: Array, width: int
) -> Array:
    """32-bit random keys ``[len(games), width]`` of streams ``(seed, tag, game, counter)``."""
    lo, hi = split_seed(seed)
    h0 = int(mix32_int(mix32_int(lo ^ tag) ^ hi))
    h = mix32((games & M32) ^ h0)
    h = mix32(h ^ (counters & M32))
    cols = (xp.arange(width) * GOLDEN) & M32
    return mix32(mix32(h[:, None] ^ cols[None, :]))


def permutations(
    xp: Backend, seed: int, tag: int, games: Array, counters: Array, width: int
) -> Array:
    """Random permutations ``[len(games), width]`` (int64): the stable argsort of `stream_keys`."""
    return xp.argsort(stream_keys(xp, seed, tag, games, counters, width), axis=1)


def mix32_int(x: int) -> int:
    """`mix32` of one Python int."""
    return int(mix32(x & M32))
