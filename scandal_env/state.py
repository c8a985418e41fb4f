"""Scandal game data: the static `Rules`, the mutable `State`, the `Phase`, and resampling
what a player cannot see (`resample_hidden`).

The rules that change a state live in [`scandal_env.engine`][scandal_env.engine].
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np

from scandal_env.actions import ActionLayout, make_layout, pair_index
from scandal_env.config import ScandalConfig
from scandal_env.deck import Deck, load_deck


class Phase(IntEnum):
    """The phases of a turn, each a few steps of the same player.

    * ``DRAW``: draw from the stock, or from the discard pile at some depth (S3, S4).
    * ``MELD``: lay off cards (S6), start a meld (S5), or discard (S7, ends the turn).
    * ``BUILD``: a meld under construction: add cards of its scandal, or finish it.
    """

    DRAW = 0
    MELD = 1
    BUILD = 2


#: The phases as module constants (older callers).
PHASE_DRAW, PHASE_MELD, PHASE_BUILD = Phase.DRAW, Phase.MELD, Phase.BUILD
#: Phase names in words, indexed by phase.
PHASE_NAMES = ("draw", "meld", "build")
#: Why a hand ended: not yet, a player went out (S8), nothing to draw (S4),
#: the turn limit (S4).
END_NONE, END_OUT, END_BLOCKED, END_MAX_TURNS = "", "out", "blocked", "max_turns"


@dataclass(frozen=True, eq=False)
class Rules:
    """The static part of a game: config, deck and action layout (shared, immutable).

    Attributes:
        config: the game options.
        deck: the validated deck (S1).
        layout: the action ids.
        pair_of: int16[n_cards, n_scandals] lay-off pair of (card, scandal), -1 if none.
    """

    config: ScandalConfig
    deck: Deck
    layout: ActionLayout
    pair_of: np.ndarray

    @property
    def num_players(self) -> int:
        """Number of players."""
        return self.config.num_players


@functools.lru_cache(maxsize=32)
def make_rules(config: ScandalConfig) -> Rules:
    """The `Rules` of ``config`` (cached: the deck file is read once)."""
    deck = load_deck(config.deck)
    pair_of = pair_index(deck)
    pair_of.setflags(write=False)
    return Rules(config, deck, make_layout(deck), pair_of)


@dataclass(eq=False)
class State:
    """Everything about a game in progress (mutable; see `clone`).

    Attributes:
        rules: the static rules (shared between clones).
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
        to_act: the player to act.
        phase: the [`Phase`][scandal_env.state.Phase] of the turn.
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

    rules: Rules
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
    to_act: int
    phase: Phase
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
        """An independent copy (the static rules are shared)."""
        return clone(self)

    @property
    def game(self) -> Rules:
        """Deprecated name of `rules`."""
        warnings.warn("State.game is deprecated; use State.rules", DeprecationWarning, stacklevel=2)
        return self.rules

    @property
    def current(self) -> int:
        """Deprecated name of `to_act` (read-only)."""
        warnings.warn(
            "State.current is deprecated; use State.to_act", DeprecationWarning, stacklevel=2
        )
        return self.to_act


def _copy_rng(rng: np.random.Generator) -> np.random.Generator:
    bg = type(rng.bit_generator)(0)
    bg.state = rng.bit_generator.state
    return np.random.Generator(bg)


def clone(state: State, rng: np.random.Generator | None = None) -> State:
    """An independent copy of ``state`` (arrays, lists and RNG copied; ``rng``: the copy's own)."""
    out = State.__new__(State)
    out.__dict__.update(state.__dict__)  # the rules, scalars and read-only mask are shared
    for name in _ARRAYS:
        setattr(out, name, getattr(state, name).copy())
    out.pile, out.stock = list(state.pile), list(state.stock)
    out.hand_counts = list(state.hand_counts)
    out.rng = _copy_rng(state.rng) if rng is None else rng
    return out


def resample_hidden(state: State, observer: int, rng: np.random.Generator) -> State:
    """A copy of ``state`` with what ``observer`` cannot see dealt anew (for search).

    A player sees their own hand, the table, the discard pile, every hand size
    and the cards an opponent took from the discard pile (public in that hand,
    I5); a stock made by turning the pile over is public too (S4). The
    opponents' secret cards and a hidden stock are shuffled and dealt back
    into the same places. The copy's RNG is reseeded from ``rng``; when
    ``observer`` is to act it keeps the cached legal mask, which reads nothing
    dealt anew.
    """
    p = state.num_players
    seats = [(observer + off) % p for off in range(1, p)]
    # per opponent (from the observer's left): the cards nobody else has seen
    secret = [np.flatnonzero(state.hands[seat] & ~state.known[seat]) for seat in seats]
    parts = list(secret)
    if not state.stock_public:
        parts.append(np.asarray(state.stock, dtype=np.int64))
    pool = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    order = pool[rng.permutation(len(pool))]
    out = clone(state, rng=np.random.default_rng(int(rng.integers(2**63 - 1))))
    pos = 0
    for seat, cards in zip(seats, secret, strict=True):
        out.hands[seat, cards] = False
        out.hands[seat, order[pos : pos + cards.size]] = True
        pos += cards.size
    if not state.stock_public:
        out.stock = order[pos : pos + len(state.stock)].tolist()
    out.mask_cache = state.mask_cache if observer == state.to_act else None
    return out


#: The fields of a `State` that are numpy arrays (copied by `clone`).
_ARRAYS = (
    "hands",
    "known",
    "placed_by",
    "placed_on",
    "meld_owner",
    "build",
    "scores",
    "hand_scores",
    "step_scores",
)


def card_places(state: State) -> np.ndarray:
    """How many places (hands, build, table, pile, stock) hold each card: 1 everywhere (S1)."""
    n = state.rules.deck.n_cards
    count: np.ndarray = state.hands.sum(axis=0).astype(np.int64)
    count += state.build
    count += state.placed_by >= 0
    count += np.bincount(np.array(state.pile, dtype=np.intp), minlength=n)
    count += np.bincount(np.array(state.stock, dtype=np.intp), minlength=n)
    return count


def check_cards(state: State) -> None:
    """Assert every card is in exactly one place (hands, build, table, pile, stock)."""
    bad = np.flatnonzero(card_places(state) != 1)
    if bad.size:
        raise AssertionError(f"cards not in exactly one place: {bad.tolist()}")


#: Deprecated names and their new ones.
_DEPRECATED = {"Game": "Rules", "make_game": "make_rules"}


def __getattr__(name: str) -> Any:
    """The deprecated names ``Game`` (`Rules`) and ``make_game`` (`make_rules`), with a warning."""
    if name in _DEPRECATED:
        new = _DEPRECATED[name]
        warnings.warn(
            f"scandal_env {name} is deprecated; use {new}", DeprecationWarning, stacklevel=2
        )
        return globals()[new]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
