"""BatchedScum: N independent Scum games (4J rules, J1–J9) held as arrays.

Per-player state is indexed by *role position* (0 = President, the J3 turn
order), so turns, trades and relative order are index arithmetic;
``order[g, j]`` is the player id at position ``j``. Actions, the player to
act and rewards are by player id, as in ``scum_v0``. The common path is
full-width and branch-free; rare events (trades, ends of rounds and series,
restarts) run on the games they concern.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from cardsuite.batched.arena import ArenaResult, run_arena
from cardsuite.batched.arrays import ArrayGames
from cardsuite.batched.backend import Array
from cardsuite.batched.checks import preset_ints, preset_seating, trade_flags
from cardsuite.batched.deal import TAG_ROLES, permutations, split_seed
from cardsuite.batched.policies import BatchPolicy
from cardsuite.batched.protocol import StepResult
from cardsuite.batched.sharded import ShardedGames
from cardsuite.batched.vector_env import GameVectorEnv
from cardsuite.errors import PresetError
from scum_env.batched.encoding import BatchEncoder
from scum_env.batched.series import BIG, end_series, give_back, restart, start_series
from scum_env.config import ScumConfig
from scum_env.rules import Rules, scum_rules
from scum_env.state import Phase

__all__ = ["BatchedScum", "ScumVectorEnv", "ShardedScum", "StepResult", "play_arena"]

TRADE, PLAY, OVER = int(Phase.TRADE), int(Phase.PLAY), int(Phase.OVER)


class BatchedScum(ArrayGames):
    """N Scum games stepped together, on numpy or torch (CPU or GPU).

    Arguments as [`ArrayGames`][cardsuite.batched.arrays.ArrayGames];
    ``**config`` are [`ScumConfig`][scum_env.config.ScumConfig] fields.
    """

    CONFIG = ScumConfig
    STATE_FIELDS = ("hands", "given", "received", "ncards", "order", "scores", "finish", "passed",
                    "acted", "top_cards", "played", "nfin", "passes", "phase", "actor", "top_count",
                    "top_slot", "top_pos", "tstep", "give_left", "deals", "series", "game_over",
                    "winner_pos", "rewards", "done")  # fmt: skip
    config: ScumConfig
    rules: Rules

    def _compile(self) -> Rules:
        return scum_rules(self.config)

    def _build(self, buffers: tuple[Array, Array] | None) -> None:
        self._init_static()
        self._init_state()
        self.encoder = BatchEncoder(self.rules, self.xp, self.num_games, buffers)
        self.obs_spec = self.encoder.spec  # cardsuite.batched.protocol
        self.obs_dim = self.obs_spec.size
        self.num_players = self.rules.num_players
        self.num_actions = self.rules.num_actions

    # ------------------------------------------------------------------ setup
    def _init_static(self) -> None:
        rules, xp = self.rules, self.xp
        n, k = rules.num_players, rules.num_slots
        self.P, self.K = n, k
        self.pos_ar = xp.arange(n)
        self.slot_ar = xp.arange(k)
        self.ends_round = xp.asarray(rules.ends_round, xp.bool)
        rank = rules.cards.rank
        self.slot_rank = xp.asarray(rank, xp.int64)
        self.slot_list = xp.asarray(rules.slot_list, xp.int64)
        seats = np.arange(rules.deck_size) % n  # J4: dealt from the President
        self.deal_seat = xp.asarray(seats, xp.int64)
        self.steps = tuple(rules.trades)
        self.recv_of_step = xp.asarray([t.receiver % n for t in self.steps] + [0], xp.int64)
        self.rows_p = self.rows * n
        dist = (np.arange(n)[None, :] - np.arange(n)[:, None]) % n
        self.dist_table = xp.asarray(np.where(dist == 0, n, dist), xp.int64)  # [from, to]

    def _init_state(self) -> None:
        xp = self.xp
        g, n, k = self.num_games, self.P, self.K
        i8, i64, new = xp.int8, xp.int64, self.new_arrays
        self.hands, self.given, self.received = new(3, (g, n, k), i8)
        self.ncards = xp.zeros((g, n), xp.int16)
        self.order, self.scores = new(2, (g, n), i64)
        self.finish = xp.zeros((g, n), i8)
        self.passed, self.acted = new(2, (g, n), xp.bool)
        self.top_cards, self.played = new(2, (g, k), i8)
        self.nfin, self.passes, self.phase, self.actor, self.top_count = new(5, (g,), i64)
        self.tstep, self.give_left, self.deals, self.series = new(4, (g,), i64)
        self.top_slot, self.top_pos, self.winner_pos = new(3, (g,), i64, -1)
        self.game_over, self.done = new(2, (g,), xp.bool)
        self.rewards = xp.zeros((g, n), xp.float32)

    # ------------------------------------------------------------------ API
    def reset(
        self,
        seed: int = 0,
        *,
        hands: Any = None,
        roles: Any = None,
        trade: Any = False,
        scores: Any = None,
    ) -> tuple[Array, Array, Array]:
        """Start a new game in every slot; return ``(obs, mask, to_act)``.

        Args:
            seed: keys every game's deal and role streams (0 .. 2**64-1).
            hands: preset dealt hands, counts ``[N, P, K]`` by player id
                (before the trades), instead of the seeded deal.
            roles: preset seating ``[N, P]``: player ids in role order,
                President first, instead of the seeded draw (J3).
            trade: start with the trades (J5), as in a later series; a bool
                or ``[N]`` bools.
            scores: preset game totals ``[N, P]`` by player id.
        """
        xp, g, n = self.xp, self.num_games, self.P
        # Every input is checked before any game changes (a refused reset changes nothing).
        split_seed(seed)
        every = self.rows
        if roles is not None:
            order = xp.asarray(preset_seating("roles", roles, g, n), xp.int64)
        else:  # the seeded draw of draw_roles, for deal number 0 (J3)
            zero = xp.zeros((g,), xp.int64)
            order = permutations(xp, seed, TAG_ROLES, every + self.game_offset, zero, n)
        sc = None
        if scores is not None:
            sc = preset_ints("scores", scores, (g, n), "integers")
            if sc.min() < 0 or sc.max() >= self.rules.target:
                raise PresetError(f"preset scores must be from 0 to {self.rules.target - 1}")
        flags = trade_flags(trade, g)
        preset = None if hands is None else self._check_hands(hands, xp.to_numpy(order), flags)
        self.seed = seed
        self.clear(every, "deals", "series", "scores")
        self.order[:] = order
        if sc is not None:
            self.scores[:] = xp.take_along(xp.asarray(sc, xp.int64), self.order, 1)
        start_series(self, every, xp.asarray(flags, xp.bool), preset)
        self.clear(every, "done", "rewards")
        return self._observe()

    def _check_hands(self, hands: Any, order: np.ndarray, trade: np.ndarray) -> np.ndarray:
        """Preset hands ``[N, P, K]`` that fit the pack and survive the trades (J5)."""
        arr = preset_ints("hands", hands, (self.num_games, self.P, self.K), "card counts")
        if arr.min() < 0 or np.any(arr.sum(axis=1) > self.rules.deck[None, :]):
            raise PresetError("preset hands hold more cards of some slot than the pack")
        if np.any(arr.sum(axis=2) == 0):
            raise PresetError("every preset hand must hold at least one card")
        if self.P >= 5:  # the President gets the Scum's two highest and gives two back
            rows = np.arange(self.num_games)
            president = arr[rows, order[:, 0]].sum(axis=1)
            scum = arr[rows, order[:, -1]].sum(axis=1)
            bad = np.flatnonzero(trade & (president == 1) & (scum == 1))
            if bad.size:
                raise PresetError(
                    f"game {int(bad[0])}: preset hands leave the President with no cards once "
                    "the trades are done (J5); give the President or the Scum a second card"
                )
        return arr

    def _running(self) -> Array:
        return self.phase != OVER

    def _apply(self, a: Array, live: Array) -> None:
        xp = self.xp
        trade = live & (self.phase == TRADE)
        play = live & (self.phase == PLAY)  # before the give-backs: they may start the play
        if xp.any(trade):
            give_back(self, xp.nonzero(trade), a)
        self._play_or_pass(play, a)

    def _restart(self, idx: Any) -> None:
        restart(self, idx)

    def to_act(self) -> Array:
        """``[N]`` player id to act in each game."""
        return self.xp.take_flat(self.order, self.flat_actor())

    def flat_actor(self) -> Array:
        """Index of each game's player to act in the flattened ``[N*P]`` player axis."""
        return self.rows_p + self.actor

    # ------------------------------------------------------------------ play
    def _taken(self, hand: Array, count: Array, slot: Array) -> Array:
        """Cards ``[N, K]`` a play of ``count`` cards with best card ``slot`` takes."""
        xp = self.xp
        best = self.slot_ar[None, :] == slot[:, None]
        if not self.rules.colour_mode:
            return best * xp.astype(count, xp.int8)[:, None]
        # J9 colour mode: the best card, then the lowest colours of its rank.
        same = (self.slot_rank[None, :] == self.slot_rank[slot][:, None]) & (
            self.slot_ar[None, :] <= slot[:, None]
        )
        best_i = xp.astype(best, xp.int64)
        rest = xp.where(same, xp.astype(hand, xp.int64) - best_i, 0)
        before = xp.cumsum(rest, 1) - rest
        want = (count - 1)[:, None] - before
        take = xp.where(want > rest, rest, want)
        take = xp.where(take > 0, take, 0) + best_i
        return xp.astype(xp.where(count[:, None] > 0, take, 0), xp.int8)

    def _play_or_pass(self, play: Array, a: Array) -> None:
        """Apply the play-phase actions of games ``play`` (J6, J7, J9)."""
        xp = self.xp
        k = self.K
        is_play = play & (a > 0)
        is_pass = play & (a == 0)
        c = xp.where(is_play, (a - 1) // k + 1, 0)
        slot = xp.where(is_play, (a - 1) % k, 0)
        p = self.actor
        flat = self.flat_actor()
        hands2 = self.hands.reshape(-1, k)
        hand = xp.take_rows(hands2, flat)
        taken = self._taken(hand, c, slot)
        hands2[flat] = hand - taken
        nc = self.ncards.reshape(-1)
        left = nc[flat] - xp.astype(c, xp.int16)
        nc[flat] = left
        self.top_cards[:] = xp.where(is_play[:, None], taken, self.top_cards)
        self.played += taken
        self.top_count[:] = xp.where(is_play, c, self.top_count)
        self.top_slot[:] = xp.where(is_play, slot, self.top_slot)
        self.top_pos[:] = xp.where(is_play, p, self.top_pos)
        self.passes[:] = xp.where(is_play, 0, self.passes + xp.astype(is_pass, xp.int64))
        passed = self.passed.reshape(-1)
        passed[flat] = passed[flat] | is_pass
        acted = self.acted.reshape(-1)
        acted[flat] = acted[flat] | play
        out = is_play & (left == 0)
        series_end = out & False  # no series ends unless someone went out
        if xp.any(out):
            self.nfin += xp.astype(out, xp.int64)
            fin = self.finish.reshape(-1)
            fin[flat] = xp.where(out, xp.astype(self.nfin, xp.int8), fin[flat])
            holders = xp.sum(self.ncards > 0, 1)
            series_end = out & (holders == 1)
        ends = is_play & self.ends_round[slot] & ~series_end  # J7
        moving = play & ~ends & ~series_end
        has = self.ncards > 0
        if self.rules.carousel:  # J9: until every other holder passed since the last play
            top_has = xp.take_flat(has, self.rows_p + xp.where(self.top_pos >= 0, self.top_pos, 0))
            others = xp.sum(has, 1) - xp.astype(top_has, xp.int64)
            over = self.passes >= others
            nxt, _ = self._next_holder(p, has)
        else:  # J6: each other holder gets one chance
            nxt, found = self._next_holder(p, has & ~self.acted)
            over = ~found
        self.actor[:] = xp.where(moving & ~over, nxt, self.actor)
        round_end = ends | (moving & over)
        if xp.any(round_end):
            self._end_round(xp.nonzero(round_end))
        if xp.any(series_end):
            end_series(self, xp.nonzero(series_end))

    def _next_holder(self, start: Array, eligible: Array) -> tuple[Array, Array]:
        """First eligible position after ``start`` in turn order, and whether one exists."""
        xp = self.xp
        dist = xp.where(eligible, xp.take_rows(self.dist_table, start), BIG)
        return xp.argmin(dist, 1), xp.amax(eligible, 1)

    def _end_round(self, r: Array) -> None:
        """The highest play wins and leads; a winner who is out hands the lead on (J6)."""
        xp = self.xp
        top = self.top_pos[r]
        has = self.ncards[r] > 0
        winner_has = xp.take_along(has, top[:, None], 1)[:, 0]
        after, _ = self._next_holder(top, has)
        self.actor[r] = xp.where(winner_has, top, after)
        self._clear_round(r)

    def _clear_round(self, r: Array) -> None:
        self.clear(r, "top_count", "top_cards", "passed", "acted", "passes")
        self.clear(r, "top_slot", "top_pos", value=-1)

    # ------------------------------------------------------------------ views
    def _observe(self) -> tuple[Array, Array, Array]:
        xp = self.xp
        hand = xp.take_rows(self.hands.reshape(-1, self.K), self.flat_actor())
        mask = self.encoder.mask(self, hand)
        self._mask = mask
        obs = self.encoder.observe(self, hand)
        return obs, self._mask_out(mask), self.to_act()

    def _observe_players(self, ids: Array) -> Array:
        xp = self.xp
        saved = xp.copy(self.actor)
        self.actor[:] = xp.argmax(self.order == ids[:, None], 1)
        hand = xp.take_rows(self.hands.reshape(-1, self.K), self.flat_actor())
        view = xp.copy(self.encoder.observe(self, hand))
        give = self.encoder.spec.slices["give_backs_left"].start
        view[:, give] = xp.where(self.actor == saved, view[:, give], 0.0)  # the giver's alone
        self.actor[:] = saved
        self._observe()  # the encoder writes into the shared buffer: rebuild it in place
        return view

    def game_view(self, g: int) -> dict[str, Any]:
        """Game ``g`` by player id, as numpy (for tests, debugging and rendering): ``hands``,
        ``given``, ``received``, ``dealt`` (before the trades), ``order``, ``scores``,
        ``finish``, ``phase``, ``to_act``, ``series``."""
        xp = self.xp
        order = xp.to_numpy(self.order[g])
        inv = np.argsort(order)

        def by_player(x: Array) -> np.ndarray:
            return np.asarray(xp.to_numpy(x[g]))[inv]

        hands, given, received = (by_player(x) for x in (self.hands, self.given, self.received))
        fin = xp.to_numpy(self.finish[g])
        out_pos = [int(j) for j in np.argsort(fin, kind="stable") if fin[j] > 0]
        return {
            "hands": hands.astype(np.int16),
            "given": given.astype(np.int16),
            "received": received.astype(np.int16),
            "dealt": (hands.astype(np.int16) + given - received),
            "order": [int(v) for v in order],
            "scores": by_player(self.scores).astype(np.int64),
            "finish": [int(order[j]) for j in out_pos],
            "phase": int(xp.to_numpy(self.phase[g])),
            "to_act": int(order[int(xp.to_numpy(self.actor[g]))]),
            "series": int(xp.to_numpy(self.series[g])),
        }


#: 0.2's functions of ``scum_env.batched.views``, now methods.
game_view, observe_players = BatchedScum.game_view, BatchedScum.observe_as


class ScumVectorEnv(GameVectorEnv):
    """``num_envs`` Scum games seen from one learning seat (numpy outputs); the learner
    keeps its player id while its role changes (J3).

    Arguments as [`GameVectorEnv`][cardsuite.batched.vector_env.GameVectorEnv];
    ``**config`` are [`ScumConfig`][scum_env.config.ScumConfig] fields.
    """

    ENGINE = BatchedScum


class ShardedScum(ShardedGames):
    """``num_games`` numpy Scum games stepped by ``threads`` threads; `BatchedScum`'s API.

    Arguments as [`ShardedGames`][cardsuite.batched.sharded.ShardedGames];
    ``**config`` are [`ScumConfig`][scum_env.config.ScumConfig] fields.
    """

    ENGINE = BatchedScum


def play_arena(
    policies: Sequence[BatchPolicy], episodes: int, *, batch: int = 4096, **options: Any
) -> ArenaResult:
    """Play ``episodes`` episodes with ``policies[p]`` in seat ``p``; per-seat mean rewards
    (`cardsuite.batched.run_arena`; ``options``: ``seed``, ``backend``, ``device`` and
    [`ScumConfig`][scum_env.config.ScumConfig] fields)."""
    return run_arena(BatchedScum, policies, episodes, batch=batch, **options)
