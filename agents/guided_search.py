"""``GuidedSearchAgent``: information-set search over a learned agent (``search:pretrained:scum4``).

The search of [BatchedISMCTSAgent][cardsuite.agents.ismcts_batched.BatchedISMCTSAgent]
(the same determinizations from the env's resampler, one tree over the
acting player's information sets, leaves evaluated in waves on the batched
engine) with a learned policy in two places, as in AlphaZero-style search
with imperfect information:

* **prior**: a node's moves are selected by PUCT,
  ``q + c * prior(a) * sqrt(visits(node)) / (1 + visits(child))``, the
  prior being ``softmax(logits / temperature)`` of the learned policy over
  the legal moves, taken from the observation of the player to act when the
  node is first reached (the root's from the real observation); ``q`` is the
  child's mean reward rescaled to the spread of the means seen in this
  search (MuZero's min-max normalisation, ``value="minmax"``), so that a
  better mean can overrule the prior even where the rewards differ by
  hundredths (Scandal's ``0.5 + difference / 400``); an unvisited move
  counts ``fpu``;
* **leaves**: scored by rolling the leaf out with the learned policy for every
  player (its most likely legal move; ``rollout="heuristic"``: the batched
  heuristic), all leaves of a wave in one batched engine call, to the end of
  the deal or the game's cutoff. In Scandal, with numba installed, each leaf
  is played on its own by compiled code instead
  (``scandal_env.batched.rollout_policy``; the heuristic's:
  ``scandal_env.batched.rollout``).

The move played is the most visited root move (among equals, the one the
learned policy prefers). A spec names the learned
agent and, optionally, the search's parameters after a last colon::

    search:pretrained:scum4
    search:pretrained:scandal2:budget=50,temperature=2
    search:ppo:runs/scum-4p/final:budget=200

Any agent with ``logits(scaled_obs)`` and an observation scale set at
``reset`` (``ppo:`` and ``pretrained:`` agents) can be wrapped. A game is
searched where its record's ``SearchKind`` names batched ``leaves`` (Scum,
Scandal); Scum Party's tables are not played by the batched Scum engine, so a
Party table is refused. Defaults per game come from ``SearchKind.guided``.
The loop, the descent and the decision are
[`SearchBase`][cardsuite.agents.search_base.SearchBase]'s.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from cardsuite.agents.base import TableInfo
from cardsuite.agents.ismcts import SearchGame, SearchKind, search_record
from cardsuite.agents.ismcts_batched import BatchedISMCTSAgent, LearnedRollout, leaf_engine
from cardsuite.agents.registry import spec_scalar
from cardsuite.agents.search_base import Node
from cardsuite.errors import ConfigError

#: The parameters a ``search:`` spec may give after the wrapped agent's spec.
GUIDED_PARAMS = (
    "budget",
    "temperature",
    "c",
    "fpu",
    "value",
    "rollout",
    "cutoff",
    "max_hand",
    "batch",
    "parallel",
    "backend",
    "device",
    "time_limit",
    "compiled",
)

#: How leaf values enter PUCT: ``minmax`` rescales the means to the spread of
#: the leaf values this search has seen (MuZero's normalisation), ``raw`` uses
#: them as they are (rewards in [0, 1]).
VALUES = ("minmax", "raw")

#: Who plays the rollouts: the wrapped policy for every player, or the game's
#: batched heuristic for every player (the prior stays the wrapped policy's).
ROLLOUTS = ("policy", "heuristic")


def supports(game: str) -> bool:
    """Whether ``game`` can be searched over a learned agent (its batched engine plays the leaves)."""
    try:
        return leaf_engine(game) is not None
    except ConfigError:
        return False


def guided_specs(game: str, shipped: list[str]) -> list[str]:
    """``search:SPEC`` for every shipped learned agent ``pretrained:NAME`` in ``shipped`` (the leaderboard's)."""
    if not supports(game):
        return []
    return [f"search:{spec}" for spec in shipped if spec.startswith("pretrained:")]


def game_defaults(game: str) -> dict[str, Any]:
    """The guided search's default parameters in ``game`` (its record's ``SearchKind.guided``)."""
    try:
        kind: SearchKind = search_record(game).part("search")
    except ConfigError:
        return {}
    return dict(kind.guided)


def default_temperature(inner: Any) -> float:
    """The prior's temperature for ``inner``: 0.1 for action values (Deep Monte-Carlo), else 1.

    A DMC network's outputs are action values in the reward's units ([-1, 1]),
    a few hundredths apart; a PPO actor's are log-probabilities.
    """
    trainer = str(getattr(getattr(inner, "meta", None), "trainer", ""))
    return 0.1 if "dmc" in trainer else 1.0


class PNode(Node):
    """A tree node with the learned prior of the moves from it (None until known)."""

    __slots__ = ("prior",)

    def __init__(self, player: int) -> None:
        """An unvisited node for a move by ``player``."""
        super().__init__(player)
        self.prior: np.ndarray | None = None


def softmax_prior(logits: np.ndarray, mask: np.ndarray, temperature: float) -> np.ndarray:
    """``softmax(logits / temperature)`` over the legal moves of each row (0 elsewhere)."""
    z = np.where(mask, np.asarray(logits, np.float64) / temperature, -np.inf)
    z = z - z.max(axis=-1, keepdims=True)
    e = np.where(mask, np.exp(z), 0.0)
    out: np.ndarray = e / e.sum(axis=-1, keepdims=True)
    return out


class GuidedSearchAgent(BatchedISMCTSAgent):
    """PUCT information-set search with a learned prior and learned-policy rollouts.

    Args:
        game: a game whose batched engine plays search leaves (Scum, Scandal).
        inner: the learned agent (with ``logits`` and a ``reset`` that sets its scale).
        seed: seeds the determinizations.
        budget: descents per decision.
        temperature: of the prior's softmax (higher: flatter); default per
            wrapped agent (`default_temperature`).
        c: PUCT exploration constant (on the normalised values with ``value="minmax"``).
        fpu: the (normalised) mean an unvisited move counts with.
        value: ``"minmax"`` or ``"raw"`` (`VALUES`).
        rollout: ``"policy"`` or ``"heuristic"`` (`ROLLOUTS`).
        **loop: ``cutoff`` and ``max_hand`` (default per game, as ISMCTS; with
            ``max_hand`` the wrapped agent plays larger hands), ``batch``,
            ``parallel``, ``backend``, ``device``, ``time_limit``, ``compiled``:
            as for ``BatchedISMCTSAgent`` (``compiled``: Scandal's rollouts by
            the wrapped network, or by the heuristic, played by the compiled
            rollouts where numba is installed; ``false`` for the lockstep loop).

    A ``search:`` spec (`load`) starts from the game's defaults,
    ``SearchKind.guided`` (Scandal: budget 40, batch 10, cutoff 20), then its own.
    """

    name = "search"

    def __init__(
        self,
        game: str,
        inner: Any,
        seed: int | None = None,
        budget: int = 50,
        temperature: float | None = None,
        c: float = 1.25,
        fpu: float = 0.0,
        value: str = "minmax",
        rollout: str = "policy",
        **loop: Any,
    ) -> None:
        """Check the settings; the rollout engine is built at ``reset``."""
        if not supports(game):
            raise ConfigError(
                f"no guided search for game {game!r}: its batched engine does not play "
                "search leaves (its record's search part has no leaves)"
            )
        if not callable(getattr(inner, "logits", None)):
            raise ConfigError(
                f"search: {getattr(inner, 'name', inner)!r} has no policy logits to guide a "
                "search; wrap a learned agent (pretrained:NAME, ppo:PATH)"
            )
        if temperature is None:
            temperature = default_temperature(inner)
        for label, number, low in (("temperature", temperature, 0.0), ("fpu", fpu, -math.inf)):
            if (
                not isinstance(number, int | float)
                or isinstance(number, bool)
                or not math.isfinite(number)
                or (number <= low if label == "temperature" else False)
            ):
                raise ConfigError(f"search parameter {label} must be a finite number"
                                  f"{' > 0' if label == 'temperature' else ''}, got {number!r}")  # fmt: skip
        if value not in VALUES:
            raise ConfigError(f"search parameter value must be one of {VALUES}, got {value!r}")
        if rollout not in ROLLOUTS:
            raise ConfigError(
                f"search parameter rollout must be one of {ROLLOUTS}, got {rollout!r}"
            )
        super().__init__(game, seed, budget=budget, rollout="heuristic", c=c, **loop)
        self.inner = inner
        self.temperature = float(temperature)
        self.fpu = float(fpu)
        self.value = value
        self.leaf_rollout = rollout
        self.name = f"search:{getattr(inner, 'name', 'learned')}"
        self._root_prior: np.ndarray | None = None
        self._prior_policy: LearnedRollout | None = None
        self._lo, self._hi = math.inf, -math.inf  # the spread of the means (value="minmax")

    # ------------------------------------------------------------ building
    @classmethod
    def load(cls, text: str, game: str, seed: int | None = None) -> GuidedSearchAgent:
        """``INNER_SPEC[:k=v,...]`` (what follows ``search:``): the wrapped agent and parameters."""
        from cardsuite.agents.registry import make_agent

        inner_spec, params = split_spec(text)
        if not inner_spec:
            raise ConfigError("search needs a learned agent to wrap, e.g. search:pretrained:scum4")
        inner = make_agent(inner_spec, game, seed)
        return cls(game, inner, seed, **{**game_defaults(game), **params})

    def rollout_policy(self, table: TableInfo) -> Any:
        """The wrapped agent's most likely legal move for every row, or the batched heuristic."""
        snapshot = getattr(self.inner, "snapshot", None) if self.compiled else None
        self._prior_policy = LearnedRollout(self.inner.logits, self._scale(), snapshot)
        return self._prior_policy if self.leaf_rollout == "policy" else "heuristic"

    def _scale(self) -> np.ndarray:
        scale = getattr(self.inner, "obs_scale", None)
        if scale is None:
            raise ConfigError(f"search: {self.inner.name} set no observation scale at reset")
        return np.asarray(scale, np.float32)

    def reset(self, table: TableInfo, seed: int | None = None) -> None:
        """Reset the wrapped agent, then build the search for ``table``."""
        if not supports(table.game):
            raise ConfigError(f"no guided search at a {table.game!r} table")
        self.inner.reset(table, seed)
        super().reset(table, seed)

    # ------------------------------------------------------------ the search's hooks
    def fallback(
        self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]
    ) -> int:
        """The wrapped agent's move, where no search runs."""
        return int(self.inner.act(observation, action_mask, info))

    def before_search(self, observation: np.ndarray, action_mask: np.ndarray) -> None:
        """The root's prior: the learned policy's on the real observation."""
        logits = self.inner.logits(np.asarray(observation, np.float32) * self._scale())
        self._root_prior = softmax_prior(
            np.asarray(logits).reshape(-1), np.asarray(action_mask, bool), self.temperature
        )
        self._lo, self._hi = math.inf, -math.inf

    def preference(self, action: int) -> float:
        """Among equally visited root moves, the one the learned policy prefers."""
        prior = self._root_prior
        return 0.0 if prior is None else float(prior[action])

    def new_node(self, player: int) -> Node:
        """A `PNode`; a root's prior is the learned policy's on the real observation."""
        node = PNode(player)
        if player < 0:
            node.prior = self._root_prior
        return node

    def select(
        self, game: SearchGame[Any], state: Any, node: Node, legal: np.ndarray, rng: Any
    ) -> int:
        """PUCT over the node's prior (uniform until known); an unvisited move counts ``fpu``."""
        c, fpu = self.c, self.fpu
        lo, span = 0.0, 1.0
        if self.value == "minmax":  # no spread seen yet: every visited move counts as average
            lo, span = (self._lo, self._hi - self._lo) if self._hi > self._lo else (math.nan, 1.0)
        prior = getattr(node, "prior", None)
        uniform = 1.0 / len(legal)
        sqrt_n = math.sqrt(max(node.visits, 1))
        children = node.children
        best_action, best_score = -1, -math.inf
        for a in legal.tolist():
            child = children.get(a)
            p = float(prior[a]) if prior is not None else uniform
            if child is None:
                score = fpu + c * p * sqrt_n
            else:
                child.avail += 1
                q = (child.total / child.visits - lo) / span
                if q != q:  # nan: no spread yet
                    q = 0.5
                score = q + c * p * sqrt_n / (1 + child.visits)
            if score > best_score:
                best_score, best_action = score, a
        return best_action

    def roll_out(
        self, game: SearchGame[Any], states: list[Any], paths: list[list[Node]], rng: Any
    ) -> list[np.ndarray]:
        """All leaves rolled out in one batch; the new leaves' priors from their observations."""
        assert self._rollouts is not None and self._prior_policy is not None
        policy = self._prior_policy
        temperature = self.temperature

        def set_priors(start: int, obs: np.ndarray, mask: np.ndarray) -> None:
            priors = softmax_prior(policy.masked(obs, mask), mask, temperature)
            for j in range(obs.shape[0]):
                leaf = paths[start + j][-1]
                if isinstance(leaf, PNode) and leaf.prior is None:
                    leaf.prior = priors[j]

        return list(self._rollouts.values(states, rng, on_load=set_priors))

    def after_wave(self, paths: list[list[Node]]) -> None:
        """The spread of the means (MuZero's min-max), over the nodes of the wave's paths."""
        lo, hi = self._lo, self._hi
        for path in paths:
            for n in path[1:]:
                mean = n.total / n.visits
                lo, hi = min(lo, mean), max(hi, mean)
        self._lo, self._hi = lo, hi


def split_spec(text: str) -> tuple[str, dict[str, Any]]:
    """``"pretrained:scum4:budget=50,temperature=2"`` -> ``("pretrained:scum4", {...})``.

    The parameters are the part after the last colon when it holds ``key=value``
    pairs; values are YAML scalars read as the registry reads every spec's. ConfigError names an unknown or repeated parameter.
    """
    text = text.strip()
    head, sep, tail = text.rpartition(":")
    if not sep or "=" not in tail:
        return text, {}
    params: dict[str, Any] = {}
    for item in tail.split(","):
        key, eq, raw = item.partition("=")
        key = key.strip()
        if not eq or not key.isidentifier():
            raise ConfigError(f"search spec {text!r}: {item.strip()!r} is not key=value")
        if key not in GUIDED_PARAMS:
            raise ConfigError(
                f"search spec {text!r}: unknown parameter {key!r}; parameters: "
                f"{', '.join(GUIDED_PARAMS)}"
            )
        if key in params:
            raise ConfigError(f"search spec {text!r}: parameter {key!r} given twice")
        params[key] = spec_scalar(raw.strip())
    return head.strip(), params
