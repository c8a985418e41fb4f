"""Many search leaves rolled out at once on a game's batched engine (`BatchedRollouts`).

The batched searches (``ismcts-batched``, ``search:``) load a wave's per-game
leaf states into the rows of the game's batched engine (its `LeafEngine`),
play them out together, one engine step and one batched policy call per
rollout step, or row by row with the game's compiled kernels, and score them
as the reference's ``SearchGame.values`` does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from cardsuite.agents.parts import part
from cardsuite.agents.search.games import leaf_engine
from cardsuite.agents.search.leaves import host
from cardsuite.errors import ConfigError
from cardsuite.games import get_game, resolve


class LearnedRollout:
    """A learned policy as a batched rollout policy: the most likely legal action per row.

    Args:
        logits: ``logits(scaled_obs [M, D]) -> [M, A]`` (numpy).
        scale: ``[D]`` the observation scaling the policy was trained with.
        snapshot: the network behind ``logits`` (a `Snapshot`, whose
            ``logits`` are the same), where the game's compiled policy
            rollouts may play it (`BatchedRollouts`); None: the lockstep loop.
    """

    per_game = False

    def __init__(
        self,
        logits: Callable[[np.ndarray], np.ndarray],
        scale: np.ndarray,
        snapshot: Any = None,
    ) -> None:
        """Wrap a logits function."""
        self.logits = logits
        self.scale = np.asarray(scale, dtype=np.float32)
        self.snapshot = snapshot

    def masked(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``[M, A]`` logits with illegal actions at -inf."""
        scaled = np.asarray(obs, np.float32) * self.scale
        # Row by row: a matrix-vector product stays on one thread, where a
        # threaded BLAS matrix product of a few dozen rows is many times
        # slower on a loaded machine (measured 0.9 ms against 5-50 ms for 25 rows).
        out = np.stack([np.asarray(self.logits(row), np.float64).reshape(-1) for row in scaled])
        return np.where(np.asarray(mask, bool), out, -np.inf)

    def __call__(self, obs: np.ndarray, mask: np.ndarray, **_: Any) -> np.ndarray:
        """The argmax legal action of every row."""
        return np.asarray(self.masked(obs, mask).argmax(axis=1), dtype=np.int64)


class _Memoryless:
    """A record's batched heuristic that meets every position first (no repeat memory).

    The reference's rollouts play the per-game heuristic without the memory a
    seat keeps over a hand (Scandal's repeat memory): a heuristic with a
    ``repeat_memory`` switch has it turned off (no memory is kept at all); one
    with only ``reset_games`` forgets every row before each call.
    """

    per_game = False

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self._forget = getattr(inner, "reset_games", None)
        if getattr(inner, "repeat_memory", None) is not None:
            inner.repeat_memory = False
            self._forget = None

    def __call__(self, obs: np.ndarray, mask: np.ndarray, **_: Any) -> np.ndarray:
        if self._forget is not None:
            self._forget(np.arange(obs.shape[0]))
        return host(self.inner(obs, mask))


#: Leaves per wave where the game's `LeafEngine` names no default ``batch``.
DEFAULT_BATCH = 25


