"""`ScandalPolicy.choose` over arrays (`ScandalArrays`): the batched Scandal heuristic's
draws and discards, every row as the per-game methods decide it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cardsuite.agents.baselines.scandal_rule import ScandalPolicy
from cardsuite.errors import ConfigError, UsageError
from scandal_env.state import Phase


class ScandalArrays:
    """``ScandalPolicy``'s analysis (`playable`, `usefulness`) over ``[K, n]`` rows; ConfigError:
    a card of several scandals that is a title or blue/green (S1)."""

    def __init__(self, policy: ScandalPolicy) -> None:
        """Precompute the deck's lookup arrays."""
        d = policy.deck
        n, ns = policy.n, policy.ns
        self.n, self.ns = n, ns
        self.policy, self.lay = policy, policy.lay
        # the discard ranking (usefulness, -value, card) as one integer per card
        value = np.asarray(d.value, dtype=np.int64)
        self._rank_scale = (int(value.max() - value.min()) + 1) * n
        self._rank_tail = (value.max() - value) * n + np.arange(n)
        member = np.asarray(d.member, dtype=bool)
        self.member_f = member.astype(np.float32)
        self.value = np.asarray(d.value, dtype=np.float64)
        self.title_of = np.asarray(d.title_of, dtype=np.int64)
        is_title = np.asarray(d.is_title, dtype=bool)
        is_bg = np.asarray(d.is_bg, dtype=bool)
        shared = member.sum(axis=1) > 1
        if (shared & (is_title | is_bg)).any():
            raise ConfigError("deck: a card of several scandals must be gold (S1)")
        # playable: single-scandal non-title and blue/green counts per scandal
        single = ~shared
        self.nt_single_f = (member & (single & ~is_title)[:, None]).astype(np.float32)
        self.bg_f = (member & is_bg[:, None]).astype(np.float32)
        self.single_cards = np.flatnonzero(single)
        self.single_scandal = member[self.single_cards].argmax(axis=1)
        self.single_nt = ~is_title[self.single_cards]
        self.shared_cards = np.flatnonzero(shared)
        # the greedy pass over the shared cards: their (card, scandal) memberships,
        # grouped by card, scandals ascending
        g_of, s_of = np.nonzero(member[self.shared_cards])
        self.g_pair = g_of
        self.g_pair_scandal = s_of
        self.g_pair_f = np.zeros((g_of.size, ns), dtype=np.float32)
        self.g_pair_f[np.arange(g_of.size), s_of] = 1.0
        starts = np.searchsorted(g_of, np.arange(self.shared_cards.size))
        self.g_group_start = starts[g_of]
        self.g_first = starts
        self.g_end = np.append(starts[1:], g_of.size)
        # usefulness: (card, scandal) pairs; the first scandal of every card, then layers
        scandals = [np.flatnonzero(member[c]) for c in range(n)]
        pc, ps = [np.arange(n)], [member.argmax(axis=1)]
        self.layers: list[tuple[np.ndarray, slice]] = []
        for k in range(1, max(map(len, scandals))):
            cards = np.array([c for c in range(n) if len(scandals[c]) > k], dtype=np.int64)
            start = sum(map(len, pc))
            self.layers.append((cards, slice(start, start + cards.size)))
            pc.append(cards)
            ps.append(np.array([scandals[c][k] for c in cards.tolist()], dtype=np.int64))
        self.pair_card = np.concatenate(pc)
        self.pair_scandal = np.concatenate(ps)
        self.pair_title = self.title_of[self.pair_scandal]
        self.pair_is_title = self.pair_card == self.pair_title

    def playable(self, hand: np.ndarray, melded: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Points ``[K]`` (float) and cards ``[K, n]`` that could be laid down now, per row."""
        k = hand.shape[0]
        hf = hand.astype(np.float32)
        nt = hf @ self.nt_single_f
        has_bg = (hf @ self.bg_f) > 0
        open_ = ~melded & hand[:, self.title_of] & has_bg
        # The per-game pass goes through the scandals in order, and a shared (gold)
        # card goes to the first of its scandals that is melded or can be melded
        # with the cards still free. Scandal s depends only on scandals before it,
        # so iterating "every scandal at once, from the last round's claims" reaches
        # the pass's result and stays there: its one fixed point (at most ns rounds).
        hg = hand[:, self.shared_cards]
        hgp = hg[:, self.g_pair]
        qual = open_ & (nt + hgp.astype(np.float32) @ self.g_pair_f >= 2)
        cs = np.zeros((k, self.g_pair.size + 1), dtype=np.int64)
        for _ in range(self.ns + 1):
            np.cumsum((melded | qual)[:, self.g_pair_scandal], axis=1, out=cs[:, 1:])
            free = hgp & (cs[:, :-1] == cs[:, self.g_group_start])
            new = open_ & (nt + free.astype(np.float32) @ self.g_pair_f >= 2)
            if np.array_equal(new, qual):
                break
            qual = new
        used = np.zeros((k, self.n), dtype=bool)
        sc = self.single_scandal
        used[:, self.single_cards] = hand[:, self.single_cards] & (
            qual[:, sc] | (melded[:, sc] & self.single_nt)
        )
        used[:, self.shared_cards] = hg & (cs[:, self.g_end] > cs[:, self.g_first])
        return used.astype(np.float64) @ self.value, used

    def usefulness(
        self, hand: np.ndarray, melded: np.ndarray, opp: np.ndarray, in_pile: np.ndarray
    ) -> np.ndarray:
        """``[K, n]``: ``ScandalPolicy.usefulness`` of every card (``in_pile``: the pile's cards)."""
        cnt = hand.astype(np.float32) @ self.member_f
        pc, ps, pt = self.pair_card, self.pair_scandal, self.pair_title
        others = cnt[:, ps].astype(np.float64) - hand[:, pc]
        opp_t = opp[:, pt]
        extra = np.where(
            self.pair_is_title,
            1.0 + others,
            np.where(hand[:, pt], 2.0, np.where(opp_t | in_pile[:, pt], -0.5, 0.0)),
        )
        u = (others + extra) + np.where(opp_t, 1.0, 0.0)
        u[melded[:, ps]] = 0.0
        best = np.maximum(u[:, : self.n], 0.0)
        for cards, cols in self.layers:
            best[:, cards] = np.maximum(best[:, cards], u[:, cols])
        return best

    def choose(
        self,
        mask: np.ndarray,
        phase: np.ndarray,
        repeat: np.ndarray,
        views: Callable[[np.ndarray], dict[str, np.ndarray]],
        fallback: Callable[[np.ndarray, np.ndarray], Any],
    ) -> tuple[np.ndarray, int]:
        """``ScandalPolicy.choose(view_i, repeat[i])`` of every row, and how many rows went to
        ``fallback(rows, legal)`` (a deep draw deeper than the pile); ``views(rows)``: the
        draw and discard rows' view pieces."""
        lay = self.lay
        m = mask.shape[0]
        actions = np.zeros(m, dtype=np.int64)
        # BUILD: the first card to add, else finish
        build = phase == Phase.BUILD
        adds = mask[:, lay.MELD_ADD : lay.MELD_FINISH]
        actions[build] = np.where(
            adds[build].any(axis=1), lay.MELD_ADD + adds[build].argmax(axis=1), lay.MELD_FINISH
        )
        # MELD (and any other phase): the first lay-off, else the first start, else discard
        offs = mask[:, lay.LAYOFF : lay.DISCARD]
        starts = mask[:, lay.MELD_START : lay.MELD_ADD]
        has_off, has_start = offs.any(axis=1), starts.any(axis=1)
        draw = phase == Phase.DRAW
        plays = ~build & ~draw & (has_off | has_start)
        first = np.where(
            has_off, lay.LAYOFF + offs.argmax(axis=1), lay.MELD_START + starts.argmax(axis=1)
        )
        actions[plays] = first[plays]
        rows = np.flatnonzero(~build & ~plays)
        if not rows.size:
            return actions, 0
        legal = mask[rows]
        empty = ~legal.any(axis=1)
        if empty.any():
            raise UsageError(f"heuristic: row {int(rows[empty][0])} has no legal action")
        v = views(rows)
        v["mask"], v["repeat"], v["first"] = legal, repeat[rows], legal.argmax(axis=1)
        is_draw = draw[rows]
        out = np.empty(rows.size, dtype=np.int64)
        fall = np.zeros(rows.size, dtype=bool)
        self._decide(v, is_draw, out, fall)
        if fall.any():
            falls = np.flatnonzero(fall)
            out[falls] = fallback(rows[falls], legal[falls])
        actions[rows] = out
        return actions, int(fall.sum())

    def _decide(
        self, v: dict[str, np.ndarray], is_draw: np.ndarray, out: np.ndarray, fall: np.ndarray
    ) -> None:
        """Fill ``out`` with the draw or discard of every row; mark ``fall`` for the fallback."""
        arr, lay, pol = self, self.lay, self.policy
        hand, melded, opp, in_pile = v["hand"], v["melded"], v["opp"], v["in_pile"]
        legal, repeat, size = v["mask"], v["repeat"], v["size"]
        n = self.n
        d_rows = np.flatnonzero(is_draw)
        x_rows = np.flatnonzero(~is_draw)
        # ---- draws: playable of hand, hand + top discard, hand + every legal deep draw
        rd = d_rows.size
        ri, depth = np.nonzero(legal[d_rows, lay.DRAW_DISCARD + 1 : lay.MELD_START])
        depth = depth + 1
        r = d_rows[ri]
        cut = size[r] - 1 - depth  # pile[cut:] is taken (Python slicing wraps below 0)
        bad = cut < 0
        if bad.any():
            fall[np.unique(r[bad])] = True
        order, rank = self.pile_order(in_pile[d_rows], v["depth"][d_rows])
        taken = in_pile[r] & (rank[ri] >= cut[:, None])
        top = order[np.arange(rd), np.maximum(size[d_rows] - 1, 0)]
        with_top = hand[d_rows].copy()
        has_pile = size[d_rows] > 0
        with_top[np.flatnonzero(has_pile), top[has_pile]] = True
        hands = np.concatenate([hand[d_rows], with_top, hand[r] | taken])
        pts, used = arr.playable(hands, np.concatenate([melded[d_rows], melded[d_rows], melded[r]]))
        base, pts_top = pts[:rd], pts[rd : 2 * rd]
        pts_deep, used_deep = pts[2 * rd :], used[2 * rd :]
        # the deep draws (best_deep_draw): gain, the last-cards rule (goes_out)
        if r.size:
            n_used = used_deep.sum(axis=1)
            left = (hands[2 * rd :].sum(axis=1)) - n_used
            common = (used_deep.astype(np.float32) @ arr.member_f == n_used[:, None]).any(axis=1)
            goes_out = (left == 1) | ((left == 0) & (n_used >= 4) & common)
            last = np.maximum(v["stock"][r], 0) + size[r] - (depth + 1) + 1 <= 1
            waste = (taken & ~used_deep).astype(np.float64) @ arr.value
            gain = pts_deep - base[ri] - pol.take_cost * waste
            margin = np.where(repeat[r] == 0, pol.deep_margin, -np.inf)
            ok = (~last | goes_out) & (gain > margin) & ~bad
            best = np.full((rd, lay.MELD_START - lay.DRAW_DISCARD - 1), -np.inf)
            best[ri[ok], depth[ok] - 1] = gain[ok]
            deep = np.zeros(rd, dtype=bool)
            deep[ri[ok]] = True
            deep_action = lay.DRAW_DISCARD + 1 + best.argmax(axis=1)
        else:
            deep = np.zeros(rd, dtype=bool)
            deep_action = np.zeros(rd, dtype=np.int64)
        # the top discard: laid down at once, or (first visit) builds a meld in hand
        can_top = legal[d_rows, lay.DRAW_DISCARD] & has_pile & ~deep
        take_top = can_top & (pts_top > base)
        ask = np.flatnonzero(can_top & ~take_top & (repeat[d_rows] == 0))
        # ---- usefulness: the discard rows, and the asked draw rows after taking the top
        ai = d_rows[ask]
        pile_after = in_pile[ai].copy()
        pile_after[np.arange(ask.size), top[ask]] = False
        useful = arr.usefulness(
            np.concatenate([hand[x_rows], with_top[ask]]),
            np.concatenate([melded[x_rows], melded[ai]]),
            np.concatenate([opp[x_rows], opp[ai]]),
            np.concatenate([in_pile[x_rows], pile_after]),
        )
        if ask.size:  # builds(view, top)
            u = useful[x_rows.size :]
            gain_top = u[np.arange(ask.size), top[ask]]
            worst = np.where(hand[ai], u, np.inf).min(axis=1)
            builds = (gain_top >= 2.0) & (~hand[ai].any(axis=1) | (gain_top > worst))
            take_top[ask[builds]] = True
        stock = legal[d_rows, lay.DRAW_STOCK]
        out[d_rows] = np.where(
            deep,
            deep_action,
            np.where(
                take_top, lay.DRAW_DISCARD, np.where(stock, lay.DRAW_STOCK, v["first"][d_rows])
            ),
        )
        # ---- discards: the least useful card, the most valuable among equals; k-th at a repeat
        if x_rows.size:
            cards = legal[x_rows, lay.DISCARD : lay.DISCARD + n]
            count = cards.sum(axis=1)
            u = useful[: x_rows.size]
            key = (2.0 * u).astype(np.int64) * self._rank_scale + self._rank_tail
            key = np.where(cards, key, np.iinfo(np.int64).max)
            rep = repeat[x_rows]
            if (rep > 0).any():
                ranked = np.argsort(key, axis=1)
                pick = ranked[np.arange(x_rows.size), rep % np.maximum(count, 1)]
            else:
                pick = key.argmin(axis=1)
            out[x_rows] = np.where(count > 0, lay.DISCARD + pick, v["first"][x_rows])

    def pile_order(self, in_pile: np.ndarray, depth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each row's cards in pile order (deepest first, ties by id; ``depth``: 0 the top) and
        each card's place in it."""
        n = self.n
        order = np.argsort(np.where(in_pile, -depth, n), axis=1, kind="stable")
        rank = np.empty_like(order)
        rank[np.arange(order.shape[0])[:, None], order] = np.arange(n)
        return order, rank
