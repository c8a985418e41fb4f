"""The Scandal heuristic over a batch of rows, as array operations.

`BatchedScandalHeuristic` is a batch policy (``policy(obs, mask,
games=..., players=...) -> actions``, see `cardsuite.batched.policies`)
that chooses, row for row, exactly the action
`ScandalHeuristic` chooses for the
same observation and mask (``tests/agents/test_batched_heuristic_scandal.py``
plays batches in lockstep with one plain heuristic per game and player;
``tests/agents/test_scandal_heuristic_batched.py`` compares every choice with
`ScandalPolicy.choose` on positions of real 2- to 6-player play, at every
repeat count).

The heuristic is stateful: its `RepeatMemory`
remembers the draw and discard positions met this hand (S4) and empties itself
when the observed ``turn`` goes down. The batch keeps one such memory per
(game index, player id), keyed by the ``games`` and ``players`` the caller
passes (``per_game = True``); ``repeat_memory=False`` plays every position as
met for the first time (the stateless heuristic of ISMCTS rollouts). How the
work is split:

* the observation pieces of every row are parsed at once (hand, melded
  scandals, pile order, known opponent cards, phase, duty, forbidden, stock),
  exactly as ``ScandalReader.view`` does row by row;
* ``BUILD`` rows (the first card to add, else finish) and ``MELD`` rows with a
  lay-off or meld start (the first lay-off, else the first start) are plain
  rules; they are not draw or discard positions, so no memory is touched (as
  ``ScandalHeuristic.act``);
* at draw and discard rows the memory gives each row its repeat count (a
  dictionary lookup per row, the same position bytes as
  ``RepeatMemory.visits`` without the digest), and then the draw and the
  discard of ``ScandalPolicy`` are array operations over all those rows:
  ``playable`` (a greedy pass over the scandals, in which only the gold cards,
  the ones shared by several scandals, carry over from one scandal to the
  next) of the hand, the hand with the top discard and the hand after every
  legal deep draw of every row in one call; ``usefulness`` of every card as a
  maximum over its scandals; the discard ranking as one sort. The one case
  left to ``ScandalPolicy.choose`` row by row is a legal deep draw deeper than
  the pile (no engine position has one); `fallbacks` counts those rows.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from cardsuite.agents.baselines.heuristic import check_params
from cardsuite.agents.baselines.scandal import RepeatMemory, ScandalPolicy, ScandalView
from cardsuite.batched.policies import numpy_call
from cardsuite.errors import ConfigError, UsageError
from cardsuite.obsspec import ObsSpec
from scandal_env.config import ScandalConfig
from scandal_env.encoding import obs_spec as scandal_obs_spec
from scandal_env.state import Phase, make_rules


class _Memory:
    """``RepeatMemory``'s state for one (game, player): positions seen, last turn."""

    __slots__ = ("last", "seen")

    def __init__(self) -> None:
        self.seen: dict[bytes, int] = {}
        self.last = -1.0


