"""``GuidedSearchAgent``: information-set search over a learned agent (``search:pretrained:scum4``).

The batched search with the learned policy as PUCT's prior and rollout policy (or its critic
scoring the leaves); parameters follow a last colon (``search:pretrained:scandal2:budget=50``).
See docs/search.md, "Search over a learned agent".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardsuite.agents.base import TableInfo
from cardsuite.agents.registry import make_agent, parse_params
from cardsuite.agents.search.base import Node, is_count, is_number
from cardsuite.agents.search.games import (
    SearchGame,
    game_defaults,
    guided_specs,
    learned_leaves,
    supports,
)
from cardsuite.agents.search.reference import BatchedISMCTSAgent
from cardsuite.agents.search.rollouts import LearnedRollout, leaf_engine
from cardsuite.agents.search.roots import C_SCALE, C_VISIT, HalvingRoot, paired_search
from cardsuite.errors import ConfigError

__all__ = ["C_SCALE", "C_VISIT", "GuidedSearchAgent", "HalvingRoot", "PNode", "game_defaults",
           "guided_specs", "learned_leaves", "softmax_prior", "split_spec", "supports"]  # fmt: skip

#: The parameters a ``search:`` spec may give after the wrapped agent's spec.
GUIDED_PARAMS = ("budget", "temperature", "c", "fpu", "value", "rollout", "cutoff", "max_hand",
                 "batch", "parallel", "backend", "device", "time_limit", "compiled", "root",
                 "candidates", "gate", "leaf")  # fmt: skip

#: How leaf values enter PUCT: rescaled to the spread of the means seen, or as they are.
VALUES = ("minmax", "raw")
#: Who plays the rollouts: the wrapped policy or the game's batched heuristic.
ROLLOUTS = ("policy", "heuristic")
#: How a leaf is scored: rolled out to ``cutoff``, or by the wrapped agent's critic.
LEAVES = ("rollout", "value")
#: How the root's moves are chosen: PUCT, sequential halving, or paired candidates.
ROOTS = ("puct", "gumbel", "paired")


def default_temperature(inner: Any) -> float:
    """The prior's temperature for ``inner``: 0.1 for a Deep Monte-Carlo network, else 1."""
    trainer = str(getattr(getattr(inner, "meta", None), "trainer", ""))
    return 0.1 if "dmc" in trainer else 1.0


@dataclass(slots=True, eq=False)
class PNode(Node):
    """A tree node with the learned prior of the moves from it (None until known)."""

    prior: np.ndarray | None = None


def softmax_prior(logits: np.ndarray, mask: np.ndarray, temperature: float) -> np.ndarray:
    """``softmax(logits / temperature)`` over the legal moves of each row (0 elsewhere)."""
    z = np.where(mask, np.asarray(logits, np.float64) / temperature, -np.inf)
    z = z - z.max(axis=-1, keepdims=True)
    e = np.where(mask, np.exp(z), 0.0)
    return e / e.sum(axis=-1, keepdims=True)


