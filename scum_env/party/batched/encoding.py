"""Observations and masks of a batch of Scum Party games, as array operations.

The layouts of `scum_env.party.encoding.observation_spec` and the action
table, observed by each game's player to act. Integer pieces go into an int8
staging array cast to float32 in one pass; fractions come from lookup tables
built with the per-game encoder's float64 arithmetic (bit-identical values).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cardsuite.batched.backend import Array, Backend
from scum_env.batched.encoding import allowed_table
from scum_env.party.batched.layout import Layout
from scum_env.party.encoding import observation_spec

if TYPE_CHECKING:
    from scum_env.party.batched.engine import BatchedParty


class PartyBatchEncoder:
    """Builds ``[N, obs_dim]`` observations and ``[N, A]`` masks for a `BatchedParty`."""

    def __init__(
        self,
        lay: Layout,
        xp: Backend,
        num_games: int,
        buffers: tuple[Array, Array] | None = None,
    ) -> None:
        """Move the layout's lookup tables to the backend; write into ``buffers`` if given."""
        self.lay = lay
        self.xp = xp
        self.spec = observation_spec(lay.config)
        cfg = lay.config
        i8, i64, f32 = xp.int8, xp.int64, xp.float32
        self.count_ar = xp.asarray(np.arange(1, lay.C + 1), i8)
        self.allowed = xp.asarray(allowed_table(lay.action_rules), xp.bool)
        self.rel = xp.asarray(lay.rel, i64)
        self.rel_index = xp.asarray(lay.rel_index, i64)
        self.table_consts = xp.asarray(lay.table_consts, f32)
        self.hands_done = xp.asarray(
            np.array([h / cfg.num_hands for h in range(cfg.num_hands + 1)], dtype=np.float32), f32
        )
        self.pos_ar = xp.arange(lay.P)
        self.slot_ar = xp.arange(lay.K)
        if buffers is None:
            self.obs = xp.zeros((num_games, self.spec.size), f32)
            self.mask_buf = xp.zeros((num_games, lay.A), xp.bool)
        else:
            self.obs, self.mask_buf = buffers
        self.stage = xp.zeros((num_games, self.spec.size), i8)
        sl = self.spec.slices
        self._sl = sl
        # contiguous integer blocks: seats+roles, table+position
        assert sl["seats"].stop == sl["roles"].start
        assert sl["table"].stop == sl["position"].start == sl["position"].stop - lay.P
        assert sl["table_size"].stop == sl["num_tables"].start
        assert sl["score"].stop == sl["standing"].start == sl["leader_gap"].start - 1
        seat_roles = np.concatenate(
            [np.repeat(lay.seats, lay.P, axis=0), lay.roles], axis=1
        )  # [T*P, P + 5P]
        self.seat_roles = xp.asarray(seat_roles, i8)
        table = np.repeat(np.eye(lay.T), lay.P, axis=0)  # row t * P + j: table t, seat j
        self.table_pos = xp.asarray(
            np.concatenate([table, np.tile(np.eye(lay.P), (lay.T, 1))], 1), i8
        )

    # ------------------------------------------------------------------ masks
    def mask(self, eng: BatchedParty, row: Array, hand: Array) -> Array:
        """The bool mask ``[N, A]`` of every game's player to act (all false when over).

        A lead may play any set held (P1); a follower may pass, play as many
        cards of a higher rank, or after a set a single Joker. numpy works on
        the leading and following subsets; torch makes one full-width pass
        (no device sync on the subsets).
        """
        xp = self.xp
        lay = self.lay
        k, c, a = lay.K, lay.C, lay.A
        tc = eng.top_count[row]
        ts = eng.top_slot[row]
        running = ~eng.over
        out = self.mask_buf
        if xp.name != "numpy":  # one full-width pass: no device sync for the subsets
            code = xp.where(running, xp.where(tc == 0, 1, 2 + (tc - 1) * k + ts), 0)
            out[...] = xp.take_rows(self.allowed, code)
            ge = hand[:, None, :] >= self.count_ar[None, :, None]
            out[:, 1:] &= ge.reshape(hand.shape[0], c * k)
            return out
        out[...] = False
        lead = xp.nonzero(running & (tc == 0))
        if lead.shape[0]:
            held = hand[lead]
            out[lead, 1:] = (held[:, None, :] >= self.count_ar[None, :, None]).reshape(-1, c * k)
        follow = xp.nonzero(running & (tc > 0))
        if follow.shape[0]:
            count, top, held = tc[follow], ts[follow], hand[follow]
            ok = (held >= xp.astype(count, xp.int8)[:, None]) & (
                self.slot_ar[None, :] > top[:, None]
            )
            cells = (follow * a + 1 + (count - 1) * k)[:, None] + self.slot_ar[None, :]
            out.reshape(-1)[cells] = ok
            out[follow, 0] = True
            joker = lay.joker
            single = (count > 1) & (held[:, joker] >= 1)  # P1: a Joker beats any set
            out[follow, 1 + joker] = out[follow, 1 + joker] | single
        return out

    # ------------------------------------------------------------ observations
    def observe(
        self,
        eng: BatchedParty,
        row: Array,
        me: Array,
        player: Array,
        hand: Array,
        table: Array | None = None,
        buffers: tuple[Array, Array] | None = None,
    ) -> Array:
        """Write every game's observation by one player into the shared buffer.

        Args:
            eng: the engine.
            row: ``[N]`` row of each game's observed table (default: the table to act).
            me: ``[N]`` seat of the observer at that table.
            player: ``[N]`` its player id.
            hand: ``[N, 14]`` its cards.
            table: ``[N]`` table index of ``row`` (default: ``eng.current``).
            buffers: ``(stage [N, D] int8, out [N, D] float32)`` to write
                instead of the engine's own buffers (`BatchedParty.observe_as`).
        """
        xp = self.xp
        lay = self.lay
        P = lay.P
        sl = self._sl
        stage, out = (self.stage, self.obs) if buffers is None else buffers
        cur = eng.current if table is None else table
        flat = row * P + me
        tme = cur * P + me
        rel = row[:, None] * P + xp.take_rows(self.rel, tme)  # flat [N, P] into [R*P]
        stage[:, sl["hand"]] = hand
        tc = eng.top_count[row]
        ts = eng.top_slot[row]
        top = self.slot_ar[None, :] == ts[:, None]  # the top play is tc cards of rank ts
        stage[:, sl["top_cards"]] = xp.where(top, xp.astype(tc, xp.int8)[:, None], 0)
        tp = eng.top_pos[row]
        rel_top = xp.take_flat(self.rel_index, tme * P + xp.where(tp >= 0, tp, 0))
        top_one = (self.pos_ar[None, :] == rel_top[:, None]) & (tp >= 0)[:, None]
        stage[:, sl["top_player"]] = xp.small(top_one)
        stage[:, sl["passed"]] = xp.small(xp.take_flat(eng.passed, rel))
        stage[:, sl["acted"]] = xp.small(xp.take_flat(eng.acted, rel))
        stage[:, sl["cards_left"]] = xp.take_flat(eng.ncards, rel)
        stage[:, sl["seats"].start : sl["roles"].stop] = xp.take_rows(self.seat_roles, tme)
        stage[:, sl["played"]] = xp.take_rows(eng.played, row)
        stage[:, sl["trade_given"]] = xp.take_rows(eng.given.reshape(-1, lay.K), flat)
        stage[:, sl["trade_received"]] = xp.take_rows(eng.received.reshape(-1, lay.K), flat)
        stage[:, sl["table"].start : sl["position"].stop] = xp.take_rows(self.table_pos, tme)
        ph = sl["phase"].start
        playing = ~xp.take_flat(eng.tover, row)
        lead = tc == 0
        stage[:, ph] = xp.small(playing & lead)
        stage[:, ph + 1] = xp.small(playing & ~lead)
        stage[:, ph + 2] = xp.small(~playing)
        out[...] = stage
        out[:, sl["finish_rank"]] = xp.take_flat(eng.finish_rank, rel)
        consts = sl["table_size"].start, sl["num_tables"].stop
        if lay.T == 1:
            out[:, consts[0] : consts[1]] = self.table_consts[0]
        else:
            out[:, consts[0] : consts[1]] = xp.take_rows(self.table_consts, cur)
        out[:, sl["hands_done"].start] = xp.take_flat(self.hands_done, eng.hand)
        out[:, sl["score"].start : sl["leader_gap"].stop] = xp.take_rows(
            eng.ladder.reshape(-1, 3), eng.rows * lay.n + player
        )
        out[:, sl["table_scores"]] = xp.take_flat(eng.seat_score, rel)
        return out
