"""Observations as declared lists of named pieces.

An [`ObsSpec`][cardsuite.ObsSpec] lays named pieces end to end in one flat
float32 array; the same declaration gives the encoder's offsets, the named
views, the ``Box`` bounds and the documentation table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Piece:
    """One named, contiguous part of an observation: ``size`` float32 entries in
    ``low .. high``, documented by the one line ``doc``."""

    name: str
    size: int
    doc: str
    high: float = 1.0
    low: float = 0.0


class ObsSpec:
    """An ordered list of `Piece` laid out in one flat array."""

    def __init__(self, pieces: list[Piece]) -> None:
        """Lay ``pieces`` out in order; names must be unique, sizes positive."""
        self.pieces: tuple[Piece, ...] = tuple(pieces)
        self.slices: dict[str, slice] = {}
        start = 0
        for piece in self.pieces:
            if piece.name in self.slices:
                raise ValueError(f"duplicate observation piece {piece.name!r}")
            if piece.size <= 0:
                raise ValueError(f"observation piece {piece.name!r} has size {piece.size}")
            self.slices[piece.name] = slice(start, start + piece.size)
            start += piece.size
        self.size: int = start

    def offset(self, name: str) -> int:
        """Index of the first entry of piece ``name``."""
        return int(self.slices[name].start)

    def view(self, obs: np.ndarray, name: str) -> np.ndarray:
        """The entries of piece ``name`` in ``obs`` (a view, not a copy)."""
        return obs[..., self.slices[name]]

    def views(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """Every piece of ``obs`` by name."""
        return {name: obs[..., sl] for name, sl in self.slices.items()}

    def zeros(self) -> np.ndarray:
        """A new all-zero observation buffer."""
        return np.zeros(self.size, dtype=np.float32)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Per-entry lower and upper bounds, for a gymnasium ``Box``."""
        sizes = [piece.size for piece in self.pieces]
        low = np.repeat(np.array([piece.low for piece in self.pieces], np.float32), sizes)
        return low, np.repeat(np.array([piece.high for piece in self.pieces], np.float32), sizes)

    def table(self) -> str:
        """The Markdown table documenting every piece."""
        rows = ["| piece | indices | size | range | meaning |", "|---|---|---|---|---|"]
        for piece in self.pieces:
            sl = self.slices[piece.name]
            rows.append(
                f"| `{piece.name}` | {sl.start}–{sl.stop - 1} | {piece.size} | "
                f"{_num(piece.low)}..{_num(piece.high)} | {piece.doc} |"
            )
        rows.append(f"| **total** | 0–{self.size - 1} | {self.size} | | |")
        return "\n".join(rows)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"
