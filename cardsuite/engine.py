"""The vocabulary every per-game engine shares, as typing protocols.

Each game follows OpenSpiel's Game/State split (``DESIGN.md``):

* ``Rules``: the static part, compiled once from the game's config;
* ``State``: everything that changes, mutated in place by ``apply``, with
  ``to_act`` the seat to move and ``phase`` an ``IntEnum Phase``;
* an engine *module* of pure functions over a state (``legal_mask``,
  ``apply``, ``why_illegal``, ``clone``), which satisfies [`Engine`][cardsuite.engine.Engine];
* an encoder that writes a seat's observation into a flat float32 array.

The AEC base ([`cardsuite.aec.CardGameEnv`][cardsuite.aec.CardGameEnv]), search agents and records
type against these protocols instead of ``Any``. Nothing here imports a game.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

import numpy as np

from cardsuite.obsspec import ObsSpec

S = TypeVar("S")
S_contra = TypeVar("S_contra", contravariant=True)


class EngineState(Protocol):
    """What every engine's ``State`` offers to generic code."""

    @property
    def to_act(self) -> int:
        """The seat (player index) to move."""
        ...


class Engine(Protocol[S]):
    """The pure functions of a per-game engine module over its ``State`` ``S``."""

    def legal_mask(self, state: S, /) -> np.ndarray:
        """The int8 mask of legal action ids for ``state.to_act``."""
        ...

    def apply(self, state: S, action: int, /) -> None:
        """Apply a legal action in place; ``IllegalActionError`` otherwise."""
        ...

    def clone(self, state: S, /) -> S:
        """An independent copy (random generator included)."""
        ...


class Encoder(Protocol[S_contra]):
    """Writes one seat's observation of a state into a flat float32 array."""

    spec: ObsSpec

    def encode(self, state: S_contra, seat: int, out: np.ndarray, /) -> object:
        """Fill every entry of ``out`` with ``seat``'s view of ``state``."""
        ...
