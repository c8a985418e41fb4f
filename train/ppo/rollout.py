"""Per-seat rollout storage and GAE for turn-based batched self-play.

A rollout is a ``[T, N]`` grid of decisions (one player acts per game and step). A seat's
decision is one transition lasting until that seat acts again (``next_t``), credited every
reward the seat gets meanwhile; one still open at the rollout's end is bootstrapped from
that seat's view (``boot``). GAE runs backwards along each seat's chain of decisions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch


class SeatRollout:
    """``[T, N]`` decision storage with per-seat linking (see the module doc)."""

    def __init__(
        self, steps: int, games: int, players: int, obs_size: int, num_actions: int,
        device: torch.device,
    ) -> None:  # fmt: skip
        t, n = steps, games
        self.T, self.N = t, n
        f32 = torch.float32
        self.obs = torch.zeros((t, n, obs_size), dtype=f32, device=device)
        self.mask = torch.zeros((t, n, num_actions), dtype=torch.bool, device=device)
        self.action = torch.zeros((t, n), dtype=torch.int64, device=device)
        self.logp = torch.zeros((t, n), dtype=f32, device=device)
        self.value = torch.zeros((t, n), dtype=f32, device=device)
        self.reward = torch.zeros((t, n), dtype=f32, device=device)
        self.boot = torch.zeros((t, n), dtype=f32, device=device)
        self.done = torch.zeros((t, n), dtype=torch.bool, device=device)
        self.valid = torch.zeros((t, n), dtype=torch.bool, device=device)
        self.next_t = torch.full((t, n), -1, dtype=torch.int64, device=device)
        self.last_t = torch.full((n, players), -1, dtype=torch.int64, device=device)
        self.cols = torch.arange(n, device=device)

    def clear(self) -> None:
        """Forget the previous rollout (open transitions were bootstrapped)."""
        for buffer in (self.reward, self.boot, self.done, self.valid):
            buffer.zero_()
        self.next_t.fill_(-1)
        self.last_t.fill_(-1)

    def record(
        self, t: int, rows: torch.Tensor, seats: torch.Tensor, obs: torch.Tensor,
        mask: torch.Tensor, action: torch.Tensor, logp: torch.Tensor, value: torch.Tensor,
    ) -> None:  # fmt: skip
        """Store the learner decisions of step ``t`` (games ``rows``, acting ``seats``)."""
        self.obs[t, rows] = obs
        self.mask[t, rows] = mask
        self.action[t, rows] = action
        self.logp[t, rows] = logp
        self.value[t, rows] = value
        self.valid[t, rows] = True
        prev = self.last_t[rows, seats]
        linked = prev >= 0
        self.next_t[prev[linked], rows[linked]] = t
        self.last_t[rows, seats] = t

    def add_rewards(self, rewards: torch.Tensor, done: torch.Tensor) -> None:
        """Credit ``[N, P]`` rewards to each seat's open transition; close finished games."""
        hit = done | (rewards != 0).any(dim=1)
        if not bool(hit.any()):
            return
        open_ = (self.last_t >= 0) & hit[:, None]
        g, s = open_.nonzero(as_tuple=True)
        t = self.last_t[g, s]
        self.reward[t, g] += rewards[g, s]
        fin = done[g]
        self.done[t[fin], g[fin]] = True
        self.last_t[done] = -1

    def open_transitions(self, seat: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Steps and games of seat ``seat``'s transitions still open at the rollout end."""
        t = self.last_t[:, seat]
        g = (t >= 0).nonzero(as_tuple=True)[0]
        return t[g], g

    def advantages(self, gamma: float, lam: float) -> tuple[torch.Tensor, torch.Tensor]:
        """GAE advantages and returns ``[T, N]`` along each seat's decisions."""
        adv = torch.zeros_like(self.value)
        for t in range(self.T - 1, -1, -1):
            nt = self.next_t[t]
            has = nt >= 0
            ntc = nt.clamp(min=0)
            next_value = torch.where(has, self.value[ntc, self.cols], self.boot[t])
            live = (~self.done[t]).to(torch.float32)
            delta = self.reward[t] + gamma * next_value * live - self.value[t]
            next_adv = torch.where(has, adv[ntc, self.cols], torch.zeros_like(delta))
            adv[t] = delta + gamma * lam * live * next_adv
        return adv, adv + self.value

    def flat(self, adv: torch.Tensor, ret: torch.Tensor) -> dict[str, torch.Tensor]:
        """The valid decisions as flat tensors for the update."""
        idx = self.valid.reshape(-1).nonzero(as_tuple=True)[0]
        columns = {"obs": self.obs, "mask": self.mask, "action": self.action, "logp": self.logp}
        columns |= {"value": self.value, "adv": adv, "ret": ret}
        return {k: v.reshape(self.T * self.N, *v.shape[2:])[idx] for k, v in columns.items()}


def seat_observation(eng: Any, player: int) -> Any:
    """Every game's observation as ``player`` would see it now (a copy; engine arrays)."""
    return eng.observe_as(player)


def restore_observation(eng: Any) -> tuple[Any, Any, Any]:
    """Rebuild the engine's own observation, mask and player to act (after seat views)."""
    return eng._observe()


def to_torch(x: Any, device: torch.device) -> torch.Tensor:
    """An engine array (numpy or torch) as a tensor on ``device`` (no copy when possible)."""
    if isinstance(x, np.ndarray):
        return torch.from_numpy(x).to(device)
    return x.to(device)
