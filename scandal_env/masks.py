"""The Scandal legal mask, its look-ahead tables, and why an action is illegal.

The mask only offers steps from which the turn can still be finished legally,
so it is never all zero for the player to act: a deep draw (S3) only if the
card can then be melded or laid off with a card left over (its duty honoured
first, no discard while it is pending); a meld only if it can still be
completed (S5) leaving a discardable card (S7, S8); a lay-off never leaves
the hand without one.
"""

from __future__ import annotations

import functools

import numpy as np

from scandal_env.actions import Kind, decode
from scandal_env.deck import Deck
from scandal_env.state import PHASE_NAMES, Phase, State


def legal_mask(state: State) -> np.ndarray:
    """int8[num_actions] legal actions of the player to act (read-only, cached).

    All zero once the episode is over; never all zero otherwise.
    """
    mask = state.mask_cache
    if mask is None:
        mask = np.zeros(state.rules.layout.size, dtype=np.int8)
        if not state.done and not state.hand_over:
            if state.phase == Phase.DRAW:
                _mask_draw(state, mask)
            elif state.phase == Phase.MELD:
                _mask_meld(state, mask)
            else:
                _mask_build(state, mask)
        mask.setflags(write=False)
        state.mask_cache = mask
    return mask


def legal_actions(state: State) -> list[int]:
    """The legal action ids, sorted."""
    return [int(a) for a in np.flatnonzero(legal_mask(state))]


_U32 = np.dtype(np.uint32)
_ALL_FOUR = 0x01010101  # four true bytes, whatever the byte order


class _MaskTables:
    """Per-deck tables of the mask, and a memo of the melded scandals.

    ``meld`` has four columns per scandal (blue/green, non-title, title, zero):
    ``hand @ meld >= need`` holds four true bytes, one ``uint32``, for each
    scandal whose minimal meld (S5) is in the hand.
    """

    def __init__(self, deck: Deck) -> None:
        ns = deck.n_scandals
        meld = np.zeros((deck.n_cards, 4 * ns), dtype=np.float32)
        meld[:, 0::4] = deck.member & deck.is_bg[:, None]
        meld[:, 1::4] = deck.member & ~deck.is_title[:, None]
        meld[:, 2::4] = deck.member & deck.is_title[:, None]
        need = np.zeros(4 * ns, dtype=np.float32)
        need[0::4], need[1::4], need[2::4] = 1.0, 2.0, 1.0
        meld.setflags(write=False)
        need.setflags(write=False)
        self.meld, self.need = meld, need
        self.pair_scandal = deck.pair_scandal
        self._melded: dict[bytes, tuple[list[bool], np.ndarray, np.ndarray | None]] = {}

    def counts(self, hand: np.ndarray) -> list[float]:
        """Per scandal, interleaved: blue/green, non-title and title cards in ``hand``."""
        result: list[float] = np.dot(hand, self.meld).tolist()
        return result

    def meldable(self, hand: np.ndarray) -> np.ndarray:
        """bool[ns]: ``hand`` holds a minimal meld of the scandal (S5)."""
        ok = np.dot(hand, self.meld) >= self.need
        result: np.ndarray = ok.view(_U32) == _ALL_FOUR
        return result

    def melded(self, meld_owner: np.ndarray) -> tuple[list[bool], np.ndarray, np.ndarray | None]:
        """The melded scandals as a list and an array, and the lay-off pairs on
        melded scandals (None when nothing is melded); read-only, memoized."""
        key = meld_owner.tobytes()
        hit = self._melded.get(key)
        if hit is None:
            if len(self._melded) >= 4096:
                self._melded.clear()
            arr = meld_owner >= 0
            arr.setflags(write=False)
            pairs = None
            if arr.any():
                pairs = arr[self.pair_scandal]
                pairs.setflags(write=False)
            hit = self._melded[key] = (arr.tolist(), arr, pairs)
        return hit


@functools.lru_cache(maxsize=32)
def _mask_tables(deck: Deck) -> _MaskTables:
    return _MaskTables(deck)


def _mask_draw(state: State, mask: np.ndarray) -> None:
    lay = state.rules.layout
    if state.stock or state.pile:
        mask[lay.DRAW_STOCK] = 1  # S4: an empty stock is made from the pile
    npile = len(state.pile)
    if npile:
        mask[lay.DRAW_DISCARD] = 1
    if npile >= 2:
        deep = _deep_draw_ok(state)
        mask[lay.DRAW_DISCARD + 1 : lay.DRAW_DISCARD + npile] = deep[1:]


