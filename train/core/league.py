"""The opponents of every trainer: fixed baselines and frozen snapshots, drawn by PFSP.

Members are batch policies: the game's baselines and snapshots of the learner. PFSP
(AlphaStar): finished games report the learner's outcome (`League.record`), counts decay
by ``decay`` per game, and a member is drawn by its rate ``x`` of beating the learner:
``hard`` ``x ** power``, ``variance`` ``x * (1 - x)`` or ``uniform``, times its kind's
share when ``shares`` are given.

Snapshots play a batch as `SnapshotPolicy` and one seat as `SnapshotAgent`; per-game
tables seat opponents from the League's draw table (`SeatMember`, `draw_seat`,
`seat_agent`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardsuite.agents.base import Agent, TableInfo
from cardsuite.agents.learned.features import CountInputs
from cardsuite.agents.learned.netspec import Snapshot, obs_scale, pick
from cardsuite.batched.policies import call_policy
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.train.core.games import train_game

WEIGHTINGS = ("hard", "variance", "uniform")


class SnapshotPolicy:
    """A frozen snapshot playing a batch (numpy or torch in, numpy out): it samples its
    masked policy, or with ``greedy`` plays the legal action of highest output."""

    def __init__(self, snapshot: Snapshot, scale: Any, seed: int, greedy: bool = False) -> None:
        self.snapshot = snapshot
        self.scale = np.asarray(scale.cpu().numpy() if hasattr(scale, "cpu") else scale,
                                dtype=np.float32)  # fmt: skip
        self.rng = np.random.default_rng(seed)
        self.greedy = greedy

    def __call__(self, obs: Any, mask: Any) -> np.ndarray:
        o = np.asarray(obs.cpu().numpy() if hasattr(obs, "cpu") else obs, dtype=np.float32)
        m = mask.cpu().numpy() if hasattr(mask, "cpu") else np.asarray(mask)
        logits = self.snapshot.logits(o * self.scale)
        return np.asarray(pick(logits, m, greedy=self.greedy, rng=self.rng), dtype=np.int64)


class SnapshotAgent:
    """An arena agent that plays a `Snapshot`: it samples (seeded by ``seed``, or by
    ``reset``'s) or, ``deterministic``, plays the most likely legal action."""

    def __init__(
        self, snapshot: Snapshot, *, deterministic: bool = False, seed: int | None = None
    ) -> None:
        self.name = f"snapshot@{snapshot.step}"
        self.snapshot = snapshot
        self.deterministic = deterministic
        self._layers = snapshot.layers()
        self._rng = np.random.default_rng(seed)
        self._scale: np.ndarray | None = None

    def reset(self, table: TableInfo, seed: int | None = None) -> None:
        """Check the table fits the network; reseed when given a seed."""
        in_size = self._layers[0][0].shape[1]
        out_size = self._layers[-1][0].shape[0]
        if table.obs_spec.size != in_size or table.num_actions != out_size:
            raise CheckpointError(
                f"{self.name}: the policy expects observations of size {in_size} and "
                f"{out_size} actions, but this table has {table.obs_spec.size} and "
                f"{table.num_actions} (different game or rule options)"
            )
        self._scale = obs_scale(table.obs_spec)
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        """A legal action drawn from (or the mode of) the masked policy."""
        if self._scale is None:
            raise ConfigError(f"{self.name}: call reset(table) before act()")
        logits = self.snapshot.logits(observation * self._scale)
        return int(pick(logits, action_mask, self.deterministic, self._rng))


@dataclass(frozen=True)
class SeatMember:
    """One row of a League's draw table (`League.seat_table`): the member's ``id`` (outcomes
    are reported by it), ``name``, draw probability ``prob`` and a snapshot's ``snapshot``."""

    id: int
    name: str
    prob: float
    snapshot: Snapshot | None = None


def draw_seat(table: Sequence[SeatMember], rng: np.random.Generator) -> SeatMember:
    """One member of ``table`` drawn by its probabilities."""
    if not table:
        raise ConfigError("the league has no members to draw from")
    p = np.array([m.prob for m in table], dtype=np.float64)
    return table[int(rng.choice(len(table), p=p / p.sum()))]


def seat_agent(member: SeatMember, game: str) -> Agent:
    """The arena agent that plays ``member`` at one seat of a ``game`` table: a
    `SnapshotAgent`, or the registry's agent of its name, fresh per seat."""
    if member.snapshot is not None:
        return SnapshotAgent(member.snapshot)
    from cardsuite.agents.registry import make_agent

    return make_agent(member.name, game)


@dataclass
class Member:
    """One league member: stable ``id``, ``name``, batch ``policy``, and decayed counts of the
    games it beat the learner (``wins``, ties one half) and played (``games``)."""

    id: int
    name: str
    policy: Callable[[Any, Any], Any]
    wins: float = 1.0
    games: float = 2.0
    snapshot: Snapshot | None = None

    @property
    def win_rate(self) -> float:
        """The member's estimated rate of beating the learner (prior: 1 of 2)."""
        return self.wins / self.games


class League:
    """The fixed members ``baselines`` (name -> batch policy) plus the newest ``max_snapshots``
    snapshots, drawn by PFSP (module doc; ``shares``: kind -> share); snapshots play on
    observations times ``scale``, their best legal action if ``greedy``."""

    def __init__(
        self,
        baselines: dict[str, Callable[[Any, Any], Any]],
        *,
        max_snapshots: int = 8,
        weighting: str = "hard",
        power: float = 2.0,
        decay: float = 0.999,
        seed: int = 0,
        scale: Any = None,
        greedy: bool = False,
        shares: Mapping[str, float] | None = None,
    ) -> None:
        if weighting not in WEIGHTINGS:
            raise ConfigError(f"pfsp weighting must be one of {WEIGHTINGS}, got {weighting!r}")
        if max_snapshots < 0:
            raise ConfigError(f"max_snapshots must be >= 0, got {max_snapshots}")
        if not 0.0 < decay <= 1.0:
            raise ConfigError(f"league decay must be in (0, 1], got {decay}")
        if shares is not None:
            for kind, share in shares.items():
                if kind != "snapshot" and kind not in baselines:
                    raise ConfigError(f"league share {kind!r} names no member kind")
                if not share >= 0:
                    raise ConfigError(f"league share of {kind!r} must be >= 0, got {share}")
        self.shares = None if shares is None else {k: float(v) for k, v in shares.items()}
        self.weighting, self.power, self.decay = weighting, power, decay
        self.max_snapshots = max_snapshots
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.greedy = greedy
        self.scale: Any = 1.0 if scale is None else scale  # numpy or torch (`SnapshotPolicy`)
        self._next_id = 0
        self.members: list[Member] = []
        self.retired: dict[int, Member] = {}
        self.followed: np.ndarray | None = None  # another League's draw probabilities (`follow`)
        for name, policy in baselines.items():
            self._add(name, policy)

    @classmethod
    def of(
        cls, game: str, engine: Any, baselines: Sequence[str], *, seed: int, max_snapshots: int,
        pfsp: str, scale: Any = None, greedy: bool = False,
        shares: Mapping[str, float] | None = None, opponents: dict[str, Any] | None = None,
    ) -> League:  # fmt: skip
        """The League of a run, the one constructor every trainer calls: the ``baselines`` of
        ``game`` (their batch policies on ``engine``, or ``opponents`` instead), ``pfsp`` its
        weighting, the other arguments as `League` takes them."""
        fixed = opponents or train_game(game).baselines(list(baselines), engine, seed)
        return cls(fixed, max_snapshots=max_snapshots, weighting=pfsp, seed=seed, scale=scale,
                   greedy=greedy, shares=shares)  # fmt: skip

    def _add(
        self, name: str, policy: Callable[[Any, Any], Any], snapshot: Snapshot | None = None
    ) -> Member:
        m = Member(self._next_id, name, policy, snapshot=snapshot)
        self._next_id += 1
        self.members.append(m)
        return m

    def _play(self, snapshot: Snapshot, mid: int) -> Callable[[Any, Any], Any]:
        """The batch policy of member ``mid``'s snapshot (its own seeded sampling)."""
        return SnapshotPolicy(snapshot, self.scale, self.seed * 7919 + mid, self.greedy)

    def add_snapshot(self, snapshot: Snapshot) -> Member:
        """Add a frozen snapshot; the oldest beyond ``max_snapshots`` retires."""
        member = self._add(f"snapshot@{snapshot.step}", self._play(snapshot, self._next_id),
                           snapshot)  # fmt: skip
        self.followed = None  # a League that grows itself draws by its own counts
        snaps = [m for m in self.members if m.name.startswith("snapshot@")]
        for old in snaps[: max(0, len(snaps) - self.max_snapshots)]:
            self.members.remove(old)
            self.retired[old.id] = old
        return member

    def probabilities(self) -> np.ndarray:
        """The PFSP draw probability of each member (in `members` order)."""
        if self.followed is not None:
            return self.followed.copy()
        x = np.array([m.win_rate for m in self.members], dtype=np.float64)
        by = {"hard": x**self.power, "variance": x * (1 - x), "uniform": np.ones_like(x)}
        w = np.maximum(by[self.weighting], 1e-3)
        if self.shares is not None:
            kinds = ["snapshot" if m.snapshot is not None else m.name for m in self.members]
            count = Counter(kinds)
            prior = np.array([self.shares.get(k, 0.0) / count[k] for k in kinds])
            if prior.sum() > 0:
                w = w * prior
        return w / w.sum()

    def seat_table(self) -> list[SeatMember]:
        """The draw table a per-game env seats its opponents from (`draw_seat`)."""
        return [
            SeatMember(m.id, m.name, float(p), m.snapshot)
            for m, p in zip(self.members, self.probabilities())
        ]

    def follow(self, table: Sequence[SeatMember]) -> None:
        """Play another League's draw table (`seat_table`): its rows become the members (fixed
        ones keep this League's policies; ConfigError for one it lacks), the others retire,
        and draws follow its probabilities until the next call."""
        every = {m.id: m for m in [*self.members, *self.retired.values()]}
        fixed = {m.name: m.policy for m in every.values() if m.snapshot is None}
        members: list[Member] = []
        for row in table:
            old = every.get(row.id)
            if old is not None and old.name == row.name:
                members.append(old)
                continue
            if row.snapshot is not None:
                policy = self._play(row.snapshot, row.id)
            elif row.name in fixed:
                policy = fixed[row.name]
            else:
                raise ConfigError(f"league member {row.name!r} is not a baseline of this League")
            members.append(Member(row.id, row.name, policy, snapshot=row.snapshot))
        ids = {m.id for m in members}
        self.retired.update({m.id: m for m in self.members if m.id not in ids})
        for mid in ids:
            self.retired.pop(mid, None)
        self.members = members
        p = np.array([row.prob for row in table], dtype=np.float64)
        self.followed = p / p.sum() if p.sum() > 0 else None
        self._next_id = max([self._next_id, *(mid + 1 for mid in ids)])

    def knows(self, mid: int) -> bool:
        """Whether ``mid`` is a member, active or retired but not yet pruned."""
        return mid in self.retired or any(m.id == mid for m in self.members)

    def draw(self, n: int) -> np.ndarray:
        """Ids of ``n`` members drawn by PFSP."""
        if not self.members:
            raise ConfigError("the league has no members to draw from")
        ids = np.array([m.id for m in self.members], dtype=np.int64)
        return ids[self.rng.choice(len(ids), size=n, p=self.probabilities())]

    def prune(self, in_use: np.ndarray) -> None:
        """Forget retired members no game refers to any more."""
        used = set(np.unique(in_use).tolist())
        for mid in [i for i in self.retired if i not in used]:
            del self.retired[mid]

    def member(self, mid: int) -> Member:
        """The member with id ``mid`` (active or retired)."""
        found = next((m for m in self.members if m.id == mid), None) or self.retired.get(mid)
        if found is None:
            raise ConfigError(f"no league member with id {mid}")
        return found

    def act(
        self, ids: np.ndarray, obs: Any, mask: Any, games: np.ndarray | None = None,
        players: np.ndarray | None = None,
    ) -> np.ndarray:  # fmt: skip
        """Actions of rows whose games face members ``ids`` (one call per member); ``games``
        and ``players`` (default: row ``i`` is game ``i``) go to per-game policies."""
        out = np.zeros(len(ids), dtype=np.int64)
        g_all = np.arange(len(ids)) if games is None else np.asarray(games)
        for mid in np.unique(ids).tolist():
            rows = np.flatnonzero(ids == mid)
            who = None if players is None else np.asarray(players)[rows]
            acts = call_policy(self.member(mid).policy, obs[rows], mask[rows], g_all[rows], who)
            out[rows] = acts.cpu().numpy() if hasattr(acts, "cpu") else np.asarray(acts)
        return out

    def record_known(self, ids: Any, outcomes: Any) -> int:
        """`record` the games against members still known (`knows`); how many were recorded."""
        ids, outcomes = np.asarray(ids, dtype=np.int64), np.asarray(outcomes, dtype=np.float64)
        known = np.array([self.knows(int(i)) for i in ids], dtype=bool)
        if known.any():
            self.record(ids[known], outcomes[known])
        return int(known.sum())

    def record(self, ids: np.ndarray, learner_outcome: np.ndarray) -> None:
        """Update the members' win estimates from finished games (learner 1 / 0.5 / 0)."""
        for mid in np.unique(ids).tolist():
            hit = ids == mid
            m = self.member(mid)
            k = int(hit.sum())
            keep = self.decay**k
            m.wins = m.wins * keep + float((1.0 - learner_outcome[hit]).sum())
            m.games = m.games * keep + k

    def describe(self) -> list[dict[str, Any]]:
        """JSON-friendly state: each member's name, win estimate and draw probability."""
        probs = self.probabilities()
        return [
            {"name": m.name, "win_rate": round(m.win_rate, 4), "prob": round(float(p), 4),
             "games": round(m.games, 1)}
            for m, p in zip(self.members, probs)
        ]  # fmt: skip

    def state(self) -> dict[str, Any]:
        """JSON state for a checkpoint: members and retired ones still playing, the draw RNG."""

        def entry(m: Member, retired: bool) -> dict[str, Any]:
            out = {"id": m.id, "name": m.name, "wins": m.wins, "games": m.games,
                   "retired": retired}  # fmt: skip
            gen = _generator(m.policy)
            if gen is not None:
                out["rng"] = gen.bit_generator.state
            return out

        return {
            "members": [entry(m, False) for m in self.members]
            + [entry(m, True) for m in self.retired.values()],
            "rng": self.rng.bit_generator.state,
            "next_id": self._next_id,
        }

    def snapshots(self) -> list[Snapshot]:
        """The snapshots of the members and of the retired members still playing."""
        every = [*self.members, *self.retired.values()]
        return [m.snapshot for m in every if m.snapshot is not None]

    def restore(
        self, state: Mapping[str, Any], load: Callable[[str], Mapping[str, np.ndarray]],
        activation: str, features: CountInputs | None = None,
    ) -> None:  # fmt: skip
        """Put back a `state`: members keep their ids and counts; a snapshot's weights come
        from ``load(name)`` (with ``activation`` and ``features``)."""
        fixed = {m.name: m.policy for m in self.members if m.snapshot is None}
        self.members, self.retired = [], {}
        for e in state["members"]:
            name, snap = str(e["name"]), None
            if name.startswith("snapshot@"):
                snap = Snapshot(int(name.split("@")[1]), dict(load(name)), activation,
                                features=features)  # fmt: skip
                policy = self._play(snap, int(e["id"]))
            elif name in fixed:
                policy = fixed[name]
            else:
                raise CheckpointError(f"league member {name!r} is not a baseline of this run")
            m = Member(int(e["id"]), name, policy, float(e["wins"]), float(e["games"]), snap)
            gen = _generator(policy)
            if gen is not None and "rng" in e:
                gen.bit_generator.state = e["rng"]
            if e.get("retired"):
                self.retired[m.id] = m
            else:
                self.members.append(m)
        self.rng.bit_generator.state = state["rng"]
        self._next_id = int(state["next_id"])


def _generator(policy: Any) -> np.random.Generator | None:
    """The numpy generator a member's policy draws from (a snapshot's, a random baseline's)."""
    for name in ("rng", "_rng"):
        gen = getattr(policy, name, None)
        if isinstance(gen, np.random.Generator):
            return gen
    return None
