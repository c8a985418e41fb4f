"""``ISMCTSAgent``: single-observer information-set Monte Carlo tree search.

Cowling, Powley and Whitehouse (2012), *Information Set Monte Carlo Tree
Search*, SO-ISMCTS. One tree over the acting player's information sets is
grown for ``budget`` iterations. Each iteration:

1. **Determinize**: sample a full state consistent with what the player has
   seen, ``info["determinize"](rng)`` (the env's documented ``determinize``;
   the real hidden cards are never used).
2. **Select**: walk down the tree. At every node the children whose actions
   are legal in this determinization have their *availability* count raised,
   and the child maximising UCB1 with availability counts is taken,
   ``mean + c * sqrt(ln(availability) / visits)``, the mean being the reward
   of the player who made that move.
3. **Expand** one untried legal action (the rollout policy's choice first,
   else a random one).
4. **Roll out** with the game's heuristic (``rollout="heuristic"``, the same
   policy as [`HeuristicAgent`][cardsuite.agents.baselines.heuristic.HeuristicAgent], applied to engine
   states) or uniformly (``rollout="random"``) to the end of the deal, or
   to ``cutoff`` rollout steps, where the position is evaluated.
5. **Back up** per-player rewards normalised to [0, 1].

The move played is the most visited legal root child.

Where it pays: with ``max_hand`` (default 6 cards in Scum and Party) the
agent searches only late in a deal and plays the heuristic before. Early
determinizations are far from the truth and a budget that fits ~0.1 s only
adds noise to the heuristic's choice; late ones are close to it, rollouts are
short, and the search finds the winning sequences. Measurements: ``docs/agents.md``.

Games ([`SearchGame`][cardsuite.agents.search.reference.SearchGame] adapters):

* ``scum``: the table engine ``scum_env.engine``; a rollout ends with the
  series; reward ``(n - k) / (n - 1)`` for the k-th player out (J8 points
  rescaled: 1 first, 0 last).
* ``scum_party``: the search runs on the player's own table (other tables
  never affect its finish order); reward as for Scum from its table finish.
* ``scandal``: ``scandal_env.engine``; a rollout ends with the hand or after
  ``cutoff`` steps, where the hand is scored as if it ended now (S9); reward
  ``0.5 + (own - mean of the others) / 400`` clipped to [0, 1].

This agent is the readable reference: the loop (determinize, descend, back
up), the tree node and the decision are
`cardsuite.agents.search.base.SearchBase`'s, which it shares
with ``cardsuite.agents.search.batched`` (the same descents, the rollouts of
many leaves at once on the batched engines: ``ismcts-batched``) and
``cardsuite.agents.search.guided`` (search over a learned agent:
``search:pretrained:NAME``); this module adds steps 2-4, `ISMCTSAgent.select`
(UCB1 with availability, expansion) and `ISMCTSAgent.rollout_values`.
``docs/search.md``.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import math
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar

import numpy as np

from cardsuite.agents.base import TableInfo
from cardsuite.agents.baselines.scandal import ScandalPolicy
from cardsuite.agents.baselines.scum import ScumParams, ScumPolicy
from cardsuite.agents.parts import agent_parts, part
from cardsuite.agents.search.base import Node, SearchBase
from cardsuite.engine import EngineState
from cardsuite.errors import ConfigError
from cardsuite.games import get_game
from cardsuite.safe_yaml import brief
from scandal_env import engine as XE
from scum_env import engine as SE
from scum_env.party.engine import Party

S = TypeVar("S", bound=EngineState)


class SearchGame(Protocol[S]):
    """Engine-level operations the search needs for one game, over its engine ``State`` ``S``."""

    def prepare(self, determinization: Any, player: int) -> tuple[S, int]:
        """The state to search from, and the searching player's index in it."""
        ...

    def to_act(self, state: S) -> int:
        """The player to act."""
        ...

    def legal(self, state: S) -> np.ndarray:
        """Legal action ids, increasing."""
        ...

    def apply(self, state: S, action: int) -> None:
        """Apply a legal action in place."""
        ...

    def terminal(self, state: S) -> bool:
        """Whether the searched deal is over."""
        ...

    def values(self, state: S) -> np.ndarray:
        """Per-player rewards in [0, 1] of a terminal state or at the cutoff."""
        ...

    def policy(self, state: S) -> int:
        """The rollout policy's action."""
        ...

    def hand_size(self, state: S, player: int) -> int:
        """Cards in ``player``'s hand."""
        ...

    def clone(self, state: S) -> S:
        """An independent copy."""
        ...


