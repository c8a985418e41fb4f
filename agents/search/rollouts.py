"""Search leaves rolled out many at once on a game's batched engine (`BatchedRollouts`), as
its `LeafEngine` says, and scored as the reference's ``SearchGame.values`` does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardsuite.agents.parts import part
from cardsuite.agents.search.games import rank_score, relative_score, search_kind
from cardsuite.errors import ConfigError
from cardsuite.games import get_game, resolve
from scum_env.batched.series import OVER


def host(x: Any) -> np.ndarray:
    """A numpy view of an engine array (a torch tensor is copied to the host)."""
    return x.detach().cpu().numpy() if hasattr(x, "detach") else np.asarray(x)


@dataclass(frozen=True)
class LeafEngine:
    """One game's leaf rollouts on its batched engine.

    Attributes:
        load: ``"module:attribute"`` of ``load_states(engine, states) -> (obs, mask, to_act)``.
        options: engine options of a rollout, as ``(key, value)`` pairs.
        score: ``score(engine, m, points) -> [m, P]`` rewards in [0, 1] of rows ``0..m-1``.
        collects: whether ``points`` (the step rewards summed per row) are needed.
        defaults: ``ismcts-batched``'s default parameters, as ``(name, value)`` pairs.
        compiled: ``"module:attribute"`` of ``compiled(engine, take_cost, deep_margin)
            -> run(states, cutoff, loaded=False)`` or None, the compiled heuristic rollouts.
        compiled_policy: the same by a learned MLP, ``(engine, snapshot, scale) -> run``.
        value_score: ``value_score(engine, values [m, P]) -> [m, P]``: a critic's values as
            ``score`` rewards, or None.
    """

    load: str
    options: tuple[tuple[str, Any], ...]
    score: Callable[[Any, int, np.ndarray], np.ndarray]
    collects: bool = False
    defaults: tuple[tuple[str, Any], ...] = ()
    compiled: str = ""
    compiled_policy: str = ""
    value_score: Callable[[Any, np.ndarray], np.ndarray] | None = None


def scum_score(engine: Any, m: int, points: np.ndarray) -> np.ndarray:
    """``(n - k) / (n - 1)`` for the k-th out; cut off: ranked by cards left (ties by id)."""
    n = int(engine.num_players)
    over = host(engine.phase)[:m] == OVER
    ncards = np.empty((m, n), np.int64)  # by player, from the engine's by position
    np.put_along_axis(ncards, host(engine.order)[:m], host(engine.ncards)[:m], axis=1)
    out = rank_score(ncards)
    out[over] = (points[over] - 1.0) / (n - 1)
    return out


def scandal_score(engine: Any, m: int, points: np.ndarray) -> np.ndarray:
    """The hand scored as if it ended now (S9), ``0.5 + (own - mean of others) / 400`` clipped."""
    value = np.asarray(engine.rules.deck.value, dtype=np.int64)
    hands = host(engine.hands)[:m].astype(np.int64)
    left = (hands * value[None, None, :]).sum(axis=2)
    return relative_score((host(engine.table_pts)[:m] - left).astype(float))


def scandal_value_score(engine: Any, values: np.ndarray) -> np.ndarray:
    """`scandal_score` of a critic's values (times ``reward_scale``)."""
    return relative_score(np.asarray(values, float) * float(engine.config.reward_scale))


#: Scum: one series per rollout, J8 points collected from the step rewards.
scum_leaves = LeafEngine(
    "scum_env.batched.bridge:load_states",
    (("episode", "series"), ("reward", "points")),
    scum_score,
    collects=True,
)
#: Scandal: one hand per rollout; ``ismcts-batched`` runs two waves of 50 leaves.
scandal_leaves = LeafEngine(
    "scandal_env.batched.bridge:load_states",
    (("episode", "hand"),),
    scandal_score,
    defaults=(("batch", 50),),
    compiled="cardsuite.agents.search.kernels.scandal_heuristic:compiled_rollouts",
    compiled_policy="cardsuite.agents.search.kernels.scandal_policy:compiled_policy_rollouts",
    value_score=scandal_value_score,
)


def leaf_engine(game: str) -> LeafEngine | None:
    """The game's `LeafEngine` (its ``search`` part names it); None if it has none."""
    kind = search_kind(game)
    return None if kind.leaves is None else resolve(kind.leaves)


