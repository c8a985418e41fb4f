"""The base of every batched engine: N games whose whole state is named arrays.

A batched engine lists its state arrays once, in `ArrayGames.STATE_FIELDS`,
and says which output buffers it holds (`ArrayGames.buffer_bytes`); the
base derives the inspection and memory accounting every engine offers.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

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

    def _restart(self, idx: Any) -> None:
        """Deal new games at indices ``idx``, as autoreset does (each engine's own)."""
        raise NotImplementedError

    def _observe(self) -> tuple[Array, Array, Array]:
        """``(obs, mask, to_act)`` of every game (each engine's own)."""
        raise NotImplementedError

    def restart_games(self, games: Any) -> tuple[Array, Array, Array]:
        """Restart the games flagged in ``games`` (``[N]`` bools) as autoreset would.

        For a caller that steps with ``autoreset=False`` and restarts the
        finished games itself, after reading their final observation
        (`observe_as`); the vector env does this to return ``final_obs``.

        Returns:
            ``(obs, mask, to_act)`` of every game, as after `step`.
        """
        xp = self.xp
        flags = xp.asarray(np.asarray(games, dtype=bool).reshape(-1), xp.bool)
        if xp.any(flags):
            self._restart(xp.nonzero(flags))
        return self._observe()
