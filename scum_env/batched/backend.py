"""The numpy/torch array namespace, now shared by every game: `cardsuite.batched.backend`.

Kept so that ``scum_env.batched.backend`` imports keep working.
"""

from cardsuite.batched.backend import BACKENDS, Array, Backend, TorchBackend, get_backend

__all__ = ["BACKENDS", "Array", "Backend", "TorchBackend", "get_backend"]
