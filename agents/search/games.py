"""How the searches play each game: its `SearchGame` adapter and its ``search`` part
(`SearchKind`: defaults, batched leaves, the guided search's settings).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar

import numpy as np

from cardsuite.agents.baselines.scandal_rule import ScandalPolicy
from cardsuite.agents.baselines.scum import ScumParams, ScumPolicy
from cardsuite.agents.parts import agent_parts, part
from cardsuite.engine import EngineState
from cardsuite.errors import ConfigError
from scandal_env import engine as XE
from scum_env import engine as SE
from scum_env.party.engine import Party

S = TypeVar("S", bound=EngineState)


class SearchGame(Protocol[S]):
    """Engine-level operations the search needs for one game, over its engine ``State`` ``S``."""

    def prepare(self, determinization: Any, player: int) -> tuple[S, int]:
        """The state to search from, and the searching player's index in it."""

    def to_act(self, state: S) -> int:
        """The player to act."""

    def legal(self, state: S) -> np.ndarray:
        """Legal action ids, increasing."""

    def apply(self, state: S, action: int) -> None:
        """Apply a legal action in place."""

    def terminal(self, state: S) -> bool:
        """Whether the searched deal is over."""

    def values(self, state: S) -> np.ndarray:
        """Per-player rewards in [0, 1] of a terminal state or at the cutoff."""

    def policy(self, state: S) -> int:
        """The rollout policy's action."""

    def hand_size(self, state: S, player: int) -> int:
        """Cards in ``player``'s hand."""

    def clone(self, state: S) -> S:
        """An independent copy."""


@functools.lru_cache(maxsize=32)
def _series_rules(rules: Any) -> Any:
    """The same table rules with one-series episodes (a rollout ends with the series)."""
    return rules if rules.episode == "series" else dataclasses.replace(rules, episode="series")


def relative_score(scores: np.ndarray) -> np.ndarray:
    """``0.5 + (own - mean of others) / 400`` clipped to [0, 1], per row of ``[m, P]`` points."""
    n = scores.shape[1]
    others = (scores.sum(axis=1, keepdims=True) - scores) / (n - 1)
    return np.clip(0.5 + (scores - others) / 400.0, 0.0, 1.0)


def rank_score(ncards: np.ndarray) -> np.ndarray:
    """``(n - 1 - k) / (n - 1)`` for the k-th fewest cards left (ties by seat), per row of
    ``[m, n]`` counts: a climbing deal cut off as if it ended now."""
    n = ncards.shape[1]
    out = np.empty(ncards.shape)
    rank = np.argsort(ncards, axis=1, kind="stable")
    np.put_along_axis(out, rank, (n - 1 - np.arange(n)) / (n - 1), axis=1)
    return out


class _EngineSearch:
    """What the adapters share: the per-game engine module's moves (``engine``)."""

    engine: Any

    def to_act(self, state: Any) -> int:
        """The player to act."""
        return int(state.to_act)

    def legal(self, state: Any) -> np.ndarray:
        """Legal action ids."""
        return np.flatnonzero(self.engine.legal_mask(state))

    def apply(self, state: Any, action: int) -> None:
        """Apply a legal action in place."""
        self.engine.apply_unchecked(state, int(action))

    def clone(self, state: Any) -> Any:
        """An independent copy."""
        return self.engine.clone(state)


class ClimbSearch(_EngineSearch):
    """Scum / Scum Party tables: `scum_env.engine` states, rewarded ``(n - k) / (n - 1)``."""

    engine = SE

    def __init__(self, config: Any, params: Mapping[str, Any]) -> None:
        """Adapter for a Scum or a Scum Party ``config`` (each state carries its rules)."""
        self.params = ScumParams(**params)
        self._policies: dict[int, Any] = {}

    def prepare(self, determinization: SE.State | Party, player: int) -> tuple[SE.State, int]:
        """Scum: the state with series rules; Party: the player's own table."""
        if isinstance(determinization, Party):
            table = determinization.tables[determinization.table_of[player]]
            state, me = table, int(determinization.local_of[player])
        else:
            state, me = determinization, player
        state.rules = _series_rules(state.rules)
        return state, me

    def terminal(self, state: SE.State) -> bool:
        """The series is over."""
        return bool(state.phase == SE.OVER)

    def values(self, state: SE.State) -> np.ndarray:
        """``(n - k) / (n - 1)`` for the k-th player out; cut off: ranked by cards left."""
        if state.phase != SE.OVER:
            return rank_score(np.asarray(state.ncards)[None])[0]
        n = state.rules.num_players
        return (state.last_points.astype(float) - 1.0) / (n - 1)

    def policy(self, state: SE.State) -> int:
        """The climbing-game heuristic for the player to act."""
        rules = state.rules
        pol = self._policies.get(id(rules))
        if pol is None:
            pol = self._policies[id(rules)] = ScumPolicy(rules, self.params)
        return pol.choose_state(state)

    def hand_size(self, state: SE.State, player: int) -> int:
        """Cards in ``player``'s hand."""
        return int(state.ncards[player])


