"""The duplicate evaluator of every trainer.

`duplicate_match` plays two batch policies over the same deals, once per rotation of the
agents over the seats; A *beats* B on a deal when its mean reward over its seats is higher
(ties one half). `evaluate_against` judges a learner's greedy actor, `evaluate_specs` any
arena agent specs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardsuite.agents.base import TableInfo
from cardsuite.agents.learned.netspec import Snapshot, obs_scale
from cardsuite.batched.policies import call_policy
from cardsuite.errors import ConfigError
from cardsuite.games import get_game
from cardsuite.train.core.games import train_game
from cardsuite.train.core.league import SnapshotPolicy

BatchPolicy = Callable[[Any, Any], Any]


@dataclass(frozen=True)
class DuelResult:
    """Outcome of `duplicate_match`: the share A ``beats`` B (ties: half), each side's mean reward
    per seat-game, A's mean ``margin`` over B, and 95% half-widths (``*_ci``)."""

    deals: int
    beats: float
    beats_ci: float
    mean_a: float
    mean_b: float
    margin: float
    margin_ci: float

    def to_dict(self) -> dict[str, float]:
        """As a plain dict."""
        return {k: float(v) for k, v in self.__dict__.items()}


@dataclass(frozen=True, kw_only=True)
class EvalRow(DuelResult):
    """The learner against one opponent (``against``) at one ``step``: the row every trainer
    logs (``eval.csv``, TensorBoard ``eval/beats_*``, ``report.json``)."""

    step: int
    against: str

    @classmethod
    def of(cls, step: int, against: str, result: DuelResult) -> EvalRow:
        """The row of ``result`` (the learner is agent A)."""
        return cls(step=step, against=against, **result.__dict__)

    def to_dict(self) -> dict[str, Any]:  # type: ignore[override]
        """As a plain dict (a CSV row, a JSON entry), step and opponent first."""
        d = dict(self.__dict__)
        return {"step": d.pop("step"), "against": d.pop("against"), **d}


class GreedyPolicy(SnapshotPolicy):
    """The most likely legal action of a frozen actor on each row (the evaluated learner)."""

    def __init__(self, snapshot: Snapshot, scale: Any) -> None:
        super().__init__(snapshot, scale, 0, greedy=True)


def evaluate_against(
    snapshot: Snapshot, scale: Any, opponents: dict[str, BatchPolicy], *, deals: int,
    seed: int, game: str, config: dict[str, Any], step: int,
) -> list[EvalRow]:  # fmt: skip
    """Duplicate deals of the greedy learner against each opponent; one row each."""
    me = GreedyPolicy(snapshot, scale)
    return [
        EvalRow.of(
            step, name, duplicate_match(me, policy, deals=deals, seed=seed, game=game, **config)
        )
        for name, policy in opponents.items()
    ]


def duplicate_match(
    policy_a: BatchPolicy, policy_b: BatchPolicy, *, deals: int, seed: int, game: str = "scum",
    **config: Any,
) -> DuelResult:  # fmt: skip
    """Play ``deals`` duplicate deals of A against B on ``game``'s batched engine (options
    ``config``): rotation ``r`` resets an engine with ``seed`` and seats agent
    ``((p + r) mod n) mod 2`` at player ``p``."""
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 1:
        raise ConfigError(f"deals must be a positive integer, got {deals!r}")
    spec = train_game(game)
    n = spec.make_engine(1, config, autoreset=False).num_players
    rot = 2 if n % 2 == 0 else n
    score = np.zeros((deals, 2))
    seats = np.zeros((deals, 2))
    for r in range(rot):
        eng = spec.make_engine(deals, config, autoreset=False)
        agent = np.tile([((p + r) % n) % 2 for p in range(n)], (deals, 1))
        total = _play(eng, seed, agent, (policy_a, policy_b), r * deals)
        for k in (0, 1):
            hit = agent == k
            score[:, k] += (total * hit).sum(axis=1)
            seats[:, k] += hit.sum(axis=1)
    mean = score / seats
    diff = mean[:, 0] - mean[:, 1]
    won = (diff > 0) + 0.5 * (diff == 0)
    return DuelResult(
        deals=deals,
        beats=float(won.mean()),
        beats_ci=_half_width(won),
        mean_a=float(score[:, 0].sum() / seats[:, 0].sum()),
        mean_b=float(score[:, 1].sum() / seats[:, 1].sum()),
        margin=float(diff.mean()),
        margin_ci=_half_width(diff),
    )


