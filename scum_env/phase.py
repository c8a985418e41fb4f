"""The phases of a Scum table, shared by the per-game and the batched engines.

Their values are part of the observation layout (the ``phase`` piece) and of
saved states, so they never change.
"""

from __future__ import annotations

from enum import IntEnum


class Phase(IntEnum):
    """What a table is doing: a give-back decision (J5), play (J6), or over."""

    TRADE = 0
    PLAY = 1
    OVER = 2


TRADE, PLAY, OVER = Phase.TRADE, Phase.PLAY, Phase.OVER
PHASE_NAMES = ("trade", "play", "over")  # PHASE_NAMES[phase], as the render shows it
