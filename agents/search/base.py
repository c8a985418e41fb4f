"""What every search shares: the tree, the descent, the decision and the loop (`SearchBase`);
the searches differ in its hooks (docs/search.md, "One search base").
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cardsuite.errors import ConfigError

#: The ways a wave is filled: one tree (``leaf``) or one tree per descent (``root``).
PARALLEL = ("leaf", "root")


@dataclass(slots=True, eq=False)
class Node:
    """A tree node: the mover into it (-1 at the root), visits, availability (iterations its
    move was legal), the mover's summed reward, children."""

    player: int
    visits: int = 0
    avail: int = 0
    total: float = 0.0
    children: dict[int, Node] = field(default_factory=dict)


def merge_roots(roots: list[Node]) -> Node:
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


def is_count(value: Any, low: int) -> bool:
    """Whether ``value`` is an integer (not a bool) of at least ``low``."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def is_number(value: Any) -> bool:
    """Whether ``value`` is an int or a float (not a bool)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_loop(batch: Any, parallel: Any, time_limit: Any) -> None:
    """ConfigError naming a bad ``batch``, ``parallel`` or ``time_limit``."""
    if not is_count(batch, 1):
        raise ConfigError(f"search parameter batch must be an integer >= 1, got {batch!r}")
    if parallel not in PARALLEL:
        raise ConfigError(f"search parameter parallel must be 'leaf' or 'root', got {parallel!r}")
    if time_limit is not None and (not is_number(time_limit) or not time_limit >= 0):
        raise ConfigError(f"search parameter time_limit must be seconds >= 0, got {time_limit!r}")


class SearchBase:
    """Single-observer information-set search over the env's determinizations: a subclass sets
    ``budget``, ``max_hand`` (0: always search), ``_rng``, ``_player`` and ``_search`` (the
    game's ``SearchGame``), and implements `select`, `roll_out` and `fallback`."""

    budget: int
    max_hand: int
    batch: int = 1
    parallel: str = "leaf"
    time_limit: float | None = None
    _rng: np.random.Generator
    _player: int
    _search: Any

    def select(self, game: Any, state: Any, node: Node, legal: np.ndarray, rng: Any) -> int:
        """The move to take at ``node``; raises ``avail`` of its legal children."""
        raise NotImplementedError

    def roll_out(
        self, game: Any, states: list[Any], paths: list[list[Node]], rng: np.random.Generator
    ) -> Sequence[np.ndarray]:
        """Per-player rewards in [0, 1] of non-terminal leaf ``states`` (each changed freely)."""
        raise NotImplementedError

    def fallback(
        self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]
    ) -> int:
        """The move where no search runs."""
        raise NotImplementedError

    def preference(self, action: int) -> float:
        """Among equally visited root moves the highest preference wins (then the lowest id)."""
        return 0.0

    def before_search(self, observation: np.ndarray, action_mask: np.ndarray) -> None:
        """Called once a decision is searched, before the first descent."""

    def new_node(self, player: int) -> Node:
        """A node for a move by ``player`` (``-1``: a root)."""
        return Node(player)

    def after_wave(self, paths: list[list[Node]]) -> None:
        """Called when every path of a wave is backed up."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        """The most visited legal root move after ``budget`` descents."""
        if self._search is None:
            raise RuntimeError(f"{type(self).__name__}.act called before reset")
        legal = np.flatnonzero(action_mask)
        if legal.size == 1:
            return int(legal[0])
        determinize: Callable[[np.random.Generator], Any] | None = info.get("determinize")
        if determinize is None:  # no search possible
            return self.fallback(observation, action_mask, info)
        if self.max_hand:
            state, me = self._search.prepare(determinize(self._rng), self._player)
            if self._search.hand_size(state, me) > self.max_hand:
                return self.fallback(observation, action_mask, info)
        self.before_search(observation, action_mask)
        root = self.search(determinize)
        best = self.choose(root, set(legal.tolist()))
        return self.fallback(observation, action_mask, info) if best is None else best

    def choose(self, root: Node, allowed: set[int]) -> int | None:
        """The most visited legal root move, the highest `preference`, the lowest id (or None)."""
        best = max(
            (
                (child.visits, self.preference(a), -a)
                for a, child in root.children.items()
                if a in allowed
            ),
            default=None,
        )
        return None if best is None else -best[2]

    def search(self, determinize: Callable[[np.random.Generator], Any]) -> Node:
        """Grow the tree(s) for ``budget`` descents in waves of ``batch``; the (merged) root."""
        game = self._search
        rng = self._rng
        trees = self.batch if self.parallel == "root" else 1
        roots = [self.new_node(-1) for _ in range(trees)]
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
                paths.append(self.descend(game, roots[i % trees], state, rng))
                leaves.append(state)
            for path, values in zip(paths, self.evaluate(game, leaves, paths, rng), strict=True):
                self.backup(path, values)
            self.after_wave(paths)
            done += wave
        return roots[0] if trees == 1 else merge_roots(roots)

    def descend(self, game: Any, root: Node, state: Any, rng: np.random.Generator) -> list[Node]:
        """Selection and expansion from ``root`` in ``state`` (changed in place); the path. Visits
        are raised on the way down (a wave's descents see each other as losses)."""
        path = [root]
        node = root
        root.visits += 1
        while not game.terminal(state):
            player = game.to_act(state)
            a = self.select(game, state, node, game.legal(state), rng)
            child = node.children.get(a)
            game.apply(state, a)
            if child is None:
                child = node.children[a] = self.new_node(player)
                child.avail = 1
                child.visits = 1
                path.append(child)
                break
            child.visits += 1
            node = child
            path.append(node)
        return path

    def evaluate(
        self, game: Any, leaves: list[Any], paths: list[list[Node]], rng: np.random.Generator
    ) -> list[np.ndarray]:
        """Per-player rewards of every leaf: terminal ones directly, the others by `roll_out`."""
        out: list[Any] = [game.values(s) if game.terminal(s) else None for s in leaves]
        todo = [i for i, v in enumerate(out) if v is None]
        if todo:
            values = self.roll_out(game, [leaves[i] for i in todo], [paths[i] for i in todo], rng)
            for i, v in zip(todo, values, strict=True):
                out[i] = v
        return out

    @staticmethod
    def backup(path: list[Node], values: np.ndarray) -> None:
        """Add each mover's reward along ``path`` (visits were counted by `descend`)."""
        for n in path:
            if n.player >= 0:
                n.total += float(values[n.player])
