"""Observations of a batch of Scandal games, bit-identical to ``scandal_v0``'s.

The layout of `scandal_env.encoding.obs_spec`, observed by each game's player
to act (relative seat ``i`` is player ``(to_act + i) % P``). Fractions use the
per-game encoder's float64 arithmetic, rounded once to float32.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from cardsuite.batched.backend import Array, Backend
from cardsuite.obsspec import ObsSpec
from scandal_env.batched.consts import BUILD, DRAW, MELD
from scandal_env.batched.tables import DeckTables


class ObsState(Protocol):
    """The state arrays of the batched engine that the encoder reads (by player id)."""

    xp: Backend
    t: DeckTables
    P: int
    rows: Array
    cur: Array
    dealer: Array
    phase: Array
    hands: Array
    known: Array
    counts: Array
    placed_by: Array
    meld_owner: Array
    table_pts: Array
    build: Array
    build_scandal: Array
    pile_pos: Array
    pile_len: Array
    stock_len: Array
    stock_public: Array
    scores: Array
    duty: Array
    forbidden: Array
    turn: Array


class BatchObserver:
    """Writes the ``[N, obs_dim]`` observation of every game's player to act."""

    def __init__(
        self, spec: ObsSpec, num_players: int, n: int, target: int, max_turns: int
    ) -> None:
        """Precompute the offsets of ``spec`` and the per-game encoder's scale factors."""
        self.spec = spec
        self.P, self.n = num_players, n
        self.sl = spec.slices
        self.inv_n = 1.0 / n
        self.inv_target = 1.0 / target
        self.inv_turns = 1.0 / max_turns
        self.stage: Array | None = None
        self.phases: Array | None = None

    def write(self, eng: ObsState, obs: Array, hand: Array, seat: Array | None = None) -> None:
        """Fill ``obs`` (float32 ``[N, D]``) for the players to act (or, with ``seat``, for
        those player ids); ``hand`` is the observer's.

        The 0/1 pieces go into an int8 staging array cast to float32 in one
        pass; the fractions are written over it.
        """
        xp, t, sl, p, n = eng.xp, eng.t, self.sl, self.P, self.n
        ns = t.ns
        g = eng.cur.shape[0]
        st = self._stage(xp, g)
        small = xp.small
        f64 = xp.float64
        cur = eng.cur if seat is None else seat
        rel = (cur[:, None] + xp.arange(p)[None, :]) % p  # [N, P] player of relative seat i
        rel8 = xp.astype(rel, xp.int8)
        st[:, sl["hand"]] = small(hand)
        if p > 1:
            flat = (eng.rows[:, None] * p + rel[:, 1:]).reshape(-1)
            known = xp.take_rows(eng.known.reshape(g * p, n), flat)
            st[:, sl["opp_known"]] = small(known.reshape(g, (p - 1) * n))
        laid = sl["laid_by"].start
        melded = sl["melded_by"].start
        for i in range(p):
            who = rel8[:, i : i + 1]
            st[:, laid + i * n : laid + (i + 1) * n] = small(eng.placed_by == who)
            st[:, melded + i * ns : melded + (i + 1) * ns] = small(eng.meld_owner == who)
        st[:, sl["building"]] = small(eng.build)
        st[:, sl["build_scandal"]] = small(t.scandal_ar[None, :] == eng.build_scandal[:, None])
        pos, plen = eng.pile_pos, eng.pile_len
        in_pile = pos >= 0
        top = xp.astype(plen - 1, xp.int8)[:, None]  # -1: no pile (no card is at -1 then)
        st[:, sl["discard_in"]] = small(in_pile)
        st[:, sl["discard_top"]] = small(pos == xp.where(top >= 0, top, -2))
        st[:, sl["stock_public"]] = small(eng.stock_public[:, None])
        seat_ar = xp.arange(p)[None, :]
        if seat is None:
            st[:, sl["to_act"]] = small(seat_ar == 0)
        else:
            st[:, sl["to_act"]] = small(seat_ar == ((eng.cur - cur) % p)[:, None])
        st[:, sl["dealer"]] = small(seat_ar == ((eng.dealer - cur) % p)[:, None])
        st[:, sl["phase"]] = small(self._phase_ar(xp)[None, :] == eng.phase[:, None])
        cards8 = t.depth8[None, :]  # card ids as int8
        st[:, sl["duty"]] = small(cards8 == xp.astype(eng.duty, xp.int8)[:, None])
        st[:, sl["forbidden"]] = small(cards8 == xp.astype(eng.forbidden, xp.int8)[:, None])
        obs[:] = st
        # float32(depth) / float32(n - 1): the per-game table's value, correctly rounded
        depth = (top - pos) * in_pile  # 0 off the pile (a product: much cheaper than where)
        scale = float(max(1, n - 1))
        if xp.name == "numpy":  # one pass, straight into the strided output
            np.divide(depth, np.float32(scale), out=obs[:, sl["discard_depth"]], dtype=np.float32)
        else:
            obs[:, sl["discard_depth"]] = xp.astype(depth, xp.float32) / scale
        counts = xp.astype(xp.take_along(eng.counts, rel, 1), f64)
        obs[:, sl["hand_sizes"]] = counts * self.inv_n
        obs[:, sl["stock_size"]] = (xp.astype(eng.stock_len, f64) * self.inv_n)[:, None]
        score = xp.astype(xp.take_along(eng.scores, rel, 1), f64)
        obs[:, sl["scores"]] = score * self.inv_target
        pts = xp.astype(xp.take_along(eng.table_pts, rel, 1), f64)
        obs[:, sl["hand_points"]] = pts / 100.0
        obs[:, sl["turn"]] = (xp.astype(eng.turn, f64) * self.inv_turns)[:, None]

    def _stage(self, xp: Backend, g: int) -> Array:
        """The int8 staging array ``[N, D]`` (allocated once; fractions stay 0)."""
        if self.stage is None or self.stage.shape[0] != g:
            self.stage = xp.zeros((g, self.spec.size), xp.int8)
        return self.stage

    def _phase_ar(self, xp: Backend) -> Array:
        if self.phases is None:
            self.phases = xp.asarray([DRAW, MELD, BUILD], xp.int64)
        return self.phases


def observe_seats(eng: ObsState, observer: BatchObserver, seat: Array, obs_dim: int) -> Array:
    """A new float32 ``[N, obs_dim]``: every game as player ``seat[g]`` sees it (the
    engine's buffers untouched; the staging array is rewritten in full)."""
    xp, n = eng.xp, eng.t.n
    g = seat.shape[0]
    hand = xp.take_rows(eng.hands.reshape(-1, n), eng.rows * eng.P + seat)
    out = xp.zeros((g, obs_dim), xp.float32)
    observer.write(eng, out, hand, seat)
    return out