class ScandalSearch(_EngineSearch):
    """Scandal hands: `scandal_env.engine` states, rewarded by the hand's score (S9)."""

    engine = XE

    def __init__(self, config: Any, params: Mapping[str, Any]) -> None:
        """Adapter for a Scandal config."""
        self.policy_impl = ScandalPolicy(config, **params)
        self._hand = -1

    def prepare(self, determinization: XE.State, player: int) -> tuple[XE.State, int]:
        """The determinization itself; its hand number marks the searched hand."""
        self._hand = determinization.hand_number
        return determinization, player

    def terminal(self, state: XE.State) -> bool:
        """The searched hand is over (a next hand may have been dealt)."""
        return bool(state.done or state.hand_over or state.hand_number != self._hand)

    def values(self, state: XE.State) -> np.ndarray:
        """`relative_score` of the hand's score (S9), at the cutoff as if it ended now."""
        if self.terminal(state):
            scores = state.hand_scores.astype(float)
        else:
            value = state.rules.deck.value.astype(float)
            p = state.num_players
            scores = np.array(
                [value[state.placed_by == i].sum() - value[state.hands[i]].sum() for i in range(p)]
            )
        return relative_score(scores[None])[0]

    def policy(self, state: XE.State) -> int:
        """The Scandal heuristic for the player to act."""
        return int(self.policy_impl.choose_state(state))

    def hand_size(self, state: XE.State, player: int) -> int:
        """Cards in ``player``'s hand."""
        return int(state.hand_counts[player])


@dataclasses.dataclass(frozen=True)
class SearchKind:
    """How the searches play one game: a record's ``search`` part.

    Attributes:
        build: ``build(config, params)``, the game's `SearchGame` adapter.
        cutoff: default rollout steps before evaluation (0: play the deal out).
        max_hand: default hand size at or below which ISMCTS searches (0: always).
        leaves: ``"module:attribute"`` of the game's `LeafEngine`; None: the reference's.
        guided: the guided search's default parameters, as ``(name, value)`` pairs.
        baseline: the ISMCTS kind ``cardsuite leaderboard`` seats in this game.
        guided_critic: the guided search's defaults over ``guided`` where the wrapped
            agent carries a critic and the spec names no ``leaf``.
        guided_agents: the first how many shipped agents the leaderboard guides (None: all).
    """

    build: Callable[[Any, Mapping[str, Any]], SearchGame[Any]]
    cutoff: int
    max_hand: int
    leaves: str | None = None
    guided: tuple[tuple[str, Any], ...] = ()
    baseline: str = "ismcts"
    guided_critic: tuple[tuple[str, Any], ...] = ()
    guided_agents: int | None = None


#: Scum: no cutoff; the guided search: waves of ten from 8 cards.
scum_search = SearchKind(
    ClimbSearch,
    cutoff=0,
    max_hand=6,
    leaves="cardsuite.agents.search.rollouts:scum_leaves",
    guided=(("batch", 10), ("max_hand", 8)),
)
#: Scum Party: no batched leaves (the learned prior at the root only); the leaderboard
#: guides only the first shipped agent.
party_search = SearchKind(
    ClimbSearch, cutoff=0, max_hand=6, guided=(("rollout", "heuristic"),), guided_agents=1
)
#: Scandal: the guided search's four waves of ten, cut after 20 steps (over a critic:
#: value leaves, the halving root).
scandal_search = SearchKind(
    ScandalSearch,
    cutoff=40,
    max_hand=0,
    leaves="cardsuite.agents.search.rollouts:scandal_leaves",
    guided=(("budget", 40), ("batch", 10), ("cutoff", 20)),
    guided_critic=(("leaf", "value"), ("root", "gumbel"), ("value", "raw")),
)


def search_kind(game: str) -> SearchKind:
    """``game``'s ``search`` part; ConfigError naming the games that have one."""
    agent_parts(game, "ISMCTS")
    return part(game, "search")


def search_game(game: str, config: Any, params: Mapping[str, Any]) -> SearchGame[Any]:
    """The `SearchGame` adapter of ``game``."""
    return search_kind(game).build(config, params)


def _kind(game: str) -> SearchKind | None:
    """`search_kind`, or None where ``game`` has none."""
    try:
        return search_kind(game)
    except ConfigError:
        return None


def supports(game: str) -> bool:
    """Whether ``game`` can be searched over a learned agent (it has a ``search`` part)."""
    return _kind(game) is not None


def learned_leaves(game: str) -> bool:
    """Whether ``game``'s batched engine plays the leaves (a wrapped policy rolls them out)."""
    kind = _kind(game)
    return kind is not None and kind.leaves is not None


def guided_specs(game: str, shipped: list[str]) -> list[str]:
    """``search:SPEC`` for the leaderboard's shipped agents (``SearchKind.guided_agents``)."""
    kind = _kind(game)
    if kind is None:
        return []
    learned = [f"search:{spec}" for spec in shipped if spec.startswith("pretrained:")]
    return learned if kind.guided_agents is None else learned[: kind.guided_agents]


def game_defaults(game: str, critic: bool = False) -> dict[str, Any]:
    """The guided search's defaults in ``game`` (with ``guided_critic`` over a ``critic``)."""
    kind = _kind(game)
    if kind is None:
        return {}
    return {**dict(kind.guided), **(dict(kind.guided_critic) if critic else {})}
