"""``keep_best``: the shared loop keeps the learner of the best evaluation (train/core/loop.py).

A scripted history decides which step is kept (ties keep the earlier, table
sizes are averaged, other opponents are ignored); tiny runs of both trainers
write ``RUN/best_agent`` at the step ``eval.csv`` scores highest, and a run
stopped and resumed chooses among the same evaluations as one that never
stopped, plus the one it made when it stopped.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from cardsuite.agents.learned.safe_io import load_agent_numpy
from cardsuite.train.core.loop import TrainLoop, selection_score
from cardsuite.train.dmc.config import DMCConfig
from cardsuite.train.dmc.trainer import DMCTrainer
from cardsuite.train.ppo.config import PPOConfig
from cardsuite.train.ppo.trainer import train as ppo_train


def _row(step: int, against: str, beats: float) -> dict[str, Any]:
    return {"step": step, "against": against, "beats": beats}


class _Scripted(TrainLoop):
    """A loop whose evaluations are given rows and whose agents are only named."""

    def __init__(self, run: Path, against: str = "heuristic,random") -> None:
        self.args = SimpleNamespace(eval_against=against, eval_seed=7, eval_deals=10,
                                    keep_best=True,
                                    names=lambda name: against.split(","))  # fmt: skip
        self.plan = SimpleNamespace(run_dir=run)
        self.history, self.saved, self.step = [], [], 0
        self.rows: list[dict[str, Any]] = []

    def evaluate(self) -> list[dict[str, Any]]:
        self.history.extend(self.rows)
        return self.rows

    def save_agent(self, name: str = "agent") -> Path:
        self.saved.append((name, self.step))
        return self.plan.run_dir / name

    def at(self, step: int, *rows: tuple[str, float]) -> None:
        self.step, self.rows = step, [_row(step, a, b) for a, b in rows]
        self.evaluate_and_keep()


def test_the_best_score_is_kept_and_a_tie_keeps_the_earlier(tmp_path: Path) -> None:
    loop = _Scripted(tmp_path)
    loop.at(0, ("heuristic", 0.40), ("random", 0.99))
    loop.at(100, ("heuristic", 0.70), ("random", 0.10))
    loop.at(200, ("heuristic", 0.60), ("random", 1.00))  # random's score does not choose
    loop.at(300, ("heuristic", 0.70), ("random", 1.00))  # a tie keeps step 100
    assert loop.saved == [("best_agent", 0), ("best_agent", 100)]
    best = json.loads((tmp_path / "best.json").read_text())
    assert best["step"] == 100 and best["score"] == pytest.approx(0.70)
    assert best["against"] == "heuristic" and best["eval_seed"] == 7
    loop.at(400, ("heuristic", 0.71))
    assert loop.saved[-1] == ("best_agent", 400)


def test_table_sizes_are_averaged_and_the_warm_start_row_is_not_an_evaluation(
    tmp_path: Path,
) -> None:
    loop = _Scripted(tmp_path, against="heuristic")
    loop.history.append({"step": 0, "against": "warm_start", "beats": 5.0})
    loop.at(10, ("heuristic@2p", 0.9), ("heuristic@4p", 0.3))  # mean 0.6
    loop.at(20, ("heuristic@2p", 0.5), ("heuristic@4p", 0.6))  # mean 0.55: kept is step 10
    loop.at(30, ("heuristic@2p", 0.6), ("heuristic@4p", 0.7))  # mean 0.65
    assert [s for _, s in loop.saved] == [10, 30]
    assert json.loads((tmp_path / "best.json").read_text())["rows"] == [
        "heuristic@2p", "heuristic@4p"]  # fmt: skip
    assert selection_score([_row(1, "random@2p", 1.0)], "heuristic") == -1.0


def _eval_scores(run: Path, against: str = "random") -> dict[int, float]:
    with (run / "eval.csv").open() as f:
        rows = [r for r in csv.DictReader(f) if r["against"].split("@")[0] == against]
    steps = sorted({int(r["step"]) for r in rows})
    return {s: float(np.mean([float(r["beats"]) for r in rows if int(r["step"]) == s]))
            for s in steps}  # fmt: skip


def _check_best(run: Path, against: str = "random") -> int:
    """best.json names the first step of the highest score in eval.csv; its agent is that step's."""
    scores = _eval_scores(run, against)
    top = max(scores.values())
    first = min(s for s, v in scores.items() if v == top)
    best = json.loads((run / "best.json").read_text())
    assert best["step"] == first and best["score"] == pytest.approx(top)
    _arrays, meta = load_agent_numpy(run / "best_agent")
    assert meta.step == first
    return first


def _tiny_dmc(run: Path, **changes: Any) -> DMCConfig:
    base: dict[str, Any] = {"total_steps": 900, "num_games": 8, "rollout_steps": 8,
                            "hidden": 16, "layers": 1, "batch_size": 32, "buffer_size": 256,
                            "eval_every": 150, "eval_deals": 6, "eval_against": "random",
                            "keep_best": True, "epsilon": 0.3, "quiet": True,
                            "tensorboard": False, "checkpoint_every": 0,
                            "run_dir": str(run)}  # fmt: skip
    return DMCConfig.from_dict({**base, **changes})


