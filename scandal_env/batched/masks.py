"""The legal mask of a batch of Scandal games: the per-game mask as array operations.

It reproduces :func:`scandal_env.masks.legal_mask` exactly, look-ahead
included: the mask only offers steps from which the turn can still end with
a legal discard.

* Draw phase: the stock (S4: an empty stock is the pile turned over), the top
  discard, and a deeper discard only if its card can then be melded or laid
  off with a card left over (S3, S8). For every scandal the engine finds the
  smallest pile depth at which hand + taken cards hold its minimal meld
  (title, a blue or green card, one more, S5): the depth of the title, of the
  first blue/green card and of the second non-title card, whichever is
  deepest. A card at depth ``d`` may be drawn if one of its scandals is melded
  or reaches its minimal meld by depth ``d`` with four cards in hand.
* Meld phase: with a pending duty (S3) only the steps that meld that card;
  otherwise discards (not the top discard drawn this turn, S7), lay-offs (S6)
  and new melds (S5) that keep a discardable card (S8).
* Build phase: the cards whose addition keeps the meld completable with a
  discardable card left (``_completable`` of the per-game engine, for every
  card at once), and finishing a valid meld once the duty card is in it.
"""

from __future__ import annotations

from typing import Protocol

from cardsuite.batched.backend import Array, Backend
from scandal_env.batched.consts import BUILD, DRAW, MELD
from scandal_env.batched.tables import BIG, DeckTables


class MaskState(Protocol):
    """The state arrays of :class:`~scandal_env.batched.engine.BatchedScandal` the mask reads."""

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
    return xp.where(a > b, a, b)


def write_mask(eng: MaskState, mask: Array, hand: Array, size: Array) -> None:
    """Write every game's legal mask into ``mask`` (bool ``[N, A]``).

    Args:
        eng: the engine's state.
        mask: the output buffer.
        hand: bool ``[N, n]`` hand of the player to act.
        size: int64 ``[N]`` cards in that hand.
    """
    xp, t = eng.xp, eng.t
    lay = t.layout
    n, ns = t.n, t.ns
    phase = eng.phase
    c = xp.astype(hand, xp.float32) @ t.counts
    bg_h, nt_h, ti_h = c[:, :ns], c[:, ns : 2 * ns], c[:, 2 * ns :]
    meldable = (ti_h >= 1) & (bg_h >= 1) & (nt_h >= 2)
    melded = eng.meld_owner >= 0
    # ---------------------------------------------------------------- draw
    is_draw = phase == DRAW
    pile_len = eng.pile_len
    mask[:, lay.DRAW_STOCK] = is_draw & ((pile_len + eng.stock_len) > 0)
    mask[:, lay.DRAW_DISCARD : lay.MELD_START] = is_draw[:, None] & _deep_ok(
        eng, ti_h, bg_h, nt_h, melded, size
    )
    # ---------------------------------------------------------------- meld
    is_meld = phase == MELD
    duty = eng.duty
    has_duty = duty >= 0
    free = is_meld & ~has_duty
    dutied = is_meld & has_duty
    fb = eng.forbidden
    f_ok = (fb >= 0) & xp.take_along(hand, xp.where(fb >= 0, fb, 0)[:, None], 1)[:, 0]
    f = xp.where(f_ok, fb, -1)
    nonf = size - xp.astype(f_ok, xp.int64)
    discard = hand & (t.card_ar[None, :] != f[:, None])
    mask[:, lay.DISCARD : lay.DISCARD + n] = free[:, None] & discard
    pair_melded = melded[:, t.pair_scandal]
    pc = t.pair_card[None, :]
    lay_free = hand[:, t.pair_card] & pair_melded
    lay_free = lay_free & ((nonf >= 2)[:, None] | (pc == f[:, None]))
    lay_duty = pair_melded & (pc == duty[:, None])
    mask[:, lay.LAYOFF : lay.LAYOFF + t.npairs] = (free[:, None] & lay_free) | (
        dutied[:, None] & lay_duty
    )
    start = meldable & ~melded
    f_mem = xp.take_rows(t.member, xp.where(f_ok, f, 0)) & f_ok[:, None]
    start_free = start & ((nonf >= 4)[:, None] | ((nonf == 3)[:, None] & f_mem))
    d_mem = xp.take_rows(t.member, xp.where(has_duty, duty, 0))
    start_duty = start & d_mem & (size >= 4)[:, None]
    mask[:, lay.MELD_START : lay.MELD_START + ns] = (free[:, None] & start_free) | (
        dutied[:, None] & start_duty
    )
    # ---------------------------------------------------------------- build
    is_build = phase == BUILD
    add, finish = _build_steps(eng, hand, size, f, f_ok)
    mask[:, lay.MELD_ADD : lay.MELD_ADD + n] = is_build[:, None] & add
    mask[:, lay.MELD_FINISH] = is_build & finish


