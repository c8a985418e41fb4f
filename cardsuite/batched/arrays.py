"""The base of every batched engine: N games whose whole state is named arrays.

A batched engine lists its state arrays once, in `ArrayGames.STATE_FIELDS`,
and says which output buffers it holds (`ArrayGames.buffer_bytes`); the
base derives the inspection and memory accounting every engine offers.
"""

from __future__ import annotations

from typing import ClassVar

from cardsuite.batched.backend import Array, Backend


class ArrayGames:
    """``num_games`` games as arrays with a leading game axis on backend ``xp``."""

    #: The names of the engine's state arrays (attributes of the instance).
    STATE_FIELDS: ClassVar[tuple[str, ...]] = ()

    xp: Backend
    num_games: int

    def state_arrays(self) -> dict[str, Array]:
        """Every state array by name (for memory accounting and inspection)."""
        return {name: getattr(self, name) for name in self.STATE_FIELDS}

    def buffer_bytes(self) -> int:
        """Bytes of the observation, staging and mask buffers (all games)."""
        return 0

    def bytes_per_game(self) -> float:
        """Bytes of state and output buffers held per game."""
        xp = self.xp
        total = sum(xp.nbytes(a) for a in self.state_arrays().values())
        return (total + self.buffer_bytes()) / self.num_games
