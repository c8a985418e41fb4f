"""Scandal observations as named pieces of one flat float32 array ([`ObsSpec`][cardsuite.obsspec.ObsSpec]).

Seats are relative (index 0 is the observer, then turn order); card pieces
are indexed by card id, scandal pieces by scandal id (rule book order).
"""

from __future__ import annotations

import functools

import numpy as np

from cardsuite.obsspec import ObsSpec, Piece
from scandal_env.engine import Rules, State

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
def obs_spec(rules: Rules) -> ObsSpec:
    """The observation spec of ``rules`` (depends on players and deck)."""
    p, n, ns = rules.config.num_players, rules.deck.n_cards, rules.deck.n_scandals
    own = [
        Piece("hand", n, "cards in the observer's hand"),
        Piece(
            "opp_known",
            (p - 1) * n,
            "cards known to be in relative opponent i's hand (taken from the pile)",
        ),
    ]
    return ObsSpec(own + _public_pieces(p, n, ns, _score_bound(rules)))


@functools.lru_cache(maxsize=32)
def state_spec(rules: Rules) -> ObsSpec:
    """The global-state spec: every hand and the stock, in absolute seats."""
    p, n, ns = rules.config.num_players, rules.deck.n_cards, rules.deck.n_scandals
    hidden = [
        Piece("hands", p * n, "cards in each player's hand (absolute seats)"),
        Piece("stock_depth", n, "card is in the stock: 1 - depth / n (1 = next drawn); 0 absent"),
    ]
    return ObsSpec(hidden + _public_pieces(p, n, ns, _score_bound(rules)))


def _score_bound(rules: Rules) -> float:
    cfg = rules.config
    hands = cfg.max_hands if cfg.episode == "game" else 1
    return float((hands + 1) * _DECK_VALUE_BOUND / cfg.target_score)


class _Seat:
    """One observer's persistent observation and what it was last written from (``buf``
    has a scratch entry past the observation for absent one-hots to point at)."""

    __slots__ = (
        "buf",
        "build",
        "building",
        "discard_depth",
        "discard_in",
        "discard_top",
        "hand",
        "laid",
        "melded",
        "obs",
        "ones",
        "opp",
        "pile",
        "pile_block",
        "points",
        "table",
    )

    def __init__(self, spec: ObsSpec, p: int, n: int, ns: int) -> None:
        self.buf = np.zeros(spec.size + 1, dtype=np.float32)
        self.obs = self.buf[: spec.size]

        def piece(name: str) -> np.ndarray:
            return self.obs[spec.slices[name]]

        self.hand = piece("hand")
        self.opp = piece("opp_known").reshape(p - 1, n)
        self.laid = piece("laid_by").reshape(p, n)
        self.melded = piece("melded_by").reshape(p, ns)
        self.points = piece("hand_points")
        self.building = piece("building")
        self.pile_block = self.obs[spec.offset("discard_in") : spec.offset("discard_depth") + n]
        self.discard_in = piece("discard_in")
        self.discard_top = piece("discard_top")
        self.discard_depth = piece("discard_depth")
        self.ones: tuple[int, ...] = ()
        self.pile: tuple[int, ...] | None = None
        self.table: bytes | None = None
        self.build: tuple[int, bytes] | None = None


