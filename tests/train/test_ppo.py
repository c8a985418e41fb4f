"""The batched PPO trainer: per-seat transitions and GAE, seat views, runs, checkpoints, args."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from cardsuite.agents.learned.netspec import actor_logits
from cardsuite.agents.learned.safe_io import load_agent_numpy
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.train.ppo.config import PPOConfig
from cardsuite.train.ppo.network import TRAINER, load_network
from cardsuite.train.ppo.rollout import SeatRollout, restore_observation, seat_observation
from cardsuite.train.ppo.trainer import Trainer, train
from scum_env.batched import BatchedScum


def _record(buf: SeatRollout, t: int, seat: int, value: float) -> None:
    one = torch.tensor([0])
    buf.record(t, one, torch.tensor([seat]), torch.zeros(1, 1), torch.ones(1, 2, dtype=torch.bool),
               torch.tensor([1]), torch.tensor([-0.5]), torch.tensor([value]))  # fmt: skip


def test_seat_transitions_span_until_the_seat_acts_again() -> None:
    """Two seats alternate; the episode ends after t3 (+1 / -1); t4 starts the next one."""
    buf = SeatRollout(5, 2, 2, 1, 2, torch.device("cpu"))
    no_reward = torch.zeros(2, 2)
    not_done = torch.zeros(2, dtype=torch.bool)
    for t, seat in enumerate([0, 1, 0, 1]):
        _record(buf, t, seat, 0.1 * (t + 1))
        if t < 3:
            buf.add_rewards(no_reward, not_done)
    buf.add_rewards(torch.tensor([[1.0, -1.0], [0.0, 0.0]]), torch.tensor([True, False]))
    _record(buf, 4, 0, 0.5)
    assert buf.next_t[:, 0].tolist() == [2, 3, -1, -1, -1]
    assert buf.done[:, 0].tolist() == [False, False, True, True, False]
    assert buf.reward[:, 0].tolist() == [0.0, 0.0, 1.0, -1.0, 0.0]
    ts, gs = buf.open_transitions(0)
    assert ts.tolist() == [4] and gs.tolist() == [0]
    assert buf.open_transitions(1)[0].numel() == 0
    buf.boot[4, 0] = 0.7
    adv, ret = buf.advantages(gamma=0.9, lam=0.8)
    want = [0.17 + 0.72 * 0.7, 0.16 + 0.72 * -1.4, 0.7, -1.4, 0.9 * 0.7 - 0.5]
    assert adv[:, 0].tolist() == pytest.approx(want, abs=1e-6)
    assert ret[:, 0].tolist() == pytest.approx([a + 0.1 * (i + 1) for i, a in enumerate(want)])
    flat = buf.flat(adv, ret)
    assert flat["adv"].shape == (5,)  # game 1 had no learner decision


def test_seat_observation_is_the_players_view_and_restores_the_engine() -> None:
    eng = BatchedScum(16)
    obs, mask, to_act = eng.reset(4)
    for _ in range(7):
        res = eng.step(np.argmax(mask, axis=1))
        obs, mask, to_act = res.obs, res.mask, res.to_act
    before_obs, before_mask = obs.copy(), mask.copy()
    hand = eng.encoder.spec.slices["hand"]
    for player in range(eng.P):
        view = seat_observation(eng, player)
        acting = to_act == player
        assert np.array_equal(view[acting], before_obs[acting])
        for g in range(16):
            assert view[g, hand].tolist() == eng.game_view(g)["hands"][player].tolist()
    obs2, mask2, to_act2 = restore_observation(eng)
    assert np.array_equal(obs2, before_obs) and np.array_equal(mask2, before_mask)
    assert np.array_equal(to_act2, to_act)


def _tiny(run_dir: Path, **changes: object) -> PPOConfig:
    base: dict[str, object] = dict(
        num_games=32, rollout_steps=8, total_steps=600, hidden=16, layers=1, eval_deals=8,
        eval_every=0, snapshot_every=300, checkpoint_every=0, tensorboard=False, quiet=True,
        threads=1, self_play=0.5, baselines="heuristic,random", run_dir=str(run_dir),
    )  # fmt: skip
    base.update(changes)
    return PPOConfig(**base)  # type: ignore[arg-type]


def test_a_tiny_run_writes_a_safe_agent_that_numpy_plays(tmp_path: Path) -> None:
    result = train(_tiny(tmp_path / "run"))
    assert result["step"] >= 600
    (row,) = result["eval"]
    assert row["against"] == "heuristic" and row["deals"] == 8
    arrays, meta = load_agent_numpy(tmp_path / "run" / "agent")
    assert meta.trainer == TRAINER and meta.game == "scum" and meta.options["num_players"] == 4
    net, _ = load_network(tmp_path / "run" / "agent")
    x = torch.rand(5, meta.obs_size)
    np.testing.assert_allclose(
        actor_logits(arrays, meta.network, x.numpy()), net.actor(x).detach().numpy(), atol=1e-5
    )
    for name in ("progress.csv", "eval.csv"):
        assert (tmp_path / "run" / name).read_text().count("\n") >= 2


def test_same_seed_same_weights(tmp_path: Path) -> None:
    train(_tiny(tmp_path / "a", snapshot_every=0))
    train(_tiny(tmp_path / "b", snapshot_every=0))
    a, _ = load_agent_numpy(tmp_path / "a" / "agent")
    b, _ = load_agent_numpy(tmp_path / "b" / "agent")
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_resume_continues_from_the_checkpoint(tmp_path: Path) -> None:
    run = tmp_path / "run"
    first = train(_tiny(run))
    tr = Trainer(_tiny(run, total_steps=1200, resume=str(run)))
    assert tr.step == first["step"]
    assert [m.name for m in tr.league.members][:2] == ["heuristic", "random"]
    assert any(m.name.startswith("snapshot@") for m in tr.league.members)
    second = tr.train()
    assert second["step"] >= 1200 > first["step"]
    with pytest.raises(CheckpointError, match="hidden"):
        Trainer(_tiny(run, hidden=32, resume=str(run)))
    with pytest.raises(CheckpointError, match="does not exist"):
        Trainer(_tiny(tmp_path / "empty", resume=str(tmp_path / "empty")))


def test_resume_restores_adams_state_exactly_and_refuses_a_foreign_one(tmp_path: Path) -> None:
    """The core's checked optimizer reader: the moments come back, a wrong shape is named."""
    import torch

    from cardsuite.train.core.checkpoint import restore_optimizer

    run = tmp_path / "run"
    first = Trainer(_tiny(run))
    first.train()
    tr = Trainer(_tiny(run, resume=str(run)))
    saved, restored = first.opt.state_dict()["state"], tr.opt.state_dict()["state"]
    assert saved.keys() == restored.keys() and saved
    for i in saved:
        for key in saved[i]:
            assert torch.equal(saved[i][key].cpu(), restored[i][key].cpu()), (i, key)
    with pytest.raises(CheckpointError, match=r"tensor 'state.0.exp_avg' has shape \(3,\)"):
        restore_optimizer(tr.opt, {"state.0.exp_avg": torch.zeros(3)}, None)


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [("num_games", 0, "num_games"), ("self_play", 1.5, "self_play"), ("backend", "jax", "backend"),
     ("baselines", "ismcts", "baselines"), ("pfsp", "x", "pfsp")],
)  # fmt: skip
def test_bad_args_name_the_field(field: str, value: object, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        PPOConfig(**{field: value})  # type: ignore[arg-type]


def test_unknown_and_mistyped_preset_fields() -> None:
    with pytest.raises(
        ConfigError, match=r"unknown config key 'num_envs'.*did you mean 'num_games'"
    ):
        PPOConfig.from_dict({"num_envs": 4})
    with pytest.raises(ConfigError, match="total_steps"):
        PPOConfig.from_dict({"total_steps": "many"})
    assert PPOConfig.from_dict({"learning_rate": 1}).learning_rate == 1.0


@pytest.mark.slow
def test_ppo_learns_to_beat_random(tmp_path: Path) -> None:
    """A short run against the random baseline beats it on most duplicate deals."""
    args = _tiny(tmp_path / "run", total_steps=60_000, num_games=128, rollout_steps=16,
                 hidden=64, layers=2, eval_deals=200, baselines="random",
                 eval_against="random", snapshot_every=0, self_play=0.0)  # fmt: skip
    (row,) = train(args)["eval"]
    assert row["beats"] > 0.75  # an untrained network beats random on about half


def test_imitation_data_is_labelled_by_the_heuristic_and_learnable() -> None:
    from cardsuite.agents.baselines.batched_scum import BatchedScumHeuristic
    from cardsuite.agents.learned.netspec import obs_scale
    from cardsuite.train.ppo.imitation import heuristic_dataset, imitate
    from cardsuite.train.ppo.network import ActorCritic

    config = {"num_players": 4, "reward": "centered"}
    data = heuristic_dataset(32, 40, 0.2, 0, config)
    eng = BatchedScum(1, **config)
    labels = BatchedScumHeuristic(eng.rules)(data["obs"], data["mask"])
    assert np.array_equal(labels, data["label"])
    assert np.isfinite(data["ret"]).all()
    np.testing.assert_allclose(np.unique(data["ret"]), [-1, -1 / 3, 1 / 3, 1], rtol=1e-6)
    assert data["mask"][np.arange(len(labels)), labels].all()
    net = ActorCritic(eng.obs_dim, eng.num_actions, 32, 1)
    scale = torch.as_tensor(obs_scale(eng.encoder.spec))
    before = imitate(net, data, scale, epochs=0)
    after = imitate(net, data, scale, epochs=5, lr=3e-3)
    assert after["bc_accuracy"] > max(before["bc_accuracy"], 0.5)


def test_warm_start_and_init_from_an_agent(tmp_path: Path) -> None:
    train(_tiny(tmp_path / "bc", bc_steps=80, bc_games=16, bc_epochs=1, total_steps=50))
    tr = Trainer(_tiny(tmp_path / "ft", init=str(tmp_path / "bc" / "agent")))
    net, _ = load_network(tmp_path / "bc" / "agent")
    assert all(torch.equal(a, b) for a, b in zip(tr.net.state_dict().values(),
                                                  net.state_dict().values()))  # fmt: skip
    with pytest.raises(CheckpointError, match="network shape"):
        Trainer(_tiny(tmp_path / "ft2", init=str(tmp_path / "bc" / "agent"), hidden=8))


def test_exploit_trains_against_one_frozen_agent_and_reports_a_margin() -> None:
    from cardsuite.train.tools.exploit import exploit

    res = exploit("heuristic", budget_minutes=0.01, deals=8, num_games=16, rollout_steps=4,
                  hidden=8, layers=1, threads=1, quiet=True, tensorboard=False)  # fmt: skip
    assert res["agent"] == "heuristic" and res["against"] == "heuristic" and res["deals"] == 8
    assert res["steps"] > 0 and -2.0 <= res["margin"] <= 2.0 and res["margin_ci"] >= 0
    with pytest.raises(ConfigError, match="budget"):
        exploit("heuristic", budget_minutes=0)


def test_exploit_stopped_by_a_signal_keeps_its_run_and_exits_130(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C or SIGTERM during ``cardsuite exploit`` (issue 59): the best response so far is
    checkpointed in --run-dir, the command says so and exits 130, with no traceback."""
    from cardsuite.cli import main as cli_main
    from cardsuite.train.core import loop

    real = loop.TrainLoop.going

    def signalled(self: loop.TrainLoop) -> bool:
        if self.step and self.stop is not None:
            self.stop.requested, self.stop.signal_name = True, "SIGTERM"
        return real(self)

    monkeypatch.setattr(loop.TrainLoop, "going", signalled)
    run = tmp_path / "br"
    assert cli_main(["exploit", "--agent", "random", "--budget", "1", "--deals", "4",
                     "--num-games", "16", "--bc-steps", "0", "--run-dir", str(run),
                     "--set", "rollout_steps=4", "--set", "hidden=8"]) == 130  # fmt: skip
    err = capsys.readouterr().err
    assert f"stopped before the final match; the best response so far is in {run}" in err
    assert "Traceback" not in err and (run / "checkpoint" / "state.json").is_file()


def test_exploit_set_reaches_the_best_responses_run_and_names_a_bad_field(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
) -> None:
    """``cardsuite exploit --set KEY=VALUE``: a PPO field of the best response's run, over
    the command's own settings; a field the command owns, or none, is a one-line error
    naming it (exit status 2)."""
    import importlib

    from cardsuite.cli import main as cli_main

    # the module the command's entry point loads (sys.modules), not a package attribute
    # another test may have left pointing at an older import
    ex = importlib.import_module("cardsuite.train.tools.exploit")

    seen: dict[str, object] = {}

    def fake(agent: str, **kwargs: object) -> dict[str, object]:
        seen.update(kwargs)
        return {"steps": 1, "beats": 0.5, "beats_ci": 0.1, "deals": 2, "margin": 0.0,
                "margin_ci": 0.0}  # fmt: skip

    monkeypatch.setattr(ex, "exploit", fake)
    base = ["exploit", "--agent", "heuristic", "--game", "scum_party", "--players", "20",
            "--budget", "1"]  # fmt: skip
    assert cli_main([*base, "--set", "gae_lambda=1.0", "--set", "rollout_steps=1024",
                     "--set", "learning_rate=0.0003"]) == 0  # fmt: skip
    assert seen["gae_lambda"] == 1.0 and seen["rollout_steps"] == 1024
    assert seen["learning_rate"] == 0.0003 and seen["bc_epochs"] == 15  # the command's own
    assert "best response to heuristic" in capsys.readouterr().out
    for bad, field in (("gae_lamda=1", "gae_lamda"), ("self_play=0.5", "self_play")):
        assert cli_main([*base, "--set", bad]) == 2
        err = capsys.readouterr().err
        assert err.startswith("cardsuite exploit: error: unknown option") and field in err


def test_a_trained_agent_plays_in_the_arena_as_ppo_path(tmp_path: Path) -> None:
    from cardsuite.agents.arena.tournament import run_tournament

    train(_tiny(tmp_path / "run", snapshot_every=0))
    for spec in (f"ppo:{tmp_path / 'run' / 'agent'}", f"ppo:{tmp_path / 'run'}"):
        res = run_tournament("scum", [spec, "heuristic"], games=2, duplicate=True, seed=1)
        assert res.deals == 2 and res.agents[0].illegal_actions == 0


def test_the_torch_backend_trains_too(tmp_path: Path) -> None:
    """The engine on torch (the --device cuda path, here on the CPU)."""
    result = train(_tiny(tmp_path / "run", backend="torch", total_steps=300))
    assert result["step"] >= 300


def test_seed_curves_average_runs(tmp_path: Path) -> None:
    from cardsuite.train.tools.curves import band, plot_seeds

    for seed, value in ((0, 0.4), (1, 0.6)):
        run = tmp_path / f"s{seed}"
        run.mkdir()
        (run / "progress.csv").write_text(
            "step,league_win,entropy\n0,0.5,1.0\n100," + str(value) + ",0.5\n"
        )
    grid, mean, half, n = band([tmp_path / "s0", tmp_path / "s1"], "progress.csv", "league_win")
    assert n == 2 and grid[0] == 0 and grid[-1] == 100
    # Student t with one degree of freedom (two seeds): t_0.975 = 12.706, not 1.96
    assert mean[-1] == pytest.approx(0.5) and half[-1] == pytest.approx(
        12.7062 * 0.1414213 / 1.4142135, rel=1e-4
    )
    assert plot_seeds([tmp_path / "s0", tmp_path / "s1"], tmp_path / "c.png").stat().st_size > 1000


def test_seed_curves_of_a_size_generic_run_draw_one_band_per_table_size(tmp_path: Path) -> None:
    from cardsuite.train.tools.curves import band, eval_opponents, plot_seeds

    head = "step,against,deals,beats,beats_ci,mean_a,mean_b,margin,margin_ci\n"
    for seed, at20 in ((0, 0.2), (1, 0.4)):
        run = tmp_path / f"s{seed}"
        run.mkdir()
        (run / "progress.csv").write_text("step,league_win,entropy\n0,0.5,1.0\n100,0.5,0.5\n")
        (run / "eval.csv").write_text(head + "".join(
            f"{step},heuristic@{p}p,10,{v},0.1,1,1,0,0.1\n"
            for step in (0, 100) for p, v in ((5, 0.6), (20, at20))))  # fmt: skip
    runs = [tmp_path / "s0", tmp_path / "s1"]
    assert eval_opponents(runs) == ["heuristic@5p", "heuristic@20p"]  # by size, not as text
    _grid, mean, _half, n = band(runs, "eval.csv", "beats", "heuristic@20p")
    assert n == 2 and mean[-1] == pytest.approx(0.3)
    assert plot_seeds(runs, tmp_path / "c.png").stat().st_size > 1000
    assert eval_opponents([tmp_path / "nothing"]) == ["heuristic"]


def test_seed_curves_of_deep_monte_carlo_runs_draw_its_columns(tmp_path: Path) -> None:
    """DMC logs league_score and loss (no entropy): the panels pick those, not empty PPO ones."""
    from cardsuite.train.tools.curves import PANELS, band, panel_column, plot_seeds

    for seed, value in ((0, 0.55), (1, 0.65)):
        run = tmp_path / f"s{seed}"
        run.mkdir()
        (run / "progress.csv").write_text(
            "step,loss,mean_q,league_score\n10,nan,nan,nan\n50,0.3,0.0,0.5\n90,0.2,0.1,"
            + str(value)
            + "\n"
        )
    runs = [tmp_path / "s0", tmp_path / "s1"]
    assert panel_column(runs, "progress.csv", PANELS[0][1])[0] == "league_score"
    assert panel_column(runs, "progress.csv", PANELS[1][1]) == ("loss", "Q-regression loss")
    grid, mean, _half, n = band(runs, "progress.csv", "league_score")
    assert n == 2 and grid[0] == 50 and mean[-1] == pytest.approx(0.6)  # nan rows skipped
    assert plot_seeds(runs, tmp_path / "c.png").stat().st_size > 1000


@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
def test_ctrl_c_checkpoints_at_the_next_boundary_exits_130_and_a_resume_goes_on(
    signame: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The core's one handler: the first SIGINT (Ctrl-C) or SIGTERM (a scheduler's stop)
    stops at the next boundary with a checkpoint (exit status 130); the run then resumes to
    its end; a second signal aborts at once."""
    import os
    import signal

    signum = getattr(signal, signame)
    before = signal.getsignal(signum)

    from cardsuite.cli import main
    from cardsuite.train.core import loop

    real = loop.TrainLoop.run_schedules

    def ctrl_c(self: loop.TrainLoop) -> None:
        real(self)
        if self.iteration == 2:
            os.kill(os.getpid(), signum)  # the handler only asks the loop to stop

    monkeypatch.setattr(loop.TrainLoop, "run_schedules", ctrl_c)
    run = tmp_path / "run"
    flags = ["--total-steps", "600", "--num-games", "32", "--rollout-steps", "8", "--hidden",
             "16", "--layers", "1", "--eval-deals", "4", "--no-tensorboard", "--quiet"]  # fmt: skip
    assert main(["ppo", "--run-dir", str(run), *flags]) == 130
    err = capsys.readouterr().err
    said = "Ctrl-C" if signame == "SIGINT" else "SIGTERM"
    assert f"{said}: saving a checkpoint" in err and f"{said}: interrupted at step" in err
    assert f"cardsuite ppo --resume {run}" in err
    assert (run / "checkpoint" / "state.json").is_file() and not (run / "agent").exists()
    stopped = Trainer(_tiny(run, resume=str(run)))
    assert 0 < stopped.step < 600 and stopped.iteration == 2
    monkeypatch.setattr(loop.TrainLoop, "run_schedules", real)
    assert main(["ppo", "--resume", str(run), *flags]) == 0
    assert (run / "agent" / "agent.json").is_file()

    def twice(self: loop.TrainLoop) -> None:
        os.kill(os.getpid(), signum)
        os.kill(os.getpid(), signum)

    monkeypatch.setattr(loop.TrainLoop, "run_schedules", twice)
    with pytest.raises(KeyboardInterrupt):
        Trainer(_tiny(tmp_path / "aborted")).train()
    assert not (tmp_path / "aborted" / "checkpoint").exists()
    assert signal.getsignal(signum) is before  # handler restored


def test_the_budget_bounds_the_warm_start_the_training_and_the_final_evaluation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``budget_minutes`` covers the whole run (issue 60): the warm start stops at its share
    of the budget (``WARM_SHARE``), training stops early enough for the final evaluation (timed
    on a pilot), and the run names its folder and the spec of its agent at the start and the
    end. The clock is a fake one that moves half a second per reading."""
    from cardsuite.train.core import loop

    class Clock:
        now = 0.0

        @classmethod
        def perf_counter(cls) -> float:
            cls.now += 0.5
            return cls.now

    monkeypatch.setattr(loop, "time", Clock)
    with pytest.raises(ConfigError, match=r"budget_minutes.*nothing to imitate"):
        Trainer(_tiny(tmp_path / "short", budget_minutes=0.001, bc_steps=50, bc_games=4))
    run = tmp_path / "run"
    args = _tiny(run, budget_minutes=1.0, total_steps=10**9, bc_steps=400, bc_games=16,
                 bc_epochs=50, quiet=False, snapshot_every=0)  # fmt: skip
    trainer = Trainer(args)
    warm = next(r for r in trainer.history if r["against"] == "warm_start")
    assert 0 < warm["bc_samples"] < 400 * 16  # cut at 40% of the minute: 48 readings
    result = trainer.train()
    assert 0 < result["step"] < 10**9 and [r["against"] for r in result["eval"]] == ["heuristic"]
    assert Clock.now <= 60.0 + 0.5 * 40  # the final evaluation's pilot-sized readings
    out = capsys.readouterr().out
    assert (
        f"run folder {run} (a new run); when it ends, its agent plays as ppo:{run / 'agent'}" in out
    )
    assert (
        f"run folder {run}: its agent plays as ppo:{run / 'agent'}, e.g. cardsuite tournament --game scum"
        in out
    )
    assert "budget 1 min: training stops about" in out and " nan" not in out


def test_warm_start_data_stops_when_told_and_says_when_the_budget_left_nothing() -> None:
    from cardsuite.train.core.tables import heuristic_dataset

    calls = iter(range(10**6))
    data = heuristic_dataset(8, 400, 0.0, 0, {"num_players": 4}, until=lambda: next(calls) >= 120)
    full = heuristic_dataset(8, 400, 0.0, 0, {"num_players": 4})
    assert (
        0 < len(data["label"]) < len(full["label"])
        and data["obs"].shape[1:] == full["obs"].shape[1:]
    )
    assert (
        len(heuristic_dataset(8, 400, 0.0, 0, {"num_players": 4}, until=lambda: True)["label"]) == 0
    )