# --------------------------------------------------------------------- climbing games
@functools.lru_cache(maxsize=32)
def _series_rules(rules: Any) -> Any:
    """The same table rules with one-series episodes (a rollout ends with the series)."""
    if rules.episode == "series":
        return rules
    return dataclasses.replace(rules, episode="series")


class ClimbSearch:
    """Scum / Scum Party tables: `scum_env.engine` states."""

    def __init__(self, party: bool, params: Mapping[str, Any]) -> None:
        """Adapter for Scum (``party=False``) or a Scum Party table."""
        self.party = party
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

    def to_act(self, state: SE.State) -> int:
        """The player to act."""
        return int(state.to_act)

    def legal(self, state: SE.State) -> np.ndarray:
        """Legal action ids."""
        return np.flatnonzero(SE.legal_mask(state))

    def apply(self, state: SE.State, action: int) -> None:
        """Apply a legal action."""
        SE.apply_unchecked(state, int(action))

    def terminal(self, state: SE.State) -> bool:
        """The series is over."""
        return bool(state.phase == SE.OVER)

    def values(self, state: SE.State) -> np.ndarray:
        """``(n - k) / (n - 1)`` for the k-th player out."""
        n = state.rules.num_players
        if state.phase != SE.OVER:  # cut off: rank by cards left
            order = np.argsort(np.asarray(state.ncards), kind="stable")
            out = np.empty(n)
            out[order] = (n - 1 - np.arange(n)) / (n - 1)
            return out
        result: np.ndarray = (state.last_points.astype(float) - 1.0) / (n - 1)
        return result

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

    def clone(self, state: SE.State) -> SE.State:
        """A copy of the table state."""
        return SE.clone(state)


# --------------------------------------------------------------------- Scandal
class ScandalSearch:
    """Scandal hands: `scandal_env.engine` states."""

    def __init__(self, config: Any, params: Mapping[str, Any]) -> None:
        """Adapter for a Scandal config."""
        self.policy_impl = ScandalPolicy(config, **params)
        self._hand = -1

    def prepare(self, determinization: XE.State, player: int) -> tuple[XE.State, int]:
        """The determinization itself; its hand number marks the searched hand."""
        self._hand = determinization.hand_number
        return determinization, player

    def to_act(self, state: XE.State) -> int:
        """The player to act."""
        return int(state.to_act)

    def legal(self, state: XE.State) -> np.ndarray:
        """Legal action ids."""
        return np.flatnonzero(XE.legal_mask(state))

    def apply(self, state: XE.State, action: int) -> None:
        """Apply a legal action."""
        XE.apply_unchecked(state, int(action))

    def terminal(self, state: XE.State) -> bool:
        """The searched hand is over (a next hand may have been dealt)."""
        return bool(state.done or state.hand_over or state.hand_number != self._hand)

    def values(self, state: XE.State) -> np.ndarray:
        """Net hand score (S9) relative to the others, squashed to [0, 1]."""
        if state.done or state.hand_over or state.hand_number != self._hand:
            scores = state.hand_scores.astype(float)
        else:  # cutoff: score the hand as if it ended now
            value = state.rules.deck.value.astype(float)
            p = state.num_players
            scores = np.array(
                [value[state.placed_by == i].sum() - value[state.hands[i]].sum() for i in range(p)]
            )
        p = len(scores)
        others = (scores.sum() - scores) / (p - 1)
        result: np.ndarray = np.clip(0.5 + (scores - others) / 400.0, 0.0, 1.0)
        return result

    def policy(self, state: XE.State) -> int:
        """The Scandal heuristic for the player to act."""
        return int(self.policy_impl.choose_state(state))

    def hand_size(self, state: XE.State, player: int) -> int:
        """Cards in ``player``'s hand."""
        return int(state.hand_counts[player])

    def clone(self, state: XE.State) -> XE.State:
        """A copy of the state."""
        return XE.clone(state)