def _half_width(values: np.ndarray) -> float:
    """Half-width of the 95% Student t interval of the mean over deals (0 below two deals)."""
    from cardsuite.agents.arena.stats import mean_ci  # scipy, on first use only

    half = mean_ci(values)[1]
    return 0.0 if half is None or not math.isfinite(half) else float(half)


def _play(
    eng: Any, seed: int, agent: np.ndarray, policies: tuple[BatchPolicy, BatchPolicy],
    offset: int,
) -> np.ndarray:  # fmt: skip
    """Play every game of ``eng`` (reset with ``seed``) to its end; rewards ``[N, n]`` summed.
    ``agent[g, p]``: the policy of player ``p`` in game ``g``; per-game policies see game
    ``offset + g``."""
    obs, mask, to_act = eng.reset(seed)
    games = agent.shape[0]
    total = np.zeros(agent.shape, dtype=np.float64)
    live = np.ones(games, dtype=bool)
    g_ar = np.arange(games)
    while live.any():
        to_act = np.asarray(to_act)
        who = agent[g_ar, to_act]
        actions = np.zeros(games, dtype=np.int64)
        for k, policy in enumerate(policies):
            idx = np.flatnonzero(live & (who == k))
            if idx.size:
                actions[idx] = np.asarray(
                    call_policy(policy, obs[idx], mask[idx], idx + offset, to_act[idx])
                )
        res = eng.step(actions, active=live)
        total += res.rewards
        live &= ~np.asarray(res.done)
        obs, mask, to_act = res.obs, res.mask, res.to_act
    return total


class RowByRow:
    """Any arena agent as a batch policy: ``act`` on each row (a fresh table per call)."""

    def __init__(self, agent: Any, table: Any) -> None:
        self.agent = agent
        agent.reset(table, 0)

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.array([self.agent.act(o, m.astype(bool), {}) for o, m in zip(obs, mask)],
                        dtype=np.int64)  # fmt: skip


def spec_policy(spec: str, config: dict[str, Any], seed: int, game: str = "scum") -> Any:
    """The batch policy of arena agent ``spec`` at a ``game`` table with engine options
    ``config``: a batched baseline, a trained agent's greedy actor, or any agent row by row."""
    from cardsuite.agents.registry import make_agent  # every agent kind, on first use only

    tg = train_game(game)
    eng = tg.make_engine(1, config)
    if spec in ("heuristic", "random"):
        return tg.baselines([spec], eng, seed)[spec]
    agent = make_agent(spec, game, seed)
    env = get_game(game).make(**config)
    table = TableInfo(game, get_game(game).config_class().from_dict(config), "player_0",
                      eng.num_actions, eng.obs_spec, env.describe_action)  # fmt: skip
    if isinstance(getattr(agent, "snapshot", None), Snapshot):  # a learned agent: played greedily
        agent.reset(table)  # checks the table against the network
        snapshot: Snapshot = agent.snapshot  # type: ignore[attr-defined]
        return GreedyPolicy(snapshot, obs_scale(eng.obs_spec))
    return RowByRow(agent, table)


def evaluate_specs(
    spec: str, baselines: list[str], *, game: str, config: dict[str, Any], deals: int,
    seed: int, step: int,
) -> list[EvalRow]:  # fmt: skip
    """`duplicate_match` of arena agent ``spec`` against each baseline spec; one row each."""
    me = spec_policy(spec, config, seed, game)
    return [
        EvalRow.of(step, name, duplicate_match(me, spec_policy(name, config, seed + 1, game),
                                               deals=deals, seed=seed, game=game, **config))
        for name in baselines
    ]  # fmt: skip
