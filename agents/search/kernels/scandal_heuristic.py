"""Heuristic rollouts of a numpy `BatchedScandal`, compiled row by row with numba: the choice
of ``ScandalPolicy.choose(view, 0)`` (``tests/scandal/test_rollout_kernel.py``)."""

# The kernels unpack the whole tuple of engine arrays, each using some of them.
# ruff: noqa: RUF059

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cardsuite.agents.search.kernels import base
from cardsuite.agents.search.kernels.base import RolloutTables, available, check_rows, inline, jit
from cardsuite.agents.search.kernels.scandal_moves import apply_row, hand_counts, mask_row
from scandal_env.batched.consts import BUILD, DRAW, OVER

__all__ = ["RolloutTables", "available", "compiled_rollouts", "play_out"]


@jit
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


@jit
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


@jit
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


@jit
def _usefulness(card, hand, nt, ti, melded, opp, in_pile, tabs):  # type: ignore[no-untyped-def]
    """``ScandalPolicy.usefulness`` (``nt``, ``ti``: ``hand_counts`` of ``hand``; ``in_pile``:
    the view's pile as flags)."""
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
        others = nt[s] + ti[s] - mine  # the other cards of s in hand
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


@jit
def _first(mask):  # type: ignore[no-untyped-def]
    """The lowest legal action (-1: none)."""
    for a in range(mask.shape[0]):
        if mask[a]:
            return a
    return -1


@inline
def _choose_row(  # type: ignore[no-untyped-def]
    g, mask, lay, tabs, take_cost, deep_margin, st, melded, opp, in_pile, hand2, used, bg, nt, ti
):
    """``ScandalPolicy.choose(view, 0)`` of row ``g`` whose legal mask is ``mask``."""
    is_title, is_bg = tabs[1], tabs[2]
    scandals_of, nscandals_of, value = tabs[9], tabs[10], tabs[11]
    (hands, known, counts, placed_by, meld_owner, table_pts, build, build_scandal, pile_arr,
     pile_pos, pile_len, stock_arr, stock_len, stock_public, cur, dealer, phase, duty, forbidden,
     turn, scores, hand_end, game_over) = st  # fmt: skip
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
        hand_counts(hand, scandals_of, nscandals_of, is_bg, is_title, bg, nt, ti)
        best = -1
        bu = 0.0
        for c in range(n):
            if not mask[di + c]:
                continue
            u = _usefulness(c, hand, nt, ti, melded, opp, in_pile, tabs)
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
        hand_counts(hand2, scandals_of, nscandals_of, is_bg, is_title, bg, nt, ti)
        gain = _usefulness(top, hand2, nt, ti, melded, opp, in_pile, tabs)
        take = False
        if gain >= 2.0:  # and more useful than the least useful card then held
            take = True
            for c in range(n):
                if hand[c]:
                    take = False
                    break
            if not take:
                for c in range(n):
                    if hand[c] and gain > _usefulness(c, hand2, nt, ti, melded, opp, in_pile, tabs):
                        take = True
                        break
        if take:
            return dd
    return ds if mask[ds] else _first(mask)


@jit
def _play_rows(m, cutoff, lay, tabs, take_cost, deep_margin, st, steps, picks, pick_only):  # type: ignore[no-untyped-def]
    """Play rows ``0 .. m-1`` (``steps``: the moves each played); with ``pick_only``
    write each row's choice into ``picks`` instead (no move)."""
    n, ns = st[0].shape[2], st[4].shape[1]
    mask = np.zeros(lay[7], dtype=np.bool_)
    bg = np.zeros(ns, dtype=np.int64)
    nt = np.zeros(ns, dtype=np.int64)
    ti = np.zeros(ns, dtype=np.int64)
    melded = np.zeros(ns, dtype=np.bool_)
    opp = np.zeros(n, dtype=np.bool_)
    in_pile = np.zeros(n, dtype=np.bool_)
    hand2 = np.zeros(n, dtype=np.bool_)
    used = np.zeros(n, dtype=np.bool_)
    phase = st[16]
    for g in range(m):
        k = 0
        while cutoff == 0 or k < cutoff:
            if phase[g] == OVER:
                break
            mask_row(g, mask, lay, tabs, st, bg, nt, ti)
            a = _choose_row(g, mask, lay, tabs, take_cost, deep_margin, st, melded, opp,
                            in_pile, hand2, used, bg, nt, ti)  # fmt: skip
            if pick_only:
                picks[g] = a
                break
            if a < 0:  # no legal move: cannot happen in a running hand
                break
            apply_row(g, a, lay, tabs, st)
            k += 1
        steps[g] = k


def play_out(
    engine: Any,
    m: int,
    cutoff: int,
    take_cost: float = 0.2,
    deep_margin: float = 0.0,
    tables: RolloutTables | None = None,
) -> np.ndarray:
    """``[m]`` the moves each of rows ``0 .. m-1`` of ``engine`` played by the heuristic
    (``take_cost``, ``deep_margin``), at most ``cutoff`` (0: to the end of the hand), as
    ``BatchedScandalHeuristic(repeat_memory=False)`` plays them; UsageError: `check_rows`."""
    m = int(m)
    t = check_rows("play_out", engine, m, tables)
    steps = np.zeros(m, dtype=np.int64)
    _play_rows(m, int(cutoff), t.lay, t.tabs, float(take_cost), float(deep_margin),
               base.state_arrays(engine), steps, steps, False)  # fmt: skip
    return steps


def compiled_rollouts(
    engine: Any, take_cost: float, deep_margin: float
) -> Callable[..., None] | None:
    """Scandal's ``LeafEngine.compiled``: `runner` of `play_out`, or None."""
    if not base.compilable(engine):
        return None
    tables = RolloutTables(engine)
    return base.runner(engine, lambda m, cutoff: play_out(engine, m, cutoff, take_cost, deep_margin,
                                                     tables))  # fmt: skip
