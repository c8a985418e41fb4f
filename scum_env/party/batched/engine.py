"""BatchedParty: N Scum Party tournaments (P1–P8) held as padded arrays.

Every game holds all its tables: per-table state has a leading *row* axis of
``R = N * T`` rows (row ``g * T + t`` is table ``t`` of game ``g``), per-seat
state is padded to the largest table ``P`` and indexed by seat position
(King = 0, the P3 turn order; a table's players are seated in role order at
every deal, so a seat is also the player's local index). ``members[r, j]``
is the player id at seat ``j``.

One [`BatchedParty.step`][scum_env.party.batched.engine.BatchedParty.step] applies one decision in every game, at that
game's table to act, in ``scum_party_v0``'s order: after every decision the
turn goes to the next table below (wrapping) whose hand is still in
progress. When the last table finishes its hand, the ladder (P7), the
scoring (P8), the next deal (P1, P4) and the forced trades (P5) all run
inside the same step. Rare events (ends of rounds, of a table's hand, of a
hand, of a tournament) run on the games they concern; the common path (a
play or a pass, the next player, the next table, the mask, the
observation) is full-width and branch-free, with no Python loop over games.

Episodes are tournaments of ``num_hands`` hands, rewarded as
``scum_party_v0``: ``reward="points"`` pays each hand's P8 points to every
player in the step the hand is scored, ``"final"`` and ``"rank"`` pay at the
end. A finished tournament restarts (``autoreset``) as a new one: a seeded
seat draw (P3), scores 0, a deal with the trades, like ``scum_party_v0``'s
``reset()``. Deals come from `cardsuite.batched.deal` streams keyed by
``(seed, game index, deal number * 16 + table)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardsuite.batched.arrays import ArrayGames
from cardsuite.batched.backend import Array, Backend, get_backend
from cardsuite.batched.checks import action_ids, active_flags, check_players
from cardsuite.batched.deal import TAG_ROLES, permutations, split_seed
from cardsuite.batched.protocol import StepResult
from cardsuite.errors import ConfigError, IllegalActionError, UsageError
from scum_env.party.batched import hands as H
from scum_env.party.batched.encoding import PartyBatchEncoder
from scum_env.party.batched.layout import Layout
from scum_env.party.batched.views import observe_players
from scum_env.party.config import PartyConfig

FAR = 1000  # distance of a seat that may not act (int16)


class BatchedParty(ArrayGames):
    """N Scum Party tournaments stepped together, on numpy or torch (CPU or GPU).

    Args:
        num_games: N, the number of tournaments held.
        backend: ``"numpy"`` or ``"torch"``.
        device: torch device (``"cpu"``, ``"cuda"``); numpy runs on the CPU.
        autoreset: restart finished tournaments inside `step` (default);
            with ``False`` a finished one stays over, ignores its actions and
            has an all-zero mask until `reset`.
        game_offset: index of this batch's first game in the deal streams.
        buffers: optional ``(obs [N, D] float32, mask [N, A] bool)`` to write into.
        **config: [`PartyConfig`][scum_env.party.config.PartyConfig] fields
            (``illegal_action``/``illegal_penalty`` do not apply: an illegal
            action raises [`IllegalActionError`][cardsuite.IllegalActionError]).
    """

    STATE_FIELDS = ("hands", "given", "received", "ncards", "finish", "finish_rank", "passed",
                    "acted", "members", "seat_score", "played", "top_count", "top_slot",
                    "top_pos", "nfin", "actor", "tover", "current", "hand", "deals", "over",
                    "scores", "ladder", "rewards", "done")  # fmt: skip

    def __init__(
        self,
        num_games: int,
        *,
        backend: str = "numpy",
        device: str | None = None,
        autoreset: bool = True,
        game_offset: int = 0,
        buffers: tuple[Array, Array] | None = None,
        **config: Any,
    ) -> None:
        """Allocate the arrays of ``num_games`` tournaments; call `reset` next."""
        if isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 1:
            raise ConfigError(f"num_games must be a positive integer, got {num_games!r}")
        self.config = PartyConfig.from_dict(config)
        self.lay = Layout(self.config)
        self.rules = self.lay.action_rules
        self.xp: Backend = get_backend(backend, device)
        self.num_games = num_games
        self.autoreset = autoreset
        self.game_offset = game_offset
        self.num_players = self.lay.n
        self.num_actions = self.lay.A
        self._init_static()
        self._init_state()
        self.encoder = PartyBatchEncoder(self.lay, self.xp, num_games, buffers)
        self.obs_spec = self.encoder.spec
        self.obs_dim = self.obs_spec.size
        self.seed: int | None = None
        self._mask: Array | None = None

    # ------------------------------------------------------------------ setup
    def _init_static(self) -> None:
        xp, lay = self.xp, self.lay
        i64 = xp.int64
        self.rows = xp.arange(self.num_games)
        self.rows_t = self.rows * lay.T
        self.slot_ar = xp.arange(lay.K)
        self.pos_ar = xp.arange(lay.P)
        self.t_ar = xp.arange(lay.T)
        self.dist = xp.asarray(np.minimum(lay.dist, FAR), xp.int16)  # turns from -> to
        self.table_dist = xp.asarray(lay.table_dist, i64)
        self.size_t = xp.asarray(lay.size, i64)
        self.finish_frac = xp.asarray(lay.finish_frac, xp.float32)  # [t * (P+1) + k] = k / size
        self.slot_of = xp.asarray(lay.slot_of, i64)
        self.ladder_perm = xp.asarray(lay.ladder_perm, i64)
        self.hand_points = xp.asarray(lay.hand_points, i64)
        self.real_seat = xp.asarray(lay.seats, xp.bool)  # [T, P]

    def _init_state(self) -> None:
        xp, lay = self.xp, self.lay
        g, t, p, k, n = self.num_games, lay.T, lay.P, lay.K, lay.n
        r = g * t
        i8, i64 = xp.int8, xp.int64
        self.hands = xp.zeros((r, p, k), i8)
        self.given = xp.zeros((r, p, k), i8)
        self.received = xp.zeros((r, p, k), i8)
        self.ncards = xp.zeros((r, p), xp.int16)
        self.finish = xp.zeros((r, p), i8)
        self.finish_rank = xp.zeros((r, p), xp.float32)  # what observers see: rank / size
        self.passed = xp.zeros((r, p), xp.bool)
        self.acted = xp.zeros((r, p), xp.bool)
        self.members = xp.zeros((r, p), i64)
        self.seat_score = xp.zeros((r, p), xp.float32)
        self.played = xp.zeros((r, k), i8)
        self.top_count = xp.zeros((r,), i64)
        self.top_slot = xp.full((r,), -1, i64)
        self.top_pos = xp.full((r,), -1, i64)
        self.nfin = xp.zeros((r,), i64)
        self.actor = xp.zeros((r,), i64)
        self.tover = xp.zeros((r,), xp.bool)
        self.current = xp.zeros((g,), i64)
        self.hand = xp.zeros((g,), i64)
        self.deals = xp.zeros((g,), i64)
        self.over = xp.zeros((g,), xp.bool)
        self.scores = xp.zeros((g, n), i64)
        self.ladder = xp.zeros((g, n, 3), xp.float32)
        self.rewards = xp.zeros((g, n), xp.float32)
        self.done = xp.zeros((g,), xp.bool)

    def buffer_bytes(self) -> int:
        """Bytes of the observation, its staging and the mask (all games)."""
        xp, enc = self.xp, self.encoder
        return int(xp.nbytes(enc.obs) + xp.nbytes(enc.stage) + xp.nbytes(enc.mask_buf))

    # ------------------------------------------------------------------ API
    def reset(
        self,
        seed: int = 0,
        *,
        seating: Any = None,
        hands: Any = None,
        trade: Any = True,
        scores: Any = None,
    ) -> tuple[Array, Array, Array]:
        """Start a new tournament in every slot; return ``(obs, mask, to_act)``.

        Args:
            seed: keys every game's seat draw and deals (0 .. 2**64-1).
            seating: preset seats ``[N, n]``: player ids table by table, top
                table first, each table King first (``scum_party_v0``'s flat
                ``seating`` option), instead of the seeded draw (P3).
            hands: preset first hands, card counts ``[N, n, 14]`` by player id
                as dealt (before the trades), instead of the seeded deal.
            trade: do the forced trades of the first hand (P5, default); a
                bool or ``[N]`` bools.
            scores: preset tournament totals ``[N, n]`` by player id.
        """
        xp = self.xp
        split_seed(seed)
        self.seed = seed
        every = self.rows
        self.deals[:] = 0
        seats = self.draw_seating(every)
        if seating is not None:
            seats = xp.asarray(H.check_seating(self, seating), xp.int64)
        sc = None if scores is None else H.check_scores(self, scores)
        flags = H.check_trade(self, trade)
        preset = None
        if hands is not None:
            preset = H.check_hands(self, hands)
            H.check_packs(self, preset, xp.to_numpy(seats))
        H.new_tournament(self, every, seats, xp.asarray(flags, xp.bool), preset)
        if sc is not None:
            self.scores[:] = xp.asarray(sc, xp.int64)
            H.update_ladder(self, every)
        self.done[:] = False
        self.rewards[:] = 0.0
        return self._observe()

    def step(self, actions: Any, active: Any = None) -> StepResult:
        """Apply one action in every game (or in the ``active`` ones only).

        Args:
            actions: ``[N]`` action ids of each game's player to act.
            active: optional ``[N]`` bools; other games are left untouched.

        Raises:
            IllegalActionError: an action of an active, running game is not
                legal; no game is changed.
        """
        xp = self.xp
        if self._mask is None:
            raise IllegalActionError("call reset() before step()")
        a = action_ids(xp, actions, self.num_games)
        live = ~self.over
        if active is not None:
            live = live & active_flags(xp, active, self.num_games)
        self._check_actions(a, live)
        self.done[:] = False
        self.rewards[:] = 0.0
        self._play_or_pass(live, a)
        if self.autoreset and xp.any(self.done):
            H.restart(self, xp.nonzero(self.done))
        obs, mask, to_act = self._observe()
        return StepResult(obs, mask, to_act, self.rewards, self.done)

    def _restart(self, idx: Any) -> None:
        """Deal new games at ``idx`` (autoreset and `restart_games`)."""
        H.restart(self, idx)

    def current_row(self) -> Array:
        """``[N]`` row of each game's table to act."""
        return self.rows_t + self.current

    def to_act(self) -> Array:
        """``[N]`` player id to act in each game."""
        row = self.current_row()
        return self.xp.take_flat(self.members, row * self.lay.P + self.actor[row])

    def observe_as(self, player: int | Array) -> Array:
        """A new ``[N, obs_dim]`` float32: each game as player id ``player`` sees it now.

        Row ``g`` is bit for bit ``scum_party_v0``'s ``observe(f"player_{player}")``
        of game ``g``, also when that player is not the one to act, sits at
        another table or has finished its hand (a critic's bootstrap value at
        the end of a rollout). ``player`` may also be ``[N]`` ids, one per
        game. Nothing of the engine changes: not its state, not the
        observation and mask buffers `step` returned.

        Raises:
            UsageError: before `reset`, or a bad ``player`` (not ids ``0 .. n-1``).
        """
        if self._mask is None:
            raise UsageError("call reset() before observe_as()")
        return observe_players(self, check_players(self.xp, player, self.num_games, self.lay.n))

    # ------------------------------------------------------------------ checks
    def _check_actions(self, a: Array, live: Array) -> None:
        xp = self.xp
        inside = (a >= 0) & (a < self.num_actions)
        safe = xp.where(inside, a, 0)
        legal = xp.take_flat(self._mask, self.rows * self.num_actions + safe) & inside
        bad = live & ~legal
        if xp.any(bad):
            g = int(xp.to_numpy(xp.nonzero(bad))[0])
            act = int(xp.to_numpy(a[g : g + 1])[0])
            player = int(xp.to_numpy(self.to_act()[g : g + 1])[0])
            table = int(xp.to_numpy(self.current[g : g + 1])[0])
            what = self.rules.describe_action(act)
            raise IllegalActionError(
                f"game {g}: player_{player} at table {table}: illegal action {act} ({what}); "
                "check the action mask (no game was changed)"
            )

    # ------------------------------------------------------------------ play
    def _play_or_pass(self, live: Array, a: Array) -> None:
        """Apply every live game's play or pass at its table to act (P1, P6)."""
        xp, lay = self.xp, self.lay
        k, p_max = lay.K, lay.P
        row = self.current_row()
        p = self.actor[row]
        flat = row * p_max + p
        is_play = live & (a > 0)
        is_pass = live & (a == 0)
        c = xp.where(is_play, (a - 1) // k + 1, 0)
        slot = xp.where(is_play, (a - 1) % k, 0)
        c8 = xp.astype(c, xp.int8)
        held = self.hands.reshape(-1)  # one card count per (row, seat, rank): 1-D updates
        held[flat * k + slot] -= c8
        self.played.reshape(-1)[row * k + slot] += c8
        nc = self.ncards.reshape(-1)
        left = nc[flat] - xp.astype(c, xp.int16)
        nc[flat] = left
        self.top_count[row] = xp.where(is_play, c, self.top_count[row])
        self.top_slot[row] = xp.where(is_play, slot, self.top_slot[row])
        self.top_pos[row] = xp.where(is_play, p, self.top_pos[row])
        passed = self.passed.reshape(-1)
        passed[flat] = passed[flat] | is_pass
        acted = self.acted.reshape(-1)
        acted[flat] = acted[flat] | live
        out = is_play & (left == 0)
        table_end = out & False
        has = xp.take_rows(self.ncards, row) > 0
        if xp.any(out):
            nfin = self.nfin[row] + xp.astype(out, xp.int64)
            self.nfin[row] = nfin
            fin = self.finish.reshape(-1)
            fin[flat] = xp.where(out, xp.astype(nfin, xp.int8), fin[flat])
            frac = xp.take_flat(self.finish_frac, self.current * (p_max + 1) + nfin)
            seen = self.finish_rank.reshape(-1)
            seen[flat] = xp.where(out, frac, seen[flat])
            table_end = out & (xp.sum(has, 1) == 1)
        ends = is_play & (slot == lay.joker) & ~table_end  # P1: nothing beats a Joker
        moving = live & ~ends & ~table_end
        eligible = has & ~xp.take_rows(self.acted, row)
        dist = xp.where(eligible, xp.take_rows(self.dist, self.current * p_max + p), FAR)
        nxt = xp.argmin(dist, 1)
        found = xp.amax(eligible, 1)
        self.actor[row] = xp.where(moving & found, nxt, p)
        round_end = ends | (moving & ~found)
        if xp.any(round_end):
            self._end_round(row[xp.nonzero(round_end)])
        if xp.any(table_end):
            self._end_table(row[xp.nonzero(table_end)])
        self._next_table(live)

    def _end_round(self, r: Array) -> None:
        """The highest play wins and leads; if out, the highest seat still in leads (P6)."""
        xp = self.xp
        top = self.top_pos[r]
        has = self.ncards[r] > 0
        winner_has = xp.take_along(has, top[:, None], 1)[:, 0]
        first = xp.argmax(has, 1)
        self.actor[r] = xp.where(winner_has, top, first)
        self.clear_round(r)

    def _end_table(self, r: Array) -> None:
        """One player at table rows ``r`` still holds cards: it is the Scum; the table waits."""
        xp = self.xp
        last = xp.argmax(self.ncards[r] > 0, 1)
        size = self.size_t[r % self.lay.T]
        self.finish[r, last] = xp.astype(size, xp.int8)
        self.finish_rank[r, last] = 1.0  # size / size
        self.tover[r] = True
        self.clear_round(r)

    def clear_round(self, r: Array) -> None:
        """Clear the trick of table rows ``r``."""
        self.top_count[r] = 0
        self.top_slot[r] = -1
        self.top_pos[r] = -1
        self.passed[r] = False
        self.acted[r] = False

    def _next_table(self, live: Array) -> None:
        """Turn to the next table below (wrapping) still playing; end the hand when none is."""
        xp = self.xp
        waiting = self.tover.reshape(self.num_games, self.lay.T)
        dist = xp.where(waiting, 1 << 20, xp.take_rows(self.table_dist, self.current))
        nxt = xp.argmin(dist, 1)
        all_over = ~xp.amax(~waiting, 1)
        self.current[:] = xp.where(live & ~all_over, nxt, self.current)
        hand_end = live & all_over
        if xp.any(hand_end):
            H.end_hand(self, xp.nonzero(hand_end))

    # ------------------------------------------------------------------ views
    def _observe(self) -> tuple[Array, Array, Array]:
        xp = self.xp
        row = self.current_row()
        me = self.actor[row]
        flat = row * self.lay.P + me
        player = xp.take_flat(self.members, flat)
        hand = xp.take_rows(self.hands.reshape(-1, self.lay.K), flat)
        mask = self.encoder.mask(self, row, hand)
        self._mask = mask
        obs = self.encoder.observe(self, row, me, player, hand)
        mask_out = mask.view(np.int8) if xp.name == "numpy" else mask.to(xp.int8)
        return obs, mask_out, player

    def draw_seating(self, g: Array) -> Array:
        """A seeded seat draw ``[M, n]`` for games ``g`` (P3)."""
        seed = 0 if self.seed is None else self.seed
        return permutations(
            self.xp, seed, TAG_ROLES, g + self.game_offset, self.deals[g], self.lay.n
        )

    def game_view(self, g: int) -> dict[str, Any]:
        """Game ``g`` as numpy, for tests, debugging and rendering.

        Keys: ``members`` (per table, player ids King first), ``dealt`` (per
        table, ``[size, 14]`` hands by seat as dealt before the trades; valid
        until the table's first play), ``hands`` (per table, current hands),
        ``scores`` (by player id), ``hand`` (hands scored), ``current``
        (table to act), ``to_act``, ``over``.
        """
        xp, lay = self.xp, self.lay
        members, dealt, hands = [], [], []
        for t, size in enumerate(lay.sizes):
            r = g * lay.T + t
            mem = xp.to_numpy(self.members[r])[:size]
            held = xp.to_numpy(self.hands[r]).astype(np.int16)[:size]
            given = xp.to_numpy(self.given[r]).astype(np.int16)[:size]
            received = xp.to_numpy(self.received[r]).astype(np.int16)[:size]
            members.append([int(p) for p in mem])
            hands.append(held)
            dealt.append(held + given - received)
        return {
            "members": members,
            "dealt": dealt,
            "hands": hands,
            "scores": xp.to_numpy(self.scores[g]).astype(np.int64),
            "hand": int(xp.to_numpy(self.hand[g : g + 1])[0]),
            "current": int(xp.to_numpy(self.current[g : g + 1])[0]),
            "to_act": int(xp.to_numpy(self.to_act()[g : g + 1])[0]),
            "over": bool(xp.to_numpy(self.over[g : g + 1])[0]),
        }