def test_deep_monte_carlo_keeps_its_best_evaluation_across_a_resume(tmp_path: Path) -> None:
    whole = DMCTrainer(_tiny_dmc(tmp_path / "whole", eval_first=True))
    whole.train()
    best = _check_best(tmp_path / "whole")
    assert len(_eval_scores(tmp_path / "whole")) >= 4
    first = DMCTrainer(_tiny_dmc(tmp_path / "split", eval_first=True, total_steps=400))
    first.train()
    resumed = DMCTrainer(_tiny_dmc(tmp_path / "split", eval_first=True,
                                   resume=str(tmp_path / "split")))  # fmt: skip
    resumed.train()
    whole_scores, split_scores = _eval_scores(tmp_path / "whole"), _eval_scores(tmp_path / "split")
    assert len(set(whole_scores.values())) > 1  # the choice is not trivial
    # the stopped run adds its final evaluation at the stop; every other one is the same
    assert {s: v for s, v in split_scores.items() if s != first.step} == whole_scores
    assert _check_best(tmp_path / "split") == best or split_scores[first.step] >= max(
        whole_scores.values())  # fmt: skip


def test_ppo_keeps_its_best_evaluation_and_its_final_agent(tmp_path: Path) -> None:
    run = tmp_path / "run"
    ppo_train(PPOConfig(num_games=16, rollout_steps=8, total_steps=700, hidden=16, layers=1,
                        eval_deals=6, eval_every=128, snapshot_every=0, checkpoint_every=0,
                        tensorboard=False, quiet=True, threads=1, keep_best=True,
                        eval_against="random",
                        run_dir=str(run)))  # fmt: skip
    _check_best(run)
    assert load_agent_numpy(run / "agent")[1].step >= 700


def test_without_keep_best_nothing_more_is_written(tmp_path: Path) -> None:
    DMCTrainer(_tiny_dmc(tmp_path / "run", keep_best=False, total_steps=300)).train()
    assert not (tmp_path / "run" / "best_agent").exists()
    assert not (tmp_path / "run" / "best.json").exists()


def test_a_polyak_average_is_what_is_played_saved_and_resumed(tmp_path: Path) -> None:
    """``polyak``: the saved agent is the running average, not the trained weights; a stopped
    and resumed run ends with the same average and the same trained weights as one that never
    stopped; without it the saved agent is the trained network."""
    import torch

    tiny = {"eval_every": 0, "eval_against": "random", "polyak": 0.9}
    whole = DMCTrainer(_tiny_dmc(tmp_path / "whole", **tiny))
    whole.train()
    assert whole.avg is not None
    saved, _meta = load_agent_numpy(tmp_path / "whole" / "agent")
    trained, avg = whole.net.state_dict(), whole.avg.state_dict()
    assert all(np.array_equal(saved[k], avg[k].numpy()) for k in avg)
    assert not torch.equal(trained["actor.0.weight"], avg["actor.0.weight"])
    first = DMCTrainer(_tiny_dmc(tmp_path / "split", **{**tiny, "total_steps": 400}))
    first.train()
    resumed = DMCTrainer(_tiny_dmc(tmp_path / "split", **tiny, resume=str(tmp_path / "split")))
    assert resumed.avg is not None and first.avg is not None
    assert all(torch.equal(first.avg.state_dict()[k], resumed.avg.state_dict()[k]) for k in avg)
    resumed.train()
    assert all(torch.equal(avg[k], resumed.avg.state_dict()[k]) for k in avg)
    assert all(torch.equal(trained[k], resumed.net.state_dict()[k]) for k in trained)
    plain = DMCTrainer(_tiny_dmc(tmp_path / "plain", eval_every=0, total_steps=300))
    plain.train()
    assert plain.avg is None and plain.played is plain.net


def test_the_average_moves_one_minus_polyak_of_the_way_each_step(tmp_path: Path) -> None:
    import torch

    tr = DMCTrainer(_tiny_dmc(tmp_path / "run", polyak=0.75, total_steps=300))
    assert tr.avg is not None
    tr.replay.add(torch.rand(64, tr.net.obs_size), torch.zeros(64, dtype=torch.long),
                  torch.ones(64))  # fmt: skip
    before = {k: v.clone() for k, v in tr.avg.state_dict().items()}
    tr.credit = 1.0
    tr.update()
    after, net = tr.avg.state_dict(), tr.net.state_dict()
    for k in after:
        torch.testing.assert_close(after[k], 0.75 * before[k] + 0.25 * net[k])


def test_resume_refuses_another_polyak(tmp_path: Path) -> None:
    from cardsuite.errors import CheckpointError

    DMCTrainer(_tiny_dmc(tmp_path / "run", eval_every=0, total_steps=200)).train()
    with pytest.raises(CheckpointError, match="'polyak'"):
        DMCTrainer(_tiny_dmc(tmp_path / "run", polyak=0.5, resume=str(tmp_path / "run")))


def test_maskable_ppo_keeps_its_best_periodic_evaluation_too(tmp_path: Path) -> None:
    """The core's loop gives every trainer ``keep_best``; MaskablePPO's final report (other
    deals, after training) does not choose."""
    from cardsuite.train.sb3.trainer import train as sb3_train
    from tests.train.conftest import tiny_config

    result = sb3_train(tiny_config(total_steps=512, eval_every=128, eval_deals=6,
                                   keep_best=True), tmp_path / "run")  # fmt: skip
    scores = _eval_scores(tmp_path / "run")
    scores.pop(result.step)  # the final report's row
    top = max(scores.values())
    best = json.loads((tmp_path / "run" / "best.json").read_text())
    assert best["step"] == min(s for s, v in scores.items() if v == top) and len(scores) == 3
    assert load_agent_numpy(tmp_path / "run" / "best_agent")[1].step == best["step"]
