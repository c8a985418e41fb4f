"""Cards of the climbing games as *slots* of a count vector (J1, P1).

A hand is a vector of counts over card slots. Without ``color_clash`` colour
never matters in Scum, so a slot is a rank (14 slots). With ``color_clash`` a
slot is a rank and colour (53 slots: 13 ranks x 4 colours + the colourless
Wild President). Slots are ordered by strength, so "beats" is a comparison of
slot indices: for 4J ranks Scum < 2 < ... < 12 < President < Wild President,
and within a rank Blue < Green < Orange < Red (J9 colour priority).

Card names: a colour letter (R, O, G, B) and a rank (``S`` Scum, ``2``..``12``,
``P`` President), e.g. ``R7``, ``BS``, ``OP``; ``W`` is the Wild President. In
rank mode the colour letter may be omitted (``7``, ``S``, ``P``).
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


def scum_cards(color_clash: bool) -> CardSystem:
    """The 4J Scum card slots (J1), by rank or by rank and colour (J9)."""
    if not color_clash:
        names = RANK_LABELS_4J
        aliases = {name: i for i, name in enumerate(names)}
        for i, label in enumerate(RANK_LABELS_4J[:-1]):
            for letter in COLOURS:
                aliases[letter + label] = i
        aliases["WP"] = 13
        per_deck = np.array([4] * 13 + [2], dtype=np.int16)
        rank = np.arange(14)
        special = rank >= 12
        ends = rank >= 12
        return CardSystem(
            names=names,
            long_names=RANK_NAMES_4J,
            rank=rank,
            colour=np.full(14, -1),
            per_deck=per_deck,
            special=special,
            ends_round=ends,
            aliases=aliases,
        )
    names_l: list[str] = []
    long_l: list[str] = []
    rank_l: list[int] = []
    colour_l: list[int] = []
    for r, rank_label in enumerate(RANK_LABELS_4J[:-1]):
        for c, letter in enumerate(COLOURS):
            names_l.append(letter + rank_label)
            long_l.append(f"{COLOUR_NAMES[letter]} {RANK_NAMES_4J[r]}")
            rank_l.append(r)
            colour_l.append(c)
    names_l.append("W")
    long_l.append("Wild President")
    rank_l.append(13)
    colour_l.append(-1)
    aliases = {n: i for i, n in enumerate(names_l)}
    aliases["WP"] = 52
    rank_a = np.array(rank_l)
    per_deck = np.ones(53, dtype=np.int16)
    per_deck[52] = 2  # J1: two Wild Presidents per deck (colourless, so one slot)
    return CardSystem(
        names=tuple(names_l),
        long_names=tuple(long_l),
        rank=rank_a,
        colour=np.array(colour_l),
        per_deck=per_deck,
        special=rank_a >= 12,
        ends_round=rank_a >= 12,  # refined by the rules (J7, J9)
        aliases=aliases,
    )
