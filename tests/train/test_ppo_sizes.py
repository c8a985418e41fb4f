"""Batched PPO at several table sizes with one size-generic network (``sizes``).

The run keeps one batch of games per player count (``train/core/tables.py``),
pads every table's observations into the game's generic layout and trains one
actor-critic on all of them; its agent sits at any table of the game.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from cardsuite.agents.learned.layout import generic_spec
from cardsuite.agents.learned.netspec import obs_scale
from cardsuite.agents.learned.safe_io import read_meta
from cardsuite.agents.learned.size_generic import SizeGenericAgent
from cardsuite.errors import ConfigError
from cardsuite.train.ppo.config import PPOConfig
from cardsuite.train.ppo.trainer import Trainer, train
from tests.train.test_size_generic import plays_legal_moves


def _tiny(run: Path, **changes: Any) -> PPOConfig:
    base: dict[str, Any] = {
        "game": "scandal", "sizes": "2,3", "total_steps": 400, "num_games": 4,
        "rollout_steps": 16, "hidden": 16, "layers": 1, "bc_steps": 130, "bc_games": 4,
        "bc_epochs": 1, "snapshot_every": 0, "eval_every": 0, "eval_deals": 2,
        "eval_against": "heuristic", "checkpoint_every": 0, "tensorboard": False,
        "quiet": True, "run_dir": str(run),
    }  # fmt: skip
    return PPOConfig.from_dict({**base, **changes})


@pytest.mark.slow
def test_ppo_with_sizes_trains_one_generic_agent_that_sits_at_an_unseen_size(
    tmp_path: Path,
) -> None:
    result = train(_tiny(tmp_path / "run"))
    assert result["step"] >= 400
    assert [r["against"] for r in result["eval"]] == ["heuristic@2p", "heuristic@3p"]
    meta = read_meta(tmp_path / "run" / "agent")
    assert meta.network.layout == "generic" and "num_players" not in meta.options
    assert (meta.obs_size, meta.num_actions) == (generic_spec("scandal").size, 338)
    agent = plays_legal_moves(tmp_path / "run" / "agent", "scandal", 5, seed=4)  # unseen size
    assert isinstance(agent, SizeGenericAgent)


@pytest.mark.slow
def test_every_table_fills_its_buffer_with_padded_rows_of_its_size(tmp_path: Path) -> None:
    tr = Trainer(_tiny(tmp_path / "run", bc_steps=0, rollout_steps=40))
    assert [t.players for t in tr.tables] == [2, 3]
    tr.rollout()
    spec = generic_spec("scandal")
    present = spec.slices["seat_present"]
    unit = obs_scale(spec)[present][0]
    for t in tr.tables:
        assert t.buf is not None and t.buf.obs.shape[-1] == spec.size
        rows = t.buf.obs[t.buf.valid]
        assert rows.shape[0] > 0
        seats = np.round(rows[:, present].sum(dim=1).numpy() / unit).astype(int)
        assert set(seats.tolist()) == {t.players}
        # a learner decision's mask is the table's legal moves, padded with False
        masks = t.buf.mask[t.buf.valid]
        assert not masks[:, t.eng.num_actions :].any() if t.eng.num_actions < 338 else True
        assert masks.any(dim=1).all()


@pytest.mark.slow
def test_a_ppo_run_with_sizes_resumes_exactly(tmp_path: Path) -> None:
    """Every table's games, seats and leagues come back: the resumed run ends where an
    uninterrupted one does (a constant step size: the annealed one depends on total_steps)."""
    fixed = {"bc_steps": 0, "anneal_lr": False}
    whole = Trainer(_tiny(tmp_path / "whole", total_steps=300, **fixed))
    whole.train()
    first = Trainer(_tiny(tmp_path / "split", total_steps=120, **fixed))
    first.train()
    resumed = Trainer(_tiny(tmp_path / "split", total_steps=300, resume=str(tmp_path / "split"),
                            **fixed))  # fmt: skip
    assert resumed.games_restored
    resumed.train()
    assert resumed.step == whole.step
    for name, value in whole.net.state_dict().items():
        assert torch.equal(value, resumed.net.state_dict()[name]), name


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"game": "scum", "sizes": "4,6"}, "sizes"),
        ({"sizes": "2,7"}, "sizes"),
        ({"snapshot_every": 1000}, "snapshot_every"),
        ({"backend": "torch"}, "sizes"),
    ],
)
def test_bad_sizes_are_named(tmp_path: Path, changes: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigError, match=field):
        _tiny(tmp_path / "run", **changes)


@pytest.mark.slow
def test_evaluations_during_a_run_do_not_change_what_it_learns(tmp_path: Path) -> None:
    """What lets a catalogue line repeat a time-budgeted run with ``--total-steps N``: the
    weights depend on the decisions trained, not on the evaluations played between them."""
    fixed = {"bc_steps": 0, "anneal_lr": False, "total_steps": 240}
    quiet = Trainer(_tiny(tmp_path / "quiet", eval_every=0, **fixed))
    quiet.train()
    busy = Trainer(_tiny(tmp_path / "busy", eval_every=60, checkpoint_every=100, **fixed))
    busy.train()
    assert len(busy.history) > len(quiet.history)
    assert busy.step == quiet.step
    for name, value in quiet.net.state_dict().items():
        assert torch.equal(value, busy.net.state_dict()[name]), name


def test_one_size_may_be_given_as_a_number(tmp_path: Path) -> None:
    """``sizes: 20`` in a preset (YAML reads a number) is the one-size generic run."""
    config = PPOConfig.from_dict({"game": "scum_party", "sizes": 20, "snapshot_every": 0})
    assert config.sizes == "20" and config.size_list() == [20]
    with pytest.raises(ConfigError, match="sizes"):
        PPOConfig.from_dict({"game": "scum_party", "sizes": True, "snapshot_every": 0})
