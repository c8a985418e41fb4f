"""The Scandal rules engine: a plain state and pure functions over it.

A turn is split into phases (`Phase`: ``DRAW``, ``MELD``, ``BUILD``), each a
few steps of the same player. This module deals hands, applies actions and
scores, and re-exports its sibling modules' names (the legal mask, resampling,
JSON). Randomness comes only from the state's own ``numpy`` Generator.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardsuite.errors import IllegalActionError
from scandal_env import state as _state
from scandal_env.actions import Kind, decode, describe
from scandal_env.config import ScandalConfig
from scandal_env.masks import legal_actions, legal_mask, why_illegal
from scandal_env.preset import parse_preset
from scandal_env.serialize import from_json, to_json
from scandal_env.state import (
    END_BLOCKED,
    END_MAX_TURNS,
    END_NONE,
    END_OUT,
    PHASE_BUILD,
    PHASE_DRAW,
    PHASE_MELD,
    PHASE_NAMES,
    Phase,
    Rules,
    State,
    check_cards,
    clone,
    make_rules,
    resample_hidden,
)

__all__ = [
    "END_BLOCKED",
    "END_MAX_TURNS",
    "END_NONE",
    "END_OUT",
    "PHASE_BUILD",
    "PHASE_DRAW",
    "PHASE_MELD",
    "PHASE_NAMES",
    "Phase",
    "Rules",
    "State",
    "apply",
    "apply_unchecked",
    "check_cards",
    "clone",
    "current_player",
    "from_json",
    "legal_actions",
    "legal_mask",
    "make_rules",
    "new_game",
    "new_hand",
    "resample_hidden",
    "returns",
    "to_json",
    "why_illegal",
    "winners",
]


def new_game(
    config: ScandalConfig, seed: int | None = None, preset: dict[str, Any] | None = None
) -> State:
    """A new game with its first hand dealt (S2: the first dealer is random).

    Args:
        config: the game options.
        seed: seeds the game's RNG (deals); the same seed gives the same game.
        preset: a preset first deal, see [`new_hand`][scandal_env.engine.new_hand].
    """
    rules = make_rules(config)
    n, p, ns = rules.deck.n_cards, config.num_players, rules.deck.n_scandals
    rng = np.random.default_rng(seed)
    state = State(
        rules=rules,
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
        to_act=0,
        phase=Phase.DRAW,
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
        preset: optional fixed deal ``{"hands": [[cards], ...], "discard":
            [top, ..., bottom], "stock": [top, ..., bottom], "dealer": k}``:
            ``hands`` required, each card once; ``discard`` omitted = one card
            turned up, ``stock`` omitted = the shuffled rest, ``dealer``
            omitted = the next in rotation.

    Raises:
        PresetError: the preset is malformed (names the problem).
    """
    state.hand_number += 1
    _deal(state, (state.dealer + 1) % state.num_players, preset)


def _deal(state: State, dealer: int, preset: dict[str, Any] | None) -> None:
    rules = state.rules
    deck = rules.deck
    p, n = state.num_players, deck.n_cards
    if preset is None:
        order = [int(c) for c in state.rng.permutation(n)]
        hand_size = rules.config.hand_size
        hands: list[list[int]] = [[] for _ in range(p)]
        # S2: dealt one at a time, starting at the dealer's left.
        for i in range(hand_size * p):
            hands[(dealer + 1 + i) % p].append(order[i])
        pile = [order[hand_size * p]]
        stock = order[hand_size * p + 1 :][::-1]  # the next card dealt is the top
    else:
        hands, pile, stock, dealer = parse_preset(state, preset, dealer)
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
    state.to_act = (dealer + 1) % p  # S2: non-dealer (2p) / dealer's left
    state.phase = Phase.DRAW
    state.duty = state.forbidden = -1
    state.turn = 0
    state.hand_end = END_NONE
    state.hand_over = False
    state.mask_cache = None
    if not state.stock and not state.pile:
        _end_hand(state, END_BLOCKED)


def current_player(state: State) -> int:
    """The player to act."""
    return state.to_act


def apply(state: State, action: int) -> None:
    """Apply ``action`` for the player to act (mutates ``state``).

    Raises:
        IllegalActionError: the action is illegal; the message names it in
            words and says why. The state is unchanged.
    """
    rules = state.rules
    lay = rules.layout
    a = int(action)
    if not 0 <= a < lay.size or not legal_mask(state)[a]:
        raise IllegalActionError(
            f"player {state.to_act}: illegal action {a} "
            f"({describe(lay, rules.deck, a)}): {why_illegal(state, a)}"
        )
    apply_unchecked(state, a)


