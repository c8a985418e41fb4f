"""``BatchedISMCTSAgent``: ISMCTS whose leaves are rolled out together on the batched engines.

The tree, the determinizations and the selection are the reference's
(`cardsuite.agents.search.reference.ISMCTSAgent`); only the evaluation of the
leaves moves. Each wave descends ``batch`` times, loads the leaf states into
one batched engine (the game's `LeafEngine`) and plays all their rollouts
together, one engine step and one batched policy call per rollout step
(`BatchedRollouts`; Scandal's with numba: the compiled kernels, each row on
its own). ``parallel="leaf"`` grows one tree, ``"root"`` ``batch`` trees whose
roots are merged. With ``batch=1`` and heuristic rollouts it makes exactly the
reference's choices for the same seed (``tests/agents/test_search_batched.py``).

Rollout policies: ``"heuristic"`` (the game's batched heuristic without repeat
memory, as the reference's rollouts play it), ``"random"`` (uniform, from the
search's generator) or a learned policy (`LearnedRollout`, the guided
search's). Scum Party's tables (Party rules, which the batched Scum engine
does not play) are rolled out by the reference.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardsuite.agents.base import TableInfo
from cardsuite.agents.search.base import Node, check_loop
from cardsuite.agents.search.games import SearchGame, leaf_engine
from cardsuite.agents.search.reference import ISMCTSAgent
from cardsuite.agents.search.rollouts import DEFAULT_BATCH, BatchedRollouts, LearnedRollout
from cardsuite.errors import ConfigError

__all__ = ["BatchedISMCTSAgent", "BatchedRollouts", "LearnedRollout", "leaf_engine"]


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
