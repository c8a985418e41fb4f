"""``BatchedISMCTSAgent``: ISMCTS whose leaves are rolled out together on the batched engines.

The tree, the determinizations and the selection are those of the per-game
reference [`ISMCTSAgent`][cardsuite.agents.search.reference.ISMCTSAgent] (the same
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
`LearnedRollout`; ``cardsuite.agents.search.guided`` uses it).

Scum Party searches the player's own table with Party rules, which the
batched Scum engine does not play; its leaves are rolled out by the per-game
reference (``batch`` still groups the descents).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from cardsuite.agents.base import TableInfo
from cardsuite.agents.parts import part
from cardsuite.agents.search.base import Node, check_loop
from cardsuite.agents.search.leaves import LeafEngine, host
from cardsuite.agents.search.reference import ISMCTSAgent, SearchGame, SearchKind, search_kind
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
        #: ``choose_engine(engine, mask, rows)``: the choices read from the engine's
        #: state arrays (no observation needed), where the heuristic offers it.
        self.choose_engine: Callable[..., np.ndarray] | None = None
        if getattr(inner, "repeat_memory", None) is not None:
            inner.repeat_memory = False
            self._forget = None
            self.choose_engine = getattr(inner, "choose_engine", None)

    def __call__(self, obs: np.ndarray, mask: np.ndarray, **_: Any) -> np.ndarray:
        if self._forget is not None:
            self._forget(np.arange(obs.shape[0]))
        return host(self.inner(obs, mask))


#: Leaves per wave where the game's `LeafEngine` names no default ``batch``.
DEFAULT_BATCH = 25


def leaf_engine(game: str) -> LeafEngine | None:
    """The game's `LeafEngine` (its record's ``search`` part names it); None if it has none."""
    kind: SearchKind = search_kind(game)
    return None if kind.leaves is None else resolve(kind.leaves)


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
        compiled: with the heuristic policy on numpy, play the rollouts with
            the game's compiled rollouts where it has them (its `LeafEngine`'s
            ``compiled``: Scandal's, with numba installed): the same moves and
            values, each row played on its own instead of the rows in lockstep
            (``tests/agents/test_rollout_engine_path.py``); with a
            `LearnedRollout` that names its ``snapshot``, the game's compiled
            policy rollouts (``compiled_policy``: Scandal's), the same moves up
            to float32 rounding of the logits
            (``tests/scandal/test_rollout_policy.py``). A caller that needs
            the loaded observations (``on_load``: a guided search's priors)
            gets them from a first load of the leaves.
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
        #: ``run(states, cutoff)``: the compiled heuristic rollouts, where they apply.
        self._compiled: Callable[..., None] | None = None
        knobs = getattr(getattr(policy, "inner", None), "policy", None)
        if (
            compiled
            and leaves.compiled
            and backend == "numpy"
            and isinstance(policy, _Memoryless)
            and policy.choose_engine is not None
            and knobs is not None
        ):
            self._compiled = resolve(leaves.compiled)(
                self.engine, knobs.take_cost, knobs.deep_margin
            )
        snapshot = getattr(policy, "snapshot", None)
        if (
            compiled
            and leaves.compiled_policy
            and backend == "numpy"
            and isinstance(policy, LearnedRollout)
            and snapshot is not None
        ):
            self._compiled = resolve(leaves.compiled_policy)(self.engine, snapshot, policy.scale)
        # The policy reads the engine's arrays itself: the engine may skip observing.
        self._direct: Callable[..., np.ndarray] | None = None
        if backend == "numpy" and getattr(self.engine, "OBSERVE_OPTIONAL", False):
            self._direct = getattr(policy, "choose_engine", None)

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
        direct = self._direct
        observe: dict[str, bool] = {} if direct is None else {"observe": False}
        while self.cutoff == 0 or steps < self.cutoff:
            mask_h = host(mask)[:m].astype(bool)
            live = mask_h.any(axis=1)
            if not live.any():
                break
            rows = np.flatnonzero(live)
            actions = np.zeros(eng.num_games, dtype=np.int64)
            if direct is not None:
                actions[rows] = direct(eng, mask_h[rows], rows)
            elif isinstance(self.policy, str):  # "random"
                counts = mask_h[rows].sum(axis=1)
                pick = rng.integers(counts)
                cum = np.cumsum(mask_h[rows], axis=1)
                actions[rows] = (cum <= pick[:, None]).sum(axis=1)
            else:
                obs_h = host(obs)[rows]
                actions[rows] = host(self.policy(obs_h, mask_h[rows]))
            active = np.zeros(eng.num_games, dtype=bool)
            active[rows] = True
            res = eng.step(
                xp.asarray(actions, xp.int64), active=xp.asarray(active, xp.bool), **observe
            )
            obs, mask = res.obs, res.mask
            if self.leaves.collects:
                points += host(res.rewards)[:m]
            steps += 1
        return self.leaves.score(eng, m, points)


class BatchedISMCTSAgent(ISMCTSAgent):
    """SO-ISMCTS with its rollouts played in waves on the batched engines.

    Args:
        game: ``"scum"``, ``"scum_party"`` or ``"scandal"``.
        seed: seeds determinizations, expansions and random rollouts.
        batch: leaves evaluated per engine call (a wave); default per game
            (its `LeafEngine`'s ``defaults``: Scandal 50), else 25.
        parallel: ``"leaf"`` (one tree) or ``"root"`` (``batch`` trees).
        backend: ``"numpy"`` or ``"torch"`` for the rollout engine.
        device: torch device of the rollout engine (``"cpu"``, ``"cuda"``);
            ``device="cuda"`` alone selects the torch backend.
        time_limit: optional wall-clock cap in seconds per decision, for
            interactive play: no new wave starts once it is spent (at least
            one wave always runs). Results then depend on the machine's
            speed; leave it unset for reproducible benchmarks.
        compiled: play heuristic rollouts with the game's compiled rollouts
            where there are some (Scandal, with numba: the ``fast`` extra);
            the same choices either way, ``False`` for the array loop.
        **settings: ``budget``, ``rollout`` (``"heuristic"`` or ``"random"``),
            ``c``, ``cutoff``, ``max_hand`` and the heuristic's knobs, as for
            [ISMCTSAgent][cardsuite.agents.search.reference.ISMCTSAgent]; a ``cutoff``
            named in the `LeafEngine`'s ``defaults`` replaces the reference's.
    """

    name = "ismcts-batched"

    def __init__(
        self,
        game: str,
        seed: int | None = None,
        *,
        batch: int | None = None,
        parallel: str = "leaf",
        backend: str | None = None,
        device: str | None = None,
        time_limit: float | None = None,
        compiled: bool = True,
        **settings: Any,
    ) -> None:
        """Check and store the settings; the rollout engine is built at ``reset``."""
        leaves = leaf_engine(game)
        # The game's defaults are this kind's own (a subclass such as the guided
        # search keeps its own defaults).
        mine = type(self).name == BatchedISMCTSAgent.name
        own = dict(leaves.defaults) if leaves is not None and mine else {}
        if batch is None:
            batch = own.get("batch", DEFAULT_BATCH)
        if settings.get("cutoff") is None and "cutoff" in own:
            settings["cutoff"] = own["cutoff"]
        super().__init__(game, seed, **settings)
        check_loop(batch, parallel, time_limit)
        if backend is None:
            backend = "torch" if device is not None else "numpy"
        if backend not in ("numpy", "torch"):
            raise ConfigError(
                f"ismcts parameter backend must be 'numpy' or 'torch', got {backend!r}"
            )
        if backend == "numpy" and device not in (None, "cpu"):
            raise ConfigError(f"ismcts parameter device={device!r} needs backend=torch")
        if not isinstance(compiled, bool):
            raise ConfigError(f"ismcts parameter compiled must be true or false, got {compiled!r}")
        self.compiled = compiled
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
        if leaf_engine(self.game) is not None:
            self._rollouts = BatchedRollouts(
                self.game,
                table.config,
                self.rollout_policy(table),
                self.cutoff,
                self.batch,
                self.params,
                self.backend,
                self.device,
                self.compiled,
            )

    def roll_out(
        self, game: SearchGame[Any], states: list[Any], paths: list[list[Node]], rng: Any
    ) -> list[np.ndarray]:
        """All the leaves' rollouts in one batch (a game without ``leaves``: the reference's)."""
        if self._rollouts is None:  # Scum Party: the reference's rollouts
            return super().roll_out(game, states, paths, rng)
        return list(self._rollouts.values(states, rng))
