"""The legal mask of a batch of Scandal games: [`scandal_env.masks.legal_mask`][scandal_env.masks.legal_mask]
as array operations, look-ahead included.

In the draw phase, for every scandal the smallest pile depth at which hand +
taken cards hold its minimal meld (title, a blue or green card, one more, S5)
is the deepest of those three cards' depths; a card at depth ``d`` may be
drawn if one of its scandals is melded or reached by depth ``d`` with four
cards in hand (S3, S8). The build phase runs the per-game ``_completable``
for every card at once.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from cardsuite.batched.backend import Array, Backend
from scandal_env.batched.consts import BUILD, DRAW, MELD
from scandal_env.batched.tables import BIG8, DeckTables


class MaskState(Protocol):
    """The state arrays of `BatchedScandal` the mask reads."""

    xp: Backend
    t: DeckTables
    rows: Array
    phase: Array
    pile_arr: Array
    pile_len: Array
    pile_pos: Array
    stock_len: Array
    meld_owner: Array
    build: Array
    build_scandal: Array
    duty: Array
    forbidden: Array


def _min(xp: Backend, x: Array, axis: int) -> Array:
    return -xp.amax(-x, axis)


def _max(xp: Backend, a: Array, b: Array) -> Array:
    if xp.name == "numpy":
        return np.maximum(a, b)
    return xp.torch.maximum(a, b)  # type: ignore[attr-defined]


def _two_least(xp: Backend, cols: Array) -> tuple[Array, Array]:
    """The least and second least of ``cols [R, L, S]`` along ``L`` (a running tournament
    over the L contiguous ``[R, S]`` slices: cheaper than reductions over a short axis)."""
    a, b = cols[:, 0], xp.full(cols[:, 0].shape, BIG8, xp.int8)
    for j in range(1, cols.shape[1]):
        x = cols[:, j]
        b = xp.minimum(b, _max(xp, a, x))
        a = xp.minimum(a, x)
    return a, b


def write_mask(eng: MaskState, mask: Array, hand: Array, size: Array) -> None:
    """Write every game's legal mask into ``mask`` (bool ``[N, A]``; all zero when over).

    Args:
        eng: the engine's state.
        mask: the output buffer.
        hand: bool ``[N, n]`` hand of the player to act.
        size: int64 ``[N]`` cards in that hand.
    """
    xp = eng.xp
    mask[:] = False
    phase = eng.phase
    r = xp.nonzero(phase == DRAW)
    if r.shape[0]:
        _draw(eng, mask, r, hand[r], size[r])
    r = xp.nonzero(phase == MELD)
    if r.shape[0]:
        _meld(eng, mask, r, hand[r], size[r])
    r = xp.nonzero(phase == BUILD)
    if r.shape[0]:
        _build(eng, mask, r, hand[r], size[r])


def _scandal_counts(eng: MaskState, hand: Array) -> tuple[Array, Array, Array]:
    """Per scandal: blue/green cards, non-title cards and the title in ``hand`` (int8).

    Gathers of the hand at each scandal's padded card lists, summed in bytes
    (no BLAS call: no thread pool, exact on every backend).
    """
    xp, t = eng.xp, eng.t
    ext = xp.small(xp.concat([hand, xp.zeros((hand.shape[0], 1), xp.bool)], 1))
    bg = ext[:, t.bg_pad].sum(2, dtype=xp.int8)
    nt = ext[:, t.nt_pad].sum(2, dtype=xp.int8)
    return bg, nt, hand[:, t.title_of]


def _draw(eng: MaskState, mask: Array, r: Array, hand: Array, size: Array) -> None:
    """The stock (S4), the top discard and the deep discards that can be melded (S3)."""
    xp, t = eng.xp, eng.t
    lay = t.layout
    plen = eng.pile_len[r]
    mask[r, lay.DRAW_STOCK] = (plen + eng.stock_len[r]) > 0
    mask[r, lay.DRAW_DISCARD] = plen > 0
    deep = plen >= 2
    if not xp.any(deep):
        return
    k = xp.nonzero(deep)
    r, hand, size, plen = r[k], hand[k], size[k], plen[k]
    g = r.shape[0]
    i8 = xp.int8  # depths < 80 and BIG8 fit a byte: the gathers and reductions stay small
    pos = eng.pile_pos[r]
    top = xp.astype(plen - 1, i8)
    # Each card's depth: -1 in hand (already held), its pile depth, BIG8 elsewhere.
    # (pos >> 7) & BIG8 is BIG8 off the pile (pos = -1) and 0 on it; OR-ing it into
    # top + 1 <= 80 gives BIG8. OR-ing -1 marks the hand. (Bit operations: cheaper
    # than where.)
    dep = (top[:, None] - pos) | ((pos >> 7) & BIG8) | (xp.astype(hand, i8) * -1)
    dep_ext = xp.concat([dep, xp.full((g, 1), BIG8, i8)], 1)
    # The depth by which hand + taken cards hold each part of the minimal meld (S5):
    # the title, the first blue/green card, the second other card (-1: in hand).
    second = _two_least(xp, dep_ext[:, t.nt_pad_t])[1]
    first_bg = _two_least(xp, dep_ext[:, t.bg_pad_t])[0]
    reach = _max(xp, _max(xp, dep[:, t.title_of], first_bg), second)
    # Meld it: reachable with four cards in hand (S8); lay it off: melded (S6) -> 0.
    least = xp.astype(3 - size, i8)[:, None]
    key = _max(xp, reach, least) * (eng.meld_owner[r] < 0)
    key_card = key[:, t.first_scandal]
    key_ext = xp.concat([key, xp.full((g, 1), BIG8, i8)], 1)
    key_card[:, t.multi] = _min(xp, key_ext[:, t.multi_scandals], 2)
    width = int(xp.amax(plen, 0))
    d = t.card_ar[None, :width]
    idx = plen[:, None] - 1 - d
    valid = idx >= 0
    cards = xp.take_along(eng.pile_arr[r, :width], idx * valid, 1)
    ok = valid & (xp.take_along(key_card, cards, 1) <= t.depth8[None, :width])
    mask[r, lay.DRAW_DISCARD + 1 : lay.DRAW_DISCARD + width] = ok[:, 1:]


def _meld(eng: MaskState, mask: Array, r: Array, hand: Array, size: Array) -> None:
    """The duty (S3) first; else discards (S7), lay-offs (S6) and new melds (S5), all
    keeping a card that may be discarded (S8).

    The common case (no duty, two or more discardable cards) is written for
    every game at once; the rare ones are then corrected on their few rows.
    """
    xp, t = eng.xp, eng.t
    lay = t.layout
    n, ns = t.n, t.ns
    bg_h, nt_h, ti_h = _scandal_counts(eng, hand)
    melded = eng.meld_owner[r] >= 0
    start = (ti_h >= 1) & (bg_h >= 1) & (nt_h >= 2) & ~melded
    duty = eng.duty[r]
    dutied = duty >= 0
    fb = eng.forbidden[r]
    f_ok = (fb >= 0) & xp.take_along(hand, (fb * (fb >= 0))[:, None], 1)[:, 0]
    nonf = size - xp.astype(f_ok, xp.int64)
    pair_melded = melded[:, t.pair_scandal]
    lay_ok = _pair_cards(xp, t, hand) & pair_melded
    discard = xp.copy(hand)
    start_ok = (nonf >= 4)[:, None] & start
    k = xp.nonzero(f_ok)  # S7: the top discard drawn this turn stays in hand
    if k.shape[0]:
        f = fb[k]
        discard[k, f] = False
        f8 = xp.astype(f, xp.int8)[:, None]
        few = (nonf[k] < 2)[:, None]  # S8: then only that card may be laid off
        lay_ok[k] = lay_ok[k] & (~few | (t.pair_card8[None, :] == f8))
        three = (nonf[k] == 3)[:, None]  # S5/S8: a meld may use it as one of three
        start_ok[k] = start_ok[k] | (three & start[k] & xp.take_rows(t.member, f))
    k = xp.nonzero((nonf < 2) & ~f_ok)  # S8: a lay-off would leave nothing to discard
    if k.shape[0]:
        lay_ok[k] = False
    k = xp.nonzero(dutied)  # S3: only the steps that meld the duty card
    if k.shape[0]:
        d = duty[k]
        discard[k] = False
        on_duty = t.pair_card8[None, :] == xp.astype(d, xp.int8)[:, None]
        lay_ok[k] = pair_melded[k] & on_duty
        start_ok[k] = start[k] & xp.take_rows(t.member, d) & (size[k] >= 4)[:, None]
    mask[r, lay.DISCARD : lay.DISCARD + n] = discard
    mask[r, lay.LAYOFF : lay.LAYOFF + t.npairs] = lay_ok
    mask[r, lay.MELD_START : lay.MELD_START + ns] = start_ok


def _pair_cards(xp: Backend, t: DeckTables, hand: Array) -> Array:
    """``hand`` at the card of every lay-off pair: a slice for the leading run of
    one-scandal cards, a gather for the rest (the gold cards' memberships)."""
    lo, hi = t.pair_run
    if hi == lo:
        return hand[:, t.pair_card]
    run = hand[:, lo:hi]
    if hi - lo == t.npairs:
        return xp.copy(run)
    return xp.concat([run, hand[:, t.pair_card[hi - lo :]]], 1)


def _build(eng: MaskState, mask: Array, r: Array, hand: Array, size: Array) -> None:
    """A meld under construction: the cards that keep it completable with a
    discardable card left over, and finishing it (S5, S7, S8)."""
    xp, t = eng.xp, eng.t
    lay = t.layout
    fb = eng.forbidden[r]
    f_ok = (fb >= 0) & xp.take_along(hand, xp.where(fb >= 0, fb, 0)[:, None], 1)[:, 0]
    f = xp.where(f_ok, fb, -1)
    s = eng.build_scandal[r]
    mem_s = xp.take_rows(t.member_t, s)  # [R, n]
    build = eng.build[r]
    duty = eng.duty[r]
    dsafe = xp.where(duty >= 0, duty, 0)
    d_built = xp.take_along(build, dsafe[:, None], 1)[:, 0]
    dp_ok = (duty >= 0) & ~d_built
    dp = xp.where(dp_ok, duty, -1)
    bg = t.is_bg_i[None, :]
    k_size = xp.sum(xp.astype(build, xp.int64), 1)
    k_bg = xp.sum(xp.astype(build, xp.int64) * bg, 1) > 0
    cand = hand & mem_s & ~t.is_title[None, :]
    cand_i = xp.astype(cand, xp.int64)
    avail_bg = xp.sum(cand_i * bg, 1)
    ncand = xp.sum(cand_i, 1)
    nonf = size - xp.astype(f_ok, xp.int64)
    col = t.card_ar[None, :]
    dx = xp.astype(dp_ok[:, None] & (col != dp[:, None]), xp.int64)
    dbg = t.is_bg_i[dsafe] * dp_ok
    ks = k_size[:, None] + 1 + dx
    kb = k_bg[:, None] | (bg > 0) | ((dx * dbg[:, None]) > 0)
    ab = avail_bg[:, None] - bg - dx * dbg[:, None]
    an = ncand[:, None] - 1 - dx
    nf = nonf[:, None] - xp.astype(col != f[:, None], xp.int64)
    nf = nf - dx * xp.astype(dp != f, xp.int64)[:, None]
    f_in = (col == f[:, None]) | ((dx > 0) & (dp == f)[:, None])
    fsafe = xp.where(f_ok, f, 0)
    f_mem = f_ok & xp.take_along(mem_s, fsafe[:, None], 1)[:, 0]
    f_bg = t.is_bg[fsafe]
    f_kind = xp.where(f_mem[:, None] & ~f_in, xp.where(f_bg, 1, 2)[:, None], 0)
    need_bg = ~kb
    need_n = _max(xp, 3 - ks, xp.astype(need_bg, xp.int64))
    fail = (need_bg & (ab == 0)) | (an < need_n)
    f_used = (need_n >= 1) & ((f_kind == 1) | ((f_kind == 2) & (~need_bg | (need_n >= 2))))
    ok = ~fail & ((nf - (need_n - xp.astype(f_used, xp.int64))) >= 1)
    mask[r, lay.MELD_ADD : lay.MELD_ADD + t.n] = cand & ok
    mask[r, lay.MELD_FINISH] = (k_size >= 3) & k_bg & ~dp_ok & (nonf >= 1)
