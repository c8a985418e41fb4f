"""DAgger rounds of the imitation warm start (`cardsuite.train.ppo.imitation`, ``bc_dagger``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from cardsuite.agents.learned.netspec import obs_scale
from cardsuite.errors import ConfigError
from cardsuite.train.ppo.config import PPOConfig
from cardsuite.train.ppo.imitation import (
    agreement,
    dagger,
    greedy_actor,
    heuristic_dataset,
    imitate,
)
from cardsuite.train.ppo.network import ActorCritic
from cardsuite.train.ppo.trainer import Trainer
from scum_env.batched import BatchedScum

CONFIG = {"num_players": 4, "reward": "centered"}


def _heuristic(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    from cardsuite.agents.baselines.batched_scum import BatchedScumHeuristic

    return np.asarray(BatchedScumHeuristic(BatchedScum(1, **CONFIG).rules)(obs, mask))


def _last_legal(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A mover unlike the heuristic: the highest legal action id."""
    return np.asarray(mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1))


def test_an_actor_plays_the_moves_while_the_heuristic_labels_them() -> None:
    plain = heuristic_dataset(16, 60, 0.0, 3, CONFIG)
    # The heuristic as the actor plays the very same games: the same rows.
    same = heuristic_dataset(16, 60, 0.0, 3, CONFIG, actor=_heuristic)
    for key in plain:
        np.testing.assert_array_equal(plain[key], same[key])
    other = heuristic_dataset(16, 60, 0.0, 3, CONFIG, actor=_last_legal)
    # Other moves reach other states; the labels are still the heuristic's moves there.
    assert other["obs"].shape[0] != plain["obs"].shape[0] or not np.array_equal(
        other["obs"], plain["obs"]
    )
    np.testing.assert_array_equal(other["label"], _heuristic(other["obs"], other["mask"]))
    assert other["mask"][np.arange(len(other["label"])), other["label"]].all()


def test_dagger_adds_each_rounds_rows_and_records_the_copys_agreement_before_training() -> None:
    eng = BatchedScum(1, **CONFIG)
    scale = torch.as_tensor(obs_scale(eng.encoder.spec))
    torch.manual_seed(0)
    net = ActorCritic(eng.obs_dim, eng.num_actions, 32, 1)
    data = heuristic_dataset(32, 60, 0.2, 0, CONFIG)
    imitate(net, data, scale, epochs=2, lr=3e-3)
    seen: list[tuple[int, float]] = []

    def collect(r: int) -> dict[str, np.ndarray]:
        rows = heuristic_dataset(16, 150, 0.1, 100 * r, CONFIG, actor=greedy_actor(net, scale))
        seen.append((r, agreement(net, rows, scale)["real"]))
        return rows

    out, stats = dagger(net, data, scale, rounds=2, epochs=1, seed=0, collect=collect)
    assert [r for r, _ in seen] == [1, 2]
    # The recorded figure is the copy's agreement on the round's rows BEFORE it trains on them.
    assert stats["bc_dagger1_own_real"] == pytest.approx(seen[0][1])
    assert stats["bc_dagger2_own_real"] == pytest.approx(seen[1][1])
    assert stats["bc_samples"] == len(out["label"]) > len(data["label"])
    assert set(out) == set(data)


def test_greedy_actor_takes_the_best_legal_action() -> None:
    net = ActorCritic(3, 4, 8, 1)
    with torch.no_grad():
        for p in net.actor.parameters():
            p.zero_()
        net.actor[-1].bias.copy_(torch.tensor([0.0, 3.0, 2.0, 1.0]))
    mask = np.array([[True, True, True, True], [True, False, True, True]])
    act = greedy_actor(net, torch.ones(3))(np.zeros((2, 3), dtype=np.float32), mask)
    np.testing.assert_array_equal(act, [1, 2])


def test_dagger_needs_the_warm_start() -> None:
    with pytest.raises(ConfigError, match="bc_dagger"):
        PPOConfig(bc_dagger=2, bc_steps=0)
    with pytest.raises(ConfigError, match="bc_dagger_epochs"):
        PPOConfig(bc_steps=50, bc_dagger=1, bc_dagger_epochs=0)


def test_a_run_with_dagger_rounds_logs_the_copys_own_agreement(tmp_path: Path) -> None:
    args = PPOConfig(total_steps=50, num_games=8, rollout_steps=4, hidden=16, layers=1,
                     bc_steps=80, bc_games=16, bc_epochs=1, bc_dagger=2, bc_dagger_epochs=1,
                     eval_every=0, eval_deals=2, snapshot_every=0, checkpoint_every=0,
                     tensorboard=False, quiet=True, run_dir=str(tmp_path / "run"))  # fmt: skip
    tr = Trainer(args)  # the warm start runs when the trainer is made
    (warm,) = [row for row in tr.history if row.get("against") == "warm_start"]
    assert 0.0 <= warm["bc_dagger1_own_real"] <= 1.0
    assert 0.0 <= warm["bc_dagger2_own_real"] <= 1.0
    assert "bc_dagger3_own_real" not in warm
