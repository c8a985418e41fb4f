"""Deep Monte-Carlo trainer: MC targets, masked greedy play, a tiny run the arena plays, config errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from cardsuite.agents.learned.safe_io import load_agent_numpy
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.train.dmc.config import DMCConfig
from cardsuite.train.dmc.parts import (
    MCReturns,
    QNet,
    Replay,
    epsilon_greedy,
    margin_loss,
    masked_argmax,
)
from cardsuite.train.dmc.trainer import TRAINER, DMCTrainer, main, train


def test_mc_targets_of_a_scripted_episode() -> None:
    """Two games, two seats; targets are each seat's undiscounted rewards to the episode's end."""
    mc = MCReturns(games=2, players=2)
    decisions = []  # (episode, seat, start)
    ep, st0 = mc.decide(np.array([0, 1]), np.array([0, 1]))  # t0: game 0 seat 0, game 1 seat 1
    decisions += [(ep[0], 0, st0[0]), (ep[1], 1, st0[1])]
    mc.add(np.array([[0.0, 0.0], [0.0, 0.0]]), np.array([False, False]))
    ep, st1 = mc.decide(np.array([0]), np.array([1]))  # t1: game 0 seat 1
    decisions.append((ep[0], 1, st1[0]))
    mc.add(np.array([[0.5, 0.0], [0.0, 0.25]]), np.array([False, False]))  # a reward mid-episode
    ep, st2 = mc.decide(np.array([0]), np.array([0]))  # t2: game 0 seat 0 again
    decisions.append((ep[0], 0, st2[0]))
    mc.add(np.array([[1.0, -1.0], [0.0, 0.0]]), np.array([True, False]))  # game 0 ends
    ep, st3 = mc.decide(np.array([0]), np.array([1]))  # t3: game 0's next episode
    decisions.append((ep[0], 1, st3[0]))
    episode, seat, start = (np.array(x) for x in zip(*decisions, strict=True))
    ended, ret = mc.resolve(episode, seat, start)
    assert ended.tolist() == [True, False, True, True, False]
    assert ret[ended].tolist() == [1.5, -1.0, 1.0]
    mc.add(np.array([[0.0, 0.0], [0.0, 2.0]]), np.array([False, True]))  # game 1 ends
    ended, ret = mc.resolve(episode, seat, start)
    assert ended.tolist() == [True, True, True, True, False]
    assert ret[1] == 2.25  # game 1 seat 1: 0.25 mid-episode + 2.0 at the end


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(0, 2**31 - 1), st.floats(0.0, 1.0))
def test_masked_argmax_never_picks_an_illegal_action(actions: int, seed: int, eps: float) -> None:
    gen = torch.Generator()
    gen.manual_seed(seed)
    q = torch.randn((32, actions), generator=gen) * 1e6
    mask = torch.rand((32, actions), generator=gen) < 0.3
    mask[torch.arange(32), torch.randint(actions, (32,), generator=gen)] = True
    greedy = masked_argmax(q, mask)
    assert mask[torch.arange(32), greedy].all()
    best = q.masked_fill(~mask, -float("inf")).max(dim=-1).values
    assert torch.equal(q[torch.arange(32), greedy], best)
    chosen = epsilon_greedy(q, mask, eps, gen)
    assert mask[torch.arange(32), chosen].all()


def test_margin_loss_is_zero_once_the_label_leads_by_the_margin() -> None:
    q = torch.tensor([[1.0, 0.9, 5.0], [0.0, 0.2, 0.0]])
    mask = torch.tensor([[True, True, False], [True, True, True]])
    label = torch.tensor([0, 0])
    # row 0: the illegal 5.0 is ignored; 0.9 + 0.1 = 1.0 ties the label: 0. Row 1: 0.3 - 0.
    assert margin_loss(q, mask, label, 0.1).item() == pytest.approx(0.15)


def test_replay_keeps_the_newest_rows() -> None:
    rep = Replay(4, 1, seed=0)
    for k in range(3):
        rep.add(torch.full((2, 1), float(k)), torch.full((2,), k), torch.full((2,), float(k)))
    assert rep.size == 4 and sorted(rep.ret.tolist()) == [1.0, 1.0, 2.0, 2.0]


def _tiny(run: Path, **changes: Any) -> DMCConfig:
    base: dict[str, Any] = {"total_steps": 1500, "num_games": 16, "rollout_steps": 16,
                            "hidden": 16, "layers": 1, "batch_size": 64, "buffer_size": 2048,
                            "replay_ratio": 2.0, "eval_every": 0, "eval_deals": 4, "quiet": True,
                            "run_dir": str(run)}  # fmt: skip
    return DMCConfig.from_dict({**base, **changes})


def test_tiny_run_writes_an_agent_the_arena_plays(tmp_path: Path) -> None:
    from cardsuite.agents.arena.tournament import run_tournament

    result = train(_tiny(tmp_path / "run", eval_first=True))
    assert result["step"] >= 1500
    assert {r["against"] for r in result["eval"]} == {"heuristic", "random"}
    assert (tmp_path / "run" / "progress.csv").read_text().count("\n") >= 2
    evals = (tmp_path / "run" / "eval.csv").read_text().splitlines()
    assert len(evals) == 5 and evals[1].startswith("0,")  # before training, then final
    _arrays, meta = load_agent_numpy(tmp_path / "run" / "agent")
    assert meta.trainer == TRAINER and meta.network.actor == ("actor.0", "actor.2")
    res = run_tournament("scum", [f"ppo:{tmp_path / 'run' / 'agent'}", "heuristic"], games=2,
                         duplicate=True, seed=1)  # fmt: skip
    assert res.deals == 2 and res.agents[0].illegal_actions == 0


def test_trained_targets_are_the_seats_episode_rewards(tmp_path: Path) -> None:
    """Scum pays only at the episode's end (J8 centered), so every target is a final reward."""
    tr = DMCTrainer(_tiny(tmp_path / "run", self_play=1.0, rollout_steps=80))
    tr.rollout()
    assert tr.replay.size > 0
    ret = tr.replay.ret[: tr.replay.size]
    assert ret.abs().max() <= 1.0 + 1e-6  # centered rewards lie in [-1, 1]
    allowed = np.array([-1.0, -1 / 3, 1 / 3, 1.0])
    assert np.isclose(ret.numpy()[:, None], allowed[None], atol=1e-6).any(axis=1).all()


