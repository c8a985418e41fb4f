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
        Piece("laid_by", p * n, "card lies on the table, melded or laid off by relative player i (S6, S9)"),
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
        Piece("hand_points", p, "points on the table this hand per relative player / 100", high=10.0),
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
        """Precompute the specs and slices of ``game``."""
        self.game = game
        self.spec = obs_spec(game)
        self.global_spec = state_spec(game)
        self._value = game.deck.value.astype(np.float32) / 100.0
        self._depth_scale = 1.0 / max(1, game.deck.n_cards - 1)

    def encode(self, state: State, observer: int, out: np.ndarray | None = None) -> np.ndarray:
        """The observation of ``observer`` (written into ``out`` if given)."""
        spec = self.spec
        if out is None:
            out = spec.zeros()
        else:
            out.fill(0.0)
        p = state.num_players
        order = [(observer + i) % p for i in range(p)]
        sl = spec.slices
        out[sl["hand"]] = state.hands[observer]
        opp = order[1:]
        known = state.hands[opp] & state.known[opp]
        out[sl["opp_known"]] = known.reshape(-1)
        self._public(state, order, out, sl)
        return out

    def global_state(self, state: State, out: np.ndarray | None = None) -> np.ndarray:
        """Everything, in absolute seats (for centralized critics)."""
        spec = self.global_spec
        if out is None:
            out = spec.zeros()
        else:
            out.fill(0.0)
        sl = spec.slices
        n = self.game.deck.n_cards
        out[sl["hands"]] = state.hands.reshape(-1)
        if state.stock:
            depth = out[sl["stock_depth"]]
            top_first = np.array(state.stock[::-1], dtype=np.intp)
            depth[top_first] = 1.0 - np.arange(len(top_first), dtype=np.float32) / n
        self._public(state, list(range(state.num_players)), out, sl)
        return out

    def _public(self, state: State, order: list[int], out: np.ndarray, sl: dict[str, slice]) -> None:
        game = self.game
        n, ns = game.deck.n_cards, game.deck.n_scandals
        p = len(order)
        rel = np.empty(p + 1, dtype=np.int8)  # seat -> relative index; [-1] -> -1
        rel[order] = np.arange(p, dtype=np.int8)
        rel[p] = -1
        laid = out[sl["laid_by"]].reshape(p, n)
        on_table = np.flatnonzero(state.placed_by >= 0)
        if on_table.size:
            who = rel[state.placed_by[on_table]]
            laid[who, on_table] = 1.0
            points = np.bincount(who, weights=self._value[on_table], minlength=p)
            out[sl["hand_points"]] = points
        melded = np.flatnonzero(state.meld_owner >= 0)
        if melded.size:
            out[sl["melded_by"]].reshape(p, ns)[rel[state.meld_owner[melded]], melded] = 1.0
        out[sl["building"]] = state.build
        if state.build_scandal >= 0:
            out[sl["build_scandal"].start + state.build_scandal] = 1.0
        if state.pile:
            top_first = np.array(state.pile[::-1], dtype=np.intp)
            out[sl["discard_in"]][top_first] = 1.0
            out[sl["discard_top"].start + top_first[0]] = 1.0
            out[sl["discard_depth"]][top_first] = (
                np.arange(len(top_first), dtype=np.float32) * self._depth_scale
            )
        cfg = game.config
        out[sl["hand_sizes"]] = np.array([state.hand_counts[s] for s in order], np.float32) / n
        out[sl["stock_size"].start] = len(state.stock) / n
        out[sl["stock_public"].start] = float(state.stock_public)
        out[sl["scores"]] = state.scores[order] / cfg.target_score
        out[sl["to_act"].start + int(rel[state.current])] = 1.0
        out[sl["dealer"].start + int(rel[state.dealer])] = 1.0
        out[sl["phase"].start + state.phase] = 1.0
        if state.duty >= 0:
            out[sl["duty"].start + state.duty] = 1.0
        if state.forbidden >= 0:
            out[sl["forbidden"].start + state.forbidden] = 1.0
        out[sl["turn"].start] = state.turn / cfg.max_turns


def observation_table(game: Game) -> str:
    """The Markdown table of the observation of ``game``."""
    return obs_spec(game).table()
