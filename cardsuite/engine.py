"""The vocabulary every per-game engine shares, as typing protocols.

OpenSpiel's Game/State split: ``Rules`` (static, compiled from the config),
``State`` (mutated in place by ``apply``; ``to_act``, ``phase``), an engine
*module* of pure functions ([`Engine`][cardsuite.engine.Engine]) and an
[`Encoder`][cardsuite.engine.Encoder] of a seat's observation.
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
