"""Warm start for batched PPO: the actor imitates the heuristic's moves and the critic learns
their returns (`imitate`), then ``bc_dagger`` DAgger rounds (Ross et al. 2011, `dagger`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from cardsuite.train.core.tables import Actor, heuristic_dataset  # noqa: F401  (re-exported)
from cardsuite.train.ppo.network import ActorCritic

CHUNK = 65_536
"""Rows scored at once after training (bounds the memory of a large warm start)."""


def imitate(
    net: ActorCritic, data: dict[str, np.ndarray], scale: torch.Tensor, *, epochs: int,
    batch: int = 1024, lr: float = 1e-3, seed: int = 0, until: Callable[[], bool] | None = None,
) -> dict[str, float]:  # fmt: skip
    """Fit the actor to the labels and the critic to the returns (``epochs``, fewer if
    ``until()`` says so after one); final train accuracy and loss. Rows are scaled a minibatch
    (and scored a chunk) at a time: the memory beside ``data`` stays that of a chunk."""
    dev = scale.device
    obs = torch.from_numpy(data["obs"]).to(dev)  # unscaled: shares the array's memory on CPU
    mask = torch.from_numpy(data["mask"]).to(dev)
    label = torch.from_numpy(data["label"]).to(dev)
    ret = torch.from_numpy(data["ret"]).to(dev)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    gen = torch.Generator().manual_seed(seed)
    n = obs.shape[0]
    for _ in range(epochs):
        perm = torch.randperm(n, generator=gen).to(dev)
        for start in range(0, n, batch):
            idx = perm[start : start + batch]
            x = obs[idx] * scale
            logits = net.logits(x, mask[idx])
            ce = torch.nn.functional.cross_entropy(logits, label[idx])
            v = 0.5 * ((net.value(x) - ret[idx]) ** 2).mean()
            loss = ce + 0.5 * v
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        if until is not None and until():
            break
    hit_parts, sq = [], 0.0
    with torch.no_grad():
        for start in range(0, n, CHUNK):
            x = obs[start : start + CHUNK] * scale
            hit_parts.append(net.logits(x, mask[start : start + CHUNK]).argmax(-1)
                             == label[start : start + CHUNK])  # fmt: skip
            sq += float(((net.value(x) - ret[start : start + CHUNK]) ** 2).sum())
        hit = torch.cat(hit_parts) if hit_parts else torch.zeros(0, dtype=torch.bool)
        acc = float(hit.float().mean())
        # forced rows (one legal move) always agree: the real choices' agreement predicts strength
        real = mask.bool().sum(dim=-1) > 1
        acc_real = float(hit[real].float().mean()) if bool(real.any()) else 1.0
        v_loss = 0.5 * sq / max(n, 1)
    return {"bc_accuracy": acc, "bc_accuracy_real": acc_real, "bc_value_loss": v_loss,
            "bc_samples": float(n)}  # fmt: skip


def agreement(
    net: ActorCritic, data: dict[str, np.ndarray], scale: torch.Tensor
) -> dict[str, float]:
    """The greedy actor's agreement with the labels: all rows and real choices (2+ legal moves)."""
    act, rows = greedy_actor(net, scale), range(0, len(data["label"]), CHUNK)
    parts = [act(data["obs"][s : s + CHUNK], data["mask"][s : s + CHUNK]) for s in rows]
    moves = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    hit = moves == data["label"]
    real = data["mask"].sum(axis=1) > 1
    return {"all": float(hit.mean()) if hit.size else 1.0,
            "real": float(hit[real].mean()) if real.any() else 1.0}  # fmt: skip


def dagger(
    net: ActorCritic, data: dict[str, np.ndarray], scale: torch.Tensor, *, rounds: int,
    epochs: int, seed: int, collect: Callable[[int], dict[str, np.ndarray]],
    note: Callable[[str], None] | None = None, until: Callable[[], bool] | None = None,
) -> tuple[dict[str, np.ndarray], dict[str, float]]:  # fmt: skip
    """DAgger's rounds after `imitate`: the aggregated data and the last round's statistics.
    ``collect(r)``: round ``r``'s rows, played by the current ``net``, labelled by the
    heuristic; the copy's agreement on them first is ``bc_daggerR_own_real``."""
    stats: dict[str, float] = {}
    for r in range(1, rounds + 1):
        if until is not None and until():  # the budget: no more rounds
            break
        more = collect(r)
        own = agreement(net, more, scale)
        if note is not None:
            note(f"warm start, DAgger round {r}: the copy agrees with the heuristic on "
                 f"{own['real']:.2%} of the real choices of its own games")  # fmt: skip
        stats[f"bc_dagger{r}_own_real"] = own["real"]
        data = {k: np.concatenate([data[k], more[k]]) for k in data}
        stats |= imitate(net, data, scale, epochs=epochs, seed=seed + r, until=until)
    return data, stats


def greedy_actor(net: ActorCritic, scale: torch.Tensor) -> Actor:
    """The network's greedy move on observations of its own layout (numpy in, numpy out)."""

    def act(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            x = torch.from_numpy(np.asarray(obs, dtype=np.float32)).to(scale.device) * scale
            m = torch.from_numpy(np.asarray(mask, dtype=bool)).to(scale.device)
            return net.logits(x, m).argmax(-1).cpu().numpy()

    return act
