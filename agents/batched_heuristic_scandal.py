"""The Scandal heuristic inside a batch: one repeat memory per (game, player).

`BatchedScandalHeuristic` is a batch policy (``policy(obs, mask,
games=..., players=...) -> actions``, see `cardsuite.batched.policies`)
that chooses, row for row, exactly the action
`ScandalHeuristic` chooses for the
same observation and mask (``tests/agents/test_batched_heuristic_scandal.py``
plays batches in lockstep with one plain heuristic per game and player).

The heuristic is stateful: its `RepeatMemory`
remembers the draw and discard positions met this hand (S4) and empties itself
when the observed ``turn`` goes down. The batch keeps one such memory per
(game index, player id), keyed by the ``games`` and ``players`` the caller
passes (``per_game = True``). How the work is split:

* the observation pieces of every row are parsed at once (hand, melded
  scandals, pile order, known opponent cards, phase, duty, forbidden, stock),
  exactly as ``ScandalReader.view`` does row by row;
* rows whose choice is a plain rule (``BUILD``: the first card to add, else
  finish; ``MELD`` with a lay-off or meld start: the first lay-off, else the
  first start) are decided by array operations; they are not draw or discard
  positions, so no memory is touched (as ``ScandalHeuristic.act``);
* draw and discard rows call the shared ``ScandalPolicy.choose`` one by one,
  with that (game, player)'s memory (the same position bytes as
  ``RepeatMemory.visits``, without the digest).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from cardsuite.agents.heuristic import check_params
from cardsuite.agents.heuristic_scandal import RepeatMemory, ScandalPolicy, ScandalView
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


class BatchedScandalHeuristic:
    """The Scandal heuristic over ``[M, obs_dim]`` observations and ``[M, A]`` masks.

    Args:
        config: the game's [`ScandalConfig`][scandal_env.config.ScandalConfig] (or its dict).
        obs_spec: the observation layout (default: the config's Scandal layout).
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
        self, config: ScandalConfig | dict[str, Any], obs_spec: ObsSpec | None = None, **params: Any
    ) -> None:
        """Build the shared policy and the observation offsets."""
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
        """Actions ``[M]`` for numpy observations and masks."""
        obs = np.asarray(obs, dtype=np.float32)
        mask = np.asarray(mask).astype(bool, copy=False)
        m = obs.shape[0]
        if obs.ndim != 2 or obs.shape[1] != self.spec.size or mask.shape != (m, self.lay.size):
            raise UsageError(
                f"heuristic: need obs [M, {self.spec.size}] and mask [M, {self.lay.size}], "
                f"got {obs.shape} and {mask.shape}"
            )
        keys = self._keys(obs, games, players, m)
        lay, sl = self.lay, self.sl
        phase = obs[:, sl["phase"]].argmax(axis=1)
        actions = np.zeros(m, dtype=np.int64)
        slow = np.ones(m, dtype=bool)
        # BUILD: the first card to add, else finish
        build = phase == Phase.BUILD
        if build.any():
            adds = mask[:, lay.MELD_ADD : lay.MELD_FINISH]
            actions[build] = np.where(
                adds[build].any(axis=1), lay.MELD_ADD + adds[build].argmax(axis=1), lay.MELD_FINISH
            )
            slow &= ~build
        # MELD with a lay-off or a meld start: the first lay-off, else the first start
        meld = phase == Phase.MELD
        if meld.any():
            offs = mask[:, lay.LAYOFF : lay.DISCARD]
            starts = mask[:, lay.MELD_START : lay.MELD_ADD]
            has_off, has_start = offs.any(axis=1), starts.any(axis=1)
            first = np.where(
                has_off, lay.LAYOFF + offs.argmax(axis=1), lay.MELD_START + starts.argmax(axis=1)
            )
            plays = meld & (has_off | has_start)
            actions[plays] = first[plays]
            slow &= ~plays
        rows = np.flatnonzero(slow)
        if rows.size:
            actions[rows] = self._one_by_one(obs[rows], mask[rows], phase[rows], keys[rows])
        return actions

    # ------------------------------------------------------------------ internals
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

    def _one_by_one(
        self, obs: np.ndarray, mask: np.ndarray, phase: np.ndarray, keys: np.ndarray
    ) -> list[int]:
        """``ScandalHeuristic.act`` of each row (views parsed for all rows at once)."""
        sl, n, p = self.sl, self.n, self.P
        m = obs.shape[0]
        hand = obs[:, sl["hand"]] > 0.5
        melded = obs[:, sl["melded_by"]].reshape(m, p, self.ns).max(axis=1) > 0.5
        opp = obs[:, sl["opp_known"]].reshape(m, p - 1, n).max(axis=1) > 0.5
        in_pile = obs[:, sl["discard_in"]] > 0.5
        depth = np.rint(obs[:, sl["discard_depth"]] * (n - 1)).astype(int)
        # in-pile cards deepest first (bottom first), ties by card id: ScandalReader.view
        order = np.argsort(np.where(in_pile, -depth, n), axis=1, kind="stable").tolist()
        sizes = in_pile.sum(axis=1).tolist()
        duty_m, forb_m = obs[:, sl["duty"]] > 0.5, obs[:, sl["forbidden"]] > 0.5
        duty = np.where(duty_m.any(axis=1), duty_m.argmax(axis=1), -1).tolist()
        forbidden = np.where(forb_m.any(axis=1), forb_m.argmax(axis=1), -1).tolist()
        stock = np.rint(obs[:, self.stock_col] * n).astype(int).tolist()
        turns = obs[:, self.turn_col].tolist()
        phases = phase.tolist()
        key_list = keys.tolist()
        policy, memory = self.policy, self.memory
        out = []
        for i in range(m):
            view = ScandalView(
                hand=hand[i],
                melded=melded[i],
                pile=order[i][: sizes[i]],
                opp_known=opp[i],
                phase=phases[i],
                duty=duty[i],
                forbidden=forbidden[i],
                mask=mask[i],
                stock=stock[i],
            )
            repeat = 0
            if policy.decision_point(view):
                mem = memory.get(key_list[i])
                if mem is None:
                    mem = memory[key_list[i]] = _Memory()
                turn = turns[i]
                if turn < mem.last:
                    mem.seen.clear()
                mem.last = turn
                cols = self.draw_key_cols if phases[i] == Phase.DRAW else self.key_cols
                key = obs[i, cols].tobytes()
                repeat = mem.seen.get(key, 0)
                mem.seen[key] = repeat + 1
            out.append(policy.choose(view, repeat))
        return out


def _host(x: Any) -> Any:
    """A torch tensor as numpy; anything else unchanged."""
    return x.detach().cpu().numpy() if hasattr(x, "detach") else x


def make_batched_heuristic(
    config: ScandalConfig | dict[str, Any], obs_spec: ObsSpec | None = None, **params: Any
) -> BatchedScandalHeuristic:
    """The batched Scandal heuristic for ``config`` (``params``: ``take_cost``, ``deep_margin``)."""
    return BatchedScandalHeuristic(config, obs_spec, **params)
