"""BatchedParty: N Scum Party tournaments (P1–P8) held as padded arrays.

Per-table state has ``R = N * T`` rows (row ``g * T + t`` is table ``t`` of
game ``g``); per-seat state is padded to the largest table ``P`` and indexed
by seat (King = 0, P3); ``members[r, j]`` is the player id at seat ``j``. One
step applies one decision in every game at its table to act, in
``scum_party_v0``'s order; the end of a hand (ladder P7, scoring P8, the next
deal P1, P4 and trades P5) runs inside the same step.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from cardsuite.batched.arena import ArenaResult, run_arena
from cardsuite.batched.arrays import ArrayGames
from cardsuite.batched.backend import Array
from cardsuite.batched.checks import preset_ints, preset_seating, trade_flags
from cardsuite.batched.deal import TAG_ROLES, permutations, split_seed
from cardsuite.batched.policies import BatchPolicy
from cardsuite.batched.sharded import ShardedGames
from cardsuite.batched.vector_env import GameVectorEnv
from scum_env.party.batched import hands as H
from scum_env.party.batched.encoding import PartyBatchEncoder
from scum_env.party.batched.layout import Layout
from scum_env.party.config import PartyConfig

FAR = 1000  # distance of a seat that may not act (int16)


class BatchedParty(ArrayGames):
    """N Scum Party tournaments stepped together, on numpy or torch (CPU or GPU).

    Arguments as [`ArrayGames`][cardsuite.batched.arrays.ArrayGames];
    ``**config`` are [`PartyConfig`][scum_env.party.config.PartyConfig] fields.
    """

    CONFIG = PartyConfig
    STATE_FIELDS = ("hands", "given", "received", "ncards", "finish", "finish_rank", "passed",
                    "acted", "members", "seat_score", "played", "top_count", "top_slot",
                    "top_pos", "nfin", "actor", "tover", "current", "hand", "deals", "over",
                    "scores", "ladder", "rewards", "done")  # fmt: skip
    config: PartyConfig

    def _compile(self) -> Any:
        self.lay = Layout(self.config)
        return self.lay.action_rules

    def _build(self, buffers: tuple[Array, Array] | None) -> None:
        self.num_players = self.lay.n
        self.num_actions = self.lay.A
        self._init_static()
        self._init_state()
        self.encoder = PartyBatchEncoder(self.lay, self.xp, self.num_games, buffers)
        self.obs_spec = self.encoder.spec
        self.obs_dim = self.obs_spec.size

    # ------------------------------------------------------------------ setup
    def _init_static(self) -> None:
        xp, lay = self.xp, self.lay
        i64 = xp.int64
        self.rows_t = self.rows * lay.T
        self.slot_ar = xp.arange(lay.K)
        self.pos_ar = xp.arange(lay.P)
        self.t_ar = xp.arange(lay.T)
        self.dist = xp.asarray(np.minimum(lay.dist, FAR), xp.int16)  # turns from -> to
        self.table_dist = xp.asarray(lay.table_dist, i64)
        self.size_t = xp.asarray(lay.size, i64)
        self.finish_frac = xp.asarray(lay.finish_frac, xp.float32)  # [t * (P+1) + k] = k / size
        self.slot_of = xp.asarray(lay.slot_of, i64)
        self.ladder_perm = xp.asarray(lay.ladder_perm, i64)
        self.hand_points = xp.asarray(lay.hand_points, i64)
        self.real_seat = xp.asarray(lay.seats, xp.bool)  # [T, P]

    def _init_state(self) -> None:
        xp, lay = self.xp, self.lay
        g, t, p, k, n = self.num_games, lay.T, lay.P, lay.K, lay.n
        r = g * t
        i8, i64, f32, new = xp.int8, xp.int64, xp.float32, self.new_arrays
        self.hands, self.given, self.received = new(3, (r, p, k), i8)
        self.ncards = xp.zeros((r, p), xp.int16)
        self.finish = xp.zeros((r, p), i8)
        # finish_rank: what observers see, rank / size
        self.finish_rank, self.seat_score = new(2, (r, p), f32)
        self.passed, self.acted = new(2, (r, p), xp.bool)
        self.members = xp.zeros((r, p), i64)
        self.played = xp.zeros((r, k), i8)
        self.top_count, self.nfin, self.actor = new(3, (r,), i64)
        self.top_slot, self.top_pos = new(2, (r,), i64, -1)
        self.tover = xp.zeros((r,), xp.bool)
        self.current, self.hand, self.deals = new(3, (g,), i64)
        self.over, self.done = new(2, (g,), xp.bool)
        self.scores = xp.zeros((g, n), i64)
        self.ladder = xp.zeros((g, n, 3), f32)
        self.rewards = xp.zeros((g, n), f32)

    # ------------------------------------------------------------------ API
    def reset(
        self,
        seed: int = 0,
        *,
        seating: Any = None,
        hands: Any = None,
        trade: Any = True,
        scores: Any = None,
    ) -> tuple[Array, Array, Array]:
        """Start a new tournament in every slot; return ``(obs, mask, to_act)``.

        Args:
            seed: keys every game's seat draw and deals (0 .. 2**64-1).
            seating: preset seats ``[N, n]``, table by table, top table and
                King first (``scum_party_v0``'s flat ``seating``), not drawn (P3).
            hands: preset first hands, card counts ``[N, n, 14]`` by player id.
            trade: do the first hand's forced trades (P5); a bool or ``[N]`` bools.
            scores: preset tournament totals ``[N, n]`` by player id.
        """
        xp = self.xp
        split_seed(seed)
        self.seed = seed
        every = self.rows
        self.deals[:] = 0
        seats = self.draw_seating(every)
        g, n = self.num_games, self.lay.n
        if seating is not None:
            seats = xp.asarray(preset_seating("seating", seating, g, n), xp.int64)
        sc = None if scores is None else preset_ints("scores", scores, (g, n), "integers")
        flags = trade_flags(trade, g)
        preset = None
        if hands is not None:
            preset = H.check_hands(self, hands)
            H.check_packs(self, preset, xp.to_numpy(seats))
        H.new_tournament(self, every, seats, xp.asarray(flags, xp.bool), preset)
        if sc is not None:
            self.scores[:] = xp.asarray(sc, xp.int64)
            H.update_ladder(self, every)
        self.clear(every, "done", "rewards")
        return self._observe()

    def _running(self) -> Array:
        return ~self.over

    def _apply(self, a: Array, live: Array) -> None:
        self._play_or_pass(live, a)

    def _restart(self, idx: Any) -> None:
        H.restart(self, idx)

    def current_row(self) -> Array:
        """``[N]`` row of each game's table to act."""
        return self.rows_t + self.current

    def to_act(self) -> Array:
        """``[N]`` player id to act in each game."""
        row = self.current_row()
        return self.xp.take_flat(self.members, row * self.lay.P + self.actor[row])

    def _who(self, g: int) -> str:
        table = int(self.xp.to_numpy(self.current[g : g + 1])[0])
        return f"{super()._who(g)} at table {table}"

    # ------------------------------------------------------------------ play
    def _play_or_pass(self, live: Array, a: Array) -> None:
        """Apply every live game's play or pass at its table to act (P1, P6)."""
        xp, lay = self.xp, self.lay
        k, p_max = lay.K, lay.P
        row = self.current_row()
        p = self.actor[row]
        flat = row * p_max + p
        is_play = live & (a > 0)
        is_pass = live & (a == 0)
        c = xp.where(is_play, (a - 1) // k + 1, 0)
        slot = xp.where(is_play, (a - 1) % k, 0)
        c8 = xp.astype(c, xp.int8)
        held = self.hands.reshape(-1)  # one card count per (row, seat, rank): 1-D updates
        held[flat * k + slot] -= c8
        self.played.reshape(-1)[row * k + slot] += c8
        nc = self.ncards.reshape(-1)
        left = nc[flat] - xp.astype(c, xp.int16)
        nc[flat] = left
        self.top_count[row] = xp.where(is_play, c, self.top_count[row])
        self.top_slot[row] = xp.where(is_play, slot, self.top_slot[row])
        self.top_pos[row] = xp.where(is_play, p, self.top_pos[row])
        passed = self.passed.reshape(-1)
        passed[flat] = passed[flat] | is_pass
        acted = self.acted.reshape(-1)
        acted[flat] = acted[flat] | live
        out = is_play & (left == 0)
        table_end = out & False
        has = xp.take_rows(self.ncards, row) > 0
        if xp.any(out):
            nfin = self.nfin[row] + xp.astype(out, xp.int64)
            self.nfin[row] = nfin
            fin = self.finish.reshape(-1)
            fin[flat] = xp.where(out, xp.astype(nfin, xp.int8), fin[flat])
            frac = xp.take_flat(self.finish_frac, self.current * (p_max + 1) + nfin)
            seen = self.finish_rank.reshape(-1)
            seen[flat] = xp.where(out, frac, seen[flat])
            table_end = out & (xp.sum(has, 1) == 1)
        ends = is_play & (slot == lay.joker) & ~table_end  # P1: nothing beats a Joker
        moving = live & ~ends & ~table_end
        eligible = has & ~xp.take_rows(self.acted, row)
        dist = xp.where(eligible, xp.take_rows(self.dist, self.current * p_max + p), FAR)
        nxt = xp.argmin(dist, 1)
        found = xp.amax(eligible, 1)
        self.actor[row] = xp.where(moving & found, nxt, p)
        round_end = ends | (moving & ~found)
        if xp.any(round_end):
            self._end_round(row[xp.nonzero(round_end)])
        if xp.any(table_end):
            self._end_table(row[xp.nonzero(table_end)])
        self._next_table(live)

    def _end_round(self, r: Array) -> None:
        """The highest play wins and leads; if out, the highest seat still in leads (P6)."""
        xp = self.xp
        top = self.top_pos[r]
        has = self.ncards[r] > 0
        winner_has = xp.take_along(has, top[:, None], 1)[:, 0]
        first = xp.argmax(has, 1)
        self.actor[r] = xp.where(winner_has, top, first)
        self.clear_round(r)

    def _end_table(self, r: Array) -> None:
        """One player at table rows ``r`` still holds cards: it is the Scum; the table waits."""
        xp = self.xp
        last = xp.argmax(self.ncards[r] > 0, 1)
        size = self.size_t[r % self.lay.T]
        self.finish[r, last] = xp.astype(size, xp.int8)
        self.finish_rank[r, last] = 1.0  # size / size
        self.tover[r] = True
        self.clear_round(r)

    def clear_round(self, r: Array) -> None:
        """Clear the trick of table rows ``r``."""
        self.clear(r, "top_count", "passed", "acted")
        self.clear(r, "top_slot", "top_pos", value=-1)

    def _next_table(self, live: Array) -> None:
        """Turn to the next table below (wrapping) still playing; end the hand when none is."""
        xp = self.xp
        waiting = self.tover.reshape(self.num_games, self.lay.T)
        dist = xp.where(waiting, 1 << 20, xp.take_rows(self.table_dist, self.current))
        nxt = xp.argmin(dist, 1)
        all_over = ~xp.amax(~waiting, 1)
        self.current[:] = xp.where(live & ~all_over, nxt, self.current)
        hand_end = live & all_over
        if xp.any(hand_end):
            H.end_hand(self, xp.nonzero(hand_end))

    # ------------------------------------------------------------------ views
    def _observe(self) -> tuple[Array, Array, Array]:
        xp = self.xp
        row = self.current_row()
        me = self.actor[row]
        flat = row * self.lay.P + me
        player = xp.take_flat(self.members, flat)
        hand = xp.take_rows(self.hands.reshape(-1, self.lay.K), flat)
        mask = self.encoder.mask(self, row, hand)
        self._mask = mask
        obs = self.encoder.observe(self, row, me, player, hand)
        return obs, self._mask_out(mask), player

    def draw_seating(self, g: Array) -> Array:
        """A seeded seat draw ``[M, n]`` for games ``g`` (P3)."""
        seed = 0 if self.seed is None else self.seed
        return permutations(
            self.xp, seed, TAG_ROLES, g + self.game_offset, self.deals[g], self.lay.n
        )

    def game_view(self, g: int) -> dict[str, Any]:
        """Game ``g`` as numpy (tests, debugging, rendering): per table ``members`` (King
        first), ``dealt`` (before the trades) and ``hands``; ``scores``, ``hand``,
        ``current``, ``to_act``, ``over``."""
        xp, lay = self.xp, self.lay
        members, dealt, hands = [], [], []
        for t, size in enumerate(lay.sizes):
            r = g * lay.T + t
            mem = xp.to_numpy(self.members[r])[:size]
            held = xp.to_numpy(self.hands[r]).astype(np.int16)[:size]
            given = xp.to_numpy(self.given[r]).astype(np.int16)[:size]
            received = xp.to_numpy(self.received[r]).astype(np.int16)[:size]
            members.append([int(p) for p in mem])
            hands.append(held)
            dealt.append(held + given - received)
        return {
            "members": members,
            "dealt": dealt,
            "hands": hands,
            "scores": xp.to_numpy(self.scores[g]).astype(np.int64),
            "hand": int(xp.to_numpy(self.hand[g : g + 1])[0]),
            "current": int(xp.to_numpy(self.current[g : g + 1])[0]),
            "to_act": int(xp.to_numpy(self.to_act()[g : g + 1])[0]),
            "over": bool(xp.to_numpy(self.over[g : g + 1])[0]),
        }

    def _observe_players(self, ids: Array) -> Array:
        xp, lay = self.xp, self.lay
        n_games, tp = self.num_games, lay.T * lay.P
        ids_at = self.members.reshape(n_games, tp)  # pads hold 0: mask them out
        seated = (ids_at == ids[:, None]) & self.real_seat.reshape(1, tp)
        where = xp.argmax(seated, 1)  # [N] flat (table, seat) of the player in each game
        table = where // lay.P
        me = where % lay.P
        row = self.rows_t + table
        hand = xp.take_rows(self.hands.reshape(-1, lay.K), row * lay.P + me)
        d = self.obs_dim
        buffers = (xp.zeros((n_games, d), xp.int8), xp.zeros((n_games, d), xp.float32))
        return self.encoder.observe(self, row, me, ids, hand, table=table, buffers=buffers)


#: 0.2's function of ``scum_env.party.batched.views``, now a method.
observe_players = BatchedParty._observe_players


class PartyVectorEnv(GameVectorEnv):
    """``num_envs`` Scum Party tournaments seen from one learning seat (numpy outputs).

    Arguments as [`GameVectorEnv`][cardsuite.batched.vector_env.GameVectorEnv];
    ``**config`` are [`PartyConfig`][scum_env.party.config.PartyConfig] fields.
    """

    ENGINE = BatchedParty


def play_party_arena(
    policies: Sequence[BatchPolicy], episodes: int, *, batch: int = 1024, **options: Any
) -> ArenaResult:
    """Play ``episodes`` tournaments with ``policies[p]`` as player ``p``; mean returns per seat.

    ``options``: ``seed``, the engine's ``backend`` and ``device``, and
    [`PartyConfig`][scum_env.party.config.PartyConfig] fields.
    """
    return run_arena(BatchedParty, policies, episodes, batch=batch, **options)


class ShardedParty(ShardedGames):
    """``num_games`` numpy tournaments stepped by ``threads`` threads (identical results)."""

    ENGINE = BatchedParty
