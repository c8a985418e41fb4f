"""The state of one climbing-game table (Scum 4J, J1–J9; Scum Party's tables).

[`State`][scum_env.state.State] is a plain dataclass mutated in place by
[`scum_env.engine.apply`][scum_env.engine.apply], with the field layout and
series stamp the engine, the serialiser and the encoders share.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from scum_env.rules import Rules, TradeStep

__all__ = [
    "ARRAY_FIELDS",
    "OVER",
    "PHASE_NAMES",
    "PLAY",
    "SCALAR_FIELDS",
    "TRADE",
    "Phase",
    "State",
    "new_stamp",
]


class Phase(IntEnum):
    """What a table is doing: a give-back decision (J5), play (J6), or over.

    The values are part of the observation layout and of saved states: they never change.
    """

    TRADE = 0
    PLAY = 1
    OVER = 2


TRADE, PLAY, OVER = Phase.TRADE, Phase.PLAY, Phase.OVER
PHASE_NAMES = ("trade", "play", "over")  # PHASE_NAMES[phase], as the render shows it

_STAMPS = itertools.count(1)  # a fresh stamp for every series started anywhere

# The fields of a State that are numpy arrays, and the plain int/bool scalars
# (the rest are lists, the rules and the generator).
ARRAY_FIELDS = ("hands", "top_cards", "passed", "acted", "scores", "played", "played_by",
                "given", "received", "last_points")  # fmt: skip
SCALAR_FIELDS = ("phase", "to_act", "top_count", "top_slot", "top_player", "passes", "series",
                 "give_left", "winner", "game_over")  # fmt: skip


def new_stamp() -> int:
    """A stamp no series or restored state has used before (encoders cache under it)."""
    return next(_STAMPS)


@dataclass(eq=False)
class State:
    """The full state of one table. Mutated in place by `apply`.

    Attributes:
        hands: card counts per player and slot, shape ``(n, K)``.
        ncards: cards in each player's hand.
        order: players in role order (0 = President/King ... -1 = Scum).
        pos: role position of each player (inverse of ``order``).
        phase: ``TRADE`` (a give-back decision), ``PLAY`` or ``OVER``.
        to_act: player to act.
        top_count, top_slot, top_player, top_cards: the current top play
            (``top_count == 0``: the next play is a lead).
        passed: who has passed this round; acted: who has had their chance.
        passes: passes since the last play (carousel, J9).
        finish: players in the order they went out this series.
        scores: game totals (J8, P8 at the party level).
        played, played_by: cards played this series, in all and per player.
        given, received: this series' trade, per player.
        trade_log: ``(giver, receiver, slot, forced)`` of every traded card.
        pending: trade steps still to do; give_left: give-backs left in the
            current choice step.
        last_points: J8 points of the last finished series.
        winner: winner of the game once it is over (-1 before).
        game_over: the game reached its target.
        stamp: unique per started series (and per restored state); encoders
            cache what stays fixed within a series under it.
    """

    rules: Rules
    rng: np.random.Generator
    hands: np.ndarray
    ncards: list[int]
    order: list[int]
    pos: list[int]
    phase: Phase
    to_act: int
    top_count: int
    top_slot: int
    top_player: int
    top_cards: np.ndarray
    passed: np.ndarray
    acted: np.ndarray
    passes: int
    finish: list[int]
    scores: np.ndarray
    series: int
    played: np.ndarray
    played_by: np.ndarray
    given: np.ndarray
    received: np.ndarray
    trade_log: list[tuple[int, int, int, bool]]
    pending: list[TradeStep]
    give_left: int
    last_points: np.ndarray
    winner: int
    game_over: bool
    stamp: int = 0

    @property
    def num_players(self) -> int:
        """Number of players at the table."""
        return self.rules.num_players

    @property
    def leading(self) -> bool:
        """Whether the player to act leads a new round."""
        return self.phase == PLAY and self.top_count == 0