def apply_unchecked(state: State, action: int) -> None:
    """Apply ``action`` without checking that it is legal (for the env, tests and search);
    an action that is not even possible corrupts the state."""
    deck = state.rules.deck
    kind, x = decode(state.rules.layout, action)
    state.mask_cache = None
    state.step_scores[:] = 0
    if kind is Kind.DRAW_STOCK:
        _draw_stock(state)
    elif kind is Kind.DRAW_DISCARD:
        _draw_discard(state, x)
    elif kind is Kind.MELD_START:
        _meld_start(state, x)
    elif kind is Kind.MELD_ADD:
        _move_to_build(state, x)
    elif kind is Kind.MELD_FINISH:
        _meld_finish(state)
    elif kind is Kind.LAYOFF:
        _layoff(state, int(deck.pair_card[x]), int(deck.pair_scandal[x]))
    else:
        _discard(state, x)


def _take(state: State, card: int, public: bool) -> None:
    me = state.to_act
    state.hands[me, card] = True
    state.known[me, card] = public
    state.hand_counts[me] += 1


def _remove(state: State, card: int) -> None:
    me = state.to_act
    state.hands[me, card] = False
    state.known[me, card] = False
    state.hand_counts[me] -= 1


def _draw_stock(state: State) -> None:
    if not state.stock:  # S4: turn the pile over, oldest discard on top
        state.stock = state.pile[::-1]
        state.pile = []
        state.stock_public = True
        if len(state.stock) == 1:  # S7: that card is the top discard: not discarded now
            state.forbidden = state.stock[0]
    _take(state, state.stock.pop(), state.stock_public)
    state.phase = Phase.MELD


def _draw_discard(state: State, depth: int) -> None:
    taken = state.pile[len(state.pile) - 1 - depth :]
    del state.pile[len(state.pile) - 1 - depth :]
    for c in taken:
        _take(state, c, True)
    if depth == 0:
        state.forbidden = taken[0]  # S7
    else:
        state.duty = taken[0]  # S3
    state.phase = Phase.MELD


def _meld_start(state: State, s: int) -> None:
    state.build_scandal = s
    _move_to_build(state, int(state.rules.deck.title_of[s]))
    state.phase = Phase.BUILD


def _move_to_build(state: State, card: int) -> None:
    _remove(state, card)
    state.build[card] = True


def _meld_finish(state: State) -> None:
    s, me = state.build_scandal, state.to_act
    cards = np.flatnonzero(state.build)
    state.placed_by[cards] = me
    state.placed_on[cards] = s
    state.meld_owner[s] = me
    if state.duty >= 0 and state.build[state.duty]:
        state.duty = -1
    state.build[:] = False
    state.build_scandal = -1
    state.phase = Phase.MELD


def _layoff(state: State, card: int, s: int) -> None:
    _remove(state, card)
    state.placed_by[card] = state.to_act
    state.placed_on[card] = s
    if card == state.duty:
        state.duty = -1


def _discard(state: State, card: int) -> None:
    _remove(state, card)
    state.pile.append(card)
    state.duty = state.forbidden = -1
    if state.hand_counts[state.to_act] == 0:  # S8: going out ends the hand at once
        _end_hand(state, END_OUT)
        return
    state.turn += 1
    if state.turn >= state.rules.config.max_turns:
        _end_hand(state, END_MAX_TURNS)
        return
    state.to_act = (state.to_act + 1) % state.num_players
    state.phase = Phase.DRAW
    if not state.stock and not state.pile:
        _end_hand(state, END_BLOCKED)


def _end_hand(state: State, why: str) -> None:
    """Score the hand (S9) and end the episode or deal the next hand."""
    deck, cfg = state.rules.deck, state.rules.config
    value = deck.value.astype(np.int64)
    placed = state.placed_by == np.arange(state.num_players)[:, None]  # [P, n]
    scores = (placed.astype(np.int64) - state.hands) @ value  # table minus hand (S9)
    state.hand_scores[:] = scores
    state.step_scores += scores
    state.scores += scores
    state.hand_end = why
    state.hand_over = True
    state.phase = Phase.DRAW
    state.mask_cache = None
    state.game_over = bool(state.scores.max() >= cfg.target_score)
    if cfg.episode == "hand":  # truncated: a blocked hand (S4)
        state.done, state.truncated = True, why != END_OUT
    elif state.game_over or state.hand_number + 1 >= cfg.max_hands:
        state.done, state.truncated = True, not state.game_over  # I9: max_hands
    else:
        new_hand(state)


def returns(state: State) -> np.ndarray:
    """float64[P] cumulative scores of the game so far (S9)."""
    result: np.ndarray = state.scores.astype(np.float64)
    return result


def winners(state: State) -> list[int]:
    """Players with the highest total (S9); several on a tie."""
    best = state.scores.max()
    return [int(i) for i in np.flatnonzero(state.scores == best)]


def __getattr__(name: str) -> Any:
    """``Game`` and ``make_game``: the deprecated names of `Rules` and `make_rules`."""
    if name in ("Game", "make_game"):
        return _state.__getattr__(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