@dataclasses.dataclass(frozen=True)
class SearchKind:
    """How ISMCTS searches one game: a game record's ``search`` part.

    Attributes:
        build: ``build(config, params)``, the game's `SearchGame` adapter.
        cutoff: default rollout steps before evaluation (0: play the deal out).
        max_hand: default hand size at or below which the agent searches (0: always).
        leaves: ``"module:attribute"`` of the game's
            `cardsuite.agents.search.leaves.LeafEngine` (how its
            batched engine rolls out search leaves); None: the batched searches
            roll out with the reference.
        guided: default parameters of the search over a learned agent
            (``search:``) in this game, as ``(name, value)`` pairs; a spec's own win.
        guided_critic: the guided search's defaults in this game, over ``guided``,
            where the wrapped agent carries a critic and the spec names no
            ``leaf`` (value leaves, and the root that lets values decide).
        guided_agents: how many of the shipped learned agents the leaderboard
            seats a guided search over (the first ones it lists); None: every one.
        baseline: the ISMCTS agent kind that ``cardsuite leaderboard`` seats in
            this game at the default budget: ``ismcts`` (this readable
            reference) or ``ismcts-batched`` (the same budget of descents, its
            leaves rolled out in waves), where the reference is too slow for a
            board of hundreds of deals.
    """

    build: Callable[[Any, Mapping[str, Any]], SearchGame[Any]]
    cutoff: int
    max_hand: int
    leaves: str | None = None
    guided: tuple[tuple[str, Any], ...] = ()
    baseline: str = "ismcts"
    guided_critic: tuple[tuple[str, Any], ...] = ()
    guided_agents: int | None = None


def _scum(config: Any, params: Mapping[str, Any]) -> ClimbSearch:
    return ClimbSearch(party=False, params=params)


def _party(config: Any, params: Mapping[str, Any]) -> ClimbSearch:
    return ClimbSearch(party=True, params=params)


#: The records' ``search`` parts (a Scum series always ends quickly: no cutoff).
#: Scum's guided search: five waves of ten, searching from 8 cards (docs/search.md).
scum_search = SearchKind(
    _scum,
    cutoff=0,
    max_hand=6,
    leaves="cardsuite.agents.search.leaves:scum_leaves",
    guided=(("batch", 10), ("max_hand", 8)),
)
#: Scum Party's guided search: the learned prior at the root, the reference's
#: heuristic rollouts (no batched Party leaves); on the leaderboard only over the
#: first shipped agent (the one of the table's size), as a guided pair costs an
#: ISMCTS pair's time there.
party_search = SearchKind(
    _party, cutoff=0, max_hand=6, guided=(("rollout", "heuristic"),), guided_agents=1
)
#: Scandal's guided search: four waves of ten, learned rollouts scored after 20 steps
#: (the settings measured in docs/search.md; a hand in seconds, not minutes); over
#: an agent with a critic (``pretrained:scandal2``), value leaves and the halving
#: root with raw values, which beat the wrapped agent on 62.3% of 400 unseen deals. Its
#: leaderboard ISMCTS is the batched one: a 2-player hand in about 1 s of CPU
#: (compiled rollouts) where the reference takes about 9 s.
scandal_search = SearchKind(
    ScandalSearch,
    cutoff=40,
    max_hand=0,
    leaves="cardsuite.agents.search.leaves:scandal_leaves",
    guided=(("budget", 40), ("batch", 10), ("cutoff", 20)),
    baseline="ismcts-batched",
    guided_critic=(("leaf", "value"), ("root", "gumbel"), ("value", "raw")),
)


def search_kind(game: str) -> SearchKind:
    """The ISMCTS adapter of ``game`` (its ``search`` part, `cardsuite.agents.parts`);
    ConfigError naming the games that have one."""
    agent_parts(game, "ISMCTS")
    kind: SearchKind = part(game, "search")
    return kind


def search_game(game: str, config: Any, params: Mapping[str, Any]) -> SearchGame[Any]:
    """The `SearchGame` adapter of ``game``: its ``search`` part."""
    return search_kind(game).build(config, params)


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
        from cardsuite.agents.baselines.heuristic import make_policy

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
