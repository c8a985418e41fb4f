"""The PPO update of the batched trainer: cleanrl's clipped-ratio epochs over a rollout, with
``anchor_coef``'s KL penalty and ``critic_warmup``'s critic-only loss."""

from __future__ import annotations

import numpy as np
import torch

from cardsuite.train.ppo.config import PPOConfig
from cardsuite.train.ppo.network import ActorCritic


def anchor_kl(
    log_policy: torch.Tensor, anchor: ActorCritic, obs: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    """Mean ``KL(anchor || policy)`` over a batch; ``log_policy``: the learner's
    `ActorCritic.log_policy` of ``obs`` and ``mask`` (the gradient flows to it). Illegal
    moves have probability exactly 0 under both, so they add nothing."""
    with torch.no_grad():
        ref = anchor.log_policy(obs, mask)
    return (ref.exp() * (ref - log_policy)).sum(dim=-1).mean()


def ppo_update(
    net: ActorCritic, opt: torch.optim.Optimizer, data: dict[str, torch.Tensor], args: PPOConfig,
    gen: torch.Generator, anchor: ActorCritic | None = None, critic_only: bool = False,
) -> dict[str, float]:  # fmt: skip
    """Clipped PPO epochs over ``data`` (flat learner decisions); the loss statistics. With
    ``anchor`` the loss adds ``anchor_coef * KL(anchor || policy)``; with ``critic_only``
    it is the value loss alone (Adam leaves the actor exactly as it is)."""
    n = data["obs"].shape[0]
    mb = max(1, n // args.num_minibatches)
    stats: dict[str, list[float]] = {"pg_loss": [], "v_loss": [], "entropy": [], "approx_kl": [],
                                     "clipfrac": []}  # fmt: skip
    if anchor is not None and args.anchor_coef:
        stats["anchor_kl"] = []
    for _epoch in range(args.update_epochs):
        perm = torch.randperm(n, generator=gen, device="cpu").to(data["obs"].device)
        kl = 0.0
        for start in range(0, n, mb):
            idx = perm[start : start + mb]
            logp, entropy, value, log_pi = net.evaluate(data["obs"][idx], data["mask"][idx],
                                                        data["action"][idx])  # fmt: skip
            logratio = logp - data["logp"][idx]
            ratio = logratio.exp()
            with torch.no_grad():
                kl = float(((ratio - 1) - logratio).mean())
                clipfrac = float(((ratio - 1.0).abs() > args.clip_coef).float().mean())
            adv = data["adv"][idx]
            if args.norm_adv and adv.numel() > 1:
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            pg = torch.max(-adv * ratio,
                           -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()  # fmt: skip
            ret, old_v = data["ret"][idx], data["value"][idx]
            if args.clip_vloss:
                clipped = old_v + (value - old_v).clamp(-args.clip_coef, args.clip_coef)
                v_loss = 0.5 * torch.max((value - ret) ** 2, (clipped - ret) ** 2).mean()
            else:
                v_loss = 0.5 * ((value - ret) ** 2).mean()
            ent = entropy.mean()
            loss = pg - args.ent_coef * ent + args.vf_coef * v_loss
            if critic_only:
                loss = args.vf_coef * v_loss
            elif "anchor_kl" in stats:
                assert anchor is not None
                akl = anchor_kl(log_pi, anchor, data["obs"][idx], data["mask"][idx])
                loss = loss + args.anchor_coef * akl
                stats["anchor_kl"].append(float(akl.detach()))
            pg_f, v_f, ent_f = float(pg.detach()), float(v_loss.detach()), float(ent.detach())
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm)
            opt.step()
            for key, v in (("pg_loss", pg_f), ("v_loss", v_f), ("entropy", ent_f),
                           ("approx_kl", kl), ("clipfrac", clipfrac)):  # fmt: skip
                stats[key].append(v)
        if args.target_kl and kl > args.target_kl:
            break
    out = {k: float(np.mean(v)) for k, v in stats.items() if v}
    var = float(data["ret"].var())
    out["explained_var"] = float("nan") if var == 0 else 1 - float(
        (data["ret"] - data["value"]).var()) / var  # fmt: skip
    return out