def _deep_ok(
    eng: MaskState, ti_h: Array, bg_h: Array, nt_h: Array, melded: Array, size: Array
) -> Array:
    """bool ``[N, n]`` by pile depth: may the discard at that depth be drawn (S3)?"""
    xp, t = eng.xp, eng.t
    pile_len, pos = eng.pile_len, eng.pile_pos
    g = pile_len.shape[0]
    in_pile = pos >= 0
    dep = xp.where(in_pile, pile_len[:, None] - 1 - pos, BIG)
    dep_ext = xp.concat([dep, xp.full((g, 1), BIG, xp.int64)], 1)
    ds = dep_ext[:, t.cards_pad]  # [N, ns, L]
    bg_min = _min(xp, xp.where(t.cards_bg[None], ds, BIG), 2)
    nt = xp.where(t.cards_nt[None], ds, BIG)
    a1 = xp.argmin(nt, 2)
    m1 = xp.take_along(nt, a1[:, :, None], 2)[:, :, 0]
    m2 = _min(xp, xp.where(t.slot_ar[None, None, :] == a1[:, :, None], BIG, nt), 2)
    t_d = xp.where(ti_h >= 1, -1, dep[:, t.title_of])
    bg_d = xp.where(bg_h >= 1, -1, bg_min)
    nt_d = xp.where(nt_h >= 2, -1, xp.where(nt_h >= 1, m1, m2))
    reach = _max(xp, _max(xp, t_d, bg_d), nt_d)  # [N, ns]
    reach_ext = xp.concat([reach, xp.full((g, 1), BIG + 1, xp.int64)], 1)
    melded_ext = xp.concat([melded, xp.zeros((g, 1), xp.bool)], 1)
    big_enough = (size[:, None] + dep + 1) >= 4
    ok_m = melded_ext[:, t.scandals_pad] | (
        (reach_ext[:, t.scandals_pad] <= dep[:, :, None]) & big_enough[:, :, None]
    )
    ok_card = xp.sum(ok_m, 2) > 0  # [N, n] by card
    d = t.card_ar[None, :]
    idx = pile_len[:, None] - 1 - d
    valid = idx >= 0
    cards = xp.take_along(eng.pile_arr, xp.where(valid, idx, 0), 1)
    ok = xp.take_along(ok_card, cards, 1)
    return valid & (ok | (d == 0))


def _build_steps(
    eng: MaskState, hand: Array, size: Array, f: Array, f_ok: Array
) -> tuple[Array, Array]:
    """``(add [N, n], finish [N])`` of a meld under construction (S5, S7, S8)."""
    xp, t = eng.xp, eng.t
    s = xp.where(eng.build_scandal >= 0, eng.build_scandal, 0)
    mem_s = xp.take_rows(t.member_t, s)  # [N, n]
    build = eng.build
    duty = eng.duty
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
    add = cand & ok
    finish = (k_size >= 3) & k_bg & ~dp_ok & (nonf >= 1)
    return add, finish
