"""Observations and action masks of a batch of Scum games, as array operations.

The layout of `scum_env.encoding.observation_spec` and `scum_env.rules.Rules`,
observed by each game's player to act; relative order is a roll of the role
position axis. Fractions come from lookup tables built with the per-game
encoder's float64 arithmetic, so both encoders give bit-identical values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cardsuite.batched.backend import Array, Backend
from scum_env.encoding import NUM_ROLES, observation_spec
from scum_env.rules import Rules
from scum_env.state import Phase

if TYPE_CHECKING:
    from scum_env.batched.engine import BatchedScum

# plain ints for array arithmetic (numpy and torch)
TRADE, PLAY, OVER = int(Phase.TRADE), int(Phase.PLAY), int(Phase.OVER)


class BatchEncoder:
    """Builds ``[N, obs_dim]`` observations and ``[N, A]`` masks for an engine."""

    def __init__(
        self, rules: Rules, xp: Backend, num_games: int, buffers: tuple[Array, Array] | None = None
    ) -> None:
        """Precompute the lookup tables of ``rules``; write into ``buffers`` (obs, mask) if given."""
        self.rules = rules
        self.xp = xp
        self.spec = observation_spec(rules)
        n, c = rules.num_players, rules.max_count
        self.has_give = rules.num_actions > rules.give_base
        self.pos_ar = xp.arange(n)
        self.count_ar = xp.asarray(np.arange(1, c + 1), xp.int8)
        roles = np.zeros((n, n * NUM_ROLES), dtype=np.float32)
        for p in range(n):
            for i in range(n):
                roles[p, i * NUM_ROLES + rules.role_index((p + i) % n)] = 1.0
        self.role_table = xp.asarray(roles, xp.int8)
        self.finish_table = xp.asarray(
            np.array([k_ / n for k_ in range(n + 1)], dtype=np.float32), xp.float32
        )
        inv = 1.0 / rules.target
        high = rules.target + n + 1
        self.score_table = xp.asarray(
            (np.arange(high, dtype=np.int64) * inv).astype(np.float32), xp.float32
        )
        if buffers is None:
            self.obs = xp.zeros((num_games, self.spec.size), xp.float32)
            self.mask_buf = xp.zeros((num_games, rules.num_actions), xp.bool)
        else:
            self.obs, self.mask_buf = buffers
        self.stage = xp.zeros((num_games, self.spec.size), xp.int8)
        self._sl = self.spec.slices
        rel = (np.arange(n)[:, None] + np.arange(n)[None, :]) % n
        self.rel_table = xp.asarray(rel, xp.int64)  # [p, i] -> position of relative i
        index = (np.arange(n)[None, :] - np.arange(n)[:, None]) % n
        self.rel_index = xp.asarray(index, xp.int64)  # [p, j] -> relative index of j
        self.rows_p = xp.arange(num_games)[:, None] * n
        self.allowed = xp.asarray(allowed_table(rules), xp.bool)

    # ------------------------------------------------------------------ masks
    def available(self, hand: Array) -> Array:
        """Per slot, the most cards a play whose best card is that slot can hold."""
        if not self.rules.colour_mode:
            return hand
        xp = self.xp
        k = self.rules.num_slots
        m = hand.shape[0]
        coloured = hand[:, : k - 1].reshape(m, (k - 1) // 4, 4)
        run = xp.cumsum(coloured, 2)
        av = xp.where(coloured > 0, run, 0).reshape(m, k - 1)
        return xp.concat([xp.astype(av, hand.dtype), hand[:, k - 1 :]], 1)

    def mask(self, eng: BatchedScum, hand: Array) -> Array:
        """The bool mask ``[N, A]`` of every game's player to act (all false when over)."""
        xp = self.xp
        k, c = self.rules.num_slots, self.rules.max_count
        g = 1 + c * k
        tc, ts, phase = eng.top_count, eng.top_slot, eng.phase
        in_play = phase == PLAY
        code = xp.where(in_play, xp.where(tc == 0, 1, 2 + (tc - 1) * k + ts), 0)
        out = self.mask_buf
        out[:, :g] = xp.take_rows(self.allowed, code)
        avail = self.available(hand)
        ge = avail[:, None, :] >= self.count_ar[None, :, None]
        out[:, 1:g] &= ge.reshape(hand.shape[0], c * k)
        if self.has_give:
            out[:, g:] = (phase == TRADE)[:, None] & (hand > 0)
        return out

    # ------------------------------------------------------------ observations
    def observe(self, eng: BatchedScum, hand: Array) -> Array:
        """Write every game's observation (by its player to act) into the shared buffer.

        Integer pieces go into an int8 staging array (cheap narrow writes), cast
        to float32 in one pass; the fractional pieces are written after.
        """
        xp = self.xp
        n, k = self.rules.num_players, self.rules.num_slots
        stage = self.stage
        sl = self._sl
        p = eng.actor
        rel = self.rows_p + xp.take_rows(self.rel_table, p)  # flat [N, P] indices
        stage[:, sl["hand"]] = hand
        stage[:, sl["top_cards"]] = eng.top_cards
        tp = eng.top_pos
        rel_top = xp.take_flat(self.rel_index, p * n + xp.where(tp >= 0, tp, 0))
        top_one = (self.pos_ar[None, :] == rel_top[:, None]) & (tp >= 0)[:, None]
        stage[:, sl["top_player"]] = xp.small(top_one)
        stage[:, sl["passed"]] = xp.small(xp.take_flat(eng.passed, rel))
        stage[:, sl["acted"]] = xp.small(xp.take_flat(eng.acted, rel))
        stage[:, sl["cards_left"]] = xp.take_flat(eng.ncards, rel)
        stage[:, sl["roles"]] = xp.take_rows(self.role_table, p)
        stage[:, sl["played"]] = eng.played
        flat = eng.flat_actor()
        stage[:, sl["trade_given"]] = xp.take_rows(eng.given.reshape(-1, k), flat)
        stage[:, sl["trade_received"]] = xp.take_rows(eng.received.reshape(-1, k), flat)
        phase = eng.phase
        in_play = phase == PLAY
        trade = phase == TRADE
        ph = sl["phase"].start
        stage[:, ph] = xp.small(trade)
        stage[:, ph + 1] = xp.small(in_play & (eng.top_count == 0))
        stage[:, ph + 2] = xp.small(in_play & (eng.top_count > 0))
        out = self.obs
        out[...] = stage
        fin = xp.astype(xp.take_flat(eng.finish, rel), xp.int64)
        out[:, sl["finish_rank"]] = xp.take_flat(self.finish_table, fin)
        out[:, sl["scores"]] = xp.take_flat(self.score_table, xp.take_flat(eng.scores, rel))
        left = xp.astype(xp.where(trade, eng.give_left, 0), xp.float32) / 2
        out[:, sl["give_backs_left"].start] = left
        return out


def allowed_table(rules: Rules) -> np.ndarray:
    """Which pass/play actions a situation allows before looking at the hand (J6, J7).

    Row ``0``: nothing (a give-back decision or a finished game); row ``1``: a
    lead (any set, no pass); row ``2 + (c-1)*K + t``: following a top play of
    ``c`` cards with best slot ``t`` (pass; ``c`` cards above ``t``; a single
    special card above ``t``). Columns: action ids ``0 .. give_base-1``.
    """
    k, c = rules.num_slots, rules.max_count
    g = 1 + c * k
    table = np.zeros((2 + c * k, g), dtype=bool)
    table[1, 1:] = True
    for count in range(1, c + 1):
        for top in range(k):
            row = table[2 + (count - 1) * k + top]
            row[0] = True
            base = 1 + (count - 1) * k
            row[base + top + 1 : base + k] = True
            special = np.flatnonzero(rules.cards.special)
            row[1 + special[special > top]] = True
    return table
