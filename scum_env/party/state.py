"""The state of a Scum Party tournament (P1–P8) and the rules of its tables.

[`Party`][scum_env.party.state.Party] holds one [`scum_env.state.State`][scum_env.state.State]
per table (see [`scum_env.party.engine`][scum_env.party.engine]).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from scum_env.party.cards import party_rules
from scum_env.party.config import PartyConfig
from scum_env.party.tables import ladder
from scum_env.rules import Rules
from scum_env.state import Phase
from scum_env.state import State as TableState


@lru_cache(maxsize=16)
def table_rules(size: int) -> Rules:
    """The (shared, immutable) rules of a table of ``size`` players."""
    return party_rules(size)


@lru_cache(maxsize=64)
def action_rules(config: PartyConfig) -> Rules:
    """Rules of the largest table: the env's action table (a smaller table's is a prefix)."""
    return table_rules(config.max_table)


@dataclass(eq=False)
class Party:
    """A running Scum Party tournament. Mutated in place by `apply`.

    Attributes:
        config: the validated config.
        tables: one engine state per table, top table first.
        members: per table, the global id of each local player index.
        table_of, local_of: per global player, its table and local index.
        current: table whose player acts next.
        hand: hands finished and scored so far.
        scores: tournament totals (P8).
        last_points: points of the last scored hand.
        last_finish: per table, global ids in finish order of the last hand.
        over: the tournament has played ``num_hands`` hands.
    """

    config: PartyConfig
    tables: list[TableState]
    current: int
    hand: int
    scores: np.ndarray
    last_points: np.ndarray
    last_finish: list[list[int]]
    over: bool
    members: list[list[int]] = field(default_factory=list)  # set by `seat`
    table_of: list[int] = field(default_factory=list)
    local_of: list[int] = field(default_factory=list)

    @property
    def num_players(self) -> int:
        """Players in the tournament."""
        return self.config.num_players

    @property
    def to_act(self) -> int:
        """Global id of the player to act (of the table to act)."""
        st = self.tables[self.current]
        return self.members[self.current][st.to_act]

    @property
    def phase(self) -> Phase:
        """``Phase.OVER`` once the tournament is over, else the phase of the table to act."""
        return Phase.OVER if self.over else self.tables[self.current].phase

    @property
    def rules(self) -> Rules:
        """The rules of the largest table, which define the action table (`action_rules`)."""
        return action_rules(self.config)

    def position(self, player: int) -> int:
        """Seat of ``player`` at its table (0 = King) in the current (or, once over, last) hand."""
        return self.tables[self.table_of[player]].pos[self.local_of[player]]

    def seat_of(self, player: int) -> tuple[int, int]:
        """``(table, seat)`` of ``player`` after the latest ladder (P7): the current hand's,
        or once the tournament is over the final seats that scored the last hand (P8)."""
        if self.over and self.last_finish:
            for t, seats in enumerate(ladder(self.last_finish)):
                if player in seats:
                    return t, seats.index(player)
        return self.table_of[player], self.position(player)


def seat(party: Party, seats: list[list[int]]) -> None:
    """Record each table's players (local index = role position at the deal)."""
    party.members = [list(s) for s in seats]
    party.table_of = [0] * party.num_players
    party.local_of = [0] * party.num_players
    for t, members in enumerate(seats):
        for i, player in enumerate(members):
            party.table_of[player] = t
            party.local_of[player] = i


State = Party  # the engine vocabulary (``Rules``, ``State``, ``to_act``, ``Phase``)
