"""One action in every game of a `BatchedScandal`: each action kind on the subset of
games that chose it, no loop over games, as the per-game engine's ``apply`` (S3–S8)."""

from __future__ import annotations

from typing import Any

from cardsuite.batched.backend import Array
from scandal_env.batched.consts import BUILD, DRAW, END_BLOCKED, END_MAX_TURNS, END_OUT, MELD


def apply_actions(eng: Any, a: Array, live: Array) -> None:
    """Apply action ``a[g]`` in every ``live`` game ``g`` of ``eng`` (checked legal)."""
    xp, t = eng.xp, eng.t
    lay = t.layout
    ms, ma, mf, lo, di = lay.MELD_START, lay.MELD_ADD, lay.MELD_FINISH, lay.LAYOFF, lay.DISCARD
    # Cards leaving the hand: a title (meld start), a card to the meld, a lay-off, a discard.
    ktitle = live & (a >= ms) & (a < ma)
    kadd = live & (a >= ma) & (a < mf)
    klay = live & (a >= lo) & (a < di)
    kdis = live & (a >= di)
    card = xp.where(kadd, a - ma, xp.where(kdis, a - di, -1))
    card = xp.where(ktitle, t.title_of[xp.where(ktitle, a - ms, 0)], card)
    card = xp.where(klay, t.pair_card[xp.where(klay, a - lo, 0)], card)
    r = xp.nonzero(card >= 0)
    if r.shape[0]:
        _remove(eng, r, card[r])
    r = xp.nonzero(ktitle | kadd)
    if r.shape[0]:
        eng.build[r, card[r]] = True
    r = xp.nonzero(ktitle)
    if r.shape[0]:
        eng.build_scandal[r] = a[r] - ms
        eng.phase[r] = BUILD
    r = xp.nonzero(klay)
    if r.shape[0]:
        _layoff(eng, r, card[r])
    r = xp.nonzero(live & (a == mf))
    if r.shape[0]:
        _meld_finish(eng, r)
    r = xp.nonzero(live & (a == lay.DRAW_STOCK))
    if r.shape[0]:
        _draw_stock(eng, r)
    r = xp.nonzero(live & (a >= lay.DRAW_DISCARD) & (a < ms))
    if r.shape[0]:
        _draw_discard(eng, r, a[r] - lay.DRAW_DISCARD)
    r = xp.nonzero(kdis)
    if r.shape[0]:
        _discard(eng, r, card[r])


def _remove(eng: Any, r: Array, c: Array) -> None:
    me = eng.cur[r]
    eng.hands[r, me, c] = False
    eng.known[r, me, c] = False
    eng.counts[r, me] -= 1


def _layoff(eng: Any, r: Array, c: Array) -> None:
    me = eng.cur[r]
    eng.placed_by[r, c] = eng.xp.astype(me, eng.xp.int8)
    eng.table_pts[r, me] += eng.t.value[c]
    d = eng.duty[r]
    eng.duty[r] = eng.xp.where(d == c, -1, d)


def _meld_finish(eng: Any, r: Array) -> None:
    xp, t = eng.xp, eng.t
    me = eng.cur[r]
    built = eng.build[r]
    me8 = xp.astype(me, xp.int8)
    eng.placed_by[r] = xp.where(built, me8[:, None], eng.placed_by[r])
    eng.meld_owner[r, eng.build_scandal[r]] = me8
    eng.table_pts[r, me] += xp.sum(xp.astype(built, xp.int64) * t.value[None, :], 1)
    d = eng.duty[r]
    d_built = xp.take_along(built, xp.where(d >= 0, d, 0)[:, None], 1)[:, 0]
    eng.duty[r] = xp.where((d >= 0) & d_built, -1, d)
    eng.build[r] = False
    eng.build_scandal[r] = -1
    eng.phase[r] = MELD


def _take(eng: Any, r: Array, c: Array, public: Array) -> None:
    me = eng.cur[r]
    eng.hands[r, me, c] = True
    eng.known[r, me, c] = public
    eng.counts[r, me] += 1


def _draw_stock(eng: Any, r: Array) -> None:
    xp = eng.xp
    flip = r[eng.stock_len[r] == 0]
    if flip.shape[0]:  # S4: turn the pile over, oldest discard on top
        plen = eng.pile_len[flip]
        idx = plen[:, None] - 1 - eng.t.card_ar[None, :]
        eng.stock_arr[flip] = xp.take_along(eng.pile_arr[flip], xp.where(idx >= 0, idx, 0), 1)
        eng.stock_len[flip] = plen
        # S7: a one-card pile turned over is the top discard: not discardable this turn.
        eng.forbidden[flip] = xp.where(plen == 1, eng.pile_arr[flip, 0], eng.forbidden[flip])
        eng.pile_len[flip] = 0
        eng.pile_pos[flip] = -1
        eng.stock_public[flip] = True
    top = eng.stock_len[r] - 1
    c = eng.stock_arr[r, top]
    eng.stock_len[r] = top
    _take(eng, r, c, eng.stock_public[r])
    eng.phase[r] = MELD


def _draw_discard(eng: Any, r: Array, d: Array) -> None:
    xp = eng.xp
    me = eng.cur[r]
    cut = eng.pile_len[r] - 1 - d  # index (bottom first) of the card drawn
    pos = eng.pile_pos[r]
    taken = pos >= cut[:, None]
    eng.hands[r, me] = eng.hands[r, me] | taken
    eng.known[r, me] = eng.known[r, me] | taken
    eng.counts[r, me] += d + 1
    c = eng.pile_arr[r, cut]
    eng.pile_pos[r] = pos | (xp.astype(taken, xp.int8) * -1)  # -1: off the pile
    eng.pile_len[r] = cut
    eng.forbidden[r] = xp.where(d == 0, c, eng.forbidden[r])  # S7
    eng.duty[r] = xp.where(d > 0, c, eng.duty[r])  # S3
    eng.phase[r] = MELD


def _discard(eng: Any, r: Array, c: Array) -> None:
    xp = eng.xp
    plen = eng.pile_len[r]
    eng.pile_arr[r, plen] = c
    eng.pile_pos[r, c] = xp.astype(plen, xp.int8)
    eng.pile_len[r] = plen + 1
    eng.duty[r] = -1
    eng.forbidden[r] = -1
    out = eng.counts[r, eng.cur[r]] == 0
    if xp.any(out):  # S8: going out ends the hand at once
        eng.end_hand(r[out], END_OUT)
    r = r[~out]
    turn = eng.turn[r] + 1
    eng.turn[r] = turn
    cap = turn >= eng.config.max_turns
    if xp.any(cap):
        eng.end_hand(r[cap], END_MAX_TURNS)
    r = r[~cap]
    eng.cur[r] = (eng.cur[r] + 1) % eng.P
    eng.phase[r] = DRAW
    blocked = (eng.stock_len[r] == 0) & (eng.pile_len[r] == 0)
    if xp.any(blocked):
        eng.end_hand(r[blocked], END_BLOCKED)
