"""The Scandal heuristic over a batch of rows (`BatchedScandalHeuristic`): what
``ScandalPolicy.choose`` chooses, with one S4 repeat memory per (game, player), about ten
times faster (``python -m benchmarks.search_bench --heuristic``).
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from typing import Any, ClassVar

import numpy as np

from cardsuite.agents.baselines.heuristic import BatchedHeuristic, check_params
from cardsuite.agents.baselines.scandal import RepeatMemory, ScandalReader
from cardsuite.agents.baselines.scandal_arrays import ScandalArrays
from cardsuite.agents.baselines.scandal_rule import ScandalPolicy
from cardsuite.batched.policies import numpy_call
from cardsuite.errors import ConfigError, UsageError
from cardsuite.obsspec import ObsSpec
from scandal_env.config import ScandalConfig
from scandal_env.encoding import obs_spec as scandal_obs_spec
from scandal_env.state import Phase, make_rules


class BatchedScandalHeuristic(BatchedHeuristic):
    """The Scandal heuristic over ``[M, obs_dim]`` observations and ``[M, A]`` masks (numpy or
    torch): ``config`` a `ScandalConfig` or its dict, ``repeat_memory=False`` no S4 memory,
    ``params`` ``take_cost`` and ``deep_margin``. ``policy(obs, mask, games=, players=)``
    keeps one memory per (game, acting player); without them row ``i`` is game ``i``, keyed
    by the dealer's relative seat. ``fallbacks`` counts rows decided one by one."""

    per_game: ClassVar[bool] = True

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
        self.reader = ScandalReader(config, self.spec)
        self.repeat_memory = bool(repeat_memory)
        self.P = config.num_players
        self.n, self.ns, self.lay = self.policy.n, self.policy.ns, self.policy.lay
        self.sl = sl = self.spec.slices
        self.turn_col = sl["turn"].start
        self.stock_col = sl["stock_size"].start
        cols = [np.arange(sl[name].start, sl[name].stop) for name in RepeatMemory.PIECES]
        self.key_cols = np.concatenate(cols)
        top = sl["discard_top"]
        self.draw_key_cols = np.concatenate([*cols, np.arange(top.start, top.stop)])
        self.memory: dict[int, RepeatMemory] = defaultdict(lambda: RepeatMemory(self.spec))
        self.fallbacks = 0

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
        """Actions ``[M]``, row ``i``'s ``ScandalPolicy.choose(view_i, repeat[i])`` (no memory)."""
        obs, mask = self._check(np.asarray(obs), np.asarray(mask))
        rep = np.asarray(repeat).reshape(-1)
        if rep.shape != (obs.shape[0],) or rep.dtype.kind not in "iu" or (rep < 0).any():
            raise UsageError(f"heuristic: repeat must be {obs.shape[0]} integers >= 0")
        phase = obs[:, self.sl["phase"]].argmax(axis=1)
        return self._choose(obs, mask, phase, rep.astype(np.int64))

    def choose_engine(self, engine: Any, mask: Any, rows: Any) -> np.ndarray:
        """Deprecated: `choose_with_repeats` of ``engine.observe_as(engine.cur)[rows]``."""
        warnings.warn(
            "BatchedScandalHeuristic.choose_engine is deprecated since cardsuite 0.3; call "
            "choose_with_repeats on engine.observe_as(engine.cur)[rows] instead",
            DeprecationWarning,
            stacklevel=2,
        )
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        obs = engine.observe_as(engine.cur)[rows]
        return self.choose_with_repeats(obs, mask, np.zeros(rows.size, dtype=np.int64))

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
        g, pl = np.asarray(games).reshape(-1), np.asarray(players).reshape(-1)
        if any(a.shape != (m,) or a.dtype.kind not in "iu" for a in (g, pl)):
            raise UsageError(f"heuristic: games and players must be {m} integer ids each")
        if m and (pl.min() < 0 or pl.max() >= p or g.min() < 0):
            raise UsageError(f"heuristic: players must be in 0..{p - 1} and games >= 0")
        return g.astype(np.int64) * p + pl.astype(np.int64)

    def _visits(
        self, obs: np.ndarray, phase: np.ndarray, keys: np.ndarray, rows: np.ndarray
    ) -> list[int]:
        """``RepeatMemory.visits`` of each of ``rows`` (draw or discard rows), in row order."""
        turns = obs[rows, self.turn_col].tolist()
        draw = (phase[rows] == Phase.DRAW).tolist()
        return [
            self.memory[int(keys[r])].count(
                obs[r, self.draw_key_cols if d else self.key_cols].tobytes(), turn
            )
            for r, d, turn in zip(rows.tolist(), draw, turns, strict=True)
        ]

    def _choose(
        self, obs: np.ndarray, mask: np.ndarray, phase: np.ndarray, repeat: np.ndarray
    ) -> np.ndarray:
        """``ScandalPolicy.choose`` of every row, given the repeat counts (`ScandalArrays.choose`)."""

        def fallback(rows: np.ndarray, legal: np.ndarray) -> list[int]:
            choose, view = self.policy.choose, self.reader.view
            return [choose(view(obs[r], legal[j]), int(repeat[r])) for j, r in enumerate(rows)]

        actions, falls = self.arrays.choose(
            mask, phase, repeat, lambda rows: self._views(obs[rows]), fallback
        )
        self.fallbacks += falls
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


def _host(x: Any) -> Any:
    """A torch tensor as numpy; anything else unchanged."""
    return x.detach().cpu().numpy() if hasattr(x, "detach") else x


#: The batched Scandal heuristic for a config (``params``: ``take_cost``, ``deep_margin``).
make_batched_heuristic = BatchedScandalHeuristic
