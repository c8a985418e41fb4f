"""Scandal observations as named pieces of one flat float32 array.

Seats are relative: index 0 of every per-player piece is the observer, then
the others in turn order. The same :class:`~scum_env.suite.obsspec.ObsSpec`
gives the offsets written here, the named views, the ``Box`` bounds and the
documentation table (:func:`observation_table`).

Card-indexed pieces use card ids (see ``deck.py``); scandal-indexed pieces use
scandal ids (rule book order).
"""

from __future__ import annotations

import functools

import numpy as np

from scandal_env.engine import Game, State
from scum_env.suite.obsspec import ObsSpec, Piece

_DECK_VALUE_BOUND = 1000.0  # > total value of the deck (615), per hand


def _public_pieces(p: int, n: int, ns: int, score_bound: float) -> list[Piece]:
    return [
        Piece(
            "laid_by",
            p * n,
            "card lies on the table, melded or laid off by relative player i (S6, S9)",
        ),
        Piece("melded_by", p * ns, "scandal melded this hand by relative player i (S5)"),
        Piece("building", n, "cards in the meld under construction (public)"),
        Piece("build_scandal", ns, "scandal of the meld under construction (one-hot)"),
        Piece("discard_in", n, "card is in the discard pile"),
        Piece("discard_top", n, "top card of the discard pile (one-hot)"),
        Piece("discard_depth", n, "depth of the card in the pile / (n-1); 0 = top or absent"),
        Piece("hand_sizes", p, "cards in each relative player's hand / n", high=1.0),
        Piece("stock_size", 1, "cards in the stock / n"),
        Piece("stock_public", 1, "the stock is the turned-over discard pile (S4), order known"),
        Piece(
            "scores",
            p,
            "cumulative score of each relative player / target",
            low=-score_bound,
            high=score_bound,
        ),
        Piece(
            "hand_points", p, "points on the table this hand per relative player / 100", high=10.0
        ),
        Piece("to_act", p, "relative player to act (one-hot)"),
        Piece("dealer", p, "relative dealer (one-hot, S2)"),
        Piece("phase", 3, "turn phase: draw, meld/lay-off/discard, meld under construction"),
        Piece("duty", n, "card drawn from deep in the pile that must be melded first (S3)"),
        Piece("forbidden", n, "top discard drawn this turn, which may not be discarded (S7)"),
        Piece("turn", 1, "turns played this hand / max_turns (S4)"),
    ]


@functools.lru_cache(maxsize=32)
def obs_spec(game: Game) -> ObsSpec:
    """The observation spec of ``game`` (depends on players and deck)."""
    p, n, ns = game.config.num_players, game.deck.n_cards, game.deck.n_scandals
    own = [
        Piece("hand", n, "cards in the observer's hand"),
        Piece(
            "opp_known",
            (p - 1) * n,
            "cards known to be in relative opponent i's hand (taken from the pile)",
        ),
    ]
    return ObsSpec(own + _public_pieces(p, n, ns, _score_bound(game)))


@functools.lru_cache(maxsize=32)
def state_spec(game: Game) -> ObsSpec:
    """The global-state spec: every hand and the stock, in absolute seats."""
    p, n, ns = game.config.num_players, game.deck.n_cards, game.deck.n_scandals
    hidden = [
        Piece("hands", p * n, "cards in each player's hand (absolute seats)"),
        Piece("stock_depth", n, "card is in the stock: 1 - depth / n (1 = next drawn); 0 absent"),
    ]
    return ObsSpec(hidden + _public_pieces(p, n, ns, _score_bound(game)))


def _score_bound(game: Game) -> float:
    cfg = game.config
    hands = cfg.max_hands if cfg.episode == "game" else 1
    return float((hands + 1) * _DECK_VALUE_BOUND / cfg.target_score)


