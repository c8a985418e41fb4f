"""Cards of the climbing games as *slots* of a count vector (J1, P1).

A slot is a rank (14 slots), or with ``color_clash`` a rank and colour (53:
13 ranks x 4 colours + the Wild President). Slots are ordered by strength, so
"beats" compares slot indices: Scum < 2 < ... < 12 < President < Wild
President, and within a rank Blue < Green < Orange < Red (J9). Card names: a
colour letter and a rank (``R7``, ``BS``, ``OP``; ``W`` the Wild President);
in rank mode the colour letter may be omitted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cardsuite.errors import PresetError

COLOURS = ("B", "G", "O", "R")  # ascending priority (J9): Blue < Green < Orange < Red
COLOUR_NAMES = {"B": "Blue", "G": "Green", "O": "Orange", "R": "Red"}
RANK_LABELS_4J = ("S", *(str(v) for v in range(2, 13)), "P", "W")
RANK_NAMES_4J = ("Scum", *(str(v) for v in range(2, 13)), "President", "Wild President")


@dataclass(frozen=True, eq=False)
class CardSystem:
    """The slots of one game's cards and how many of each a deck holds.

    Attributes:
        names: short name of each slot (``"R7"``, ``"W"``, ``"7"``...).
        long_names: readable name of each slot (``"Red 7"``).
        rank: rank index of each slot (0 = lowest).
        colour: colour index of each slot (-1 = colourless or rank mode).
        per_deck: copies of each slot in one deck.
        special: slots whose single card beats a set of any size (J6, P1).
        ends_round: slots whose play can never be beaten (J7, P1).
        aliases: extra accepted names for slots (e.g. ``"BS"`` in rank mode).
    """

    names: tuple[str, ...]
    long_names: tuple[str, ...]
    rank: np.ndarray
    colour: np.ndarray
    per_deck: np.ndarray
    special: np.ndarray
    ends_round: np.ndarray
    aliases: dict[str, int]

    @property
    def size(self) -> int:
        """Number of slots K."""
        return len(self.names)

    def slot(self, name: str) -> int:
        """The slot of a card name; PresetError if unknown."""
        key = str(name).strip().upper()
        if key in self.aliases:
            return self.aliases[key]
        raise PresetError(f"unknown card {name!r}; cards look like {', '.join(self.names[:3])} ...")

    def counts(self, names: list[str] | tuple[str, ...]) -> np.ndarray:
        """Count vector of a list of card names."""
        vec = np.zeros(self.size, dtype=np.int16)
        for name in names:
            vec[self.slot(name)] += 1
        return vec

    def describe(self, vec: np.ndarray) -> str:
        """Readable list of the cards in a count vector, lowest first."""
        parts = []
        for s in np.flatnonzero(vec):
            n = int(vec[s])
            parts.append(self.names[s] if n == 1 else f"{n}x{self.names[s]}")
        return " ".join(parts) if parts else "-"


def rank_cards(
    names: tuple[str, ...], long_names: tuple[str, ...], aliases: dict[str, int], top: int
) -> CardSystem:
    """14 colourless rank slots, four of each rank a deck and two of the last; the slots
    from ``top`` on beat a play of any size and end the round (J6, J7, P1)."""
    rank = np.arange(14)
    return CardSystem(
        names=names,
        long_names=long_names,
        rank=rank,
        colour=np.full(14, -1),
        per_deck=np.array([4] * 13 + [2], dtype=np.int16),
        special=rank >= top,
        ends_round=rank >= top,
        aliases=aliases,
    )


def scum_cards(color_clash: bool) -> CardSystem:
    """The 4J Scum card slots (J1), by rank or by rank and colour (J9)."""
    if not color_clash:
        aliases = {name: i for i, name in enumerate(RANK_LABELS_4J)}
        aliases |= {c + label: i for i, label in enumerate(RANK_LABELS_4J[:-1]) for c in COLOURS}
        return rank_cards(RANK_LABELS_4J, RANK_NAMES_4J, aliases | {"WP": 13}, top=12)
    slots = [(r, c) for r in range(13) for c in range(4)]  # then the colourless Wild President
    names = (*(COLOURS[c] + RANK_LABELS_4J[r] for r, c in slots), "W")
    rank = np.array([r for r, _ in slots] + [13])
    per_deck = np.ones(53, dtype=np.int16)
    per_deck[52] = 2  # J1: two Wild Presidents per deck (colourless, so one slot)
    return CardSystem(
        names=names,
        long_names=(
            *(f"{COLOUR_NAMES[COLOURS[c]]} {RANK_NAMES_4J[r]}" for r, c in slots),
            "Wild President",
        ),
        rank=rank,
        colour=np.array([c for _, c in slots] + [-1]),
        per_deck=per_deck,
        special=rank >= 12,
        ends_round=rank >= 12,  # refined by the rules (J7, J9)
        aliases={n: i for i, n in enumerate(names)} | {"WP": 52},
    )