class BatchedRollouts:
    """Rolls out many per-game leaf states at once on a batched engine.

    Args:
        game: a game whose record's ``search`` part has ``leaves``.
        config: the table's config (its dataclass fields are the engine's options).
        policy: the rollout policy: ``"heuristic"`` (the record's batched
            heuristic, memoryless), ``"random"`` or a batch policy object
            (``policy(obs, mask) -> actions``).
        cutoff: rollout steps before the position is evaluated (0: to the end).
        capacity: rows of the engine (the largest wave).
        params: the heuristic's knobs.
        backend, device: the batched engine's array backend (``"torch"``,
            ``device="cuda"`` for a GPU).
        compiled: on numpy, play the rollouts with the game's compiled kernels
            where it has them (Scandal's, with numba: `LeafEngine.compiled` for
            the heuristic, ``compiled_policy`` for a `LearnedRollout` that names
            its ``snapshot``), each row on its own: the same moves and values as
            the lockstep loop (differential tests in ``tests/scandal``).
    """

    def __init__(
        self,
        game: str,
        config: Any,
        policy: Any,
        cutoff: int,
        capacity: int,
        params: dict[str, Any],
        backend: str = "numpy",
        device: str | None = None,
        compiled: bool = True,
    ) -> None:
        """Build the engine (``autoreset=False``, episodes of one series or one hand)."""
        leaves = leaf_engine(game)
        if leaves is None:
            raise ConfigError(f"no batched rollouts for game {game!r} (its search has no leaves)")
        record = get_game(game)
        self.leaves = leaves
        self.cutoff = int(cutoff)
        self.capacity = int(capacity)
        fields = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
        fields.update(leaves.options)
        self.engine: Any = record.part("batched")(
            capacity, backend=backend, device=device, autoreset=False, **fields
        )
        self._load: Callable[..., Any] = resolve(leaves.load)
        if policy == "heuristic":
            policy = _Memoryless(part(game, "batched_heuristic").from_engine(self.engine, **params))
        self.policy = policy
        self.num_players = int(self.engine.num_players)
        #: ``run(states, cutoff, loaded)``: the game's compiled rollouts, where they apply.
        self._compiled: Callable[..., None] | None = None
        if compiled and backend == "numpy":
            knobs = getattr(getattr(policy, "inner", None), "policy", None)
            snapshot = getattr(policy, "snapshot", None)
            if leaves.compiled and isinstance(policy, _Memoryless) and knobs is not None:
                run = resolve(leaves.compiled)
                self._compiled = run(self.engine, knobs.take_cost, knobs.deep_margin)
            elif leaves.compiled_policy and isinstance(policy, LearnedRollout) and snapshot:
                run = resolve(leaves.compiled_policy)
                self._compiled = run(self.engine, snapshot, policy.scale)

    def values(
        self,
        states: list[Any],
        rng: np.random.Generator,
        on_load: Callable[[int, np.ndarray, np.ndarray], None] | None = None,
    ) -> np.ndarray:
        """``[len(states), P]`` rewards in [0, 1] after rolling every state out (states untouched).

        ``on_load(start, obs, mask)``, if given, sees the observations and
        masks (host numpy) of the player to act in states ``start ..`` as
        loaded, before any rollout step (a guided search takes its priors there).
        """
        out = np.empty((len(states), self.num_players))
        for start in range(0, len(states), self.capacity):
            chunk = states[start : start + self.capacity]
            out[start : start + len(chunk)] = self._values(chunk, rng, start, on_load)
        return out

    def critic_values(
        self,
        states: list[Any],
        value: Callable[[np.ndarray], np.ndarray],
        on_load: Callable[[int, np.ndarray, np.ndarray], None] | None = None,
    ) -> np.ndarray:
        """``[len(states), P]`` rewards in [0, 1] of the states as they are, no rollout:
        a finished deal by the game's ``score``, any other by its ``value_score``
        of ``value(obs)`` (a critic's values, ``[M, D] -> [M]``) of every player's
        observation (``engine.observe_as``). ``on_load`` as for `values`.

        Raises:
            ConfigError: the game's `LeafEngine` has no ``value_score``.
        """
        value_score = self.leaves.value_score
        if value_score is None:
            raise ConfigError("this game's search leaves have no critic scale (value_score)")
        eng = self.engine
        out = np.empty((len(states), self.num_players))
        for start in range(0, len(states), self.capacity):
            chunk = states[start : start + self.capacity]
            m = len(chunk)
            obs, mask, _ = self._load(eng, chunk)
            live = host(mask)[:m].astype(bool)
            if on_load is not None:
                on_load(start, host(obs)[:m].copy(), live)
            values = np.stack(
                [value(host(eng.observe_as(p))[:m]) for p in range(self.num_players)], axis=1
            )
            rows = value_score(eng, values)
            over = ~live.any(axis=1)
            if over.any():
                rows[over] = self.leaves.score(eng, m, np.zeros((m, self.num_players)))[over]
            out[start : start + m] = rows
        return out

    def _values(
        self,
        states: list[Any],
        rng: np.random.Generator,
        start: int,
        on_load: Callable[[int, np.ndarray, np.ndarray], None] | None,
    ) -> np.ndarray:
        eng, xp = self.engine, self.engine.xp
        m = len(states)
        obs, mask = None, None
        if on_load is not None or self._compiled is None:
            obs, mask, _ = self._load(eng, states)
        if on_load is not None:
            on_load(start, host(obs)[:m].copy(), host(mask)[:m].astype(bool))
        if self._compiled is not None:  # plays the rows just loaded, or loads them itself
            self._compiled(states, self.cutoff, loaded=obs is not None)
            return self.leaves.score(eng, m, np.zeros((m, self.num_players)))
        assert obs is not None and mask is not None
        steps = 0
        points = np.zeros((m, self.num_players))
        while self.cutoff == 0 or steps < self.cutoff:
            mask_h = host(mask)[:m].astype(bool)
            live = mask_h.any(axis=1)
            if not live.any():
                break
            rows = np.flatnonzero(live)
            actions = np.zeros(eng.num_games, dtype=np.int64)
            if isinstance(self.policy, str):  # "random"
                counts = mask_h[rows].sum(axis=1)
                pick = rng.integers(counts)
                cum = np.cumsum(mask_h[rows], axis=1)
                actions[rows] = (cum <= pick[:, None]).sum(axis=1)
            else:
                obs_h = host(obs)[rows]
                actions[rows] = host(self.policy(obs_h, mask_h[rows]))
            active = np.zeros(eng.num_games, dtype=bool)
            active[rows] = True
            res = eng.step(xp.asarray(actions, xp.int64), active=xp.asarray(active, xp.bool))
            obs, mask = res.obs, res.mask
            if self.leaves.collects:
                points += host(res.rewards)[:m]
            steps += 1
        return self.leaves.score(eng, m, points)