class Encoder:
    """Writes observations of one game into reused buffers."""

    def __init__(self, game: Game) -> None:
        """Precompute the specs, offsets and seat orders of ``game``."""
        self.game = game
        self.spec = obs_spec(game)
        self.global_spec = state_spec(game)
        p, n = game.config.num_players, game.deck.n_cards
        self._p, self._n = p, n
        self._value = game.deck.value.astype(np.float32) / np.float32(100.0)
        self._depth = np.arange(n, dtype=np.float32) / max(1, n - 1)
        self._stock_depth = 1.0 - np.arange(n, dtype=np.float32) / n
        self._orders = [[(o + i) % p for i in range(p)] for o in range(p)]
        self._rels = []
        for order in self._orders:
            rel = np.full(p + 1, -1, dtype=np.intp)  # seat -> relative; [-1] -> -1
            rel[order] = np.arange(p)
            self._rels.append(rel)
        self._abs_order = list(range(p))
        self._abs_rel = self._rels[0]
        self._inv_n = 1.0 / n
        self._inv_target = 1.0 / game.config.target_score
        self._inv_turns = 1.0 / game.config.max_turns

    def encode(self, state: State, observer: int, out: np.ndarray | None = None) -> np.ndarray:
        """The observation of ``observer`` (written into ``out`` if given)."""
        if out is None:
            out = self.spec.zeros()
        else:
            out.fill(0.0)
        sl = self.spec.slices
        order = self._orders[observer]
        out[sl["hand"]] = state.hands[observer]
        # ``known`` is only ever set for cards in that player's hand.
        out[sl["opp_known"]] = state.known[order[1:]].ravel()
        self._public(state, order, self._rels[observer], out, sl)
        return out

    def global_state(self, state: State, out: np.ndarray | None = None) -> np.ndarray:
        """Everything, in absolute seats (for centralized critics)."""
        if out is None:
            out = self.global_spec.zeros()
        else:
            out.fill(0.0)
        sl = self.global_spec.slices
        out[sl["hands"]] = state.hands.ravel()
        if state.stock:
            top_first = np.array(state.stock[::-1], dtype=np.intp)
            out[sl["stock_depth"].start + top_first] = self._stock_depth[: len(top_first)]
        self._public(state, self._abs_order, self._abs_rel, out, sl)
        return out

    def _public(
        self,
        state: State,
        order: list[int],
        rel: np.ndarray,
        out: np.ndarray,
        sl: dict[str, slice],
    ) -> None:
        n, p = self._n, self._p
        ones = [
            sl["to_act"].start + int(rel[state.current]),
            sl["dealer"].start + int(rel[state.dealer]),
            sl["phase"].start + state.phase,
        ]
        on_table = np.flatnonzero(state.placed_by >= 0)
        if on_table.size:
            who = rel[state.placed_by[on_table]]
            laid = sl["laid_by"]
            out[laid.start + who * n + on_table] = 1.0
            out[sl["hand_points"]] = out[laid].reshape(p, n) @ self._value
            melded = np.flatnonzero(state.meld_owner >= 0)
            ns = state.meld_owner.shape[0]
            out[sl["melded_by"].start + rel[state.meld_owner[melded]] * ns + melded] = 1.0
        if state.build_scandal >= 0:
            out[sl["building"]] = state.build
            ones.append(sl["build_scandal"].start + state.build_scandal)
        if state.pile:
            top_first = np.array(state.pile[::-1], dtype=np.intp)
            out[sl["discard_in"].start + top_first] = 1.0
            out[sl["discard_depth"].start + top_first] = self._depth[: len(top_first)]
            ones.append(sl["discard_top"].start + state.pile[-1])
        if state.duty >= 0:
            ones.append(sl["duty"].start + state.duty)
        if state.forbidden >= 0:
            ones.append(sl["forbidden"].start + state.forbidden)
        out[ones] = 1.0
        counts = state.hand_counts
        inv_n = self._inv_n
        out[sl["hand_sizes"]] = [counts[s] * inv_n for s in order]
        scores = state.scores.tolist()
        out[sl["scores"]] = [scores[s] * self._inv_target for s in order]
        out[sl["stock_size"].start] = len(state.stock) * inv_n
        out[sl["stock_public"].start] = state.stock_public
        out[sl["turn"].start] = state.turn * self._inv_turns


def observation_table(game: Game) -> str:
    """The Markdown table of the observation of ``game``."""
    return obs_spec(game).table()
