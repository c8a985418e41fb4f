"""``BatchedISMCTSAgent``: ISMCTS whose leaves are rolled out together on the batched engines.

The tree, the determinizations and the selection are those of the per-game
reference [`ISMCTSAgent`][cardsuite.agents.ismcts.ISMCTSAgent] (the same
``descend``); only the evaluation of the leaves moves. The search runs in
*waves*: each wave descends ``batch`` times, loads the ``batch`` leaf states
into one batched engine (``scum_env.batched.bridge.load_states``,
``scandal_env.batched.bridge.load_states``) and plays all their rollouts
together, one engine step and one batched policy call for every row per
rollout step, then backs every path up. Visits are counted on the way down,
so the descents of one wave see each other as losses (a *virtual loss*) and
spread over the tree.

Two ways to fill a wave (``parallel``):

* ``"leaf"``: one tree, ``batch`` descents per wave (leaf parallelism);
* ``"root"``: ``batch`` independent trees, one descent each per wave, the
  most visited root move over all trees is played (root parallelism).

With ``batch=1`` and the heuristic rollout (which draws no random numbers),
both make exactly the reference's choices for the same seed: the same
determinizations in the same order, the same descents, and rollouts that
the batched heuristic plays move for move as the per-game one
(``tests/agents/test_search_batched.py``).

The rollout policy (``rollout``): ``"heuristic"`` (the game's batched
heuristic, Scandal's without its repeat memory, as the reference's rollouts
play it), ``"random"`` (uniform over the legal moves, from the search's own
generator) or a learned policy given as an object (see
`LearnedRollout`; ``cardsuite.agents.guided_search`` uses it).

Scum Party searches the player's own table with Party rules, which the
batched Scum engine does not play; its leaves are rolled out by the per-game
reference (``batch`` still groups the descents).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from cardsuite.agents.base import TableInfo
from cardsuite.agents.ismcts import ISMCTSAgent, Node, SearchGame
from cardsuite.errors import ConfigError

#: The ways a wave is filled.
PARALLEL = ("leaf", "root")


class LearnedRollout:
    """A learned policy as a batched rollout policy: the most likely legal action per row.

    Args:
        logits: ``logits(scaled_obs [M, D]) -> [M, A]`` (numpy).
        scale: ``[D]`` the observation scaling the policy was trained with.
    """

    per_game = False

    def __init__(self, logits: Callable[[np.ndarray], np.ndarray], scale: np.ndarray) -> None:
        """Wrap a logits function."""
        self.logits = logits
        self.scale = np.asarray(scale, dtype=np.float32)

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


class _PlainScandalHeuristic:
    """The batched Scandal heuristic with no repeat memory (every position met first)."""

    per_game = False

    def __init__(self, config: Any, params: dict[str, Any]) -> None:
        from cardsuite.agents.batched_heuristic_scandal import BatchedScandalHeuristic

        self.inner = BatchedScandalHeuristic(config, **params)

    def __call__(self, obs: np.ndarray, mask: np.ndarray, **_: Any) -> np.ndarray:
        self.inner.memory.clear()
        m = obs.shape[0]
        return np.asarray(
            self.inner.choose(obs, mask, np.arange(m, dtype=np.int64), np.zeros(m, np.int64))
        )


def _host(x: Any) -> np.ndarray:
    return x.detach().cpu().numpy() if hasattr(x, "detach") else np.asarray(x)


class BatchedRollouts:
    """Rolls out many per-game leaf states at once on a batched engine.

    Args:
        game: ``"scum"`` or ``"scandal"``.
        config: the table's config (a ``ScumConfig`` or ``ScandalConfig``).
        policy: the rollout policy: ``"heuristic"``, ``"random"`` or a batch
            policy object (``policy(obs, mask) -> actions``).
        cutoff: rollout steps before the position is evaluated (0: to the end).
        capacity: rows of the engine (the largest wave).
        params: the heuristic's knobs.
        backend, device: the batched engine's array backend (``"torch"``,
            ``device="cuda"`` for a GPU).
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
    ) -> None:
        """Build the engine (``autoreset=False``, episodes of one series or one hand)."""
        self.game = game
        self.cutoff = int(cutoff)
        self.capacity = int(capacity)
        fields = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
        if game == "scum":
            from cardsuite.agents.batched_heuristic_scum import BatchedScumHeuristic
            from scum_env.batched import BatchedScum
            from scum_env.batched.bridge import load_states as scum_load

            fields.update(episode="series", reward="points")
            self.engine: Any = BatchedScum(
                capacity, backend=backend, device=device, autoreset=False, **fields
            )
            self._load: Callable[..., Any] = scum_load
            if policy == "heuristic":
                policy = BatchedScumHeuristic(self.engine.rules, **params)
        elif game == "scandal":
            from scandal_env.batched import BatchedScandal
            from scandal_env.batched.bridge import load_states as scandal_load

            fields.update(episode="hand")
            self.engine = BatchedScandal(
                capacity, backend=backend, device=device, autoreset=False, **fields
            )
            self._load = scandal_load
            self._value = np.asarray(self.engine.rules.deck.value, dtype=np.int64)
            if policy == "heuristic":
                policy = _PlainScandalHeuristic(config, params)
        else:
            raise ConfigError(f"no batched rollouts for game {game!r}; games: scum, scandal")
        self.policy = policy
        self.num_players = int(self.engine.num_players)

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

    def _values(
        self,
        states: list[Any],
        rng: np.random.Generator,
        start: int,
        on_load: Callable[[int, np.ndarray, np.ndarray], None] | None,
    ) -> np.ndarray:
        eng, xp = self.engine, self.engine.xp
        m = len(states)
        obs, mask, _ = self._load(eng, states)
        if on_load is not None:
            on_load(start, _host(obs)[:m].copy(), _host(mask)[:m].astype(bool))
        steps = 0
        points = np.zeros((m, self.num_players))
        while self.cutoff == 0 or steps < self.cutoff:
            mask_h = _host(mask)[:m].astype(bool)
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
                obs_h = _host(obs)[rows]
                actions[rows] = _host(self.policy(obs_h, mask_h[rows]))
            active = np.zeros(eng.num_games, dtype=bool)
            active[rows] = True
            res = eng.step(xp.asarray(actions, xp.int64), active=xp.asarray(active, xp.bool))
            obs, mask = res.obs, res.mask
            if self.game == "scum":
                points += _host(res.rewards)[:m]
            steps += 1
        return self._score(m, points)

    def _score(self, m: int, points: np.ndarray) -> np.ndarray:
        """Per-player rewards in [0, 1], as the reference's ``SearchGame.values``."""
        eng = self.engine
        n = self.num_players
        if self.game == "scum":
            from scum_env.batched.engine import OVER

            over = _host(eng.phase)[:m] == OVER
            ncards_pos = _host(eng.ncards)[:m].astype(np.int64)
            order = _host(eng.order)[:m]
            out = np.empty((m, n))
            for i in range(m):
                if over[i]:
                    out[i] = (points[i] - 1.0) / (n - 1)
                else:  # cut off: rank by cards left (ties by player id, as the reference)
                    nc = np.empty(n, np.int64)
                    nc[order[i]] = ncards_pos[i]
                    rank = np.argsort(nc, kind="stable")
                    out[i, rank] = (n - 1 - np.arange(n)) / (n - 1)
            return out
        hands = _host(eng.hands)[:m].astype(np.int64)
        left = (hands * self._value[None, None, :]).sum(axis=2)
        scores = (_host(eng.table_pts)[:m] - left).astype(float)
        others = (scores.sum(axis=1, keepdims=True) - scores) / (n - 1)
        result: np.ndarray = np.clip(0.5 + (scores - others) / 400.0, 0.0, 1.0)
        return result


