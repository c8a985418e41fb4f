"""PPO's anchor (``anchor_coef``): a KL penalty towards the actor as PPO began.

The penalty is ``KL(anchor || policy)`` of the masked policies; the anchor is
frozen when PPO starts (after the warm start or ``init``), saved in the
checkpoint and restored by a resume, which may not add or drop it.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import torch

from cardsuite.errors import CheckpointError
from cardsuite.train.ppo.config import PPOConfig
from cardsuite.train.ppo.network import ActorCritic
from cardsuite.train.ppo.trainer import Trainer, anchor_kl, train
from tests.train.conftest import tiny_ppo

_tiny = tiny_ppo


def test_anchor_kl_is_zero_for_the_anchor_itself_and_for_forced_moves() -> None:
    torch.manual_seed(0)
    net, other = ActorCritic(6, 4, 8, 1), ActorCritic(6, 4, 8, 1)
    with torch.no_grad():  # policies far from uniform (the output layer starts tiny)
        for p in (*net.actor.parameters(), *other.actor.parameters()):
            p.mul_(30.0)
    obs = torch.rand(5, 6)
    mask = torch.tensor([[True, True, False, True]] * 4 + [[False, False, True, False]])

    def kl(a: ActorCritic, b: ActorCritic, rows: slice) -> float:
        return float(anchor_kl(a.log_policy(obs[rows], mask[rows]), b, obs[rows],
                               mask[rows]).detach())  # fmt: skip

    assert kl(net, net, slice(None)) == pytest.approx(0.0, abs=1e-6)
    assert kl(other, net, slice(4, 5)) == 0.0  # one legal move
    with torch.no_grad():
        ref = torch.softmax(other.logits(obs[:4], mask[:4]).double(), -1)
        cur = torch.softmax(net.logits(obs[:4], mask[:4]).double(), -1)
    legal = mask[:4]
    want = float((ref[legal] * (ref[legal].log() - cur[legal].log())).sum() / 4)
    assert want > 0.05
    assert kl(net, other, slice(0, 4)) == pytest.approx(want, rel=1e-4)


def _kl_to_start(tr: Trainer, start: ActorCritic) -> float:
    t = tr.tables[0]
    obs = torch.as_tensor(t.obs, dtype=torch.float32) * tr.scale
    mask = torch.as_tensor(t.mask).bool()
    return float(anchor_kl(tr.net.log_policy(obs, mask), start, obs, mask).detach())


def test_a_strong_anchor_keeps_the_policy_near_where_it_started(tmp_path: Path) -> None:
    free = Trainer(_tiny(tmp_path / "free"))
    start = free.frozen_copy()
    free.train()
    held = Trainer(_tiny(tmp_path / "held", anchor_coef=50.0))
    assert held.anchor is not None
    assert all(torch.equal(a, b) for a, b in zip(start.state_dict().values(),
                                                  held.anchor.state_dict().values()))  # fmt: skip
    held.train()
    assert _kl_to_start(held, start) < 0.25 * _kl_to_start(free, start)
    with open(tmp_path / "held" / "progress.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert rows and all(float(r["anchor_kl"]) >= 0.0 for r in rows)
    assert "anchor_kl" not in (tmp_path / "free" / "progress.csv").read_text()


def test_the_anchor_is_the_init_agent_and_a_resume_restores_it(tmp_path: Path) -> None:
    train(_tiny(tmp_path / "first"))
    init = str(tmp_path / "first" / "agent")
    run = tmp_path / "run"
    tr = Trainer(_tiny(run, init=init, anchor_coef=1.0, checkpoint_every=300))
    assert tr.anchor is not None
    anchor = {k: v.clone() for k, v in tr.anchor.state_dict().items()}
    assert all(torch.equal(anchor[k], v) for k, v in tr.net.state_dict().items())
    tr.train()
    assert (run / "checkpoint" / "anchor.safetensors").exists()
    again = Trainer(_tiny(run, init=init, anchor_coef=2.0, total_steps=900, resume=str(run)))
    assert again.anchor is not None
    assert all(torch.equal(anchor[k], v) for k, v in again.anchor.state_dict().items())
    assert not any(torch.equal(anchor[k], v) for k, v in again.net.state_dict().items())
    with pytest.raises(CheckpointError, match=r"anchor_coef.*cannot drop"):
        Trainer(_tiny(run, anchor_coef=0.0, resume=str(run)))


def test_a_resume_cannot_add_an_anchor(tmp_path: Path) -> None:
    run = tmp_path / "run"
    train(_tiny(run, checkpoint_every=300))
    with pytest.raises(CheckpointError, match=r"anchor_coef.*cannot add"):
        Trainer(_tiny(run, anchor_coef=1.0, resume=str(run)))


def test_a_negative_anchor_is_refused_naming_the_field() -> None:
    from cardsuite.errors import ConfigError

    with pytest.raises(ConfigError, match="anchor_coef"):
        PPOConfig(anchor_coef=-1.0)
