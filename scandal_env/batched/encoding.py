"""Observations of a batch of Scandal games, bit-identical to ``scandal_v0``'s.

The layout is :func:`scandal_env.encoding.obs_spec` of the game's rules. Each
game is observed by its player to act; per-player pieces are in relative turn
order starting with that player (relative seat ``i`` is player
``(to_act + i) % P``). Fractions use the per-game encoder's float64
arithmetic, rounded once to float32 (hand points are the exact integer sum
divided by 100), so both encoders give the same bits on numpy and torch.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from cardsuite.batched.backend import Array, Backend
from cardsuite.obsspec import ObsSpec
from scandal_env.batched.consts import BUILD, DRAW, MELD
from scandal_env.batched.tables import DeckTables


def float64(xp: Backend) -> Any:
    """The float64 dtype of ``xp`` (the per-game encoder's arithmetic)."""
    return np.float64 if xp.name == "numpy" else xp.torch.float64  # type: ignore[attr-defined]


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

    def write(self, eng: ObsState, obs: Array, hand: Array) -> None:
        """Fill ``obs`` (float32 ``[N, D]``) for the players to act; ``hand`` is theirs."""
        xp, t, sl, p, n = eng.xp, eng.t, self.sl, self.P, self.n
        ns = t.ns
        g = eng.cur.shape[0]
        f64 = float64(xp)
        cur = eng.cur
        rel = (cur[:, None] + xp.arange(p)[None, :]) % p  # [N, P] player of relative seat i
        flat = (eng.rows[:, None] * p + rel).reshape(-1)
        obs[:, sl["hand"]] = hand
        if p > 1:
            known = xp.take_rows(eng.known.reshape(g * p, n), flat).reshape(g, p, n)
            obs[:, sl["opp_known"]] = known[:, 1:, :].reshape(g, (p - 1) * n)
        laid = sl["laid_by"].start
        melded = sl["melded_by"].start
        for i in range(p):
            who = rel[:, i : i + 1]
            obs[:, laid + i * n : laid + (i + 1) * n] = eng.placed_by == who
            obs[:, melded + i * ns : melded + (i + 1) * ns] = eng.meld_owner == who
        bs = eng.build_scandal
        obs[:, sl["building"]] = eng.build
        obs[:, sl["build_scandal"]] = t.scandal_ar[None, :] == bs[:, None]
        pos, plen = eng.pile_pos, eng.pile_len
        in_pile = pos >= 0
        obs[:, sl["discard_in"]] = in_pile
        obs[:, sl["discard_top"]] = in_pile & (pos == (plen - 1)[:, None])
        depth = xp.where(in_pile, plen[:, None] - 1 - pos, 0)
        obs[:, sl["discard_depth"]] = t.depth[depth]
        obs[:, sl["hand_sizes"]] = xp.astype(xp.take_along(eng.counts, rel, 1), f64) * self.inv_n
        obs[:, sl["stock_size"]] = (xp.astype(eng.stock_len, f64) * self.inv_n)[:, None]
        obs[:, sl["stock_public"]] = eng.stock_public[:, None]
        score = xp.astype(xp.take_along(eng.scores, rel, 1), f64)
        obs[:, sl["scores"]] = score * self.inv_target
        pts = xp.astype(xp.take_along(eng.table_pts, rel, 1), f64)
        obs[:, sl["hand_points"]] = pts / 100.0
        seat_ar = xp.arange(p)[None, :]
        obs[:, sl["to_act"]] = seat_ar == 0
        obs[:, sl["dealer"]] = seat_ar == ((eng.dealer - cur) % p)[:, None]
        ph = eng.phase
        o = sl["phase"].start
        obs[:, o] = ph == DRAW
        obs[:, o + 1] = ph == MELD
        obs[:, o + 2] = ph == BUILD
        obs[:, sl["duty"]] = t.card_ar[None, :] == eng.duty[:, None]
        obs[:, sl["forbidden"]] = t.card_ar[None, :] == eng.forbidden[:, None]
        obs[:, sl["turn"]] = (xp.astype(eng.turn, f64) * self.inv_turns)[:, None]