def test_warm_start_makes_the_heuristic_move_the_argmax(tmp_path: Path) -> None:
    tr = DMCTrainer(_tiny(tmp_path / "run", bc_steps=60, bc_games=16, bc_epochs=30,
                          hidden=64, bc_explore=0.0))  # fmt: skip
    stats = tr.history[0]
    assert stats["against"] == "warm_start" and stats["bc_agreement"] > 0.7


def test_qnet_prefixes_name_its_linear_layers() -> None:
    net = QNet(5, 3, hidden=8, layers=2, activation="tanh")
    assert net.prefixes() == ("actor.0", "actor.2", "actor.4")
    assert net(torch.zeros(2, 5)).shape == (2, 3)


@pytest.mark.parametrize(
    ("doc", "field"),
    [({"epsilon": 1.5}, "epsilon"), ({"num_games": 0}, "num_games"),
     ({"baselines": "ismcts"}, "baselines"), ({"activation": "gelu"}, "activation"),
     ({"hidden": "big"}, "hidden"), ({"nonsense": 1}, "nonsense"), ({"game": "chess"}, "game"),
     ({"self_play": 0.5, "baselines": ""}, "baselines")],
)  # fmt: skip
def test_bad_config_fields_are_named(doc: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigError, match=field):
        DMCConfig.from_dict(doc)


def test_cli_names_the_bad_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("replay_ratio: -1\n")
    assert main(["--config", str(cfg), "--run-dir", str(tmp_path / "run")]) == 2
    assert "replay_ratio" in capsys.readouterr().err


