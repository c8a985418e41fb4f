"""Heuristic rollouts of a numpy `BatchedScandal`, compiled row by row with numba.

A search's Scandal rollouts (``cardsuite.agents.search.batched``) step the
batched engine and the batched heuristic in lockstep: every rollout step is a
few hundred small array operations over the wave's rows, and at 50 rows
their fixed cost, not their width, is what a step costs (docs/search.md,
"Speed"). The rows do not interact, so `play_out` plays each row to its end
(or its ``cutoff``-th step) on its own, in compiled scalar code: the legal
mask of ``scandal_env.masks.legal_mask`` (look-ahead included), the choice
of ``ScandalPolicy.choose`` with no repeat memory (``repeat=0``: the
heuristic of the rollouts) and the move as ``BatchedScandal.step`` applies
it, ending the hand as ``end_hand`` does with ``episode="hand"``.

The rows end in the state the lockstep loop leaves them in (hands, table,
pile, stock, turn, phase, scores, hand ends), which
``tests/scandal/test_rollout_kernel.py`` checks row for row against
``BatchedScandal.step`` with ``BatchedScandalHeuristic.choose_engine`` on
positions of real play, and ``tests/agents/test_rollout_engine_path.py``
checks in the search's rollout values. The engine's per-step outputs
(``rewards``, ``done``, ``truncated``, the ``obs`` and ``mask`` buffers) are
not written.

numba is optional (the ``fast`` extra): without it `available` is False and
the search plays its rollouts on the arrays as before, with the same results.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from scandal_env.batched.consts import BUILD, DRAW, END_BLOCKED, END_MAX_TURNS, END_OUT, MELD, OVER

numba: Any
try:  # optional: the "fast" extra
    import numba
except ImportError:  # pragma: no cover - exercised where numba is not installed
    numba = None


def available() -> bool:
    """Whether numba is installed, so that `play_out` runs compiled."""
    return numba is not None


def _jit(f: Callable[..., Any], **options: Any) -> Callable[..., Any]:
    """Compiled by numba at its first call, cached on disk (numba's ``__pycache__`` files)."""
    if numba is None:  # pragma: no cover
        return f
    try:
        return numba.njit(cache=True, nogil=True, **options)(f)  # type: ignore[no-any-return]
    except RuntimeError:  # pragma: no cover - no writable cache place: compile per process
        return numba.njit(nogil=True, **options)(f)  # type: ignore[no-any-return]


def _inline(f: Callable[..., Any]) -> Callable[..., Any]:
    """Compiled into its caller (no call with dozens of array arguments per move)."""
    return _jit(f, inline="always")


# ---------------------------------------------------------------- the legal mask
@_jit
def _hand_counts(hand, scandals_of, nscandals_of, is_bg, is_title, bg, nt, ti):  # type: ignore[no-untyped-def]
    """Per scandal: the hand's blue/green, non-title and title cards (the mask's table)."""
    bg[:] = 0
    nt[:] = 0
    ti[:] = 0
    for c in range(hand.shape[0]):
        if hand[c]:
            for j in range(nscandals_of[c]):
                s = scandals_of[c, j]
                if is_bg[c]:
                    bg[s] += 1
                if is_title[c]:
                    ti[s] += 1
                else:
                    nt[s] += 1


@_inline
def _mask_row(  # type: ignore[no-untyped-def]
    g, mask, lay, tabs, hands, counts, meld_owner, build, build_scandal, pile_arr, pile_len,
    stock_len, cur, phase, duty, forbidden, bg, nt, ti,
):  # fmt: skip
    """Write row ``g``'s legal mask into ``mask`` (``scandal_env.masks.legal_mask``)."""
    member = tabs[0]
    is_title = tabs[1]
    is_bg = tabs[2]
    title_of = tabs[3]
    pair_card = tabs[4]
    pair_scandal = tabs[5]
    pair_of = tabs[6]
    cards_of = tabs[7]
    ncards_of = tabs[8]
    scandals_of = tabs[9]
    nscandals_of = tabs[10]
    ds, dd, ms, ma, mf, lo, di = lay[0], lay[1], lay[2], lay[3], lay[4], lay[5], lay[6]
    mask[:] = False
    ph = phase[g]
    if ph == OVER:
        return
    me = cur[g]
    hand = hands[g, me]
    size = counts[g, me]
    n = hand.shape[0]
    ns = title_of.shape[0]
    if ph == DRAW:
        plen = pile_len[g]
        if stock_len[g] + plen > 0:
            mask[ds] = True
        if plen > 0:
            mask[dd] = True
        if plen >= 2:
            _hand_counts(hand, scandals_of, nscandals_of, is_bg, is_title, bg, nt, ti)
            sz = size
            for i in range(plen):  # the pile from the top (S3)
                c = pile_arr[g, plen - 1 - i]
                sz += 1
                if is_title[c]:
                    ti[scandals_of[c, 0]] = 1
                else:
                    for j in range(nscandals_of[c]):
                        s = scandals_of[c, j]
                        nt[s] += 1
                        bg[s] += 1 if is_bg[c] else 0
                if i == 0:
                    continue
                ok = False
                for j in range(nscandals_of[c]):
                    s = scandals_of[c, j]
                    if meld_owner[g, s] >= 0 or (
                        ti[s] > 0 and bg[s] >= 1 and nt[s] >= 2 and sz >= 4
                    ):
                        ok = True
                        break
                mask[dd + i] = ok
        return
    if ph == MELD:
        d = duty[g]
        if d >= 0:  # S3: honour the duty first
            _hand_counts(hand, scandals_of, nscandals_of, is_bg, is_title, bg, nt, ti)
            for j in range(nscandals_of[d]):
                s = scandals_of[d, j]
                if meld_owner[g, s] >= 0:
                    if pair_of[d, s] >= 0:
                        mask[lo + pair_of[d, s]] = True
                elif bg[s] >= 1 and nt[s] >= 2 and ti[s] >= 1 and size >= 4:
                    mask[ms + s] = True
            return
        f = forbidden[g]
        if f >= 0 and not hand[f]:
            f = -1
        nonf = size - (1 if f >= 0 else 0)
        for c in range(n):  # S7
            mask[di + c] = hand[c]
        if f >= 0:
            mask[di + f] = False
        any_melded = False
        for s in range(ns):
            if meld_owner[g, s] >= 0:
                any_melded = True
                break
        if any_melded:  # S6; S8: keep a card that may be discarded
            if nonf >= 2:
                for k in range(pair_card.shape[0]):
                    mask[lo + k] = hand[pair_card[k]] and meld_owner[g, pair_scandal[k]] >= 0
            elif f >= 0:
                for j in range(nscandals_of[f]):
                    s = scandals_of[f, j]
                    if meld_owner[g, s] >= 0 and pair_of[f, s] >= 0:
                        mask[lo + pair_of[f, s]] = True
        if nonf >= 4 or (nonf == 3 and f >= 0):  # S5
            _hand_counts(hand, scandals_of, nscandals_of, is_bg, is_title, bg, nt, ti)
            for s in range(ns):
                ok = bg[s] >= 1 and nt[s] >= 2 and ti[s] >= 1 and meld_owner[g, s] < 0
                if nonf == 3:
                    ok = ok and member[f, s]
                mask[ms + s] = ok
        return
    # BUILD: the cards that keep the meld completable (S5, S7, S8), and finishing it
    s = build_scandal[g]
    bld = build[g]
    dty = duty[g]
    if dty >= 0 and bld[dty]:
        dty = -1
    f = forbidden[g]
    if f >= 0 and not hand[f]:
        f = -1
    k_size = 0
    k_bg = False
    avail_bg = 0
    ncand = 0
    for j in range(ncards_of[s]):
        c = cards_of[s, j]
        if bld[c]:
            k_size += 1
            k_bg = k_bg or is_bg[c]
        elif hand[c]:
            ncand += 1
            avail_bg += 1 if is_bg[c] else 0
    nonf = size - (1 if f >= 0 else 0)
    for j in range(ncards_of[s]):
        x = cards_of[s, j]
        if bld[x] or not hand[x]:
            continue
        ks, kb, ab, an, nf = k_size, k_bg, avail_bg, ncand, nonf
        two = not (dty < 0 or x == dty)
        ybg = 1 if is_bg[x] else 0
        ks, kb, ab, an = ks + 1, kb or ybg == 1, ab - ybg, an - 1
        nf -= 1 if x != f else 0
        if two:
            ybg = 1 if is_bg[dty] else 0
            ks, kb, ab, an = ks + 1, kb or ybg == 1, ab - ybg, an - 1
            nf -= 1 if dty != f else 0
        f_kind = 0
        if f >= 0 and f != x and not (two and f == dty) and member[f, s]:
            f_kind = 1 if is_bg[f] else 2
        need_bg = not kb
        need_n = max(3 - ks, 1 if need_bg else 0)
        if (need_bg and ab == 0) or an < need_n:
            continue
        f_used = need_n >= 1 and (f_kind == 1 or (f_kind == 2 and (not need_bg or need_n >= 2)))
        if nf - (need_n - (1 if f_used else 0)) >= 1:
            mask[ma + x] = True
    if k_size >= 3 and k_bg and dty < 0 and nonf >= 1:
        mask[mf] = True


# ---------------------------------------------------------------- the heuristic
@_jit
def _playable(hand, melded, used, tabs):  # type: ignore[no-untyped-def]
    """``ScandalPolicy.playable``: points of the cards that could be laid down now; ``used``."""
    is_title = tabs[1]
    is_bg = tabs[2]
    title_of = tabs[3]
    cards_of = tabs[7]
    ncards_of = tabs[8]
    value = tabs[11]
    used[:] = False
    pts = 0.0
    for s in range(title_of.shape[0]):
        k = ncards_of[s]
        some = False
        rest = 0
        rest_bg = False
        for j in range(k):
            c = cards_of[s, j]
            if hand[c] and not used[c]:
                some = True
                if not is_title[c]:
                    rest += 1
                    rest_bg = rest_bg or is_bg[c]
        if not some:
            continue
        if melded[s]:
            for j in range(k):
                c = cards_of[s, j]
                if hand[c] and not used[c] and not is_title[c]:
                    used[c] = True
                    pts += value[c]
        elif hand[title_of[s]] and rest >= 2 and rest_bg:
            for j in range(k):
                c = cards_of[s, j]
                if hand[c] and not used[c]:
                    used[c] = True
                    pts += value[c]
    return pts  # a sum of integer card values: exact in any order


@_jit
def _goes_out(hand, used, tabs):  # type: ignore[no-untyped-def]
    """``ScandalPolicy.goes_out``."""
    member = tabs[0]
    held = 0
    nused = 0
    for c in range(hand.shape[0]):
        if hand[c]:
            held += 1
        if used[c]:
            nused += 1
    left = held - nused
    if left == 1:
        return True
    if left != 0 or nused < 4:
        return False
    for s in range(member.shape[1]):
        common = True
        for c in range(hand.shape[0]):
            if used[c] and not member[c, s]:
                common = False
                break
        if common:
            return True
    return False


@_jit
def _members(hand, scandals_of, nscandals_of, cnt):  # type: ignore[no-untyped-def]
    """``cnt[s]``: the cards of scandal ``s`` in ``hand``."""
    cnt[:] = 0
    for c in range(hand.shape[0]):
        if hand[c]:
            for j in range(nscandals_of[c]):
                cnt[scandals_of[c, j]] += 1


@_jit
def _seen(g, me, known, pile_pos, opp, in_pile):  # type: ignore[no-untyped-def]
    """The view's cards known in an opponent's hand (``opp``) and in the pile (``in_pile``)."""
    p = known.shape[1]
    for c in range(known.shape[2]):
        o = False
        for q in range(p):
            if q != me and known[g, q, c]:
                o = True
        opp[c] = o
        in_pile[c] = pile_pos[g, c] >= 0


@_jit
def _usefulness(card, hand, cnt, melded, opp, in_pile, tabs):  # type: ignore[no-untyped-def]
    """``ScandalPolicy.usefulness`` (``cnt``: `_members` of ``hand``; ``in_pile``: the
    view's pile as flags)."""
    title_of = tabs[3]
    scandals_of = tabs[9]
    nscandals_of = tabs[10]
    mine = 1 if hand[card] else 0
    best = 0.0
    for i in range(nscandals_of[card]):
        s = scandals_of[card, i]
        if melded[s]:
            continue
        title = title_of[s]
        others = cnt[s] - mine  # the other cards of s in hand
        u = float(others)
        if card == title:
            u += 1.0 + others
        elif hand[title]:
            u += 2.0
        elif opp[title] or in_pile[title]:
            u -= 0.5
        if opp[title]:
            u += 1.0
        if u > best:
            best = u
    return best


@_jit
def _first(mask):  # type: ignore[no-untyped-def]
    """The lowest legal action (-1: none)."""
    for a in range(mask.shape[0]):
        if mask[a]:
            return a
    return -1


@_inline
def _choose_row(  # type: ignore[no-untyped-def]
    g, mask, lay, tabs, take_cost, deep_margin, hands, known, meld_owner, pile_arr, pile_len,
    pile_pos, stock_len, cur, phase, melded, opp, in_pile, hand2, used, cnt,
):  # fmt: skip
    """``ScandalPolicy.choose(view, 0)`` of row ``g`` whose legal mask is ``mask``."""
    value = tabs[11]
    scandals_of = tabs[9]
    nscandals_of = tabs[10]
    ds, dd, ms, ma, mf, lo, di = lay[0], lay[1], lay[2], lay[3], lay[4], lay[5], lay[6]
    n = hands.shape[2]
    ph = phase[g]
    if ph == BUILD:
        for c in range(n):
            if mask[ma + c]:
                return ma + c
        return mf
    if ph != DRAW:
        for a in range(lo, di):
            if mask[a]:
                return a
        for a in range(ms, ma):
            if mask[a]:
                return a
    me = cur[g]
    hand = hands[g, me]
    for s in range(melded.shape[0]):
        melded[s] = meld_owner[g, s] >= 0
    if ph != DRAW:  # the discard: least useful, most valuable among equals, lowest id
        _seen(g, me, known, pile_pos, opp, in_pile)
        _members(hand, scandals_of, nscandals_of, cnt)
        best = -1
        bu = 0.0
        for c in range(n):
            if not mask[di + c]:
                continue
            u = _usefulness(c, hand, cnt, melded, opp, in_pile, tabs)
            if best < 0 or u < bu or (u == bu and value[c] > value[best]):
                best, bu = c, u
        return _first(mask) if best < 0 else di + best
    # the draw: a deep draw when it pays (S3), the top discard when it helps, else the stock
    plen = pile_len[g]
    base = _playable(hand, melded, used, tabs)
    best_gain = deep_margin
    best_a = -1
    stock = max(stock_len[g], 0)
    for d in range(1, plen):
        if not mask[dd + d]:
            continue
        cut = plen - 1 - d
        hand2[:] = hand
        for i in range(cut, plen):
            hand2[pile_arr[g, i]] = True
        pts = _playable(hand2, melded, used, tabs)
        last = stock + plen - (d + 1) + 1 <= 1
        if last and not _goes_out(hand2, used, tabs):
            continue
        waste = 0.0
        for i in range(cut, plen):
            c = pile_arr[g, i]
            if not used[c]:
                waste += value[c]
        gain = pts - base - take_cost * waste
        if gain > best_gain:
            best_gain, best_a = gain, dd + d
    if best_a >= 0:
        return best_a
    if mask[dd] and plen > 0:
        top = pile_arr[g, plen - 1]
        hand2[:] = hand
        hand2[top] = True
        if _playable(hand2, melded, used, tabs) > base:
            return dd
        # builds(view, top): after taking it, the pile without it
        _seen(g, me, known, pile_pos, opp, in_pile)
        in_pile[top] = False
        _members(hand2, scandals_of, nscandals_of, cnt)
        gain = _usefulness(top, hand2, cnt, melded, opp, in_pile, tabs)
        take = False
        if gain >= 2.0:  # and more useful than the least useful card then held
            take = True
            for c in range(n):
                if hand[c]:
                    take = False
                    break
            if not take:
                for c in range(n):
                    if hand[c] and gain > _usefulness(c, hand2, cnt, melded, opp, in_pile, tabs):
                        take = True
                        break
        if take:
            return dd
    if mask[ds]:
        return ds
    return _first(mask)


# ---------------------------------------------------------------- the move
@_jit
def _end_hand(  # type: ignore[no-untyped-def]
    g, why, value, hands, table_pts, scores, hand_end, game_over, phase, target,
):  # fmt: skip
    """``BatchedScandal.end_hand`` of row ``g`` with ``episode="hand"`` (S9)."""
    p, n = hands.shape[1], hands.shape[2]
    top = scores[g, 0]
    for q in range(p):
        left = 0
        for c in range(n):
            if hands[g, q, c]:
                left += value[c]
        scores[g, q] += table_pts[g, q] - left
        if q == 0 or scores[g, q] > top:
            top = scores[g, q]
    hand_end[g] = why
    game_over[g] = top >= target
    phase[g] = OVER


@_inline
def _apply_row(  # type: ignore[no-untyped-def]
    g, a, lay, tabs, max_turns, target, hands, known, counts, placed_by, meld_owner, table_pts,
    build, build_scandal, pile_arr, pile_pos, pile_len, stock_arr, stock_len, stock_public, cur,
    phase, duty, forbidden, turn, scores, hand_end, game_over,
):  # fmt: skip
    """Action ``a`` (legal) in row ``g``, as ``apply_actions`` applies it."""
    title_of = tabs[3]
    pair_card = tabs[4]
    value = tabs[11]
    ds, dd, ms, ma, mf, lo, di = lay[0], lay[1], lay[2], lay[3], lay[4], lay[5], lay[6]
    me = cur[g]
    n = hands.shape[2]
    card = -1
    if ms <= a < ma:
        card = title_of[a - ms]
    elif ma <= a < mf:
        card = a - ma
    elif lo <= a < di:
        card = pair_card[a - lo]
    elif a >= di:
        card = a - di
    if card >= 0:  # the card leaves the hand
        hands[g, me, card] = False
        known[g, me, card] = False
        counts[g, me] -= 1
    if ms <= a < mf:  # a meld's title or card
        build[g, card] = True
        if a < ma:
            build_scandal[g] = a - ms
            phase[g] = BUILD
    elif lo <= a < di:  # S6: credited to the player who lays it off
        placed_by[g, card] = me
        table_pts[g, me] += value[card]
        if duty[g] == card:
            duty[g] = -1
    elif a == mf:  # S5
        pts = 0
        for c in range(n):
            if build[g, c]:
                placed_by[g, c] = me
                pts += value[c]
        meld_owner[g, build_scandal[g]] = me
        table_pts[g, me] += pts
        d = duty[g]
        if d >= 0 and build[g, d]:
            duty[g] = -1
        build[g, :] = False
        build_scandal[g] = -1
        phase[g] = MELD
    elif a == ds:
        if stock_len[g] == 0:  # S4: turn the pile over, oldest discard on top
            plen = pile_len[g]
            for i in range(n):
                stock_arr[g, i] = pile_arr[g, plen - 1 - i] if i < plen else pile_arr[g, 0]
            stock_len[g] = plen
            if plen == 1:  # S7: a one-card pile turned over is the top discard
                forbidden[g] = pile_arr[g, 0]
            pile_len[g] = 0
            pile_pos[g, :] = -1
            stock_public[g] = True
        top = stock_len[g] - 1
        c = stock_arr[g, top]
        stock_len[g] = top
        hands[g, me, c] = True
        known[g, me, c] = stock_public[g]
        counts[g, me] += 1
        phase[g] = MELD
    elif dd <= a < ms:  # S3, S7
        d = a - dd
        cut = pile_len[g] - 1 - d
        for c in range(n):
            if pile_pos[g, c] >= cut:
                hands[g, me, c] = True
                known[g, me, c] = True
                pile_pos[g, c] = -1
        counts[g, me] += d + 1
        c = pile_arr[g, cut]
        pile_len[g] = cut
        if d == 0:
            forbidden[g] = c
        else:
            duty[g] = c
        phase[g] = MELD
    else:  # a discard ends the turn (S7)
        plen = pile_len[g]
        pile_arr[g, plen] = card
        pile_pos[g, card] = plen
        pile_len[g] = plen + 1
        duty[g] = -1
        forbidden[g] = -1
        if counts[g, me] == 0:  # S8
            _end_hand(g, END_OUT, value, hands, table_pts, scores, hand_end, game_over, phase,
                      target)  # fmt: skip
            return
        turn[g] += 1
        if turn[g] >= max_turns:  # S4
            _end_hand(g, END_MAX_TURNS, value, hands, table_pts, scores, hand_end, game_over,
                      phase, target)  # fmt: skip
            return
        cur[g] = (me + 1) % hands.shape[1]
        phase[g] = DRAW
        if stock_len[g] == 0 and pile_len[g] == 0:  # S4
            _end_hand(g, END_BLOCKED, value, hands, table_pts, scores, hand_end, game_over,
                      phase, target)  # fmt: skip


# ---------------------------------------------------------------- the rollouts
@_jit
def _play_rows(  # type: ignore[no-untyped-def]
    m, cutoff, lay, tabs, take_cost, deep_margin, max_turns, target, hands, known, counts,
    placed_by, meld_owner, table_pts, build, build_scandal, pile_arr, pile_pos, pile_len,
    stock_arr, stock_len, stock_public, cur, phase, duty, forbidden, turn, scores, hand_end,
    game_over, steps,
):  # fmt: skip
    n, ns = hands.shape[2], meld_owner.shape[1]
    mask = np.zeros(lay[7], dtype=np.bool_)
    bg = np.zeros(ns, dtype=np.int64)
    nt = np.zeros(ns, dtype=np.int64)
    ti = np.zeros(ns, dtype=np.int64)
    melded = np.zeros(ns, dtype=np.bool_)
    opp = np.zeros(n, dtype=np.bool_)
    in_pile = np.zeros(n, dtype=np.bool_)
    hand2 = np.zeros(n, dtype=np.bool_)
    used = np.zeros(n, dtype=np.bool_)
    cnt = np.zeros(ns, dtype=np.int64)
    for g in range(m):
        k = 0
        while cutoff == 0 or k < cutoff:
            if phase[g] == OVER:
                break
            _mask_row(g, mask, lay, tabs, hands, counts, meld_owner, build, build_scandal,
                      pile_arr, pile_len, stock_len, cur, phase, duty, forbidden, bg, nt, ti)  # fmt: skip
            a = _choose_row(g, mask, lay, tabs, take_cost, deep_margin, hands, known, meld_owner,
                            pile_arr, pile_len, pile_pos, stock_len, cur, phase, melded, opp,
                            in_pile, hand2, used, cnt)  # fmt: skip
            if a < 0:  # no legal move: cannot happen in a running hand
                break
            _apply_row(g, a, lay, tabs, max_turns, target, hands, known, counts, placed_by,
                       meld_owner, table_pts, build, build_scandal, pile_arr, pile_pos, pile_len,
                       stock_arr, stock_len, stock_public, cur, phase, duty, forbidden, turn,
                       scores, hand_end, game_over)  # fmt: skip
            k += 1
        steps[g] = k


class RolloutTables:
    """The deck's tables and the action layout of one engine, as `play_out` reads them."""

    def __init__(self, engine: Any) -> None:
        """Build the tables of ``engine`` (a numpy `BatchedScandal`)."""
        rules = engine.rules
        deck, lay = rules.deck, rules.layout
        n, ns = deck.n_cards, deck.n_scandals
        member = np.ascontiguousarray(deck.member, dtype=np.bool_)
        is_title = np.asarray(deck.is_title, dtype=np.bool_)
        is_bg = np.asarray(deck.is_bg, dtype=np.bool_)
        most = max(len(c) for c in deck.cards_of)
        cards_of = np.full((ns, most), -1, dtype=np.int64)
        for s, cs in enumerate(deck.cards_of):
            cards_of[s, : len(cs)] = cs
        widest = max(len(s) for s in deck.scandals_of)
        scandals_of = np.full((n, widest), -1, dtype=np.int64)
        for c, ss in enumerate(deck.scandals_of):
            scandals_of[c, : len(ss)] = ss
        self.tabs = (
            member,
            is_title,
            is_bg,
            np.asarray(deck.title_of, dtype=np.int64),
            np.asarray(deck.pair_card, dtype=np.int64),
            np.asarray(deck.pair_scandal, dtype=np.int64),
            np.asarray(rules.pair_of, dtype=np.int64),
            cards_of,
            np.array([len(c) for c in deck.cards_of], dtype=np.int64),
            scandals_of,
            np.array([len(s) for s in deck.scandals_of], dtype=np.int64),
            np.asarray(deck.value, dtype=np.int64),
        )
        self.lay = np.array(
            [lay.DRAW_STOCK, lay.DRAW_DISCARD, lay.MELD_START, lay.MELD_ADD, lay.MELD_FINISH,
             lay.LAYOFF, lay.DISCARD, lay.size],
            dtype=np.int64,
        )  # fmt: skip
        cfg = engine.config
        self.max_turns = int(cfg.max_turns)
        self.target = int(cfg.target_score)
        self.hand_only = cfg.episode == "hand"


def play_out(
    engine: Any,
    m: int,
    cutoff: int,
    take_cost: float = 0.2,
    deep_margin: float = 0.0,
    tables: RolloutTables | None = None,
) -> np.ndarray:
    """Play rows ``0 .. m-1`` of ``engine`` with the heuristic, each for at most ``cutoff`` moves.

    The same moves and end states as stepping the rows in lockstep with
    ``BatchedScandalHeuristic(repeat_memory=False).choose_engine`` (module
    doc), each row on its own. A row stops at the end of its hand, or after
    ``cutoff`` moves (0: no cutoff).

    Args:
        engine: a numpy `BatchedScandal` built with ``episode="hand"``.
        m: the rows to play (``0 .. m-1``).
        cutoff: moves per row before it stops (0: to the end of the hand).
        take_cost, deep_margin: the heuristic's knobs (``ScandalPolicy``).
        tables: the engine's `RolloutTables` (built here if not given).

    Returns:
        ``[m]`` the moves each row played.

    Raises:
        UsageError: numba is not installed, a torch engine, or an engine
            that plays whole games (``episode="game"``).
    """
    from cardsuite.errors import UsageError

    if numba is None:
        raise UsageError("play_out needs numba (pip install 'cardsuite[fast]')")
    if engine.xp.name != "numpy":
        raise UsageError("play_out plays numpy engines only")
    t = tables if tables is not None else RolloutTables(engine)
    if not t.hand_only:
        raise UsageError('play_out plays one hand per row: build the engine with episode="hand"')
    m = int(m)
    if not 0 <= m <= engine.num_games:
        raise UsageError(f"play_out: m must be in 0..{engine.num_games}, got {m}")
    e = engine
    steps = np.zeros(m, dtype=np.int64)
    _play_rows(
        m, int(cutoff), t.lay, t.tabs, float(take_cost), float(deep_margin), t.max_turns,
        t.target, e.hands, e.known, e.counts, e.placed_by, e.meld_owner, e.table_pts, e.build,
        e.build_scandal, e.pile_arr, e.pile_pos, e.pile_len, e.stock_arr, e.stock_len,
        e.stock_public, e.cur, e.phase, e.duty, e.forbidden, e.turn, e.scores, e.hand_end,
        e.game_over, steps,
    )  # fmt: skip
    return steps


def compiled_rollouts(
    engine: Any, take_cost: float, deep_margin: float
) -> Callable[..., None] | None:
    """The search's compiled heuristic rollouts on ``engine``, or None where they cannot run.

    The ``compiled`` part of Scandal's ``LeafEngine`` (``cardsuite.agents.search.leaves``):
    the returned ``run(states, cutoff, loaded=False)`` writes the per-game leaf
    ``states`` into rows ``0 ..`` (``bridge.write_states``; not again when the
    caller has just ``loaded`` them there, as ``bridge.load_states`` does) and
    plays them out with `play_out`. None without numba, on a torch engine or one
    that plays whole games.

    Args:
        engine: the rollouts' `BatchedScandal`.
        take_cost, deep_margin: the heuristic's knobs (its ``ScandalPolicy``'s).
    """
    if numba is None or engine.xp.name != "numpy" or engine.config.episode != "hand":
        return None
    from scandal_env.batched.bridge import write_states

    tables = RolloutTables(engine)

    def run(states: list[Any], cutoff: int, loaded: bool = False) -> None:
        if not loaded:
            write_states(engine, states)
        play_out(engine, len(states), cutoff, take_cost, deep_margin, tables)

    return run