class BatchedISMCTSAgent(ISMCTSAgent):
    """SO-ISMCTS with its rollouts played in waves on the batched engines.

    Args:
        game: ``"scum"``, ``"scum_party"`` or ``"scandal"``.
        seed: seeds determinizations, expansions and random rollouts.
        budget: iterations (descents) per decision.
        rollout: ``"heuristic"`` or ``"random"``.
        c, cutoff, max_hand: as for [ISMCTSAgent][cardsuite.agents.ismcts.ISMCTSAgent].
        batch: leaves evaluated per engine call (a wave).
        parallel: ``"leaf"`` (one tree) or ``"root"`` (``batch`` trees).
        backend: ``"numpy"`` or ``"torch"`` for the rollout engine.
        device: torch device of the rollout engine (``"cpu"``, ``"cuda"``);
            ``device="cuda"`` alone selects the torch backend.
        time_limit: optional wall-clock cap in seconds per decision, for
            interactive play: no new wave starts once it is spent (at least
            one wave always runs). Results then depend on the machine's
            speed; leave it unset for reproducible benchmarks.
        **params: knobs of the game's heuristic used in the rollouts.
    """

    name = "ismcts-batched"

    def __init__(
        self,
        game: str,
        seed: int | None = None,
        budget: int = 100,
        rollout: str = "heuristic",
        c: float = 0.3,
        cutoff: int | None = None,
        max_hand: int | None = None,
        batch: int = 25,
        parallel: str = "leaf",
        backend: str | None = None,
        device: str | None = None,
        time_limit: float | None = None,
        **params: Any,
    ) -> None:
        """Check and store the settings; the rollout engine is built at ``reset``."""
        super().__init__(game, seed, budget, rollout, c, cutoff, max_hand, **params)
        if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
            raise ConfigError(f"ismcts parameter batch must be an integer >= 1, got {batch!r}")
        if parallel not in PARALLEL:
            raise ConfigError(
                f"ismcts parameter parallel must be 'leaf' or 'root', got {parallel!r}"
            )
        if backend is None:
            backend = "torch" if device is not None else "numpy"
        if backend not in ("numpy", "torch"):
            raise ConfigError(
                f"ismcts parameter backend must be 'numpy' or 'torch', got {backend!r}"
            )
        if backend == "numpy" and device not in (None, "cpu"):
            raise ConfigError(f"ismcts parameter device={device!r} needs backend=torch")
        if time_limit is not None and (
            isinstance(time_limit, bool)
            or not isinstance(time_limit, int | float)
            or not time_limit >= 0
        ):
            raise ConfigError(
                f"ismcts parameter time_limit must be seconds >= 0, got {time_limit!r}"
            )
        self.time_limit = None if time_limit is None else float(time_limit)
        self.batch = int(batch)
        self.parallel = parallel
        self.backend = backend
        self.device = device
        self._rollouts: BatchedRollouts | None = None

    def rollout_policy(self, table: TableInfo) -> Any:
        """The batched rollout policy (``"heuristic"``/``"random"`` or a policy object)."""
        return self.rollout

    def reset(self, table: TableInfo, seed: int | None = None) -> None:
        """Build the reference's adapter and the batched rollout engine for ``table``."""
        super().reset(table, seed)
        self._rollouts = None
        if self.game in ("scum", "scandal"):
            self._rollouts = BatchedRollouts(
                self.game,
                table.config,
                self.rollout_policy(table),
                self.cutoff,
                self.batch,
                self.params,
                self.backend,
                self.device,
            )

    def search(self, determinize: Callable[[np.random.Generator], Any]) -> Node:
        """Grow the tree(s) for ``budget`` descents in waves of ``batch``; the (merged) root."""
        assert self._search is not None
        game = self._search
        rng = self._rng
        trees = self.batch if self.parallel == "root" else 1
        roots = [self.new_root() for _ in range(trees)]
        done = 0
        start = time.perf_counter()
        while done < self.budget:
            limit = self.time_limit
            if done and limit is not None and time.perf_counter() - start >= limit:
                break
            wave = min(self.batch, self.budget - done)
            paths, leaves = [], []
            for i in range(wave):
                state, _me = game.prepare(determinize(rng), self._player)
                root = roots[i % trees]
                paths.append(self.descend(game, root, state, rng))
                leaves.append(state)
            for path, values in zip(paths, self.evaluate(game, leaves, paths, rng), strict=True):
                self.backup(path, values)
            done += wave
        return roots[0] if trees == 1 else _merge(roots)

    def new_root(self) -> Node:
        """A fresh root node."""
        return Node(-1)

    def evaluate(
        self, game: SearchGame[Any], leaves: list[Any], paths: list[list[Node]], rng: Any
    ) -> list[np.ndarray]:
        """Per-player rewards of every leaf (rollouts in one batch; terminal leaves directly)."""
        out: list[np.ndarray | None] = [None] * len(leaves)
        todo = []
        for i, state in enumerate(leaves):
            if game.terminal(state):
                out[i] = game.values(state)
            else:
                todo.append(i)
        if todo:
            if self._rollouts is None:  # Scum Party: the reference's rollouts
                for i in todo:
                    out[i] = self.rollout_values(game, leaves[i], rng)
            else:
                vals = self._rollouts.values([leaves[i] for i in todo], rng)
                for j, i in enumerate(todo):
                    out[i] = vals[j]
        return [v for v in out if v is not None]


def _merge(roots: list[Node]) -> Node:
    """One root whose children sum the visits and rewards of every tree's."""
    merged = Node(-1)
    for root in roots:
        merged.visits += root.visits
        for a, child in root.children.items():
            into = merged.children.get(a)
            if into is None:
                into = merged.children[a] = Node(child.player)
            into.visits += child.visits
            into.avail += child.avail
            into.total += child.total
    return merged
