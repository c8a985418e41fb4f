"""PPO's ``critic_warmup`` and ``init`` from an agent saved without its critic.

During the warm-up only the value loss is minimised: the actor is exactly
as it started. ``init`` takes a shipped actor-only agent (``pretrained:NAME``)
with a fresh critic, and refuses an agent another trainer wrote.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
import torch

from cardsuite.agents.learned.pretrained import agent_dir
from cardsuite.agents.learned.safe_io import load_agent_numpy
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.train.ppo.config import PPOConfig
from cardsuite.train.ppo.trainer import Trainer
from tests.train.conftest import tiny_ppo


def _tiny(run_dir: Path, **changes: object) -> PPOConfig:
    return tiny_ppo(run_dir, **{"total_steps": 700, **changes})


def _params(net: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in net.state_dict().items()}


@pytest.mark.parametrize("warmup", [10**6, 300])
def test_only_the_critic_learns_during_the_warmup(tmp_path: Path, warmup: int) -> None:
    tr = Trainer(_tiny(tmp_path / "run", critic_warmup=warmup))
    start = _params(tr.net)
    tr.train()
    end = _params(tr.net)
    actor_same = all(torch.equal(start[k], end[k]) for k in start if k.startswith("actor."))
    critic_same = all(torch.equal(start[k], end[k]) for k in start if k.startswith("critic."))
    assert not critic_same, "the critic learns"
    assert actor_same == (warmup >= 700), "the actor waits out the warm-up, then learns"
    with open(tmp_path / "run" / "progress.csv", encoding="utf-8") as fh:
        kls = [float(r["approx_kl"]) for r in csv.DictReader(fh)]
    assert kls[0] == 0.0, "the first update leaves the policy as it was"
    assert (max(kls) > 0.0) == (warmup < 700)


def test_init_takes_a_shipped_actor_and_gives_it_a_fresh_critic(tmp_path: Path) -> None:
    from cardsuite.agents.learned.pretrained import ship

    small = dict(hidden=16, layers=1)
    Trainer(_tiny(tmp_path / "first", total_steps=300, **small)).train()
    shipped = ship(tmp_path / "first" / "agent", "tiny", half=True, root=tmp_path / "pkg")
    arrays, meta = load_agent_numpy(shipped)
    assert not any(k.startswith("critic.") for k in arrays), "shipped with its actor only"
    tr = Trainer(_tiny(tmp_path / "run", init=str(shipped), **small))
    state = tr.net.state_dict()
    for k, v in arrays.items():
        assert np.array_equal(state[k].numpy(), np.asarray(v, np.float32)), k
    assert torch.isfinite(tr.net.value(torch.zeros(3, meta.obs_size))).all()
    again = Trainer(_tiny(tmp_path / "again", init=str(shipped), **small))
    assert all(torch.equal(v, again.net.state_dict()[k]) for k, v in state.items()), (
        "the fresh critic is seeded by the run's seed"
    )


def test_init_takes_a_pretrained_name(tmp_path: Path) -> None:
    arrays, _meta = load_agent_numpy(agent_dir("scandal2_table"))
    cfg = _tiny(tmp_path / "run", game="scandal", num_players=2, hidden=128, layers=2,
                init="pretrained:scandal2_table", bc_steps=0)  # fmt: skip
    state = Trainer(cfg).net.state_dict()
    assert set(state) == set(arrays), "actor and the critic it ships"
    for k, v in arrays.items():
        assert np.array_equal(state[k].numpy(), np.asarray(v, np.float32)), k


def test_init_refuses_what_is_not_a_ppo_actor(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="cardsuite-dmc"):
        Trainer(_tiny(tmp_path / "dmc", hidden=256, layers=3, init="pretrained:scum4"))
    with pytest.raises(ConfigError, match="no pretrained agent 'nosuch'"):
        Trainer(_tiny(tmp_path / "none", init="pretrained:nosuch"))
    with pytest.raises(ConfigError, match="critic_warmup"):
        _tiny(tmp_path / "neg", critic_warmup=-1)


def test_a_fitted_critic_is_added_to_a_shipped_actor_only_agent(tmp_path: Path) -> None:
    """`add_critic`: the shipped actor plays as before and now has the run's critic."""
    from cardsuite.agents.learned.policy import PPOAgent
    from cardsuite.agents.learned.pretrained import add_critic, ship

    small = dict(hidden=16, layers=1)
    Trainer(_tiny(tmp_path / "first", total_steps=300, **small)).train()
    shipped = ship(tmp_path / "first" / "agent", "tiny", half=True, root=tmp_path / "pkg")
    before = PPOAgent.load(shipped)
    assert not before.has_value
    Trainer(_tiny(tmp_path / "fit", init=str(shipped), critic_warmup=10**6, **small)).train()
    fitted = PPOAgent.load(tmp_path / "fit" / "agent")
    out = add_critic(tmp_path / "fit" / "agent", "tiny", root=tmp_path / "pkg")
    after = PPOAgent.load(out)
    obs = np.random.default_rng(0).uniform(-1, 1, (32, after.meta.obs_size)).astype(np.float32)
    assert np.array_equal(after.logits(obs), before.logits(obs)), "the actor is untouched"
    assert after.has_value
    np.testing.assert_allclose(after.value(obs), fitted.value(obs), atol=2e-2)  # float16
    assert after.meta.config["critic"]["critic_warmup"] == 10**6
    assert after.meta.step == before.meta.step
    with pytest.raises(CheckpointError, match="has a critic already"):
        add_critic(tmp_path / "fit" / "agent", "tiny", root=tmp_path / "pkg")
    other = ship(tmp_path / "first" / "agent", "other", half=True, root=tmp_path / "pkg")
    Trainer(_tiny(tmp_path / "free", **small)).train()  # a critic of another actor
    with pytest.raises(CheckpointError, match="fitted to another actor"):
        add_critic(tmp_path / "free" / "agent", "other", root=tmp_path / "pkg")
    assert not PPOAgent.load(other).has_value, "a refused critic leaves the agent as it was"