class Encoder:
    """Writes observations of one game into reused buffers.

    `encode` keeps one observation per observer and rewrites the table, the
    meld under construction and the pile only when their content differs from
    what it was written from (by value: any state may be encoded, in any order).
    """

    def __init__(self, rules: Rules) -> None:
        """Precompute the specs, offsets and seat orders of ``rules``."""
        self.rules = rules
        self.spec = obs_spec(rules)
        self.global_spec = state_spec(rules)
        p, n, ns = rules.config.num_players, rules.deck.n_cards, rules.deck.n_scandals
        self._p, self._n = p, n
        # Points are summed exactly (integers in float64) and divided once, so
        # the value does not depend on a BLAS summation order (the batched
        # engine computes the same float32).
        self._value = rules.deck.value.astype(np.float64)
        self._depth = np.arange(n, dtype=np.float32) / max(1, n - 1)
        self._stock_depth = 1.0 - np.arange(n, dtype=np.float32) / n
        self._orders = [[(o + i) % p for i in range(p)] for o in range(p)]
        self._inv_n = 1.0 / n
        self._inv_target = 1.0 / rules.config.target_score
        self._inv_turns = 1.0 / rules.config.max_turns
        self._order_cols = [np.array(order, dtype=np.int8)[:, None] for order in self._orders]
        # Opponents' rows of ``known``: a plain row index with 2 players.
        self._opp_rows: list[int | np.ndarray] = [
            order[1] if p == 2 else np.array(order[1:], dtype=np.intp) for order in self._orders
        ]
        self._empty_table = np.full(n, -1, dtype=np.int8).tobytes()  # nothing laid
        off = self.spec.offset
        o_sizes, o_scores = off("hand_sizes"), off("scores")
        self._scalar_slots = [
            [(o_sizes + i, o_scores + i, s) for i, s in enumerate(order)] for order in self._orders
        ]
        # by observer, then absolute seat: the entry of that seat's relative index
        self._to_act_at = [[off("to_act") + (s - o) % p for s in range(p)] for o in range(p)]
        self._dealer_at = [[off("dealer") + (s - o) % p for s in range(p)] for o in range(p)]
        self._o_phase, self._o_bscandal = off("phase"), off("build_scandal")
        self._o_duty, self._o_forbidden = off("duty"), off("forbidden")
        self._o_stock, self._o_public = off("stock_size"), off("stock_public")
        self._o_turn = off("turn")
        self._scratch = self.spec.size
        self._seats = [_Seat(self.spec, p, n, ns) for _ in range(p)]

    def encode(self, state: State, observer: int, out: np.ndarray | None = None) -> np.ndarray:
        """The observation of ``observer`` (written into ``out`` if given)."""
        seat = self._seats[observer]
        buf = seat.buf
        seat.hand[:] = state.hands[observer]
        # ``known`` is only ever set for cards in that player's hand.
        seat.opp[:] = state.known[self._opp_rows[observer]]
        table = state.placed_by.tobytes() + state.meld_owner.tobytes()
        if table != seat.table:
            self._write_table(state, observer, seat, table)
        bs = state.build_scandal
        if bs >= 0:
            build = (bs, state.build.tobytes())
            if build != seat.build:
                seat.building[:] = state.build
                seat.build = build
        elif seat.build is not None:
            seat.building[:] = 0.0
            seat.build = None
        pile = tuple(state.pile)
        if pile != seat.pile:
            self._write_pile(pile, seat)
        scratch = self._scratch
        duty, forbidden = state.duty, state.forbidden
        ones = (
            self._to_act_at[observer][state.to_act],
            self._dealer_at[observer][state.dealer],
            self._o_phase + state.phase,
            self._o_bscandal + bs if bs >= 0 else scratch,
            self._o_duty + duty if duty >= 0 else scratch,
            self._o_forbidden + forbidden if forbidden >= 0 else scratch,
        )
        old = seat.ones
        if ones != old:
            for i in old:
                buf[i] = 0.0
            for i in ones:
                buf[i] = 1.0
            seat.ones = ones
        counts = state.hand_counts
        scores = state.scores.tolist()
        inv_n, inv_target = self._inv_n, self._inv_target
        for size_at, score_at, s in self._scalar_slots[observer]:
            buf[size_at] = counts[s] * inv_n
            buf[score_at] = scores[s] * inv_target
        buf[self._o_stock] = len(state.stock) * inv_n
        buf[self._o_public] = state.stock_public
        buf[self._o_turn] = state.turn * self._inv_turns
        if out is None:
            return seat.obs.copy()
        out[:] = seat.obs
        return out

    def _write_table(self, state: State, observer: int, seat: _Seat, table: bytes) -> None:
        """laid_by, melded_by and hand_points of ``observer`` (as `global_state`)."""
        if not table.startswith(self._empty_table):
            col = self._order_cols[observer]
            np.equal(state.placed_by, col, out=seat.laid, casting="unsafe")
            seat.points[:] = (seat.laid @ self._value) / 100.0
            np.equal(state.meld_owner, col, out=seat.melded, casting="unsafe")
        else:
            seat.laid[:] = 0.0
            seat.melded[:] = 0.0
            seat.points[:] = 0.0
        seat.table = table

    def _write_pile(self, pile: tuple[int, ...], seat: _Seat) -> None:
        """discard_in, discard_top and discard_depth of ``pile`` (bottom first)."""
        seat.pile_block[:] = 0.0
        if pile:
            cards = np.array(pile, dtype=np.intp)
            seat.discard_in[cards] = 1.0
            seat.discard_depth[cards] = self._depth[len(pile) - 1 :: -1]
            seat.discard_top[pile[-1]] = 1.0
        seat.pile = pile

    def global_state(self, state: State, out: np.ndarray | None = None) -> np.ndarray:
        """Everything, in absolute seats (for centralized critics)."""
        if out is None:
            out = self.global_spec.zeros()
        else:
            out.fill(0.0)
        sl = self.global_spec.slices
        n, p = self._n, self._p
        out[sl["hands"]] = state.hands.ravel()
        if state.stock:
            top_first = np.array(state.stock[::-1], dtype=np.intp)
            out[sl["stock_depth"].start + top_first] = self._stock_depth[: len(top_first)]
        ones = [
            sl["to_act"].start + state.to_act,
            sl["dealer"].start + state.dealer,
            sl["phase"].start + state.phase,
        ]
        on_table = np.flatnonzero(state.placed_by >= 0)
        if on_table.size:
            who = state.placed_by[on_table].astype(np.intp)
            laid = sl["laid_by"]
            out[laid.start + who * n + on_table] = 1.0
            out[sl["hand_points"]] = (out[laid].reshape(p, n) @ self._value) / 100.0
            melded = np.flatnonzero(state.meld_owner >= 0)
            ns = state.meld_owner.shape[0]
            owner = state.meld_owner[melded].astype(np.intp)
            out[sl["melded_by"].start + owner * ns + melded] = 1.0
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
        inv_n = self._inv_n
        out[sl["hand_sizes"]] = [count * inv_n for count in state.hand_counts]
        out[sl["scores"]] = [score * self._inv_target for score in state.scores.tolist()]
        out[sl["stock_size"].start] = len(state.stock) * inv_n
        out[sl["stock_public"].start] = state.stock_public
        out[sl["turn"].start] = state.turn * self._inv_turns
        return out


def observation_table(rules: Rules) -> str:
    """The Markdown table of the observation of ``rules``."""
    return obs_spec(rules).table()
