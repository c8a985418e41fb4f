"""The Scandal rules engine: a plain state and pure functions over it.

A turn is split into phases, each a few steps of the same player:

* ``DRAW``: draw from the stock, or from the discard pile at some depth (S3, S4).
* ``MELD``: lay off cards (S6), start a meld (S5), or discard (S7, ends the turn).
* ``BUILD``: a meld under construction: add cards of its scandal, or finish it.

The legal mask only ever offers steps from which the turn can still be
finished legally, so it is never all zero for the player to act:

* a deep draw (S3) is offered only if the drawn card can then be melded or laid
  off with one card left over; the duty to meld it is honoured first (the rule
  book says "immediately"), and no discard is legal while it is pending;
* a meld is started or extended only if it can still be completed (S5) leaving
  a card that may be discarded (S7, S8);
* a lay-off never leaves the hand without a card that may be discarded.

Randomness comes only from the state's own ``numpy`` Generator; nothing
depends on set or dict order or on ``hash()``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scandal_env.actions import ActionLayout, describe, make_layout, pair_index
from scandal_env.config import ScandalConfig
from scandal_env.deck import Deck, load_deck
from scum_env.suite.errors import IllegalActionError, PresetError

PHASE_DRAW, PHASE_MELD, PHASE_BUILD = 0, 1, 2
PHASE_NAMES = ("draw", "meld", "build")
#: Why a hand ended: not yet, a player went out (S8), nothing to draw (S4),
#: the turn limit (S4).
END_NONE, END_OUT, END_BLOCKED, END_MAX_TURNS = "", "out", "blocked", "max_turns"


@dataclass(frozen=True, eq=False)
class Game:
    """The static part of a game: config, deck and action layout (shared, immutable)."""

    config: ScandalConfig
    deck: Deck
    layout: ActionLayout
    pair_of: np.ndarray
    title_member: np.ndarray


@functools.lru_cache(maxsize=32)
def make_game(config: ScandalConfig) -> Game:
    """The :class:`Game` of ``config`` (cached: the deck file is read once)."""
    deck = load_deck(config.deck)
    tm = (deck.member & deck.is_title[:, None]).astype(np.int8)
    tm.setflags(write=False)
    pair_of = pair_index(deck)
    pair_of.setflags(write=False)
    return Game(config, deck, make_layout(deck), pair_of, tm)


@dataclass(eq=False)
class State:
    """Everything about a game in progress (mutable; see :func:`clone`).

    Attributes:
        game: the static game (shared between clones).
        hands: bool[P, n] cards in each player's hand.
        known: bool[P, n] cards in a hand that every player knows are there
            (taken from the discard pile or from a turned-over stock).
        placed_by: int8[n] player who melded or laid off each card on the table (-1).
        placed_on: int8[n] scandal each table card lies on (-1).
        meld_owner: int8[16] player who melded each scandal this hand (-1).
        build: bool[n] cards in the meld under construction.
        build_scandal: scandal of the meld under construction (-1).
        pile: discard pile, bottom first (``pile[-1]`` is the top).
        stock: stock, bottom first (``stock[-1]`` is drawn next).
        stock_public: the stock was made by turning the discard pile over (S4).
        hand_counts: cards in each hand.
        current: player to act.
        phase: PHASE_DRAW, PHASE_MELD or PHASE_BUILD.
        duty: card drawn from deep in the pile that must be melded first (S3), -1.
        forbidden: top discard drawn this turn, which may not be discarded (S7), -1.
        turn: turns completed in this hand.
        dealer: dealer of this hand (S2).
        scores: cumulative scores (S9).
        hand_scores: net scores of the last finished hand (S9).
        step_scores: net scores of hands that ended during the last ``apply``.
        hand_number: 0 for the first hand of the game.
        hand_end: why the last hand ended (END_*), "" while it is in play.
        hand_over: the current hand is over (and no next hand was dealt).
        game_over: someone reached the target (S9).
        done: the episode is over (one hand or one game, per ``config.episode``).
        truncated: the episode ended by a limit (blocked hand, ``max_hands``).
        rng: the game's random generator (deals).
        mask_cache: the legal mask of this exact state, or None.
    """

    game: Game
    hands: np.ndarray
    known: np.ndarray
    placed_by: np.ndarray
    placed_on: np.ndarray
    meld_owner: np.ndarray
    build: np.ndarray
    build_scandal: int
    pile: list[int]
    stock: list[int]
    stock_public: bool
    hand_counts: list[int]
    current: int
    phase: int
    duty: int
    forbidden: int
    turn: int
    dealer: int
    scores: np.ndarray
    hand_scores: np.ndarray
    step_scores: np.ndarray
    hand_number: int
    hand_end: str
    hand_over: bool
    game_over: bool
    done: bool
    truncated: bool
    rng: np.random.Generator
    mask_cache: np.ndarray | None = field(default=None, repr=False)

    @property
    def num_players(self) -> int:
        """Number of players."""
        return int(self.hands.shape[0])

    def clone(self) -> State:
        """An independent copy (the static game is shared)."""
        return clone(self)


# ---------------------------------------------------------------- creation


def _copy_rng(rng: np.random.Generator) -> np.random.Generator:
    bg = type(rng.bit_generator)(0)
    bg.state = rng.bit_generator.state
    return np.random.Generator(bg)


def clone(state: State) -> State:
    """An independent copy of ``state`` (arrays, lists and RNG copied)."""
    return State(
        game=state.game,
        hands=state.hands.copy(),
        known=state.known.copy(),
        placed_by=state.placed_by.copy(),
        placed_on=state.placed_on.copy(),
        meld_owner=state.meld_owner.copy(),
        build=state.build.copy(),
        build_scandal=state.build_scandal,
        pile=list(state.pile),
        stock=list(state.stock),
        stock_public=state.stock_public,
        hand_counts=list(state.hand_counts),
        current=state.current,
        phase=state.phase,
        duty=state.duty,
        forbidden=state.forbidden,
        turn=state.turn,
        dealer=state.dealer,
        scores=state.scores.copy(),
        hand_scores=state.hand_scores.copy(),
        step_scores=state.step_scores.copy(),
        hand_number=state.hand_number,
        hand_end=state.hand_end,
        hand_over=state.hand_over,
        game_over=state.game_over,
        done=state.done,
        truncated=state.truncated,
        rng=_copy_rng(state.rng),
        mask_cache=state.mask_cache,
    )


def new_game(
    config: ScandalConfig, seed: int | None = None, preset: dict[str, Any] | None = None
) -> State:
    """A new game with its first hand dealt (S2: the first dealer is random).

    Args:
        config: the game options.
        seed: seeds the game's RNG (deals); the same seed gives the same game.
        preset: a preset first deal, see :func:`new_hand`.
    """
    game = make_game(config)
    n, p, ns = game.deck.n_cards, config.num_players, game.deck.n_scandals
    rng = np.random.default_rng(seed)
    state = State(
        game=game,
        hands=np.zeros((p, n), dtype=bool),
        known=np.zeros((p, n), dtype=bool),
        placed_by=np.full(n, -1, dtype=np.int8),
        placed_on=np.full(n, -1, dtype=np.int8),
        meld_owner=np.full(ns, -1, dtype=np.int8),
        build=np.zeros(n, dtype=bool),
        build_scandal=-1,
        pile=[],
        stock=[],
        stock_public=False,
        hand_counts=[0] * p,
        current=0,
        phase=PHASE_DRAW,
        duty=-1,
        forbidden=-1,
        turn=0,
        dealer=int(rng.integers(p)),
        scores=np.zeros(p, dtype=np.int64),
        hand_scores=np.zeros(p, dtype=np.int64),
        step_scores=np.zeros(p, dtype=np.int64),
        hand_number=0,
        hand_end=END_NONE,
        hand_over=False,
        game_over=False,
        done=False,
        truncated=False,
        rng=rng,
    )
    _deal(state, state.dealer, preset)
    return state


def new_hand(state: State, preset: dict[str, Any] | None = None) -> None:
    """Deal the next hand in place (S2: the deal passes to the next seat).

    Args:
        state: a game whose current hand is over (or any state, to re-deal).
        preset: optional fixed deal: ``{"hands": [[card names or ids], ...]
            (one list per player), "discard": [top, ..., bottom], "stock":
            [top, ..., bottom], "dealer": k}``. ``hands`` is required; each
            card must appear exactly once; ``discard`` omitted = one card
            turned up from the shuffled rest; ``stock`` omitted = the shuffled
            rest; ``dealer`` omitted = the next dealer in rotation.

    Raises:
        PresetError: the preset is malformed (names the problem).
    """
    state.hand_number += 1
    _deal(state, (state.dealer + 1) % state.num_players, preset)


def _deal(state: State, dealer: int, preset: dict[str, Any] | None) -> None:
    game = state.game
    deck = game.deck
    p, n = state.num_players, deck.n_cards
    if preset is None:
        order = [int(c) for c in state.rng.permutation(n)]
        hand_size = game.config.hand_size
        hands: list[list[int]] = [[] for _ in range(p)]
        # S2: dealt one at a time, starting at the dealer's left.
        for i in range(hand_size * p):
            hands[(dealer + 1 + i) % p].append(order[i])
        pile = [order[hand_size * p]]
        stock = order[hand_size * p + 1 :][::-1]  # the next card dealt is the top
    else:
        hands, pile, stock, dealer = _parse_preset(state, preset, dealer)
    state.hands[:] = False
    state.known[:] = False
    for i, cards in enumerate(hands):
        state.hands[i, cards] = True
    state.hand_counts = [len(h) for h in hands]
    state.placed_by[:] = -1
    state.placed_on[:] = -1
    state.meld_owner[:] = -1
    state.build[:] = False
    state.build_scandal = -1
    state.pile = pile
    state.stock = stock
    state.stock_public = False
    state.dealer = dealer
    state.current = (dealer + 1) % p  # S2: non-dealer (2p) / dealer's left
    state.phase = PHASE_DRAW
    state.duty = state.forbidden = -1
    state.turn = 0
    state.hand_end = END_NONE
    state.hand_over = False
    state.mask_cache = None
    if not state.stock and not state.pile:
        _end_hand(state, END_BLOCKED)


def _parse_preset(
    state: State, preset: dict[str, Any], dealer: int
) -> tuple[list[list[int]], list[int], list[int], int]:
    deck = state.game.deck
    p, n = state.num_players, deck.n_cards
    if not isinstance(preset, dict):
        raise PresetError(f"a preset must be a dict, got {type(preset).__name__}")
    unknown = sorted(set(preset) - {"hands", "discard", "stock", "dealer"})
    if unknown:
        raise PresetError(f"unknown preset key(s) {unknown}; use hands, discard, stock, dealer")
    if "hands" not in preset:
        raise PresetError("a preset needs 'hands': one list of cards per player")
    raw_hands = preset["hands"]
    if not isinstance(raw_hands, list | tuple) or len(raw_hands) != p:
        raise PresetError(f"preset 'hands' must list {p} hands (one per player)")
    seen: dict[int, str] = {}

    def cards_of(raw: Any, where: str) -> list[int]:
        if not isinstance(raw, list | tuple):
            raise PresetError(f"preset {where} must be a list of card names or ids")
        out = []
        for ref in raw:
            try:
                c = deck.card_id(ref)
            except KeyError:
                raise PresetError(f"preset {where}: unknown card {ref!r}") from None
            if c in seen:
                raise PresetError(
                    f"preset {where}: card {deck.names[c]!r} is duplicated (also in {seen[c]})"
                )
            seen[c] = where
            out.append(c)
        return out

    hands = [cards_of(h, f"hand {i}") for i, h in enumerate(raw_hands)]
    for i, h in enumerate(hands):
        if not h:
            raise PresetError(f"preset hand {i} is empty; every player needs at least one card")
    pile = cards_of(preset["discard"], "discard")[::-1] if "discard" in preset else None
    stock = cards_of(preset["stock"], "stock")[::-1] if "stock" in preset else None
    rest = [c for c in range(n) if c not in seen]
    if stock is not None and (pile is not None or rest):
        if pile is None and rest:
            pile = rest[-1:]
            rest = rest[:-1]
        if rest:
            names = ", ".join(repr(deck.names[c]) for c in rest[:5])
            raise PresetError(
                f"preset leaves {len(rest)} card(s) unaccounted for ({names}...): "
                "every card must be in a hand, the discard pile or the stock"
            )
    if stock is None:
        order = [rest[int(i)] for i in state.rng.permutation(len(rest))]
        if pile is None:
            pile = order[:1]
            order = order[1:]
        stock = order[::-1]
    assert pile is not None
    if "dealer" in preset:
        k = preset["dealer"]
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < p:
            raise PresetError(f"preset dealer must be a seat 0..{p - 1}, got {k!r}")
        dealer = k
    return hands, pile, stock, dealer


# ---------------------------------------------------------------- queries


def current_player(state: State) -> int:
    """The player to act."""
    return state.current


def legal_mask(state: State) -> np.ndarray:
    """int8[num_actions] legal actions of the player to act (read-only, cached).

    All zero once the episode is over; never all zero otherwise.
    """
    mask = state.mask_cache
    if mask is None:
        mask = np.zeros(state.game.layout.size, dtype=np.int8)
        if not state.done and not state.hand_over:
            if state.phase == PHASE_DRAW:
                _mask_draw(state, mask)
            elif state.phase == PHASE_MELD:
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

    ``meld`` has four columns per scandal: its blue/green cards, its non-title
    cards, its title and a zero column; ``hand @ meld >= need`` then holds four
    true bytes for each scandal whose minimal meld (S5: title, a blue or green
    card, one more) is in the hand, read as one ``uint32`` per scandal.
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
    lay = state.game.layout
    if state.stock or state.pile:
        mask[lay.DRAW_STOCK] = 1  # S4: an empty stock is made from the pile
    npile = len(state.pile)
    if npile:
        mask[lay.DRAW_DISCARD] = 1
    if npile >= 2:
        deep = _deep_draw_ok(state)
        mask[lay.DRAW_DISCARD + 1 : lay.DRAW_DISCARD + npile] = deep[1:]


def _deep_draw_ok(state: State) -> list[bool]:
    """May the card at each depth of the pile be drawn with its duty (S3)?

    The card at depth d can be honoured if one of its scandals is melded (lay
    it off), or if the hand plus the d+1 cards taken hold a minimal meld of
    one of its scandals (title, blue/green, one more, S5) with a card left
    over (S8). Walks the pile from the top, counting what would be taken.
    """
    deck = state.game.deck
    tables = _mask_tables(deck)
    counts = tables.counts(state.hands[state.current])
    bg, nt, title = counts[0::4], counts[1::4], counts[2::4]
    melded = tables.melded(state.meld_owner)[0]
    is_bg, is_title, scandals_of = deck.is_bg_list, deck.is_title_list, deck.scandals_of
    size = state.hand_counts[state.current]
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
        ok = False
        for s in ss:
            if melded[s] or (title[s] and bg[s] >= 1 and nt[s] >= 2 and size >= 4):
                ok = True
                break
        out.append(ok)
    return out


def _mask_meld(state: State, mask: np.ndarray) -> None:
    game = state.game
    deck, lay = game.deck, game.layout
    tables = _mask_tables(deck)
    me = state.current
    hand = state.hands[me]
    size = state.hand_counts[me]
    melded, melded_arr, pair_melded = tables.melded(state.meld_owner)
    if state.duty >= 0:  # S3: honour the duty first
        c = state.duty
        meldable = tables.meldable(hand)
        for s in deck.scandals_of[c]:
            if melded[s]:
                mask[lay.LAYOFF + game.pair_of[c, s]] = 1
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
                pair = game.pair_of[f, s]  # -1 for a title card: never laid off
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
    game = state.game
    deck, lay = game.deck, game.layout
    me, s = state.current, state.build_scandal
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


# ---------------------------------------------------------------- apply


def apply(state: State, action: int) -> None:
    """Apply ``action`` for the player to act (mutates ``state``).

    Raises:
        IllegalActionError: the action is illegal; the message names it in
            words and says why. The state is unchanged.
    """
    game = state.game
    lay = game.layout
    a = int(action)
    if not 0 <= a < lay.size or not legal_mask(state)[a]:
        raise IllegalActionError(
            f"player {state.current}: illegal action {a} "
            f"({describe(lay, game.deck, a)}): {why_illegal(state, a)}"
        )
    apply_unchecked(state, a)


def apply_unchecked(state: State, action: int) -> None:
    """Apply ``action`` without checking that it is legal (for tests and search).

    Only physically possible actions (the card is where the action needs it)
    may be passed; anything else corrupts the state.
    """
    game = state.game
    lay = game.layout
    a = int(action)
    state.mask_cache = None
    state.step_scores[:] = 0
    if a == lay.DRAW_STOCK:
        _draw_stock(state)
    elif a < lay.MELD_START:
        _draw_discard(state, a - lay.DRAW_DISCARD)
    elif a < lay.MELD_ADD:
        _meld_start(state, a - lay.MELD_START)
    elif a < lay.MELD_FINISH:
        _move_to_build(state, a - lay.MELD_ADD)
    elif a == lay.MELD_FINISH:
        _meld_finish(state)
    elif a < lay.DISCARD:
        p = a - lay.LAYOFF
        _layoff(state, int(game.deck.pair_card[p]), int(game.deck.pair_scandal[p]))
    else:
        _discard(state, a - lay.DISCARD)


def _take(state: State, card: int, public: bool) -> None:
    me = state.current
    state.hands[me, card] = True
    state.known[me, card] = public
    state.hand_counts[me] += 1


def _remove(state: State, card: int) -> None:
    me = state.current
    state.hands[me, card] = False
    state.known[me, card] = False
    state.hand_counts[me] -= 1


def _draw_stock(state: State) -> None:
    if not state.stock:  # S4: turn the pile over, oldest discard on top
        state.stock = state.pile[::-1]
        state.pile = []
        state.stock_public = True
    _take(state, state.stock.pop(), state.stock_public)
    state.phase = PHASE_MELD


def _draw_discard(state: State, depth: int) -> None:
    taken = state.pile[len(state.pile) - 1 - depth :]
    del state.pile[len(state.pile) - 1 - depth :]
    for c in taken:
        _take(state, c, True)
    if depth == 0:
        state.forbidden = taken[0]  # S7
    else:
        state.duty = taken[0]  # S3
    state.phase = PHASE_MELD


def _meld_start(state: State, s: int) -> None:
    state.build_scandal = s
    _move_to_build(state, int(state.game.deck.title_of[s]))
    state.phase = PHASE_BUILD


def _move_to_build(state: State, card: int) -> None:
    _remove(state, card)
    state.build[card] = True


def _meld_finish(state: State) -> None:
    s, me = state.build_scandal, state.current
    cards = np.flatnonzero(state.build)
    state.placed_by[cards] = me
    state.placed_on[cards] = s
    state.meld_owner[s] = me
    if state.duty >= 0 and state.build[state.duty]:
        state.duty = -1
    state.build[:] = False
    state.build_scandal = -1
    state.phase = PHASE_MELD


def _layoff(state: State, card: int, s: int) -> None:
    _remove(state, card)
    state.placed_by[card] = state.current
    state.placed_on[card] = s
    if card == state.duty:
        state.duty = -1


def _discard(state: State, card: int) -> None:
    _remove(state, card)
    state.pile.append(card)
    state.duty = state.forbidden = -1
    if state.hand_counts[state.current] == 0:  # S8: going out ends the hand at once
        _end_hand(state, END_OUT)
        return
    state.turn += 1
    if state.turn >= state.game.config.max_turns:
        _end_hand(state, END_MAX_TURNS)
        return
    state.current = (state.current + 1) % state.num_players
    state.phase = PHASE_DRAW
    if not state.stock and not state.pile:
        _end_hand(state, END_BLOCKED)


def _end_hand(state: State, why: str) -> None:
    """Score the hand (S9) and end the episode or deal the next hand."""
    deck, cfg = state.game.deck, state.game.config
    value = deck.value.astype(np.int64)
    p = state.num_players
    scores = np.zeros(p, dtype=np.int64)
    for i in range(p):
        scores[i] = value[state.placed_by == i].sum() - value[state.hands[i]].sum()
    state.hand_scores[:] = scores
    state.step_scores += scores
    state.scores += scores
    state.hand_end = why
    state.hand_over = True
    state.phase = PHASE_DRAW
    state.mask_cache = None
    state.game_over = bool(state.scores.max() >= cfg.target_score)
    blocked = why != END_OUT
    if cfg.episode == "hand":
        state.done = True
        state.truncated = blocked
    elif state.game_over:
        state.done = True
        state.truncated = False
    elif state.hand_number + 1 >= cfg.max_hands:
        state.done = True
        state.truncated = True
    else:
        new_hand(state)


def why_illegal(state: State, action: int) -> str:
    """Why ``action`` is illegal now ("it is legal" if it is)."""
    game = state.game
    deck, lay = game.deck, game.layout
    a = int(action)
    if state.done or state.hand_over:
        return "the episode is over"
    if not 0 <= a < lay.size:
        return f"action ids run from 0 to {lay.size - 1}"
    if legal_mask(state)[a]:
        return "it is legal"
    phase = PHASE_NAMES[state.phase]
    is_draw = a < lay.MELD_START
    if is_draw != (state.phase == PHASE_DRAW):
        return f"the turn is in its {phase} phase"
    if a == lay.DRAW_STOCK:
        return "there is nothing to draw"
    if a < lay.MELD_START:
        d = a - lay.DRAW_DISCARD
        if d >= len(state.pile):
            return f"the discard pile holds only {len(state.pile)} card(s)"
        return (
            "S3: a card drawn from deep in the pile must be melded at once, and "
            f"{deck.names[state.pile[-1 - d]]!r} could not be melded or laid off "
            "with a card left over"
        )
    if (a in (lay.MELD_FINISH,) or lay.MELD_ADD <= a < lay.MELD_FINISH) != (
        state.phase == PHASE_BUILD
    ):
        if state.phase == PHASE_BUILD:
            return "a meld is under construction: add a card of its scandal or finish it"
        return "no meld is under construction"
    hand = state.hands[state.current]
    if state.duty >= 0 and state.phase == PHASE_MELD:
        return f"S3: {deck.names[state.duty]!r} drawn from the pile must be melded first"
    if a >= lay.DISCARD:
        c = a - lay.DISCARD
        if not hand[c]:
            return f"{deck.names[c]!r} is not in the hand"
        return "S7: the top discard drawn this turn may not be discarded this turn"
    if lay.MELD_START <= a < lay.MELD_ADD:
        s = a - lay.MELD_START
        if state.meld_owner[s] >= 0:
            return f"S5: {deck.scandal_names[s]!r} is already melded this hand"
        if not hand[deck.title_of[s]]:
            return f"S5: the title card of {deck.scandal_names[s]!r} is not in the hand"
        return (
            "S5/S8: the hand does not hold a blue or green card and one more card "
            "of the scandal with a discardable card left over"
        )
    if lay.MELD_ADD <= a < lay.MELD_FINISH:
        c = a - lay.MELD_ADD
        if not hand[c]:
            return f"{deck.names[c]!r} is not in the hand"
        if not deck.member[c, state.build_scandal] or deck.is_title[c]:
            return f"{deck.names[c]!r} is not a card of the meld's scandal"
        return "S5/S8: the meld could then not be completed with a discardable card left over"
    if a == lay.MELD_FINISH:
        return "S5: a meld needs the title, a blue or green card and one more card" + (
            f" (S3: and {deck.names[state.duty]!r})" if state.duty >= 0 else ""
        )
    p = a - lay.LAYOFF
    c, s = int(deck.pair_card[p]), int(deck.pair_scandal[p])
    if not hand[c]:
        return f"{deck.names[c]!r} is not in the hand"
    if state.meld_owner[s] < 0:
        return f"S6: {deck.scandal_names[s]!r} is not melded"
    return "S8: the last card that may be discarded cannot be laid off"


# ---------------------------------------------------------------- results


def returns(state: State) -> np.ndarray:
    """float64[P] cumulative scores of the game so far (S9)."""
    result: np.ndarray = state.scores.astype(np.float64)
    return result


def winners(state: State) -> list[int]:
    """Players with the highest total (S9); several on a tie."""
    best = state.scores.max()
    return [int(i) for i in np.flatnonzero(state.scores == best)]


def check_cards(state: State) -> None:
    """Assert every card is in exactly one place (hands, build, table, pile, stock)."""
    n = state.game.deck.n_cards
    count = state.hands.sum(axis=0).astype(np.int64)
    count += state.build
    count += state.placed_by >= 0
    count += np.bincount(np.array(state.pile, dtype=np.intp), minlength=n)
    count += np.bincount(np.array(state.stock, dtype=np.intp), minlength=n)
    if not (count == 1).all():
        bad = np.flatnonzero(count != 1)
        raise AssertionError(f"cards not in exactly one place: {bad.tolist()}")


# ---------------------------------------------------------------- hidden information


def resample_hidden(state: State, observer: int, rng: np.random.Generator) -> State:
    """A copy of ``state`` with what ``observer`` cannot see dealt anew.

    The cards of the opponents' hands that are not public and the stock (unless
    it was made by turning over the discard pile, S4, and so is public) are
    shuffled and dealt back into the same places: hand sizes, the stock size,
    the observer's hand, the table, the pile and every public card in an
    opponent's hand (one taken from the discard pile) are kept.

    Args:
        state: the true state.
        observer: the seat whose knowledge is kept.
        rng: the randomness of the re-deal; the copy's own RNG is reseeded from it.
    """
    out = clone(state)
    p = state.num_players
    hidden_slots: list[tuple[int, int]] = []  # (seat, count); seat -1 = stock
    pool: list[int] = []
    for off in range(1, p):
        seat = (observer + off) % p
        secret = np.flatnonzero(state.hands[seat] & ~state.known[seat])
        pool.extend(int(c) for c in secret)
        hidden_slots.append((seat, len(secret)))
        out.hands[seat, secret] = False
    if not state.stock_public:
        pool.extend(state.stock)
        hidden_slots.append((-1, len(state.stock)))
    order = [pool[int(i)] for i in rng.permutation(len(pool))]
    pos = 0
    for seat, count in hidden_slots:
        chunk = order[pos : pos + count]
        pos += count
        if seat < 0:
            out.stock = chunk
        else:
            out.hands[seat, chunk] = True
    out.rng = np.random.default_rng(int(rng.integers(2**63 - 1)))
    out.mask_cache = None
    return out


# ---------------------------------------------------------------- serialization

_JSON_VERSION = 1
_ARRAY_FIELDS = {
    "hands": ("bool", 2),
    "known": ("bool", 2),
    "placed_by": ("int8", 1),
    "placed_on": ("int8", 1),
    "meld_owner": ("int8", 1),
    "build": ("bool", 1),
    "scores": ("int64", 1),
    "hand_scores": ("int64", 1),
    "step_scores": ("int64", 1),
}
_INT_FIELDS = (
    "build_scandal",
    "current",
    "phase",
    "duty",
    "forbidden",
    "turn",
    "dealer",
    "hand_number",
)
_BOOL_FIELDS = ("stock_public", "hand_over", "game_over", "done", "truncated")


def to_json(state: State) -> str:
    """The state as a JSON string (exact: RNG state included)."""
    import json

    data: dict[str, Any] = {
        "format": "cardsuite-scandal-state",
        "version": _JSON_VERSION,
        "config": state.game.config.to_dict(),
        "pile": [int(c) for c in state.pile],
        "stock": [int(c) for c in state.stock],
        "hand_end": state.hand_end,
        "rng": state.rng.bit_generator.state,
    }
    for name in _ARRAY_FIELDS:
        data[name] = getattr(state, name).tolist()
    for name in _INT_FIELDS:
        data[name] = int(getattr(state, name))
    for name in _BOOL_FIELDS:
        data[name] = bool(getattr(state, name))
    return json.dumps(data, sort_keys=True)


def from_json(text: str) -> State:
    """Rebuild a state from :func:`to_json` output.

    Raises:
        StateError: the text is not valid JSON, a field is missing or of the
            wrong type or shape, the config is invalid, or the cards are not
            each in exactly one place.
    """
    import json

    from scum_env.suite.errors import CardsuiteError, StateError

    try:
        data = json.loads(text)
    except (json.JSONDecodeError, TypeError) as err:
        raise StateError(f"state is not valid JSON: {err}") from None
    if not isinstance(data, dict) or data.get("format") != "cardsuite-scandal-state":
        raise StateError("not a Scandal state (missing format 'cardsuite-scandal-state')")
    if data.get("version") != _JSON_VERSION:
        raise StateError(f"unsupported state version {data.get('version')!r}")
    needed = {"config", "pile", "stock", "hand_end", "rng"} | set(_ARRAY_FIELDS)
    needed |= set(_INT_FIELDS) | set(_BOOL_FIELDS)
    missing = sorted(needed - set(data))
    if missing:
        raise StateError(f"state is missing field(s) {missing}")
    try:
        config = ScandalConfig.from_dict(data["config"], source="state config")
        game = make_game(config)
    except CardsuiteError as err:
        raise StateError(f"state config is invalid: {err}") from None
    p, n, ns = config.num_players, game.deck.n_cards, game.deck.n_scandals
    shapes = {"hands": (p, n), "known": (p, n), "placed_by": (n,), "placed_on": (n,)}
    shapes |= {"meld_owner": (ns,), "build": (n,), "scores": (p,)}
    shapes |= {"hand_scores": (p,), "step_scores": (p,)}
    arrays: dict[str, np.ndarray] = {}
    for name, (dtype, _) in _ARRAY_FIELDS.items():
        try:
            arr = np.array(data[name], dtype=dtype)
        except (TypeError, ValueError, OverflowError) as err:
            raise StateError(f"state field {name!r} is not a {dtype} array: {err}") from None
        if arr.shape != shapes[name]:
            raise StateError(f"state field {name!r} has shape {arr.shape}, expected {shapes[name]}")
        arrays[name] = arr
    for name in _INT_FIELDS:
        if not isinstance(data[name], int) or isinstance(data[name], bool):
            raise StateError(f"state field {name!r} must be an int, got {data[name]!r}")
    for name in _BOOL_FIELDS:
        if not isinstance(data[name], bool):
            raise StateError(f"state field {name!r} must be a bool, got {data[name]!r}")
    for name in ("pile", "stock"):
        seq = data[name]
        if not isinstance(seq, list) or not all(
            isinstance(c, int) and not isinstance(c, bool) and 0 <= c < n for c in seq
        ):
            raise StateError(f"state field {name!r} must be a list of card ids 0..{n - 1}")
    if not 0 <= data["current"] < p or not 0 <= data["dealer"] < p:
        raise StateError(f"state 'current'/'dealer' must be seats 0..{p - 1}")
    if data["phase"] not in (PHASE_DRAW, PHASE_MELD, PHASE_BUILD):
        raise StateError(f"state 'phase' must be 0, 1 or 2, got {data['phase']}")
    if data["hand_end"] not in (END_NONE, END_OUT, END_BLOCKED, END_MAX_TURNS):
        raise StateError(f"state 'hand_end' is not a known reason: {data['hand_end']!r}")
    try:
        bg_cls = getattr(np.random, data["rng"]["bit_generator"])
        bg = bg_cls(0)
        bg.state = data["rng"]
    except (AttributeError, KeyError, TypeError, ValueError) as err:
        raise StateError(f"state 'rng' is not a numpy bit generator state: {err}") from None
    fields: dict[str, Any] = {**arrays}
    fields |= {name: data[name] for name in _INT_FIELDS + _BOOL_FIELDS}
    state = State(
        game=game,
        pile=list(data["pile"]),
        stock=list(data["stock"]),
        hand_counts=[int(x) for x in arrays["hands"].sum(axis=1)],
        hand_end=data["hand_end"],
        rng=np.random.Generator(bg),
        **fields,
    )
    try:
        check_cards(state)
    except AssertionError as err:
        raise StateError(f"state is inconsistent: {err}") from None
    return state