class ScandalArrays:
    """``ScandalPolicy``'s analysis (`playable`, `usefulness`) over ``[K, n]`` rows.

    Every result equals the per-game method's for each row: same points (float
    sums of integer card values), same used cards, same usefulness (multiples
    of 0.5).

    Args:
        policy: the per-game policy whose deck tables are used.

    Raises:
        ConfigError: a deck whose shared cards (in 2+ scandals) include a title
            or a blue/green card (S1 allows only gold cards there).
    """

    def __init__(self, policy: ScandalPolicy) -> None:
        """Precompute the deck's lookup arrays."""
        d = policy.deck
        n, ns = policy.n, policy.ns
        self.n, self.ns = n, ns
        member = np.asarray(d.member, dtype=bool)
        self.member_f = member.astype(np.float32)
        self.value = np.asarray(d.value, dtype=np.float64)
        self.title_of = np.asarray(d.title_of, dtype=np.int64)
        is_title = np.asarray(d.is_title, dtype=bool)
        is_bg = np.asarray(d.is_bg, dtype=bool)
        shared = member.sum(axis=1) > 1
        if (shared & (is_title | is_bg)).any():
            raise ConfigError("deck: a card of several scandals must be gold (S1)")
        # playable: single-scandal non-title and blue/green counts per scandal
        single = ~shared
        self.nt_single_f = (member & (single & ~is_title)[:, None]).astype(np.float32)
        self.bg_f = (member & is_bg[:, None]).astype(np.float32)
        self.single_cards = np.flatnonzero(single)
        self.single_scandal = member[self.single_cards].argmax(axis=1)
        self.single_nt = ~is_title[self.single_cards]
        self.shared_cards = np.flatnonzero(shared)
        # the greedy pass over the shared cards: their (card, scandal) memberships,
        # grouped by card, scandals ascending
        g_of, s_of = np.nonzero(member[self.shared_cards])
        self.g_pair = g_of
        self.g_pair_scandal = s_of
        self.g_pair_f = np.zeros((g_of.size, ns), dtype=np.float32)
        self.g_pair_f[np.arange(g_of.size), s_of] = 1.0
        starts = np.searchsorted(g_of, np.arange(self.shared_cards.size))
        self.g_group_start = starts[g_of]
        self.g_first = starts
        self.g_end = np.append(starts[1:], g_of.size)
        # usefulness: (card, scandal) pairs; the first scandal of every card, then layers
        first = member.argmax(axis=1)
        pc = [np.arange(n)]
        ps = [first]
        self.layers: list[tuple[np.ndarray, slice]] = []
        start = n
        rest = [list(np.flatnonzero(member[c]))[1:] for c in range(n)]
        k = 0
        while True:
            cards = np.array([c for c in range(n) if len(rest[c]) > k], dtype=np.int64)
            if not cards.size:
                break
            pc.append(cards)
            ps.append(np.array([rest[c][k] for c in cards.tolist()], dtype=np.int64))
            self.layers.append((cards, slice(start, start + cards.size)))
            start += cards.size
            k += 1
        self.pair_card = np.concatenate(pc)
        self.pair_scandal = np.concatenate(ps)
        pair_title = self.title_of[self.pair_scandal]
        self.pair_title = pair_title
        self.pair_is_title = self.pair_card == pair_title

    def playable(self, hand: np.ndarray, melded: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Points ``[K]`` (float) and cards ``[K, n]`` that could be laid down now, per row."""
        k = hand.shape[0]
        hf = hand.astype(np.float32)
        nt = hf @ self.nt_single_f
        has_bg = (hf @ self.bg_f) > 0
        open_ = ~melded & hand[:, self.title_of] & has_bg
        # The per-game pass goes through the scandals in order, and a shared (gold)
        # card goes to the first of its scandals that is melded or can be melded
        # with the cards still free. Scandal s depends only on scandals before it,
        # so iterating "every scandal at once, from the last round's claims" reaches
        # the pass's result and stays there: its one fixed point (at most ns rounds).
        hg = hand[:, self.shared_cards]
        hgp = hg[:, self.g_pair]
        qual = open_ & (nt + hgp.astype(np.float32) @ self.g_pair_f >= 2)
        cs = np.zeros((k, self.g_pair.size + 1), dtype=np.int64)
        for _ in range(self.ns + 1):
            np.cumsum((melded | qual)[:, self.g_pair_scandal], axis=1, out=cs[:, 1:])
            free = hgp & (cs[:, :-1] == cs[:, self.g_group_start])
            new = open_ & (nt + free.astype(np.float32) @ self.g_pair_f >= 2)
            if np.array_equal(new, qual):
                break
            qual = new
        used = np.zeros((k, self.n), dtype=bool)
        sc = self.single_scandal
        used[:, self.single_cards] = hand[:, self.single_cards] & (
            qual[:, sc] | (melded[:, sc] & self.single_nt)
        )
        used[:, self.shared_cards] = hg & (cs[:, self.g_end] > cs[:, self.g_first])
        return used.astype(np.float64) @ self.value, used

    def usefulness(
        self, hand: np.ndarray, melded: np.ndarray, opp: np.ndarray, in_pile: np.ndarray
    ) -> np.ndarray:
        """``[K, n]``: ``ScandalPolicy.usefulness`` of every card (``in_pile``: the pile's cards)."""
        cnt = hand.astype(np.float32) @ self.member_f
        pc, ps, pt = self.pair_card, self.pair_scandal, self.pair_title
        others = cnt[:, ps].astype(np.float64) - hand[:, pc]
        opp_t = opp[:, pt]
        extra = np.where(
            self.pair_is_title,
            1.0 + others,
            np.where(hand[:, pt], 2.0, np.where(opp_t | in_pile[:, pt], -0.5, 0.0)),
        )
        u = (others + extra) + np.where(opp_t, 1.0, 0.0)
        u[melded[:, ps]] = 0.0
        best = np.maximum(u[:, : self.n], 0.0)
        for cards, cols in self.layers:
            best[:, cards] = np.maximum(best[:, cards], u[:, cols])
        return best

    def scandal_counts(self, cards: np.ndarray) -> np.ndarray:
        """``[K, ns]``: how many of each row's ``cards`` belong to each scandal."""
        return cards.astype(np.float32) @ self.member_f


class BatchedScandalHeuristic:
    """The Scandal heuristic over ``[M, obs_dim]`` observations and ``[M, A]`` masks.

    Args:
        config: the game's [`ScandalConfig`][scandal_env.config.ScandalConfig] (or its dict).
        obs_spec: the observation layout (default: the config's Scandal layout).
        repeat_memory: remember the positions met this hand (S4), as the
            per-game heuristic does; ``False``: every position is met for the
            first time (``ScandalPolicy.choose(view)``, as ISMCTS rollouts play).
        **params: ``take_cost``, ``deep_margin`` (``ScandalPolicy`` knobs).

    Call it as ``policy(obs, mask, games=games, players=players)``: ``games``
    are the rows' game indices within the caller's batch, ``players`` the
    acting player ids; each (game, player) has its own repeat memory. With
    ``games``/``players`` left ``None``, row ``i`` is game ``i`` and the
    player is keyed by the dealer's seat relative to the observer (the
    observation holds no absolute player id: ``to_act`` is always the
    observer's own seat 0). That names the same player for a whole hand, and
    the memory only spans a hand, so the choices are the same unless a hand
    ends before every player's first decision (where even the per-game
    heuristic's memory is not cleared). Inputs may be numpy arrays or torch
    tensors; the int64 actions come back in the same kind (and device).

    A finished episode does not clear a memory by itself (the per-game
    heuristic clears it when the ``turn`` counter goes down, as at every new
    hand); `reset_games` forgets games explicitly, as the arena's
    heuristic is rebuilt at each episode.

    Attributes:
        fallbacks: rows decided by ``ScandalPolicy.choose`` one by one so far
            (a legal deep draw deeper than the pile; none in engine positions).
    """

    name = "heuristic"
    per_game: ClassVar[bool] = True

    @classmethod
    def from_engine(cls, engine: Any, **params: Any) -> BatchedScandalHeuristic:
        """The heuristic for the tables of a batched ``engine`` (its ``config`` and ``obs_spec``).

        The game record's ``batched_heuristic`` part is built this way by every
        trainer (`cardsuite.games.PARTS`).
        """
        return cls(engine.config, engine.obs_spec, **params)

    def __init__(
        self,
        config: ScandalConfig | dict[str, Any],
        obs_spec: ObsSpec | None = None,
        *,
        repeat_memory: bool = True,
        **params: Any,
    ) -> None:
        """Build the shared policy, its arrays and the observation offsets."""
        if isinstance(config, dict):
            config = ScandalConfig.from_dict(config)
        if not isinstance(config, ScandalConfig):
            raise ConfigError(
                f"config must be a ScandalConfig or a dict, got {type(config).__name__}"
            )
        check_params("scandal", params)
        self.config = config
        self.spec = obs_spec or scandal_obs_spec(make_rules(config))
        self.policy = ScandalPolicy(config, **params)
        self.arrays = ScandalArrays(self.policy)
        self.repeat_memory = bool(repeat_memory)
        self.P = config.num_players
        self.n = self.policy.n
        self.ns = self.policy.ns
        lay = self.policy.lay
        self.lay = lay
        sl = self.spec.slices
        self.sl = sl
        self.turn_col = sl["turn"].start
        self.stock_col = sl["stock_size"].start
        cols = [np.arange(sl[name].start, sl[name].stop) for name in RepeatMemory.PIECES]
        self.key_cols = np.concatenate(cols)
        top = sl["discard_top"]
        self.draw_key_cols = np.concatenate([*cols, np.arange(top.start, top.stop)])
        self.memory: dict[int, _Memory] = {}
        self.fallbacks = 0
        # discard ranking: (usefulness, -value, card) as one integer per card
        value = np.asarray(self.policy.deck.value, dtype=np.int64)
        span = int(value.max() - value.min()) + 1
        self._rank_scale = span * self.n
        self._rank_tail = (value.max() - value) * self.n + np.arange(self.n)

    # ------------------------------------------------------------------ entry
    def __call__(self, obs: Any, mask: Any, games: Any = None, players: Any = None) -> Any:
        """The heuristic's action for every row (see the class doc for ``games``/``players``)."""
        return numpy_call(self.choose, obs, mask, _host(games), _host(players))

    def reset_games(self, games: Any) -> None:
        """Forget the repeat memories of ``games`` (game indices), every player's."""
        p = self.P
        for g in np.asarray(_host(games), dtype=np.int64).reshape(-1).tolist():
            for i in range(p):
                self.memory.pop(g * p + i, None)

    def choose(
        self,
        obs: np.ndarray,
        mask: np.ndarray,
        games: np.ndarray | None = None,
        players: np.ndarray | None = None,
    ) -> np.ndarray:
        """Actions ``[M]`` for numpy observations and masks (repeats remembered, S4)."""
        obs, mask = self._check(obs, mask)
        m = obs.shape[0]
        keys = self._keys(obs, games, players, m)
        phase = obs[:, self.sl["phase"]].argmax(axis=1)
        repeat = np.zeros(m, dtype=np.int64)
        if self.repeat_memory:
            lay = self.lay
            point = (phase == Phase.DRAW) | (
                (phase == Phase.MELD) & ~mask[:, lay.MELD_START : lay.DISCARD].any(axis=1)
            )
            rows = np.flatnonzero(point)
            if rows.size:
                repeat[rows] = self._visits(obs, phase, keys, rows)
        return self._choose(obs, mask, phase, repeat)

    def choose_with_repeats(self, obs: Any, mask: Any, repeat: Any) -> np.ndarray:
        """Actions ``[M]`` given each row's repeat count; no memory is read or written.

        Row ``i`` gets ``ScandalPolicy.choose(view_i, repeat[i])``: ``repeat``
        is how often the row's draw or discard position was met before this
        hand (0: the plain heuristic).
        """
        obs, mask = self._check(np.asarray(obs), np.asarray(mask))
        rep = np.asarray(repeat).reshape(-1)
        if rep.shape != (obs.shape[0],) or rep.dtype.kind not in "iu" or (rep < 0).any():
            raise UsageError(f"heuristic: repeat must be {obs.shape[0]} integers >= 0")
        phase = obs[:, self.sl["phase"]].argmax(axis=1)
        return self._choose(obs, mask, phase, rep.astype(np.int64))

    def choose_engine(self, engine: Any, mask: Any, rows: Any) -> np.ndarray:
        """Actions ``[K]`` of the players to act in ``rows`` of a numpy batched engine.

        The view pieces are read from the engine's state arrays instead of
        its observation (so the engine may step with ``observe=False``):
        each row's choice is the one `choose` makes from the engine's
        observation of that row, with every position met for the first time
        (no repeat memory is read or written, as with ``repeat_memory=False``).

        Args:
            engine: a numpy [`BatchedScandal`][scandal_env.batched.engine.BatchedScandal]
                of this heuristic's config.
            mask: bool ``[K, A]``, the legal masks of ``rows`` (the engine's mask rows).
            rows: int ``[K]`` engine rows whose hand is not over.

        Raises:
            UsageError: a torch engine, another deck or player count, or a
                mask of the wrong shape.
        """
        if getattr(engine, "xp", None) is None or engine.xp.name != "numpy":
            raise UsageError("heuristic: choose_engine reads numpy engine arrays only")
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        mask = np.asarray(mask).astype(bool, copy=False)
        if engine.hands.shape[1:] != (self.P, self.n) or mask.shape != (rows.size, self.lay.size):
            raise UsageError(
                f"heuristic: need an engine of {self.P} players and {self.n} cards and a mask "
                f"[{rows.size}, {self.lay.size}], got hands {engine.hands.shape[1:]} and "
                f"mask {mask.shape}"
            )
        phase = engine.phase[rows]
        repeat = np.zeros(rows.size, dtype=np.int64)
        return self._choose_views(
            mask,
            phase,
            repeat,
            lambda sub: self._engine_views(engine, rows[sub]),
            lambda sub: engine.observe_as(engine.cur)[rows[sub]],
        )

    def _engine_views(self, eng: Any, g: np.ndarray) -> dict[str, np.ndarray]:
        """The view pieces of engine rows ``g`` (as `_views` reads them from the observation)."""
        cur = eng.cur[g]
        known = eng.known[g]
        others = np.arange(self.P)[None, :] != cur[:, None]
        pos = eng.pile_pos[g].astype(np.int64)
        in_pile = pos >= 0
        size = eng.pile_len[g]
        return {
            "hand": eng.hands[g, cur],
            "melded": eng.meld_owner[g] >= 0,
            "opp": (known & others[:, :, None]).any(axis=1),
            "in_pile": in_pile,
            "depth": np.where(in_pile, size[:, None] - 1 - pos, 0),
            "size": size,
            "stock": eng.stock_len[g],
        }

    # ------------------------------------------------------------------ internals
    def _check(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        obs = np.asarray(obs, dtype=np.float32)
        mask = np.asarray(mask).astype(bool, copy=False)
        m = obs.shape[0] if obs.ndim else 0
        if obs.ndim != 2 or obs.shape[1] != self.spec.size or mask.shape != (m, self.lay.size):
            raise UsageError(
                f"heuristic: need obs [M, {self.spec.size}] and mask [M, {self.lay.size}], "
                f"got {obs.shape} and {mask.shape}"
            )
        return obs, mask

    def _keys(self, obs: np.ndarray, games: Any, players: Any, m: int) -> np.ndarray:
        """The memory key ``game * P + player`` of every row."""
        p = self.P
        if games is None and players is None:
            dealer = obs[:, self.sl["dealer"]].argmax(axis=1)
            return np.arange(m, dtype=np.int64) * p + dealer
        if games is None or players is None:
            raise UsageError("heuristic: pass both games and players, or neither")
        g = np.asarray(games).reshape(-1)
        pl = np.asarray(players).reshape(-1)
        if (
            g.shape != (m,)
            or pl.shape != (m,)
            or g.dtype.kind not in "iu"
            or pl.dtype.kind not in "iu"
        ):
            raise UsageError(f"heuristic: games and players must be {m} integer ids each")
        if m and (pl.min() < 0 or pl.max() >= p or g.min() < 0):
            raise UsageError(f"heuristic: players must be in 0..{p - 1} and games >= 0")
        return g.astype(np.int64) * p + pl.astype(np.int64)

    def _visits(
        self, obs: np.ndarray, phase: np.ndarray, keys: np.ndarray, rows: np.ndarray
    ) -> list[int]:
        """``RepeatMemory.visits`` of each of ``rows`` (draw or discard rows), in row order."""
        memory = self.memory
        turns = obs[rows, self.turn_col].tolist()
        draw = (phase[rows] == Phase.DRAW).tolist()
        out = []
        for i, r in enumerate(rows.tolist()):
            k = int(keys[r])
            mem = memory.get(k)
            if mem is None:
                mem = memory[k] = _Memory()
            turn = turns[i]
            if turn < mem.last:
                mem.seen.clear()
            mem.last = turn
            key = obs[r, self.draw_key_cols if draw[i] else self.key_cols].tobytes()
            n = mem.seen.get(key, 0)
            mem.seen[key] = n + 1
            out.append(n)
        return out

    def _choose(
        self, obs: np.ndarray, mask: np.ndarray, phase: np.ndarray, repeat: np.ndarray
    ) -> np.ndarray:
        """``ScandalPolicy.choose`` of every row, given the repeat counts."""
        return self._choose_views(
            mask, phase, repeat, lambda rows: self._views(obs[rows]), lambda rows: obs[rows]
        )

    def _choose_views(
        self,
        mask: np.ndarray,
        phase: np.ndarray,
        repeat: np.ndarray,
        views: Any,
        observe: Any,
    ) -> np.ndarray:
        """``ScandalPolicy.choose`` of every row: ``views(rows)`` gives the view pieces of
        the draw and discard rows, ``observe(rows)`` their observations (the fallback)."""
        lay = self.lay
        m = mask.shape[0]
        actions = np.zeros(m, dtype=np.int64)
        # BUILD: the first card to add, else finish
        build = phase == Phase.BUILD
        adds = mask[:, lay.MELD_ADD : lay.MELD_FINISH]
        actions[build] = np.where(
            adds[build].any(axis=1), lay.MELD_ADD + adds[build].argmax(axis=1), lay.MELD_FINISH
        )
        # MELD (and any other phase): the first lay-off, else the first start, else discard
        offs = mask[:, lay.LAYOFF : lay.DISCARD]
        starts = mask[:, lay.MELD_START : lay.MELD_ADD]
        has_off, has_start = offs.any(axis=1), starts.any(axis=1)
        draw = phase == Phase.DRAW
        plays = ~build & ~draw & (has_off | has_start)
        first = np.where(
            has_off, lay.LAYOFF + offs.argmax(axis=1), lay.MELD_START + starts.argmax(axis=1)
        )
        actions[plays] = first[plays]
        rows = np.flatnonzero(~build & ~plays)
        if not rows.size:
            return actions
        legal = mask[rows]
        empty = ~legal.any(axis=1)
        if empty.any():
            raise UsageError(f"heuristic: row {int(rows[empty][0])} has no legal action")
        v = views(rows)
        v["mask"], v["repeat"], v["first"] = legal, repeat[rows], legal.argmax(axis=1)
        is_draw = draw[rows]
        out = np.empty(rows.size, dtype=np.int64)
        fall = np.zeros(rows.size, dtype=bool)
        self._decide(v, is_draw, out, fall)
        if fall.any():
            falls = np.flatnonzero(fall)
            seen = observe(rows[falls])
            for j, i in enumerate(falls.tolist()):
                out[i] = self._one(seen[j], legal[i], int(phase[rows[i]]), int(repeat[rows[i]]))
            self.fallbacks += int(fall.sum())
        actions[rows] = out
        return actions

    def _views(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """The view pieces of every row, as ``ScandalReader.view`` reads them (no pile order)."""
        sl, n, p = self.sl, self.n, self.P
        m = obs.shape[0]
        in_pile = obs[:, sl["discard_in"]] > 0.5
        return {
            "hand": obs[:, sl["hand"]] > 0.5,
            "melded": obs[:, sl["melded_by"]].reshape(m, p, self.ns).max(axis=1) > 0.5,
            "opp": obs[:, sl["opp_known"]].reshape(m, p - 1, n).max(axis=1) > 0.5,
            "in_pile": in_pile,
            "depth": np.rint(obs[:, sl["discard_depth"]] * (n - 1)).astype(np.int64),
            "size": in_pile.sum(axis=1),
            "stock": np.rint(obs[:, self.stock_col] * n).astype(np.int64),
        }

    def _pile_order(self, in_pile: np.ndarray, depth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each row's cards in pile order (bottom first; the pile's cards first) and each
        card's place in that order: deepest first, ties by card id (``ScandalReader.view``).
        ``depth``: each card's integer depth in the pile (0: the top)."""
        n = self.n
        order = np.argsort(np.where(in_pile, -depth, n), axis=1, kind="stable")
        rank = np.empty_like(order)
        rank[np.arange(order.shape[0])[:, None], order] = np.arange(n)
        return order, rank

    def _one(self, obs: np.ndarray, mask: np.ndarray, phase: int, repeat: int) -> int:
        """``ScandalPolicy.choose`` of one row (the fallback)."""
        v = self._views(obs[None])
        sl = self.sl
        duty = np.flatnonzero(obs[sl["duty"]] > 0.5)
        forbidden = np.flatnonzero(obs[sl["forbidden"]] > 0.5)
        view = ScandalView(
            hand=v["hand"][0],
            melded=v["melded"][0],
            pile=self._pile_order(v["in_pile"], v["depth"])[0][0, : int(v["size"][0])].tolist(),
            opp_known=v["opp"][0],
            phase=phase,
            duty=int(duty[0]) if duty.size else -1,
            forbidden=int(forbidden[0]) if forbidden.size else -1,
            mask=mask,
            stock=int(v["stock"][0]),
        )
        return self.policy.choose(view, repeat)

    def _decide(
        self, v: dict[str, np.ndarray], is_draw: np.ndarray, out: np.ndarray, fall: np.ndarray
    ) -> None:
        """Fill ``out`` with the draw or discard of every row; mark ``fall`` for the fallback.

        One `ScandalArrays.playable` call covers every draw row's hand, hand
        with the top discard and hand after each legal deep draw; one
        `ScandalArrays.usefulness` call covers every discard row and every
        draw row that asks whether the top discard builds a meld.
        """
        arr, lay, pol = self.arrays, self.lay, self.policy
        hand, melded, opp, in_pile = v["hand"], v["melded"], v["opp"], v["in_pile"]
        legal, repeat, size = v["mask"], v["repeat"], v["size"]
        n = self.n
        d_rows = np.flatnonzero(is_draw)
        x_rows = np.flatnonzero(~is_draw)
        # ---- draws: playable of hand, hand + top discard, hand + every legal deep draw
        rd = d_rows.size
        ri, depth = np.nonzero(legal[d_rows, lay.DRAW_DISCARD + 1 : lay.MELD_START])
        depth = depth + 1
        r = d_rows[ri]
        cut = size[r] - 1 - depth  # pile[cut:] is taken (Python slicing wraps below 0)
        bad = cut < 0
        if bad.any():
            fall[np.unique(r[bad])] = True
        order, rank = self._pile_order(in_pile[d_rows], v["depth"][d_rows])
        taken = in_pile[r] & (rank[ri] >= cut[:, None])
        top = order[np.arange(rd), np.maximum(size[d_rows] - 1, 0)]
        with_top = hand[d_rows].copy()
        has_pile = size[d_rows] > 0
        with_top[np.flatnonzero(has_pile), top[has_pile]] = True
        hands = np.concatenate([hand[d_rows], with_top, hand[r] | taken])
        pts, used = arr.playable(hands, np.concatenate([melded[d_rows], melded[d_rows], melded[r]]))
        base, pts_top = pts[:rd], pts[rd : 2 * rd]
        pts_deep, used_deep = pts[2 * rd :], used[2 * rd :]
        # the deep draws (best_deep_draw): gain, the last-cards rule (goes_out)
        if r.size:
            n_used = used_deep.sum(axis=1)
            left = (hands[2 * rd :].sum(axis=1)) - n_used
            common = (arr.scandal_counts(used_deep) == n_used[:, None]).any(axis=1)
            goes_out = (left == 1) | ((left == 0) & (n_used >= 4) & common)
            last = np.maximum(v["stock"][r], 0) + size[r] - (depth + 1) + 1 <= 1
            waste = (taken & ~used_deep).astype(np.float64) @ arr.value
            gain = pts_deep - base[ri] - pol.take_cost * waste
            margin = np.where(repeat[r] == 0, pol.deep_margin, -np.inf)
            ok = (~last | goes_out) & (gain > margin) & ~bad
            best = np.full((rd, lay.MELD_START - lay.DRAW_DISCARD - 1), -np.inf)
            best[ri[ok], depth[ok] - 1] = gain[ok]
            deep = np.zeros(rd, dtype=bool)
            deep[ri[ok]] = True
            deep_action = lay.DRAW_DISCARD + 1 + best.argmax(axis=1)
        else:
            deep = np.zeros(rd, dtype=bool)
            deep_action = np.zeros(rd, dtype=np.int64)
        # the top discard: laid down at once, or (first visit) builds a meld in hand
        can_top = legal[d_rows, lay.DRAW_DISCARD] & has_pile & ~deep
        take_top = can_top & (pts_top > base)
        ask = np.flatnonzero(can_top & ~take_top & (repeat[d_rows] == 0))
        # ---- usefulness: the discard rows, and the asked draw rows after taking the top
        ai = d_rows[ask]
        pile_after = in_pile[ai].copy()
        pile_after[np.arange(ask.size), top[ask]] = False
        useful = arr.usefulness(
            np.concatenate([hand[x_rows], with_top[ask]]),
            np.concatenate([melded[x_rows], melded[ai]]),
            np.concatenate([opp[x_rows], opp[ai]]),
            np.concatenate([in_pile[x_rows], pile_after]),
        )
        if ask.size:  # builds(view, top)
            u = useful[x_rows.size :]
            gain_top = u[np.arange(ask.size), top[ask]]
            worst = np.where(hand[ai], u, np.inf).min(axis=1)
            builds = (gain_top >= 2.0) & (~hand[ai].any(axis=1) | (gain_top > worst))
            take_top[ask[builds]] = True
        stock = legal[d_rows, lay.DRAW_STOCK]
        out[d_rows] = np.where(
            deep,
            deep_action,
            np.where(
                take_top, lay.DRAW_DISCARD, np.where(stock, lay.DRAW_STOCK, v["first"][d_rows])
            ),
        )
        # ---- discards: the least useful card, the most valuable among equals; k-th at a repeat
        if x_rows.size:
            cards = legal[x_rows, lay.DISCARD : lay.DISCARD + n]
            count = cards.sum(axis=1)
            u = useful[: x_rows.size]
            key = (2.0 * u).astype(np.int64) * self._rank_scale + self._rank_tail
            key = np.where(cards, key, np.iinfo(np.int64).max)
            rep = repeat[x_rows]
            if (rep > 0).any():
                ranked = np.argsort(key, axis=1)
                pick = ranked[np.arange(x_rows.size), rep % np.maximum(count, 1)]
            else:
                pick = key.argmin(axis=1)
            out[x_rows] = np.where(count > 0, lay.DISCARD + pick, v["first"][x_rows])


def _host(x: Any) -> Any:
    """A torch tensor as numpy; anything else unchanged."""
    return x.detach().cpu().numpy() if hasattr(x, "detach") else x


def make_batched_heuristic(
    config: ScandalConfig | dict[str, Any], obs_spec: ObsSpec | None = None, **params: Any
) -> BatchedScandalHeuristic:
    """The batched Scandal heuristic for ``config`` (``params``: ``take_cost``, ``deep_margin``)."""
    return BatchedScandalHeuristic(config, obs_spec, **params)
