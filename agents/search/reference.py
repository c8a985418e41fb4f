"""ISMCTS: ``BatchedISMCTSAgent`` (``ismcts``) and ``ISMCTSAgent``, the readable reference
(``ismcts-reference``).

SO-ISMCTS (Cowling, Powley and Whitehouse, 2012): UCB1 with availability counts, the rollout
policy's untried move expanded first, rollouts by the heuristic (or uniform) to the end or
the cutoff. The batched agent rolls a wave's leaves out together (`BatchedRollouts`); with
``batch=1`` it makes the reference's choices. See docs/search.md.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from cardsuite.agents.base import TableInfo
from cardsuite.agents.baselines.heuristic import make_policy
from cardsuite.agents.parts import agent_parts
from cardsuite.agents.search import games, rollouts
from cardsuite.agents.search.base import Node, SearchBase, check_loop, is_count, is_number
from cardsuite.agents.search.games import S, SearchGame, search_game, search_kind
from cardsuite.agents.search.rollouts import DEFAULT_BATCH, BatchedRollouts, leaf_engine
from cardsuite.errors import ConfigError
from cardsuite.games import get_game
from cardsuite.moved import moved_getattr, moved_table
from cardsuite.safe_yaml import brief

# Names of 0.2's ``cardsuite.agents.ismcts`` and ``ismcts_batched`` that moved, by new home, with a warning (PEP 562).
__getattr__ = moved_getattr(
    __name__,
    moved_table(
        games, "ClimbSearch ScandalSearch SearchKind party_search scandal_search scum_search"
    )
    | moved_table(rollouts, "LearnedRollout"),
)


SEARCH_PARAMS = ("budget", "rollout", "c", "cutoff", "max_hand")


def _check_search_params(game: str, params: Mapping[str, Any], **values: Any) -> None:
    """ConfigError naming an ismcts parameter that is unknown or of the wrong type."""
    allowed = agent_parts(game).heuristic_params
    for name in params:
        if name not in allowed:
            close = difflib.get_close_matches(name, (*SEARCH_PARAMS, *allowed), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(
                f"unknown ismcts parameter {name!r}{hint}; parameters: "
                f"{', '.join(SEARCH_PARAMS)}, and the {game} heuristic's rollout knobs "
                f"{', '.join(allowed)}"
            )
    for name, low in (("budget", 1), ("cutoff", 0), ("max_hand", 0)):
        value = values[name]
        if value is not None and not is_count(value, low):
            raise ConfigError(
                f"ismcts parameter {name} must be an integer >= {low}, got {brief(value)}"
            )
    c = values["c"]
    if not is_number(c) or not math.isfinite(c) or c < 0:
        raise ConfigError(f"ismcts parameter c must be a finite number >= 0, got {brief(c)}")


class ISMCTSAgent(SearchBase):
    """SO-ISMCTS with heuristic rollouts over the env's determinizations.

    Args:
        game: ``"scum"``, ``"scum_party"`` or ``"scandal"``.
        seed: seeds determinizations, expansions and random rollouts.
        budget: iterations per decision.
        rollout: ``"heuristic"`` (the game's heuristic policy) or ``"random"``.
        c: UCB1 exploration constant (rewards are in [0, 1]).
        cutoff: rollout steps before the position is evaluated (0 = play the deal out).
        max_hand: search only when the player holds at most this many cards, else play
            the heuristic (0 = always search); both default per game (its `SearchKind`).
        **params: knobs of the game's heuristic used in the rollouts.
    """

    name = "ismcts-reference"

    def __init__(
        self,
        game: str,
        seed: int | None = None,
        budget: int = 100,
        rollout: str = "heuristic",
        c: float = 0.3,
        cutoff: int | None = None,
        max_hand: int | None = None,
        **params: Any,
    ) -> None:
        """Check and store the search settings; the adapter is built at `reset`."""
        kind = search_kind(game)
        key = get_game(game).name
        _check_search_params(key, params, budget=budget, c=c, cutoff=cutoff, max_hand=max_hand)
        if rollout not in ("heuristic", "random"):
            raise ConfigError(f"ismcts rollout must be 'heuristic' or 'random', got {rollout!r}")
        self.game = key
        self.budget = int(budget)
        self.rollout = rollout
        self.c = float(c)
        self.cutoff = int(kind.cutoff if cutoff is None else cutoff)
        self.max_hand = int(kind.max_hand if max_hand is None else max_hand)
        self.params = params
        self._rng = np.random.default_rng(seed)
        self._search: SearchGame[Any] | None = None
        self._fallback: Any = None
        self._player = 0

    def reset(self, table: TableInfo, seed: int | None = None) -> None:
        """Build the adapter for ``table``; reseed when ``seed`` is given."""
        if table.game != self.game:
            raise ConfigError(f"ismcts for {self.game!r} seated at a {table.game!r} table")
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._search = search_game(self.game, table.config, self.params)
        self._fallback = make_policy(table, **self.params)
        self._player = int(table.agent.rsplit("_", 1)[1])

    def fallback(
        self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]
    ) -> int:
        """The heuristic's move, where no search runs."""
        return int(self._fallback.act(observation, action_mask))

    def select(
        self, game: SearchGame[S], state: S, node: Node, legal: np.ndarray, rng: np.random.Generator
    ) -> int:
        """UCB1 with availability counts over the tried moves; an untried move first."""
        c = self.c
        children = node.children
        untried = []
        best_action = -1
        best_score = -math.inf
        for a in legal.tolist():
            child = children.get(a)
            if child is None:
                untried.append(a)
                continue
            child.avail += 1
            score = child.total / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
            if score > best_score:
                best_score, best_action = score, a
        if not untried:
            return best_action
        if self.rollout == "heuristic" and (a := game.policy(state)) in untried:
            return int(a)  # the rollout policy's untried move first
        return int(untried[int(rng.integers(len(untried)))])

    def roll_out(
        self,
        game: SearchGame[S],
        states: list[S],
        paths: list[list[Node]],
        rng: np.random.Generator,
    ) -> list[np.ndarray]:
        """One per-game rollout per leaf (`rollout_values`)."""
        return [self.rollout_values(game, state, rng) for state in states]

    def rollout_values(self, game: SearchGame[S], state: S, rng: np.random.Generator) -> np.ndarray:
        """Roll ``state`` out (in place) to the end or the cutoff; per-player rewards in [0, 1]."""
        steps = 0
        while not game.terminal(state) and (self.cutoff == 0 or steps < self.cutoff):
            if self.rollout == "heuristic":
                a = game.policy(state)
            else:
                legal = game.legal(state)
                a = int(legal[rng.integers(legal.size)])
            game.apply(state, a)
            steps += 1
        return game.values(state)


class BatchedISMCTSAgent(ISMCTSAgent):
    """SO-ISMCTS with its rollouts played in waves on the batched engines.

    Args:
        game, seed: as for `ISMCTSAgent`.
        batch: leaves per wave; default per game (`LeafEngine.defaults`), else 25.
        parallel: ``"leaf"`` (one tree) or ``"root"`` (``batch`` trees).
        backend, device: the rollout engine's (``device="cuda"`` alone: torch).
        time_limit: seconds per decision after which no new wave starts (after the first).
        compiled: Scandal's compiled rollouts (numba) where they run; the same choices.
        **settings: `ISMCTSAgent`'s.
    """

    name = "ismcts"

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
        leaves = leaf_engine(game)  # its defaults are this kind's, not the guided search's
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
        if self._rollouts is None:
            return super().roll_out(game, states, paths, rng)
        return list(self._rollouts.values(states, rng))