def test_the_scum4_preset_loads_with_command_line_overrides() -> None:
    import argparse

    from cardsuite.train.core.cli import add_field_flags, add_run_flags, config_from_args

    parser = argparse.ArgumentParser()
    add_run_flags(parser)
    add_field_flags(parser, DMCConfig)
    ns = parser.parse_args(["--config", "dmc_scum4", "--seed", "3", "--run-dir", "somewhere",
                            "--device", "cpu", "--no-tensorboard", "--epsilon", "0.2"])  # fmt: skip
    args = config_from_args(DMCConfig, ns)
    assert args.seed == 3 and args.run_dir == "somewhere" and args.bc_steps > 0
    assert args.tensorboard is False and args.epsilon == 0.2 and args.device == "cpu"


def test_a_stopped_and_resumed_run_ends_with_the_weights_of_one_that_never_stopped(
    tmp_path: Path,
) -> None:
    """Checkpoints hold the games in flight, the replay, the pending decisions, the league and
    every generator: stop at 400 steps and resume to 900 equals one run to 900."""
    tiny = {"total_steps": 900, "num_games": 8, "rollout_steps": 8, "batch_size": 32,
            "buffer_size": 256, "eval_deals": 2, "eval_against": "random", "tensorboard": False,
            "baselines": "heuristic,random", "snapshot_every": 300, "max_snapshots": 1,
            "pfsp": "hard", "epsilon": 0.2}  # fmt: skip
    whole = DMCTrainer(_tiny(tmp_path / "whole", **tiny))
    whole.train()
    stopped = _tiny(tmp_path / "split", **{**tiny, "total_steps": 400})
    first = DMCTrainer(stopped)
    first.train()
    assert 400 <= first.step < whole.step
    resumed = DMCTrainer(_tiny(tmp_path / "split", **tiny, resume=str(tmp_path / "split")))
    assert resumed.step == first.step and resumed.replay.size == first.replay.size
    assert any(m.name.startswith("snapshot@") for m in resumed.league.members)
    resumed.train()
    assert resumed.step == whole.step
    a, b = whole.net.state_dict(), resumed.net.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert not torch.equal(a["actor.0.weight"], first.net.state_dict()["actor.0.weight"])
    steps = [int(line.split(",")[0]) for line in
             (tmp_path / "split" / "progress.csv").read_text().splitlines()[1:]]  # fmt: skip
    assert steps == sorted(set(steps))  # each step logged once across the resume


def test_resume_refuses_another_network_and_names_the_field(tmp_path: Path) -> None:
    run = tmp_path / "run"
    train(_tiny(run, total_steps=100, eval_against="random", eval_deals=2))
    with pytest.raises(CheckpointError, match="'hidden'"):
        DMCTrainer(_tiny(run, hidden=32, resume=str(run)))


def test_cli_resumes_with_the_shared_flags(tmp_path: Path) -> None:
    """`cardsuite dmc --resume RUN` continues in place; bare boolean flags; a typo is named."""
    run = tmp_path / "run"
    flags = ["--num-games", "8", "--rollout-steps", "8", "--hidden", "16", "--layers", "1",
             "--batch-size", "32", "--buffer-size", "256", "--eval-deals", "2",
             "--eval-against", "random", "--quiet", "--no-tensorboard"]  # fmt: skip
    assert main([*flags, "--total-steps", "100", "--run-dir", str(run), "--device", "cpu"]) == 0
    from cardsuite.train.core.checkpoint import read_state_doc

    step = read_state_doc(run)[1]["step"]
    assert main(["--total-steps", str(step + 100), "--resume", str(run)]) == 0  # its own config
    meta = load_agent_numpy(run / "agent")[1]
    assert meta.step >= step + 100
    assert main([*flags, "--total-step", "5", "--run-dir", str(tmp_path / "x")]) == 2