def _deep_draw_ok(state: State) -> list[bool]:
    """May the card at each depth of the pile be drawn with its duty (S3)? Yes if one of its
    scandals is melded, or the hand plus the cards taken hold a minimal meld of one (S5)
    with a card left over (S8); walks the pile from the top."""
    deck = state.rules.deck
    tables = _mask_tables(deck)
    counts = tables.counts(state.hands[state.to_act])
    bg, nt, title = counts[0::4], counts[1::4], counts[2::4]
    melded = tables.melded(state.meld_owner)[0]
    is_bg, is_title, scandals_of = deck.is_bg_list, deck.is_title_list, deck.scandals_of
    size = state.hand_counts[state.to_act]
    out = []
    for c in reversed(state.pile):
        size += 1
        ss = scandals_of[c]
        if is_title[c]:
            title[ss[0]] = 1.0
        else:
            cbg = is_bg[c]
            for s in ss:
                nt[s] += 1
                bg[s] += cbg
        out.append(
            any(melded[s] or (title[s] and bg[s] >= 1 and nt[s] >= 2 and size >= 4) for s in ss)
        )
    return out


def _mask_meld(state: State, mask: np.ndarray) -> None:
    rules = state.rules
    deck, lay = rules.deck, rules.layout
    tables = _mask_tables(deck)
    me = state.to_act
    hand = state.hands[me]
    size = state.hand_counts[me]
    melded, melded_arr, pair_melded = tables.melded(state.meld_owner)
    if state.duty >= 0:  # S3: honour the duty first
        c = state.duty
        meldable = tables.meldable(hand)
        for s in deck.scandals_of[c]:
            if melded[s]:
                mask[lay.LAYOFF + rules.pair_of[c, s]] = 1
            elif meldable[s] and size >= 4:
                mask[lay.MELD_START + s] = 1
        return
    f = state.forbidden
    if f >= 0 and not hand[f]:
        f = -1
    nonf = size - (f >= 0)
    # S7: discard any card but the top discard drawn this turn.
    mask[lay.DISCARD : lay.DISCARD + deck.n_cards] = hand
    if f >= 0:
        mask[lay.DISCARD + f] = 0
    # S6 lay-offs; S8: keep a card that may be discarded.
    if pair_melded is not None:
        if nonf >= 2:
            mask[lay.LAYOFF : lay.LAYOFF + deck.n_pairs] = hand[deck.pair_card] & pair_melded
        elif f >= 0:
            # Only the undiscardable card may be laid off, on a melded scandal.
            for s in deck.scandals_of[f]:
                pair = rules.pair_of[f, s]  # -1 for a title card: never laid off
                if melded[s] and pair >= 0:
                    mask[lay.LAYOFF + pair] = 1
    # S5 new melds: title, blue/green, one more, leaving a discardable card
    # (the undiscardable card may be one of the meld's cards).
    if nonf >= 4 or (nonf == 3 and f >= 0):
        start = np.greater(tables.meldable(hand), melded_arr)
        if nonf == 3:
            start &= deck.member[f]
        mask[lay.MELD_START : lay.MELD_START + deck.n_scandals] = start


def _completable(
    k_size: int, k_bg: bool, avail_bg: int, avail_nt: int, f_kind: int, nonf: int
) -> bool:
    """Can a meld under construction still be finished validly (S5, S7, S8)?

    Args:
        k_size: cards in the meld (title included).
        k_bg: the meld holds a blue or green card.
        avail_bg, avail_nt: blue/green and all non-title cards of its scandal in hand.
        f_kind: the undiscardable card (S7) is in hand and of the scandal: 0 no,
            1 as a blue/green card, 2 as another card.
        nonf: cards in hand other than the undiscardable one.
    """
    need_bg = not k_bg
    need_n = max(3 - k_size, 1 if need_bg else 0)
    if (need_bg and avail_bg == 0) or avail_nt < need_n:
        return False
    f_used = need_n >= 1 and (f_kind == 1 or (f_kind == 2 and (not need_bg or need_n >= 2)))
    return nonf - (need_n - f_used) >= 1


