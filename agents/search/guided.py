"""``GuidedSearchAgent``: information-set search over a learned agent (``search:pretrained:scum4``).

The search of [BatchedISMCTSAgent][cardsuite.agents.search.batched.BatchedISMCTSAgent]
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
* **leaves**: with ``leaf="value"``, scored by the wrapped agent's critic
  (each player's value of its own observation of the leaf, on the game's
  reward scale), with no rollout, as AlphaZero scores its leaves; by default
  scored by rolling the leaf out with the learned policy for every
  player (its most likely legal move; ``rollout="heuristic"``: the batched
  heuristic), all leaves of a wave in one batched engine call, to the end of
  the deal or the game's cutoff. In Scandal, with numba installed, each leaf
  is played on its own by compiled code instead
  (``cardsuite.agents.search.kernels.scandal_policy``; the heuristic's:
  ``cardsuite.agents.search.kernels.scandal_heuristic``).

The move played is the most visited root move (among equals, the one the
learned policy prefers). Under a sharp prior PUCT rarely visits another
move; ``root="gumbel"`` instead searches the prior's best ``candidates``
moves by sequential halving and plays the best of ``log prior + sigma(q)``,
as Gumbel AlphaZero's root does (Danihelka et al., 2022, here without the
Gumbel noise: a deterministic player), so a move's value can overrule its
prior (`HalvingRoot`). ``root="paired"`` compares the prior's best moves on
common determinizations and leaves the prior's top move only for a
candidate whose paired gain is significant (`cardsuite.agents.search.paired_root`).
A spec names the learned
agent and, optionally, the search's parameters after a last colon::

    search:pretrained:scum4
    search:pretrained:scandal2:budget=50,temperature=2
    search:ppo:runs/scum-4p/final:budget=200

Any agent with ``logits(scaled_obs)`` and an observation scale set at
``reset`` (``ppo:`` and ``pretrained:`` agents) can be wrapped. Where the
game's record names batched ``leaves`` (Scum, Scandal) the search is the one
above. Scum Party's tables are not played by the batched Scum engine, so
there the search is ISMCTS's own over the player's table with the learned
policy as the root's prior: the leaves are rolled out by the reference with
the heuristic (``rollout=heuristic``, the only rollout there), the nodes
below the root have a uniform prior (no observation of a Party seat is built
inside the search), and outside the searched last ``max_hand`` cards the
wrapped agent plays. Defaults per game come from ``SearchKind.guided``;
where the wrapped agent carries a critic and the spec names no ``leaf``,
from ``SearchKind.guided_critic`` over them (Scandal: value leaves, the
halving root, raw values; ``leaf=rollout`` keeps the rollouts).
The loop, the descent and the decision are
[`SearchBase`][cardsuite.agents.search.base.SearchBase]'s.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from cardsuite.agents.base import TableInfo
from cardsuite.agents.registry import spec_scalar
from cardsuite.agents.search.base import Node
from cardsuite.agents.search.batched import BatchedISMCTSAgent, LearnedRollout, leaf_engine
from cardsuite.agents.search.paired_root import candidates_by_prior, paired_choice
from cardsuite.agents.search.reference import SearchGame, SearchKind, search_kind
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
    "root",
    "candidates",
    "gate",
    "leaf",
)

#: How leaf values enter PUCT: ``minmax`` rescales the means to the spread of
#: the leaf values this search has seen (MuZero's normalisation), ``raw`` uses
#: them as they are (rewards in [0, 1]).
VALUES = ("minmax", "raw")

#: Who plays the rollouts: the wrapped policy for every player, or the game's
#: batched heuristic for every player (the prior stays the wrapped policy's).
ROLLOUTS = ("policy", "heuristic")

#: How a leaf is scored: rolled out (by ``rollout``, to ``cutoff``) and scored
#: there, or by the wrapped agent's critic on the spot (its values of every
#: player's observation on the game's reward scale; a finished deal exactly).
LEAVES = ("rollout", "value")

#: How the root's moves are chosen: PUCT, sequential halving over the
#: prior's best moves (Gumbel AlphaZero's root, without the Gumbel noise), or
#: the prior's best moves compared on common determinizations
#: (`cardsuite.agents.search.paired_root`).
ROOTS = ("puct", "gumbel", "paired")

#: Gumbel AlphaZero's value scale: ``sigma(q) = (C_VISIT + max visits) * C_SCALE * q``
#: for a normalised mean ``q`` in [0, 1] (Danihelka et al., 2022).
C_VISIT, C_SCALE = 50.0, 1.0


class HalvingRoot:
    """Sequential halving over a root's candidate moves (``root="gumbel"``).

    The ``candidates`` moves of highest prior are searched; the budget is
    split over ``ceil(log2(candidates))`` phases, each giving every remaining
    move an equal share of descents, after which the better half is kept by
    ``log prior + sigma(q)`` (`score`). A move of low prior thus gets
    descents of its own and can win on its value, which PUCT under a sharp
    prior never gives it.

    Args:
        log_prior: ``[A]`` the log prior (``-inf`` off the legal moves).
        budget: descents of the search.
        candidates: moves searched at most.
    """

    def __init__(
        self, log_prior: np.ndarray, budget: int, candidates: int, spread: bool = True
    ) -> None:
        """Pick the candidates (highest prior, lowest id among equals) and the first quota."""
        self.spread = spread
        legal = np.flatnonzero(np.isfinite(log_prior))
        order = sorted(legal.tolist(), key=lambda a: (-float(log_prior[a]), a))
        self.log_prior = log_prior
        self.remaining: list[int] = order[: max(1, min(candidates, len(order)))]
        self.phases = max(1, math.ceil(math.log2(len(self.remaining))))
        self.budget = budget
        self.quota = 0
        self._raise_quota()

    def _raise_quota(self) -> None:
        """The visits each remaining move has by the end of this phase."""
        share = self.budget // (self.phases * len(self.remaining))
        self.quota += max(1, share)

    def pick(self, root: Any) -> int:
        """The remaining move with the fewest visits so far (then the higher prior)."""
        children = root.children

        def visits(a: int) -> int:
            child = children.get(a)
            return 0 if child is None else int(child.visits)

        return min(self.remaining, key=lambda a: (visits(a), -float(self.log_prior[a]), a))

    def score(self, root: Any, a: int) -> float:
        """``log prior + sigma(q)``: ``q`` the root mean rescaled to the spread of the
        remaining moves' means (0.5 where there is none), or with ``spread=False``
        the mean itself (a reward in [0, 1]; 0.5 unvisited)."""
        means = {
            b: c.total / c.visits
            for b, c in root.children.items()
            if c.visits and b in self.remaining
        }
        most = max((root.children[b].visits for b in means), default=0)
        if not self.spread:
            q = means.get(a, 0.5)
        else:
            lo, hi = min(means.values(), default=0.0), max(means.values(), default=0.0)
            q = 0.5 if a not in means or hi <= lo else (means[a] - lo) / (hi - lo)
        return float(self.log_prior[a]) + (C_VISIT + most) * C_SCALE * q

    def after_wave(self, root: Any) -> None:
        """Halve the remaining moves once every one has had its share of this phase."""
        if len(self.remaining) == 1:
            return
        children = root.children
        if any(a not in children or children[a].visits < self.quota for a in self.remaining):
            return
        ranked = sorted(self.remaining, key=lambda a: (-self.score(root, a), a))
        self.remaining = ranked[: math.ceil(len(self.remaining) / 2)]
        self._raise_quota()

    def choose(self, root: Any, allowed: set[int]) -> int | None:
        """The remaining move of highest `score`."""
        moves = [a for a in self.remaining if a in allowed and a in root.children]
        if not moves:
            return None
        return max(moves, key=lambda a: (self.score(root, a), -a))


def supports(game: str) -> bool:
    """Whether ``game`` can be searched over a learned agent (its record has a ``search`` part)."""
    try:
        search_kind(game)
    except ConfigError:
        return False
    return True


def learned_leaves(game: str) -> bool:
    """Whether ``game``'s batched engine plays the leaves, so that the wrapped
    policy can roll them out, score them with its critic and set the priors
    below the root (Scum, Scandal); otherwise (Scum Party) the reference's
    heuristic rollouts score them and only the root has a learned prior."""
    try:
        return leaf_engine(game) is not None
    except ConfigError:
        return False


def guided_specs(game: str, shipped: list[str]) -> list[str]:
    """``search:SPEC`` for the shipped learned agents ``pretrained:NAME`` in ``shipped``
    (the leaderboard's): every one, or the first ``SearchKind.guided_agents`` of them
    (Scum Party: 1, the agent of that table size where one is shipped)."""
    if not supports(game):
        return []
    learned = [f"search:{spec}" for spec in shipped if spec.startswith("pretrained:")]
    most = search_kind(game).guided_agents
    return learned if most is None else learned[:most]


def game_defaults(game: str, critic: bool = False) -> dict[str, Any]:
    """The guided search's default parameters in ``game`` (its record's ``SearchKind.guided``).

    With ``critic`` (the wrapped agent carries one), the record's
    ``guided_critic`` settings override them: in Scandal, value leaves scored
    by that critic (``leaf=value,root=gumbel,value=raw``).
    """
    try:
        kind: SearchKind = search_kind(game)
    except ConfigError:
        return {}
    return {**dict(kind.guided), **(dict(kind.guided_critic) if critic else {})}


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
        game: a game with a search record (Scum, Scandal; Scum Party: root prior
            only, heuristic rollouts by the reference, `learned_leaves`).
        inner: the learned agent (with ``logits`` and a ``reset`` that sets its scale).
        seed: seeds the determinizations.
        budget: descents per decision.
        temperature: of the prior's softmax (higher: flatter); default per
            wrapped agent (`default_temperature`).
        c: PUCT exploration constant (on the normalised values with ``value="minmax"``).
        fpu: the (normalised) mean an unvisited move counts with.
        value: ``"minmax"`` or ``"raw"`` (`VALUES`); with ``root="gumbel"``,
            whether ``sigma(q)`` reads the root means rescaled to their spread
            or the means themselves (`HalvingRoot`).
        rollout: ``"policy"`` or ``"heuristic"`` (`ROLLOUTS`).
        root: ``"puct"`` (the root's moves by PUCT, the most visited played) or
            ``"gumbel"`` (`HalvingRoot`: sequential halving over the
            ``candidates`` moves of highest prior, the best ``log prior +
            sigma(q)`` played; `ROOTS`).
            ``"paired"`` (`cardsuite.agents.search.paired_root`: the ``candidates``
            moves of highest prior each rolled out on the same
            ``budget // candidates`` determinizations; the prior's top move
            played unless another's paired mean gain passes ``gate``).
        candidates: moves the ``"gumbel"`` or ``"paired"`` root searches at most (>= 2).
        gate: ``root="paired"``: the standard errors of its paired gains by
            which a candidate must beat the prior's top move to be played (>= 0).
        leaf: ``"rollout"`` (rolled out by ``rollout`` to ``cutoff``) or
            ``"value"`` (no rollout: the wrapped agent's critic scores the
            leaf, every player's value read from that player's observation,
            mapped by the game's ``LeafEngine.value_score``; a finished deal
            by its score; needs an agent saved with its critic, `LEAVES`).
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
        if root not in ROOTS:
            raise ConfigError(f"search parameter root must be one of {ROOTS}, got {root!r}")
        if isinstance(candidates, bool) or not isinstance(candidates, int) or candidates < 2:
            raise ConfigError(
                f"search parameter candidates must be an integer >= 2, got {candidates!r}"
            )
        if (
            isinstance(gate, bool)
            or not isinstance(gate, int | float)
            or math.isnan(gate)
            or gate < 0
        ):
            raise ConfigError(f"search parameter gate must be a number >= 0, got {gate!r}")
        if leaf not in LEAVES:
            raise ConfigError(f"search parameter leaf must be one of {LEAVES}, got {leaf!r}")
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
        if root != "puct" and loop.get("parallel", "leaf") != "leaf":
            raise ConfigError(f"search parameter root={root} needs parallel=leaf (one tree)")
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

    # ------------------------------------------------------------ building
    @classmethod
    def load(cls, text: str, game: str, seed: int | None = None) -> GuidedSearchAgent:
        """``INNER_SPEC[:k=v,...]`` (what follows ``search:``): the wrapped agent and parameters."""
        from cardsuite.agents.registry import make_agent

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
        self._halving = None
        self._root_legal = np.flatnonzero(action_mask)
        self._paired = None
        if self.root == "gumbel":
            with np.errstate(divide="ignore"):
                self._halving = HalvingRoot(
                    np.log(self._root_prior),
                    self.budget,
                    self.candidates,
                    spread=self.value == "minmax",
                )

    def choose(self, root: Node, allowed: set[int]) -> int | None:
        """PUCT: the most visited root move; ``root="gumbel"``: the halving's best;
        ``root="paired"``: `paired_choice`'s."""
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
        """PUCT over the node's prior (uniform until known); an unvisited move counts ``fpu``.

        At the root with ``root="gumbel"``: the halving's least visited remaining move.
        """
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
        """``root="paired"``: the candidates on common determinizations (`paired_search`);
        otherwise the tree search of `SearchBase`."""
        if self.root != "paired":
            return super().search(determinize)
        return self.paired_search(determinize)

    def paired_search(self, determinize: Callable[[np.random.Generator], Any]) -> Node:
        """Roll every candidate out on each of ``budget // candidates`` (at least 2)
        determinizations, in waves of about ``batch`` leaves; record the choice.

        The root returned has one child per candidate, its visits and summed
        rewards those of its rollouts. ``time_limit`` starts no new wave once
        spent (two determinizations are always played).
        """
        assert self._root_prior is not None and self._root_legal is not None
        game, rng = self._search, self._rng
        if game is None:
            raise RuntimeError("GuidedSearchAgent.paired_search called before reset")
        moves = candidates_by_prior(self._root_prior, self._root_legal, self.candidates)
        root = self.new_node(-1)
        children = [root.children.setdefault(a, self.new_node(self._player)) for a in moves]
        deals = max(2, self.budget // len(moves))
        per_wave = max(1, self.batch // len(moves))
        rewards: list[np.ndarray] = []
        start = time.perf_counter()
        while len(rewards) < deals:
            limit = self.time_limit
            if len(rewards) >= 2 and limit is not None and time.perf_counter() - start >= limit:
                break
            wave = min(per_wave, deals - len(rewards))
            leaves, paths, movers = [], [], []
            for _ in range(wave):
                base, me = game.prepare(determinize(rng), self._player)
                movers.append(me)
                for a, child in zip(moves, children, strict=True):
                    state = game.clone(base)
                    game.apply(state, a)
                    leaves.append(state)
                    paths.append([root, child])
            values = self.evaluate(game, leaves, paths, rng)
            for i, me in enumerate(movers):
                row = values[i * len(moves) : (i + 1) * len(moves)]
                rewards.append(np.array([float(v[me]) for v in row]))
        table = np.stack(rewards)
        for j, child in enumerate(children):
            child.visits = child.avail = table.shape[0]
            child.total = float(table[:, j].sum())
        root.visits = table.size
        self._paired = moves[paired_choice(table, self.gate)]
        return root

    def roll_out(
        self, game: SearchGame[Any], states: list[Any], paths: list[list[Node]], rng: Any
    ) -> list[np.ndarray]:
        """All leaves rolled out in one batch; the new leaves' priors from their observations."""
        if self._rollouts is None:  # Scum Party: the reference's heuristic rollouts
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
        """The spread of the means (MuZero's min-max), over the nodes of the wave's paths;
        with ``root="gumbel"``, the halving's next phase once this one is played."""
        lo, hi = self._lo, self._hi
        for path in paths:
            for n in path[1:]:
                mean = n.total / n.visits
                lo, hi = min(lo, mean), max(hi, mean)
        self._lo, self._hi = lo, hi
        if self._halving is not None and self._root_node is not None:
            self._halving.after_wave(self._root_node)


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
