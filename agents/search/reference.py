"""``ISMCTSAgent``: single-observer information-set Monte Carlo tree search, the readable reference.

Cowling, Powley and Whitehouse (2012), *Information Set Monte Carlo Tree
Search*, SO-ISMCTS. One tree over the acting player's information sets is
grown for ``budget`` iterations. Each iteration:

1. **Determinize**: sample a full state consistent with what the player has
   seen, ``info["determinize"](rng)`` (the env's ``determinize``; the real
   hidden cards are never used).
2. **Select**: at every node the children legal in this determinization have
   their *availability* raised, and the child maximising UCB1 with
   availability counts is taken, ``mean + c * sqrt(ln(availability) / visits)``,
   the mean being the reward of the player who made that move.
3. **Expand** one untried legal move (the rollout policy's choice first).
4. **Roll out** with the game's heuristic (``rollout="heuristic"``, the policy
   of ``HeuristicAgent`` on engine states) or uniformly (``"random"``) to the
   end of the deal or to ``cutoff`` steps, where the position is evaluated.
5. **Back up** per-player rewards in [0, 1] (`cardsuite.agents.search.games`).

The most visited legal root move is played. With ``max_hand`` (Scum and Party:
6 cards) the agent searches only late in a deal, where determinizations are
close to the truth and rollouts short, and plays the heuristic before
(``docs/agents.md``). The loop, the node and the decision are
`cardsuite.agents.search.base.SearchBase`'s; this module adds steps 2-4.
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
from cardsuite.agents.search.base import Node, SearchBase
from cardsuite.agents.search.games import (
    ClimbSearch,
    S,
    ScandalSearch,
    SearchGame,
    SearchKind,
    party_search,
    scandal_search,
    scum_search,
    search_game,
    search_kind,
)
from cardsuite.errors import ConfigError
from cardsuite.games import get_game
from cardsuite.safe_yaml import brief

__all__ = ["ClimbSearch", "ISMCTSAgent", "Node", "ScandalSearch", "SearchGame", "SearchKind",
           "party_search", "scandal_search", "scum_search", "search_game", "search_kind"]  # fmt: skip

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
    lowest = {"budget": 1, "cutoff": 0, "max_hand": 0}
    for name, low in lowest.items():
        value = values[name]
        if value is not None and (
            not isinstance(value, int) or isinstance(value, bool) or value < low
        ):
            raise ConfigError(
                f"ismcts parameter {name} must be an integer >= {low}, got {brief(value)}"
            )
    c = values["c"]
    if not isinstance(c, int | float) or isinstance(c, bool) or not math.isfinite(c) or c < 0:
        raise ConfigError(f"ismcts parameter c must be a finite number >= 0, got {brief(c)}")


class ISMCTSAgent(SearchBase):
    """SO-ISMCTS with heuristic rollouts over the env's determinizations.

    Args:
        game: ``"scum"``, ``"scum_party"`` or ``"scandal"``.
        seed: seeds determinizations, expansions and random rollouts.
        budget: iterations per decision.
        rollout: ``"heuristic"`` (the game's heuristic policy) or ``"random"``.
        c: UCB1 exploration constant (rewards are in [0, 1]).
        cutoff: rollout steps before the position is evaluated (0 = play the
            deal out); default per game (its record's `SearchKind`).
        max_hand: search only when the player holds at most this many cards,
            else play the heuristic (0 = always search); default per game
            (its record's `SearchKind`). Late in a deal the determinizations
            are close to the truth and rollouts are short, so the budget is
            spent where search beats the rules.
        **params: knobs of the game's heuristic used in the rollouts.
    """

    name = "ismcts"

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
        if cutoff is None:
            cutoff = kind.cutoff
        if max_hand is None:
            max_hand = kind.max_hand
        self.game = key
        self.budget = int(budget)
        self.rollout = rollout
        self.c = float(c)
        self.cutoff = int(cutoff)
        self.max_hand = int(max_hand)
        self.params = params
        self._rng = np.random.default_rng(seed)
        # Game-agnostic: the adapter is checked against SearchGame[its State] in search_game.
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

    # ------------------------------------------------------------ the search's hooks
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
        if untried:
            return self._expansion(game, state, untried, rng)
        return best_action

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

    def _expansion(
        self, game: SearchGame[S], state: S, untried: list[int], rng: np.random.Generator
    ) -> int:
        """The untried move to expand: the rollout policy's choice first."""
        if self.rollout == "heuristic":
            a = game.policy(state)
            if a in untried:
                return int(a)
        return int(untried[int(rng.integers(len(untried)))])
