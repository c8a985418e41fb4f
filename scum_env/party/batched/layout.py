"""The static shape of a batched Scum Party: every table lookup computed once per config.

Table sizes are fixed by the config (P2), so whatever depends on them (decks,
deal and trade seats, relative seating, role blocks, turn distances, the
ladder's permutation P7, seat points P8) is a numpy table built here once.
Per-table arrays are padded to ``P`` = the largest table; the *concatenated
seating* lists all players table by table, King first: index ``offsets[t] + j``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from scum_env.party.cards import JOKER
from scum_env.party.config import PartyConfig
from scum_env.party.engine import action_rules, table_rules
from scum_env.party.tables import ladder, seat_bonus
from scum_env.rules import role_index

NUM_ROLES = 5
BIG = 1 << 20


@dataclass
class Layout:
    """Static tables of one `PartyConfig` (numpy; the engine moves them to its backend)."""

    config: PartyConfig
    sizes: tuple[int, ...] = field(init=False)
    n: int = field(init=False)
    T: int = field(init=False)
    P: int = field(init=False)
    K: int = field(init=False)

    def __post_init__(self) -> None:
        """Build every table of the config."""
        cfg = self.config
        sizes = tuple(cfg.sizes)
        self.sizes = sizes
        self.n, self.T, self.P = cfg.num_players, len(sizes), max(sizes)
        rules = action_rules(cfg)
        self.action_rules = rules
        self.K = rules.num_slots
        self.C = rules.max_count
        self.A = rules.num_actions
        self.joker = JOKER
        T, P = self.T, self.P
        self.offsets = np.cumsum((0, *sizes))[:-1].astype(np.int64)
        self.size = np.asarray(sizes, dtype=np.int64)
        # concatenated seating index -> flat [T * P] slot
        self.slot_of = np.concatenate([t * P + np.arange(s) for t, s in enumerate(sizes)])
        # P7: the new seating, as indices into the concatenated finish orders
        finish = [list(self.offsets[t] + np.arange(s)) for t, s in enumerate(sizes)]
        self.ladder_perm = np.concatenate([np.asarray(x, dtype=np.int64) for x in ladder(finish)])
        # P8: points of each concatenated seat after the ladder
        self.hand_points = np.concatenate(
            [[T - t + seat_bonus(j, s) for j in range(s)] for t, s in enumerate(sizes)]
        ).astype(np.int64)
        # decks and deal seats per table (P1, P4: from the Scum upwards)
        self.slot_lists = [table_rules(s).slot_list.astype(np.int64) for s in sizes]
        self.deal_seats = [
            (s - 1 - np.arange(table_rules(s).deck_size) % s).astype(np.int64) for s in sizes
        ]
        # P5 trade seats per table: (kind, giver, receiver) single-card transfers
        steps = table_rules(sizes[0]).trades
        self.trade_moves: list[tuple[str, np.ndarray, np.ndarray]] = []
        for step in steps:
            giver = np.asarray([step.giver % s for s in sizes], dtype=np.int64)
            receiver = np.asarray([step.receiver % s for s in sizes], dtype=np.int64)
            for _ in range(step.count):
                self.trade_moves.append((step.kind, giver, receiver))
        self._relative_tables()

    def _relative_tables(self) -> None:
        """Relative seating, role blocks, distances and per-table constants."""
        T, P = self.T, self.P
        rel = np.zeros((T, P, P), dtype=np.int64)  # [t, me, i] -> position (pads: i itself)
        rel_index = np.zeros((T, P, P), dtype=np.int64)  # [t, me, j] -> relative index of j
        dist = np.full((T, P, P), BIG, dtype=np.int64)  # [t, from, to] turns from -> to
        roles = np.zeros((T, P, P * NUM_ROLES), dtype=np.int8)
        seats = np.zeros((T, P), dtype=np.int8)
        finish_frac = np.zeros((T, P + 1), dtype=np.float32)
        for t, s in enumerate(self.sizes):
            seats[t, :s] = 1
            finish_frac[t, : s + 1] = [k / s for k in range(s + 1)]
            for me in range(s):
                for i in range(P):
                    rel[t, me, i] = (me + i) % s if i < s else i
                for j in range(s):
                    rel_index[t, me, j] = (j - me) % s
                    d = (j - me) % s
                    dist[t, me, j] = d if d else s
                for i in range(s):
                    roles[t, me, i * NUM_ROLES + role_index((me + i) % s, s)] = 1
        self.rel = rel.reshape(T * P, P)
        self.rel_index = rel_index.reshape(-1)
        self.dist = dist.reshape(T * P, P)
        self.roles = roles.reshape(T * P, P * NUM_ROLES)
        self.seats = seats
        self.finish_frac = finish_frac.reshape(-1)
        tdist = (np.arange(T)[None, :] - np.arange(T)[:, None]) % T
        self.table_dist = np.where(tdist == 0, T, tdist).astype(np.int64)  # [from, to]
        self.table_consts = np.asarray(
            [[s / 15.0, T / 10.0] for s in self.sizes], dtype=np.float32
        )  # table_size, num_tables
