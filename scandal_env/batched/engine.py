"""BatchedScandal: N independent Scandal games (S1–S9) held as arrays.

Per-player arrays are indexed by player id. Each action kind runs on the games
that chose it (`scandal_env.batched.apply`), then the mask and the observation
are built full-width. Episodes, rewards and restarts follow ``scandal_v0``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from cardsuite.batched.arrays import ArrayGames
from cardsuite.batched.backend import Array
from cardsuite.batched.deal import TAG_DEAL, permutations, split_seed, stream_keys
from cardsuite.batched.protocol import StepResult
from cardsuite.batched.sharded import ShardedGames
from scandal_env.actions import describe
from scandal_env.batched.apply import apply_actions
from scandal_env.batched.consts import BUILD, DRAW, END_NAMES, END_NONE, END_OUT, MELD, OVER
from scandal_env.batched.encoding import BatchObserver, observe_seats
from scandal_env.batched.masks import write_mask
from scandal_env.batched.presets import check_preset
from scandal_env.batched.tables import DeckTables
from scandal_env.config import ScandalConfig
from scandal_env.encoding import obs_spec
from scandal_env.state import make_rules

#: Stream tag of the first dealer's draw of a new game (S2).
TAG_DEALER = 0xDEA1


#: What `BatchedScandal.step` returns: the shared `StepResult`, whose ``truncated``
#: marks the episodes ended by a limit (a blocked hand, ``max_turns``, ``max_hands``).
ScandalStepResult = StepResult


class BatchedScandal(ArrayGames):
    """N Scandal games stepped together, on numpy or torch (CPU or GPU).

    Arguments as [`ArrayGames`][cardsuite.batched.arrays.ArrayGames];
    ``**config`` are [`ScandalConfig`][scandal_env.config.ScandalConfig] fields.
    """

    CONFIG = ScandalConfig
    STATE_FIELDS = ("hands", "known", "counts", "placed_by", "meld_owner", "table_pts", "build",
              "build_scandal", "pile_arr", "pile_pos", "pile_len", "stock_arr", "stock_len",
              "stock_public", "cur", "phase", "duty", "forbidden", "turn", "dealer", "hand_no",
              "deals", "scores", "hand_end", "game_over", "rewards", "done", "truncated")  # fmt: skip
    config: ScandalConfig
    truncated: Array

    def _compile(self) -> Any:
        return make_rules(self.config)

    def _build(self, buffers: tuple[Array, Array] | None) -> None:
        xp, cfg = self.xp, self.config
        self.t = DeckTables(self.rules.deck, self.rules.layout, xp)
        self.num_players = self.P = cfg.num_players
        self.num_actions = self.rules.layout.size
        self.obs_spec = obs_spec(self.rules)
        self.obs_dim = self.obs_spec.size
        self.observer = BatchObserver(
            self.obs_spec, self.P, self.t.n, cfg.target_score, cfg.max_turns
        )
        self._init_state()
        if buffers is None:
            self.obs = xp.zeros((self.num_games, self.obs_dim), xp.float32)
            self.mask = xp.zeros((self.num_games, self.num_actions), xp.bool)
        else:
            self.obs, self.mask = buffers

    def _init_state(self) -> None:
        xp = self.xp
        g, p, n, ns = self.num_games, self.P, self.t.n, self.t.ns
        i64, new = xp.int64, self.new_arrays
        self.hands, self.known = new(2, (g, p, n), xp.bool)
        self.counts, self.table_pts, self.scores = new(3, (g, p), i64)
        i8 = xp.int8  # seats and pile positions fit a byte: cheaper compares
        self.placed_by, self.pile_pos = new(2, (g, n), i8, -1)
        self.meld_owner = xp.full((g, ns), -1, i8)
        self.build = xp.zeros((g, n), xp.bool)
        self.pile_arr, self.stock_arr = new(2, (g, n), i64)
        self.pile_len, self.stock_len, self.cur, self.turn = new(4, (g,), i64)
        self.dealer, self.hand_no, self.deals, self.hand_end = new(4, (g,), i64)
        self.build_scandal, self.duty, self.forbidden = new(3, (g,), i64, -1)
        self.phase = xp.full((g,), OVER, i64)
        self.stock_public, self.game_over, self.done, self.truncated = new(4, (g,), xp.bool)
        self.rewards = xp.zeros((g, p), xp.float32)

    def buffer_bytes(self) -> int:
        """Bytes of the observation, its staging and the mask (all games)."""
        xp = self.xp
        staging = self.num_games * self.obs_dim  # the int8 staging of the observation
        return int(xp.nbytes(self.obs) + xp.nbytes(self.mask) + staging)

    # ------------------------------------------------------------------ API
    def reset(
        self,
        seed: int = 0,
        *,
        hands: Any = None,
        discard: Any = None,
        stock: Any = None,
        dealer: Any = None,
        scores: Any = None,
    ) -> tuple[Array, Array, Array]:
        """Start a new game in every slot; return ``(obs, mask, to_act)``.

        Args:
            seed: keys every game's deal and dealer streams (0 .. 2**64-1).
            hands: preset first deal, bool ``[N, P, n]`` by player id, with
                ``discard`` and ``stock`` (card ids ``[N, n]``, top first,
                padded with -1): every card in exactly one place.
            dealer: preset first dealers ``[N]`` (default: a seeded draw, S2).
            scores: preset game totals ``[N, P]`` by player id.
        """
        xp = self.xp
        split_seed(seed)
        self.seed = seed
        every = self.rows
        self.clear(every, "deals", "hand_no", "game_over", "done", "truncated", "rewards")
        self.hand_end[:] = END_NONE
        preset = check_preset(self, hands, discard, stock, dealer, scores)
        self.scores[:] = 0 if preset.scores is None else xp.asarray(preset.scores, xp.int64)
        if preset.dealer is None:
            self._draw_dealer(every)
        else:
            self.dealer[:] = xp.asarray(preset.dealer, xp.int64)
        if preset.hands is None:
            self._deal(every)
        else:
            self._place(every, *preset.arrays(xp))
        return self._observe()

    def _running(self) -> Array:
        return self.phase != OVER

    def _restart(self, idx: Any) -> None:
        self._new_game(idx)

    def to_act(self) -> Array:
        """``[N]`` player id to act in each game."""
        return self.xp.copy(self.cur)

    def step(self, actions: Any, active: Any = None, *, observe: bool | None = None) -> StepResult:
        """`ArrayGames.step`. ``observe`` (0.2's switch that skipped writing the observation)
        is accepted and ignored with a DeprecationWarning: the observation is always written,
        and the search's rollouts run the compiled kernels instead."""
        if observe is not None:
            warnings.warn("BatchedScandal.step(observe=...) is ignored since 0.3 (the observation "
                          "is always written); drop the argument before 0.4",
                          DeprecationWarning, stacklevel=2)  # fmt: skip
        return super().step(actions, active)

    def _observe_players(self, ids: Array) -> Array:
        return observe_seats(self, self.observer, ids, self.obs_dim)

    def _what(self, action: int) -> str:
        if 0 <= action < self.num_actions:
            return describe(self.rules.layout, self.rules.deck, action)
        return f"out of range 0..{self.num_actions - 1}"

    # ------------------------------------------------------------------ deals
    def _seed(self) -> int:
        return 0 if self.seed is None else self.seed

    def _draw_dealer(self, r: Array) -> None:
        keys = stream_keys(
            self.xp, self._seed(), TAG_DEALER, r + self.game_offset, self.deals[r], 1
        )
        self.dealer[r] = keys[:, 0] % self.P

    def _deal(self, r: Array) -> None:
        """Shuffle and deal games ``r`` (S2: one card at a time from the dealer's left)."""
        xp, p, n = self.xp, self.P, self.t.n
        order = permutations(xp, self._seed(), TAG_DEAL, r + self.game_offset, self.deals[r], n)
        m = r.shape[0]
        k = self.config.hand_size * p
        seat = (self.dealer[r][:, None] + 1 + xp.arange(k)[None, :]) % p
        local = xp.arange(m)
        idx = ((local[:, None] * p + seat) * n + order[:, :k]).reshape(-1)
        hands = xp.zeros((m * p * n,), xp.bool)
        hands[idx] = True
        pile = xp.full((m, n), -1, xp.int64)
        pile[:, 0] = order[:, k]
        stock = xp.full((m, n), -1, xp.int64)
        rest = n - k - 1
        stock[:, :rest] = order[:, xp.asarray(np.arange(n - 1, k, -1), xp.int64)]
        self._place(r, hands.reshape(m, p, n), pile, stock)

    def _place(self, r: Array, hands: Array, pile: Array, stock: Array) -> None:
        """Start the hand of games ``r`` from ``hands [R, P, n]`` and ``pile``,
        ``stock`` ``[R, n]`` bottom first, padded with -1."""
        xp, p = self.xp, self.P
        self.deals[r] += 1
        self.hands[r] = hands
        self.counts[r] = xp.sum(hands, 2)
        self.clear(r, "known", "table_pts", "build", "stock_public", "turn")
        self.clear(r, "placed_by", "meld_owner", "build_scandal", "duty", "forbidden", value=-1)
        plen = xp.sum(pile >= 0, 1)
        self.pile_arr[r] = xp.where(pile >= 0, pile, 0)
        self.pile_len[r] = plen
        m, n = pile.shape
        pos = xp.full((m, n + 1), -1, xp.int64)
        local = xp.arange(m)[:, None]
        cols = xp.arange(n)[None, :]
        pos[local, xp.where(pile >= 0, pile, n)] = xp.where(pile >= 0, cols, -1)
        self.pile_pos[r] = xp.astype(pos[:, :n], xp.int8)
        self.stock_arr[r] = xp.where(stock >= 0, stock, 0)
        self.stock_len[r] = xp.sum(stock >= 0, 1)
        self.cur[r] = (self.dealer[r] + 1) % p  # S2: the dealer's left (the non-dealer)
        self.phase[r] = DRAW

    def _new_game(self, r: Array) -> None:
        """A new game in games ``r`` (random first dealer, scores 0)."""
        self.clear(r, "scores", "hand_no", "game_over")
        self._draw_dealer(r)
        self._deal(r)

    # ------------------------------------------------------------------ apply
    def _apply(self, a: Array, live: Array) -> None:
        apply_actions(self, a, live)

    def end_hand(self, r: Array, why: Array) -> None:
        """Score the hands of games ``r`` (S9) and end their episode or deal the next hand."""
        xp, cfg = self.xp, self.config
        left = xp.sum(xp.astype(self.hands[r], xp.int64) * self.t.value[None, None, :], 2)
        net = self.table_pts[r] - left
        self.hand_end[r] = why
        f64 = xp.float64
        self.rewards[r] = xp.astype(xp.astype(net, f64) * (1.0 / cfg.reward_scale), xp.float32)
        self.scores[r] = self.scores[r] + net
        over = xp.amax(self.scores[r], 1) >= cfg.target_score
        self.game_over[r] = over
        if cfg.episode == "hand":
            ends = xp.full(over.shape, True, xp.bool)
            trunc = why != END_OUT
        else:
            capped = (self.hand_no[r] + 1) >= cfg.max_hands
            ends = over | capped
            trunc = ~over & capped
        self.done[r] = ends
        self.truncated[r] = trunc
        self.phase[r] = OVER
        nxt = r[~ends]
        if nxt.shape[0]:
            self.hand_no[nxt] += 1
            self.dealer[nxt] = (self.dealer[nxt] + 1) % self.P
            self._deal(nxt)

    # ------------------------------------------------------------------ views
    def _observe(self) -> tuple[Array, Array, Array]:
        """Write the mask and the observation of every game's player to act."""
        xp, p, n = self.xp, self.P, self.t.n
        flat = self.rows * p + self.cur
        hand = xp.take_rows(self.hands.reshape(-1, n), flat)
        size = xp.take_flat(self.counts, flat)
        write_mask(self, self.mask, hand, size)
        self._mask = self.mask
        self.observer.write(self, self.obs, hand)
        return self.obs, self._mask_out(self.mask), self.to_act()

    def game_view(self, g: int) -> dict[str, Any]:
        """Game ``g`` as plain Python values: a ``scandal_v0`` preset (``hands``, ``discard``,
        ``stock``, ``dealer``) plus ``to_act``, ``phase``, ``scores``, ``hand_number``, ``hand_end``."""
        xp = self.xp

        def host(x: Array) -> np.ndarray:
            return np.asarray(xp.to_numpy(x[g]))

        hands = host(self.hands)
        plen, slen = int(host(self.pile_len)), int(host(self.stock_len))
        return {
            "hands": [[int(c) for c in np.flatnonzero(h)] for h in hands],
            "discard": [int(c) for c in host(self.pile_arr)[:plen][::-1]],
            "stock": [int(c) for c in host(self.stock_arr)[:slen][::-1]],
            "dealer": int(host(self.dealer)),
            "to_act": int(host(self.cur)),
            "phase": int(host(self.phase)),
            "scores": [int(s) for s in host(self.scores)],
            "hand_number": int(host(self.hand_no)),
            "hand_end": END_NAMES[int(host(self.hand_end))],
        }


class ShardedScandal(ShardedGames):
    """``num_games`` numpy Scandal games stepped by ``threads`` threads, playing exactly like
    one `BatchedScandal` (``truncated`` included); ``**config``: `ScandalConfig` fields."""

    ENGINE = BatchedScandal


__all__ = ["BUILD", "DRAW", "MELD", "OVER", "BatchedScandal", "ScandalStepResult", "ShardedScandal"]