@dataclass(eq=False)
class LearnedRollout:
    """A learned policy as a batched rollout policy: the most likely legal action per row of
    ``logits(obs * scale)``; ``snapshot``: its network, for compiled rollouts."""

    logits: Callable[[np.ndarray], np.ndarray]
    scale: np.ndarray
    snapshot: Any = None

    def __post_init__(self) -> None:
        """Hold ``scale`` as float32."""
        self.scale = np.asarray(self.scale, dtype=np.float32)

    def masked(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``[M, A]`` logits with illegal actions at -inf."""
        scaled = np.asarray(obs, np.float32) * self.scale
        # Row by row: one thread, where a threaded BLAS product of a few dozen rows is many
        # times slower on a loaded machine (0.9 ms against 5-50 ms for 25 rows).
        out = np.stack([np.asarray(self.logits(row), np.float64).reshape(-1) for row in scaled])
        return np.where(np.asarray(mask, bool), out, -np.inf)

    def __call__(self, obs: np.ndarray, mask: np.ndarray, **_: Any) -> np.ndarray:
        """The argmax legal action of every row."""
        return np.asarray(self.masked(obs, mask).argmax(axis=1), dtype=np.int64)


class _Memoryless:
    """A batched heuristic with its ``repeat_memory`` (S4) off, as the reference's rollouts play."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        if getattr(inner, "repeat_memory", None) is not None:
            inner.repeat_memory = False

    def __call__(self, obs: np.ndarray, mask: np.ndarray, **_: Any) -> np.ndarray:
        return host(self.inner(obs, mask))


#: Leaves per wave where the game's `LeafEngine` names no default ``batch``.
DEFAULT_BATCH = 25


class BatchedRollouts:
    """Rolls out many per-game leaf states at once on a batched engine.

    Args:
        game, config: a game whose ``search`` part has ``leaves``; the table's config.
        policy: ``"heuristic"`` (memoryless), ``"random"`` or a batch policy.
        cutoff: rollout steps before the position is evaluated (0: to the end).
        capacity, params: the engine's rows (the largest wave); the heuristic's knobs.
        backend, device: the batched engine's.
        compiled: on numpy, play the heuristic or a `LearnedRollout` with a ``snapshot``
            by the game's compiled kernels where it has them.
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
        """``[len(states), P]`` rewards in [0, 1] after rolling every state out (states untouched);
        ``on_load(start, obs, mask)`` sees states ``start ..`` as loaded."""
        return self._by_chunk(states, lambda chunk, start: self._values(chunk, rng, start, on_load))

    def _by_chunk(
        self, states: list[Any], score: Callable[[list[Any], int], np.ndarray]
    ) -> np.ndarray:
        """``score(chunk, start)`` of the states, a chunk of at most ``capacity`` at a time."""
        out = np.empty((len(states), self.num_players))
        for start in range(0, len(states), self.capacity):
            chunk = states[start : start + self.capacity]
            out[start : start + len(chunk)] = score(chunk, start)
        return out

    def critic_values(
        self,
        states: list[Any],
        value: Callable[[np.ndarray], np.ndarray],
        on_load: Callable[[int, np.ndarray, np.ndarray], None] | None = None,
    ) -> np.ndarray:
        """``[len(states), P]`` rewards of the states as they are: a finished deal by ``score``,
        any other by ``value_score`` of the critic ``value(obs) -> [M]`` of every player's
        observation; ConfigError: the game has no ``value_score``."""
        value_score = self.leaves.value_score
        if value_score is None:
            raise ConfigError("this game's search leaves have no critic scale (value_score)")
        eng = self.engine

        def score(chunk: list[Any], start: int) -> np.ndarray:
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
            return rows

        return self._by_chunk(states, score)

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
                actions[rows] = host(self.policy(host(obs)[rows], mask_h[rows]))
            active = np.zeros(eng.num_games, dtype=bool)
            active[:m] = live
            res = eng.step(xp.asarray(actions, xp.int64), active=xp.asarray(active, xp.bool))
            obs, mask = res.obs, res.mask
            if self.leaves.collects:
                points += host(res.rewards)[:m]
            steps += 1
        return self.leaves.score(eng, m, points)