def _check(game: str, inner: Any, temperature: Any, fpu: Any, candidates: Any, gate: Any,
           choices: dict[str, Any], parallel: Any) -> None:  # fmt: skip
    """ConfigError naming the first bad setting of a guided search."""
    for label, number, low in (("temperature", temperature, " > 0"), ("fpu", fpu, "")):
        if not is_number(number) or not math.isfinite(number) or (low and number <= 0.0):
            raise ConfigError(
                f"search parameter {label} must be a finite number{low}, got {number!r}"
            )
    allowed = {"value": VALUES, "rollout": ROLLOUTS, "root": ROOTS, "leaf": LEAVES}
    for label, given in choices.items():
        if given not in allowed[label]:
            raise ConfigError(
                f"search parameter {label} must be one of {allowed[label]}, got {given!r}"
            )
    if not is_count(candidates, 2):
        raise ConfigError(
            f"search parameter candidates must be an integer >= 2, got {candidates!r}"
        )
    if not is_number(gate) or math.isnan(gate) or gate < 0:
        raise ConfigError(f"search parameter gate must be a number >= 0, got {gate!r}")
    rollout, leaf, root = choices["rollout"], choices["leaf"], choices["root"]
    if not learned_leaves(game) and (rollout != "heuristic" or leaf != "rollout"):
        bad = f"rollout={rollout}" if rollout != "heuristic" else f"leaf={leaf}"
        raise ConfigError(
            f"search parameter {bad}: {game!r} leaves are played by the reference "
            "engine, which rolls them out with the heuristic (rollout=heuristic, "
            "leaf=rollout); the learned policy is the root's prior"
        )
    if leaf == "value":
        leaves = leaf_engine(game)
        if leaves is None or leaves.value_score is None:
            raise ConfigError(f"search parameter leaf=value: {game!r} has no critic scale")
        if not getattr(inner, "has_value", False):
            raise ConfigError(
                f"search parameter leaf=value: {getattr(inner, 'name', inner)!r} has no "
                "critic; wrap an agent saved with one (pretrained:scandal2, or a PPO run's "
                "ppo:RUN/agent), or fit one to this actor with cardsuite ppo --init "
                "pretrained:NAME --set critic_warmup=N"
            )
    if root != "puct" and parallel != "leaf":
        raise ConfigError(f"search parameter root={root} needs parallel=leaf (one tree)")


