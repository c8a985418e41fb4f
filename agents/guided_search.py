"""``GuidedSearchAgent``: information-set search over a learned agent (``search:pretrained:scum4``).

The search of [BatchedISMCTSAgent][cardsuite.agents.ismcts_batched.BatchedISMCTSAgent]
(the same determinizations from the env's resampler, one tree over the
acting player's information sets, leaves evaluated in waves on the batched
engine) with a learned policy in two places, as in AlphaZero-style search
with imperfect information:

* **prior**: a node's moves are selected by PUCT,
  ``mean + c * prior(a) * sqrt(visits(node)) / (1 + visits(child))``, the
  prior being ``softmax(logits / temperature)`` of the learned policy over
  the legal moves, taken from the observation of the player to act when the
  node is first reached (the root's from the real observation); an unvisited
  move counts with mean ``fpu``;
* **leaves**: scored by rolling the leaf out with the learned policy for every
  player (its most likely legal move), all leaves of a wave in one batched
  engine call, to the end of the deal or the game's cutoff.

The move played is the most visited root move (among equals, the one the
learned policy prefers). A spec names the learned
agent and, optionally, the search's parameters after a last colon::

    search:pretrained:scum4
    search:pretrained:scandal2:budget=50,temperature=2
    search:ppo:runs/scum-4p/final:budget=200

Any agent with ``logits(scaled_obs)`` and an observation scale set at
``reset`` (``ppo:`` and ``pretrained:`` agents) can be wrapped. Scum and
Scandal are searched; Scum Party's tables are not played by the batched Scum
engine, so a Party table is refused.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from cardsuite.agents.base import TableInfo
from cardsuite.agents.ismcts import Node, SearchGame
from cardsuite.agents.ismcts_batched import BatchedISMCTSAgent, LearnedRollout
from cardsuite.agents.registry import _scalar
from cardsuite.errors import ConfigError

#: The parameters a ``search:`` spec may give after the wrapped agent's spec.
GUIDED_PARAMS = (
    "budget",
    "temperature",
    "c",
    "fpu",
    "cutoff",
    "max_hand",
    "batch",
    "parallel",
    "backend",
    "device",
    "time_limit",
)


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
        game: ``"scum"`` or ``"scandal"``.
        inner: the learned agent (with ``logits`` and a ``reset`` that sets its scale).
        seed: seeds the determinizations.
        budget: descents per decision.
        temperature: of the prior's softmax (higher: flatter).
        c: PUCT exploration constant (rewards are in [0, 1]).
        fpu: the mean an unvisited move counts with.
        cutoff: rollout steps before the position is evaluated (0: to the end);
            default per game, as ISMCTS.
        max_hand: search only at hands this small, else play ``inner`` (0: always).
        batch, parallel, backend, device, time_limit: as for ``BatchedISMCTSAgent``.
    """

    name = "search"

    def __init__(
        self,
        game: str,
        inner: Any,
        seed: int | None = None,
        budget: int = 50,
        temperature: float = 1.0,
        c: float = 1.0,
        fpu: float = 0.5,
        cutoff: int | None = None,
        max_hand: int = 0,
        batch: int = 25,
        parallel: str = "leaf",
        backend: str | None = None,
        device: str | None = None,
        time_limit: float | None = None,
    ) -> None:
        """Check the settings; the rollout engine is built at ``reset``."""
        key = game.replace("-", "_").lower()
        if key not in ("scum", "scandal"):
            raise ConfigError(f"no guided search for game {game!r}; games: scum, scandal")
        if not callable(getattr(inner, "logits", None)):
            raise ConfigError(
                f"search: {getattr(inner, 'name', inner)!r} has no policy logits to guide a "
                "search; wrap a learned agent (pretrained:NAME, ppo:PATH)"
            )
        for label, value, low in (("temperature", temperature, 0.0), ("fpu", fpu, -math.inf)):
            if (
                not isinstance(value, int | float)
                or isinstance(value, bool)
                or not math.isfinite(value)
                or (value <= low if label == "temperature" else False)
            ):
                raise ConfigError(f"search parameter {label} must be a finite number"
                                  f"{' > 0' if label == 'temperature' else ''}, got {value!r}")  # fmt: skip
        super().__init__(
            key,
            seed,
            budget=budget,
            rollout="heuristic",
            c=c,
            cutoff=cutoff,
            max_hand=max_hand,
            batch=batch,
            parallel=parallel,
            backend=backend,
            device=device,
            time_limit=time_limit,
        )
        self.inner = inner
        self.temperature = float(temperature)
        self.fpu = float(fpu)
        self.name = f"search:{getattr(inner, 'name', 'learned')}"
        self._root_prior: np.ndarray | None = None

    # ------------------------------------------------------------ building
    @classmethod
    def load(cls, text: str, game: str, seed: int | None = None) -> GuidedSearchAgent:
        """``INNER_SPEC[:k=v,...]`` (what follows ``search:``): the wrapped agent and parameters."""
        from cardsuite.agents.registry import make_agent

        inner_spec, params = split_spec(text)
        if not inner_spec:
            raise ConfigError("search needs a learned agent to wrap, e.g. search:pretrained:scum4")
        inner = make_agent(inner_spec, game, seed)
        return cls(game, inner, seed, **params)

    def rollout_policy(self, table: TableInfo) -> Any:
        """The wrapped agent's most likely legal move, for every row."""
        return LearnedRollout(self.inner.logits, self._scale())

    def _scale(self) -> np.ndarray:
        scale = getattr(self.inner, "_scale", None)
        if scale is None:
            raise ConfigError(f"search: {self.inner.name} set no observation scale at reset")
        return np.asarray(scale, np.float32)

    def reset(self, table: TableInfo, seed: int | None = None) -> None:
        """Reset the wrapped agent, then build the search for ``table``."""
        if table.game not in ("scum", "scandal"):
            raise ConfigError(f"no guided search at a {table.game!r} table; games: scum, scandal")
        self.inner.reset(table, seed)
        super().reset(table, seed)

    # ------------------------------------------------------------ acting
    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        """The most visited legal root move; the wrapped agent's move where no search runs."""
        legal = np.flatnonzero(action_mask)
        if legal.size == 1:
            return int(legal[0])
        determinize: Callable[[np.random.Generator], Any] | None = info.get("determinize")
        if determinize is None or self._search is None:
            return int(self.inner.act(observation, action_mask, info))
        if self.max_hand:
            state, me = self._search.prepare(determinize(self._rng), self._player)
            if self._search.hand_size(state, me) > self.max_hand:
                return int(self.inner.act(observation, action_mask, info))
        logits = self.inner.logits(np.asarray(observation, np.float32) * self._scale())
        self._root_prior = softmax_prior(
            np.asarray(logits).reshape(-1), np.asarray(action_mask, bool), self.temperature
        )
        prior = self._root_prior
        root = self.search(determinize)
        allowed = set(legal.tolist())
        # the most visited move; among equals the one the learned policy prefers
        best = max(
            (
                (child.visits, float(prior[a]), -a)
                for a, child in root.children.items()
                if a in allowed
            ),
            default=None,
        )
        if best is None:
            return int(self.inner.act(observation, action_mask, info))
        return -best[2]

    def new_root(self) -> Node:
        """A root whose prior is the learned policy's on the real observation."""
        root = PNode(-1)
        root.prior = self._root_prior
        return root

    # ------------------------------------------------------------ the tree
    def descend(
        self, game: SearchGame[Any], root: Node, state: Any, rng: np.random.Generator
    ) -> list[Node]:
        """PUCT selection; the first unvisited move chosen is expanded and the descent stops."""
        path = [root]
        node = root
        root.visits += 1
        c, fpu = self.c, self.fpu
        while not game.terminal(state):
            legal = game.legal(state)
            player = game.to_act(state)
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
                    score = child.total / child.visits + c * p * sqrt_n / (1 + child.visits)
                if score > best_score:
                    best_score, best_action = score, a
            child = children.get(best_action)
            game.apply(state, best_action)
            if child is None:
                child = children[best_action] = PNode(player)
                child.avail = 1
                child.visits = 1
                path.append(child)
                break
            child.visits += 1
            node = child
            path.append(node)
        return path

    def evaluate(
        self, game: SearchGame[Any], leaves: list[Any], paths: list[list[Node]], rng: Any
    ) -> list[np.ndarray]:
        """Learned-policy rollouts of every leaf; the new leaves' priors from their observations."""
        out: list[np.ndarray | None] = [None] * len(leaves)
        todo = []
        for i, state in enumerate(leaves):
            if game.terminal(state):
                out[i] = game.values(state)
            else:
                todo.append(i)
        if todo:
            assert self._rollouts is not None
            policy = self._rollouts.policy
            temperature = self.temperature

            def set_priors(start: int, obs: np.ndarray, mask: np.ndarray) -> None:
                priors = softmax_prior(policy.masked(obs, mask), mask, temperature)
                for j in range(obs.shape[0]):
                    leaf = paths[todo[start + j]][-1]
                    if isinstance(leaf, PNode) and leaf.prior is None:
                        leaf.prior = priors[j]

            vals = self._rollouts.values([leaves[i] for i in todo], rng, on_load=set_priors)
            for j, i in enumerate(todo):
                out[i] = vals[j]
        return [v for v in out if v is not None]


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
        params[key] = _scalar(raw.strip())
    return head.strip(), params