def _mask_build(state: State, mask: np.ndarray) -> None:
    rules = state.rules
    deck, lay = rules.deck, rules.layout
    me, s = state.to_act, state.build_scandal
    hand, build = state.hands[me], state.build
    duty = state.duty if state.duty >= 0 and not build[state.duty] else -1
    f = state.forbidden if state.forbidden >= 0 and hand[state.forbidden] else -1
    k_size = 0
    k_bg = False
    cands: list[int] = []
    avail_bg = 0
    is_bg = deck.is_bg_list
    for c in deck.cards_of[s]:
        if build[c]:
            k_size += 1
            k_bg = k_bg or is_bg[c]
        elif hand[c]:
            cands.append(c)
            avail_bg += is_bg[c]
    nonf = state.hand_counts[me] - (f >= 0)
    for x in cands:
        xs = [x] if duty < 0 or x == duty else [x, duty]
        ks, kb, ab, an, nf = k_size, k_bg, avail_bg, len(cands), nonf
        for y in xs:
            ybg = is_bg[y]
            ks, kb, ab, an = ks + 1, kb or ybg, ab - ybg, an - 1
            nf -= y != f
        f_kind = 0
        if f >= 0 and f not in xs and deck.member[f, s]:
            f_kind = 1 if is_bg[f] else 2
        if _completable(ks, kb, ab, an, f_kind, nf):
            mask[lay.MELD_ADD + x] = 1
    if k_size >= 3 and k_bg and duty < 0 and nonf >= 1:
        mask[lay.MELD_FINISH] = 1


def why_illegal(state: State, action: int) -> str:
    """Why ``action`` is illegal now ("it is legal" if it is)."""
    rules = state.rules
    deck, lay = rules.deck, rules.layout
    a = int(action)
    if state.done or state.hand_over:
        return "the episode is over"
    if not 0 <= a < lay.size:
        return f"action ids run from 0 to {lay.size - 1}"
    if legal_mask(state)[a]:
        return "it is legal"
    phase = PHASE_NAMES[state.phase]
    kind, x = decode(lay, a)
    is_draw = kind in (Kind.DRAW_STOCK, Kind.DRAW_DISCARD)
    if is_draw != (state.phase == Phase.DRAW):
        return f"the turn is in its {phase} phase"
    if kind is Kind.DRAW_STOCK:
        return "there is nothing to draw"
    if kind is Kind.DRAW_DISCARD:
        if x >= len(state.pile):
            return f"the discard pile holds only {len(state.pile)} card(s)"
        return (
            "S3: a card drawn from deep in the pile must be melded at once, and "
            f"{deck.names[state.pile[-1 - x]]!r} could not be melded or laid off "
            "with a card left over"
        )
    if (kind in (Kind.MELD_ADD, Kind.MELD_FINISH)) != (state.phase == Phase.BUILD):
        if state.phase == Phase.BUILD:
            return "a meld is under construction: add a card of its scandal or finish it"
        return "no meld is under construction"
    hand = state.hands[state.to_act]
    if state.duty >= 0 and state.phase == Phase.MELD:
        return f"S3: {deck.names[state.duty]!r} drawn from the pile must be melded first"
    if kind is Kind.DISCARD:
        if not hand[x]:
            return f"{deck.names[x]!r} is not in the hand"
        return (
            "S7: the top discard drawn this turn (also as the only card of a "
            "turned-over pile) may not be discarded this turn"
        )
    if kind is Kind.MELD_START:
        if state.meld_owner[x] >= 0:
            return f"S5: {deck.scandal_names[x]!r} is already melded this hand"
        if not hand[deck.title_of[x]]:
            return f"S5: the title card of {deck.scandal_names[x]!r} is not in the hand"
        return (
            "S5/S8: the hand does not hold a blue or green card and one more card "
            "of the scandal with a discardable card left over"
        )
    if kind is Kind.MELD_ADD:
        if not hand[x]:
            return f"{deck.names[x]!r} is not in the hand"
        if not deck.member[x, state.build_scandal] or deck.is_title[x]:
            return f"{deck.names[x]!r} is not a card of the meld's scandal"
        return "S5/S8: the meld could then not be completed with a discardable card left over"
    if kind is Kind.MELD_FINISH:
        return "S5: a meld needs the title, a blue or green card and one more card" + (
            f" (S3: and {deck.names[state.duty]!r})" if state.duty >= 0 else ""
        )
    c, s = int(deck.pair_card[x]), int(deck.pair_scandal[x])  # Kind.LAYOFF
    if not hand[c]:
        return f"{deck.names[c]!r} is not in the hand"
    if state.meld_owner[s] < 0:
        return f"S6: {deck.scandal_names[s]!r} is not melded"
    return "S8: the last card that may be discarded cannot be laid off"
