"""Pieces of Deep Monte-Carlo: `QNet` (``actor.*``, one value per action: ``ppo:PATH`` plays
its legal argmax), `MCReturns`, `Replay` (a FIFO of finished decisions), `fit_heuristic`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from cardsuite.agents.learned.features import CountInputs
from cardsuite.train.core.nets import ActorNet, mlp
from cardsuite.train.core.tables import relative_rewards  # noqa: F401  (re-exported)

MASKED = -1e8


class QNet(ActorNet):
    """Q-values ``[B, A]`` of scaled observations (``hidden`` x ``layers`` MLP); ``features``
    appends derived inputs first, as `ActorCritic` does."""

    def __init__(
        self, obs_size: int, num_actions: int, hidden: int, layers: int, activation: str,
        features: CountInputs | None = None,
    ) -> None:  # fmt: skip
        super().__init__(obs_size, num_actions, activation, features)
        self.actor = mlp([self.in_size] + [hidden] * layers + [num_actions], activation)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Q-values of every action (legal or not)."""
        return self.actor(self.inputs(obs))


def masked_argmax(q: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The legal action of highest Q per row (``mask`` bool ``[B, A]``, never all False)."""
    return q.masked_fill(~mask, MASKED).argmax(dim=-1)


def epsilon_greedy(
    q: torch.Tensor, mask: torch.Tensor, epsilon: float, gen: torch.Generator
) -> torch.Tensor:
    """Masked argmax, replaced by a uniform legal action with probability ``epsilon``."""
    greedy = masked_argmax(q, mask)
    if epsilon <= 0.0:
        return greedy
    u = torch.rand(q.shape, generator=gen)
    rand = u.masked_fill(~mask, -1.0).argmax(dim=-1)
    explore = torch.rand(q.shape[0], generator=gen) < epsilon
    return torch.where(explore, rand, greedy)


class MCReturns:
    """Undiscounted reward to go of each decision's seat until its episode's end (module doc)."""

    def __init__(self, games: int, players: int) -> None:
        self.cum = np.zeros((games, players), dtype=np.float64)
        self.episode = np.arange(games, dtype=np.int64)
        self.next_id = games
        self.final = np.zeros((max(games, 16), players), dtype=np.float64)
        self.ended = np.zeros(max(games, 16), dtype=bool)

    def decide(self, rows: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Episode ids and running sums of decisions by ``seats`` in games ``rows`` (taken now)."""
        return self.episode[rows].copy(), self.cum[rows, seats].copy()

    def add(self, rewards: np.ndarray, done: np.ndarray) -> None:
        """Credit one engine step's ``[N, P]`` rewards; close the episodes of ``done`` games."""
        self.cum += rewards
        fin = np.flatnonzero(done)
        if fin.size == 0:
            return
        ids = self.episode[fin]
        need = int(ids.max()) + 1
        if need > self.ended.size:
            size = max(need, 2 * self.ended.size)
            self.final = np.pad(self.final, ((0, size - len(self.final)), (0, 0)))
            self.ended = np.pad(self.ended, (0, size - self.ended.size))
        self.final[ids] = self.cum[fin]
        self.ended[ids] = True
        self.cum[fin] = 0.0
        self.episode[fin] = self.next_id + np.arange(fin.size)
        self.next_id += fin.size

    def resolve(
        self, episode: np.ndarray, seat: np.ndarray, start: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Which decisions' episodes ended, and their returns (undefined where not ended)."""
        inside = episode < self.ended.size
        ep = np.where(inside, episode, 0)
        ended = inside & self.ended[ep]
        return ended, self.final[ep, seat] - start


class Replay:
    """First-in-first-out store of finished decisions, sampled uniformly."""

    def __init__(self, capacity: int, obs_size: int, seed: int) -> None:
        self.obs = torch.zeros((capacity, obs_size), dtype=torch.float32)
        self.action = torch.zeros(capacity, dtype=torch.int64)
        self.ret = torch.zeros(capacity, dtype=torch.float32)
        self.capacity, self.size, self.head = capacity, 0, 0
        self.gen = torch.Generator().manual_seed(seed)

    def add(self, obs: torch.Tensor, action: torch.Tensor, ret: torch.Tensor) -> None:
        """Append rows (the oldest are overwritten when full)."""
        n = obs.shape[0]
        if n > self.capacity:
            keep = slice(n - self.capacity, n)
            obs, action, ret, n = obs[keep], action[keep], ret[keep], self.capacity
        idx = (self.head + torch.arange(n)) % self.capacity
        self.obs[idx], self.action[idx], self.ret[idx] = obs, action, ret
        self.head = (self.head + n) % self.capacity
        self.size = min(self.capacity, self.size + n)

    def sample(self, batch: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``batch`` rows drawn uniformly with replacement."""
        idx = torch.randint(self.size, (batch,), generator=self.gen)
        return self.obs[idx], self.action[idx], self.ret[idx]


def q_loss(net: QNet, obs: torch.Tensor, action: torch.Tensor, ret: torch.Tensor) -> torch.Tensor:
    """Mean squared error of ``Q(s, a_taken)`` against the Monte-Carlo return."""
    q = net(obs).gather(1, action[:, None]).squeeze(1)
    return ((q - ret) ** 2).mean()


def margin_loss(q: torch.Tensor, mask: torch.Tensor, label: torch.Tensor, margin: float) -> Any:
    """Large-margin imitation (DQfD): ``max_a legal (Q(s,a) + margin [a != label]) - Q(s,label)``."""
    bonus = torch.full_like(q, margin)
    bonus.scatter_(1, label[:, None], 0.0)
    best = (q + bonus).masked_fill(~mask, MASKED).max(dim=-1).values
    return (best - q.gather(1, label[:, None]).squeeze(1)).mean()


def fit_heuristic(
    net: QNet, data: dict[str, np.ndarray], scale: torch.Tensor, *, epochs: int, lr: float,
    margin: float, margin_coef: float, batch: int, seed: int,
    until: Callable[[], bool] | None = None,
) -> dict[str, float]:  # fmt: skip
    """Warm start on `heuristic_dataset`'s ``data``: fit ``Q(s, label)`` to the return and
    make the label the argmax by a margin (``epochs``, fewer if ``until()`` says so after
    one); the final agreement and losses."""
    obs = torch.from_numpy(data["obs"]) * scale
    mask = torch.from_numpy(data["mask"]).bool()
    label = torch.from_numpy(data["label"])
    ret = torch.from_numpy(data["ret"]).float()
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    gen = torch.Generator().manual_seed(seed)
    n = obs.shape[0]
    for _ in range(epochs):
        perm = torch.randperm(n, generator=gen)
        for start in range(0, n, batch):
            idx = perm[start : start + batch]
            q = net(obs[idx])
            mse = ((q.gather(1, label[idx, None]).squeeze(1) - ret[idx]) ** 2).mean()
            loss = mse + margin_coef * margin_loss(q, mask[idx], label[idx], margin)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        if until is not None and until():
            break
    with torch.no_grad():
        q = net(obs)
        agree = float((masked_argmax(q, mask) == label).float().mean())
        mse = float(((q.gather(1, label[:, None]).squeeze(1) - ret) ** 2).mean())
    return {"bc_agreement": agree, "bc_mse": mse, "bc_samples": float(n)}