class GuidedSearchAgent(BatchedISMCTSAgent):
    """PUCT information-set search over the learned agent ``inner`` (its ``logits`` and
    ``obs_scale``); ``**loop``: as for `BatchedISMCTSAgent`. Every parameter: docs/search.md.
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
        root: str = "puct",
        candidates: int = 8,
        gate: float = 2.0,
        leaf: str = "rollout",
        **loop: Any,
    ) -> None:
        """Check the settings; the rollout engine is built at ``reset``."""
        if not supports(game):
            raise ConfigError(f"no guided search for game {game!r}: it has no search record")
        if not callable(getattr(inner, "logits", None)):
            raise ConfigError(
                f"search: {getattr(inner, 'name', inner)!r} has no policy logits to guide a "
                "search; wrap a learned agent (pretrained:NAME, ppo:PATH)"
            )
        if temperature is None:
            temperature = default_temperature(inner)
        choices = {"value": value, "rollout": rollout, "root": root, "leaf": leaf}
        _check(game, inner, temperature, fpu, candidates, gate, choices,
               loop.get("parallel", "leaf"))  # fmt: skip
        super().__init__(game, seed, budget=budget, rollout="heuristic", c=c, **loop)
        self.inner = inner
        self.temperature = float(temperature)
        self.fpu = float(fpu)
        self.value = value
        self.leaf_rollout = rollout
        self.root = root
        self.candidates = candidates
        self.gate = float(gate)
        self.leaf = leaf
        self._root_legal: np.ndarray | None = None
        self._paired: int | None = None  # the move the paired root chose
        self._halving: HalvingRoot | None = None
        self._root_node: Node | None = None
        self.name = f"search:{getattr(inner, 'name', 'learned')}"
        self._root_prior: np.ndarray | None = None
        self._prior_policy: LearnedRollout | None = None
        self._lo, self._hi = math.inf, -math.inf  # the spread of the means (value="minmax")

    @classmethod
    def load(cls, text: str, game: str, seed: int | None = None) -> GuidedSearchAgent:
        """``INNER_SPEC[:k=v,...]`` (what follows ``search:``): the wrapped agent and parameters."""
        inner_spec, params = split_spec(text)
        if not inner_spec:
            raise ConfigError("search needs a learned agent to wrap, e.g. search:pretrained:scum4")
        inner = make_agent(inner_spec, game, seed)
        critic = "leaf" not in params and bool(getattr(inner, "has_value", False))
        return cls(game, inner, seed, **{**game_defaults(game, critic), **params})

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
        if table.game != self.game:
            raise ConfigError(f"search: built for {self.game!r}, seated at a {table.game!r} table")
        self.inner.reset(table, seed)
        super().reset(table, seed)

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
        self._halving = None
        self._root_legal = np.flatnonzero(action_mask)
        self._paired = None
        if self.root == "gumbel":
            with np.errstate(divide="ignore"):
                log_prior = np.log(self._root_prior)
            self._halving = HalvingRoot(
                log_prior, self.budget, self.candidates, spread=self.value == "minmax"
            )

    def choose(self, root: Node, allowed: set[int]) -> int | None:
        """The most visited root move, or the gumbel or paired root's choice."""
        if self.root == "paired":
            return self._paired if self._paired in allowed else None
        if self._halving is not None:
            return self._halving.choose(root, allowed)
        return super().choose(root, allowed)

    def preference(self, action: int) -> float:
        """Among equally visited root moves, the one the learned policy prefers."""
        prior = self._root_prior
        return 0.0 if prior is None else float(prior[action])

    def new_node(self, player: int) -> Node:
        """A `PNode`; a root's prior is the learned policy's on the real observation."""
        node = PNode(player)
        if player < 0:
            node.prior = self._root_prior
            self._root_node = node
        return node

    def select(
        self, game: SearchGame[Any], state: Any, node: Node, legal: np.ndarray, rng: Any
    ) -> int:
        """PUCT over the node's prior (uniform until known), or the halving's move at its root."""
        if self._halving is not None and node is self._root_node:
            a = self._halving.pick(node)
            for b in legal.tolist():
                child = node.children.get(b)
                if child is not None:
                    child.avail += 1
            return a
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

    def search(self, determinize: Callable[[np.random.Generator], Any]) -> Node:
        """``root="paired"``: `paired_search`; otherwise the tree search of `SearchBase`."""
        if self.root != "paired":
            return super().search(determinize)
        assert self._root_prior is not None and self._root_legal is not None
        root, self._paired = paired_search(self, determinize, self._root_prior, self._root_legal)
        return root

    def roll_out(
        self, game: SearchGame[Any], states: list[Any], paths: list[list[Node]], rng: Any
    ) -> list[np.ndarray]:
        """All leaves rolled out in one batch; the new leaves' priors from their observations."""
        if self._rollouts is None:
            return super().roll_out(game, states, paths, rng)
        assert self._prior_policy is not None
        policy = self._prior_policy
        temperature = self.temperature

        def set_priors(start: int, obs: np.ndarray, mask: np.ndarray) -> None:
            priors = softmax_prior(policy.masked(obs, mask), mask, temperature)
            for j in range(obs.shape[0]):
                leaf = paths[start + j][-1]
                if isinstance(leaf, PNode) and leaf.prior is None:
                    leaf.prior = priors[j]

        if self.leaf == "value":
            scale = self._scale()
            inner = self.inner

            def critic(obs: np.ndarray) -> np.ndarray:
                return np.asarray(inner.value(np.asarray(obs, np.float32) * scale))

            return list(self._rollouts.critic_values(states, critic, on_load=set_priors))
        return list(self._rollouts.values(states, rng, on_load=set_priors))

    def after_wave(self, paths: list[list[Node]]) -> None:
        """Widen the spread of the means (min-max) by the wave's nodes; advance the halving."""
        lo, hi = self._lo, self._hi
        for path in paths:
            for n in path[1:]:
                mean = n.total / n.visits
                lo, hi = min(lo, mean), max(hi, mean)
        self._lo, self._hi = lo, hi
        if self._halving is not None and self._root_node is not None:
            self._halving.after_wave(self._root_node)


def split_spec(text: str) -> tuple[str, dict[str, Any]]:
    """``"pretrained:scum4:budget=50"`` -> ``("pretrained:scum4", {"budget": 50})`` (the part
    after the last colon, when it holds ``key=value`` items); ConfigError names a bad one."""
    text = text.strip()
    head, sep, tail = text.rpartition(":")
    if not sep or "=" not in tail:
        return text, {}
    return head.strip(), parse_params(text, tail, kind="search", allowed=GUIDED_PARAMS)
