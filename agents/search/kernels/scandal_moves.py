"""Scandal's legal mask (``scandal_env.masks.legal_mask``) and moves (``BatchedScandal.step``
with ``episode="hand"``, no per-step outputs) on a numpy `BatchedScandal`, row by row."""

# The kernels unpack the whole tuple of engine arrays, each using some of them.
# ruff: noqa: RUF059

from __future__ import annotations

from cardsuite.agents.search.kernels.base import inline, jit
from scandal_env.batched.consts import BUILD, DRAW, END_BLOCKED, END_MAX_TURNS, END_OUT, MELD, OVER


@jit
def hand_counts(hand, scandals_of, nscandals_of, is_bg, is_title, bg, nt, ti):  # type: ignore[no-untyped-def]
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


@inline
def mask_row(g, mask, lay, tabs, st, bg, nt, ti):  # type: ignore[no-untyped-def]
    """Write row ``g``'s legal mask into ``mask`` (``scandal_env.masks.legal_mask``)."""
    (member, is_title, is_bg, title_of, pair_card, pair_scandal, pair_of, cards_of, ncards_of,
     scandals_of, nscandals_of, value) = tabs  # fmt: skip
    (hands, known, counts, placed_by, meld_owner, table_pts, build, build_scandal, pile_arr,
     pile_pos, pile_len, stock_arr, stock_len, stock_public, cur, dealer, phase, duty, forbidden,
     turn, scores, hand_end, game_over) = st  # fmt: skip
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
            hand_counts(hand, scandals_of, nscandals_of, is_bg, is_title, bg, nt, ti)
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
            hand_counts(hand, scandals_of, nscandals_of, is_bg, is_title, bg, nt, ti)
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
            hand_counts(hand, scandals_of, nscandals_of, is_bg, is_title, bg, nt, ti)
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


@jit
def _end_hand(g, why, value, target, st):  # type: ignore[no-untyped-def]
    """``BatchedScandal.end_hand`` of row ``g`` with ``episode="hand"`` (S9)."""
    (hands, known, counts, placed_by, meld_owner, table_pts, build, build_scandal, pile_arr,
     pile_pos, pile_len, stock_arr, stock_len, stock_public, cur, dealer, phase, duty, forbidden,
     turn, scores, hand_end, game_over) = st  # fmt: skip
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


@inline
def apply_row(g, a, lay, tabs, st):  # type: ignore[no-untyped-def]
    """Action ``a`` (legal) in row ``g``, as ``apply_actions`` applies it."""
    title_of, pair_card, value = tabs[3], tabs[4], tabs[11]
    (hands, known, counts, placed_by, meld_owner, table_pts, build, build_scandal, pile_arr,
     pile_pos, pile_len, stock_arr, stock_len, stock_public, cur, dealer, phase, duty, forbidden,
     turn, scores, hand_end, game_over) = st  # fmt: skip
    ds, dd, ms, ma, mf, lo, di = lay[0], lay[1], lay[2], lay[3], lay[4], lay[5], lay[6]
    max_turns, target = lay[8], lay[9]
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
            _end_hand(g, END_OUT, value, target, st)
            return
        turn[g] += 1
        if turn[g] >= max_turns:  # S4
            _end_hand(g, END_MAX_TURNS, value, target, st)
            return
        cur[g] = (me + 1) % hands.shape[1]
        phase[g] = DRAW
        if stock_len[g] == 0 and pile_len[g] == 0:  # S4
            _end_hand(g, END_BLOCKED, value, target, st)
