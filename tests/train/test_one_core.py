"""Every trainer plays its opponents from the core League and is judged by the core evaluator.

By behaviour, not by reading source: the core's `duplicate_match` (which
both `evaluate_against` and `evaluate_specs` call) and the core League's
methods are replaced by recording stand-ins, then batched PPO, Deep
Monte-Carlo and MaskablePPO (per-game and batched VecEnv) each run a tiny
training (every trainer on the core's scheduler, `TrainLoop`). Each must evaluate through the stand-in, against its baselines, and
must draw its opponents from a core League and report every finished game's
outcome back to it (issue 20). A trainer with its own evaluator or opponent
pool would leave the stand-ins uncalled.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cardsuite.train.core import evaluate, league, loop
from tests.train.conftest import tiny_config

Calls = dict[str, list[Any]]


@pytest.fixture
def core_calls(monkeypatch: pytest.MonkeyPatch) -> Calls:
    """Record every call to the core evaluator and to the core League."""
    calls: Calls = {"duel": [], "record": [], "act": [], "seat_table": [], "run_schedules": []}

    def duel(policy_a: Any, policy_b: Any, *, deals: int, seed: int, game: str = "scum",
             **config: Any) -> evaluate.DuelResult:  # fmt: skip
        calls["duel"].append((game, type(policy_a).__name__, type(policy_b).__name__, deals))
        return evaluate.DuelResult(deals, 0.25, 0.0, 0.0, 0.0, 0.0, 0.0)

    monkeypatch.setattr(evaluate, "duplicate_match", duel)

    def spy(cls: type, name: str) -> None:
        real: Callable[..., Any] = getattr(cls, name)

        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            calls[name].append(self)
            return real(self, *args, **kwargs)

        monkeypatch.setattr(cls, name, wrapper)

    for name in ("record", "act", "seat_table"):
        spy(league.League, name)
    spy(loop.TrainLoop, "run_schedules")  # every trainer's one scheduler
    return calls


def _judged_by_the_core(calls: Calls, result_rows: list[Any], opponents: set[str]) -> None:
    assert calls["duel"], "the trainer did not evaluate through the core's duplicate_match"
    assert {game for game, *_ in calls["duel"]} == {"scum"}
    rows = [r if isinstance(r, dict) else r.to_dict() for r in result_rows]
    assert {r["against"] for r in rows} == opponents
    assert all(r["beats"] == 0.25 for r in rows)  # the stand-in's answer, not another evaluator's


def _played_the_core_league(calls: Calls, *uses: str) -> None:
    for use in ("record", *uses):
        assert calls[use], f"the trainer never called League.{use}"
        assert all(type(x) is league.League for x in calls[use])


def test_batched_ppo(core_calls: Calls, tmp_path: Path) -> None:
    from cardsuite.train.ppo.config import PPOConfig
    from cardsuite.train.ppo.trainer import train

    args = PPOConfig(num_games=32, rollout_steps=8, total_steps=400, hidden=16, layers=1,
                     eval_deals=8, eval_every=0, snapshot_every=0, checkpoint_every=0,
                     tensorboard=False, quiet=True, threads=1, self_play=0.0,
                     baselines="heuristic,random", eval_against="heuristic,random",
                     run_dir=str(tmp_path / "run"))  # fmt: skip
    result = train(args)
    _judged_by_the_core(core_calls, result["eval"], {"heuristic", "random"})
    _played_the_core_league(core_calls, "act")
    assert core_calls["run_schedules"], "the trainer's loop is not the core's TrainLoop"


def test_deep_monte_carlo(core_calls: Calls, tmp_path: Path) -> None:
    from cardsuite.train.dmc.config import DMCConfig
    from cardsuite.train.dmc.trainer import train

    args = DMCConfig.from_dict({"total_steps": 1000, "num_games": 16, "rollout_steps": 16,
                                "hidden": 16, "layers": 1, "batch_size": 64,
                                "buffer_size": 2048, "eval_every": 0, "eval_deals": 4,
                                "quiet": True, "tensorboard": False, "eval_against": "heuristic,random",
                                "run_dir": str(tmp_path / "run")})  # fmt: skip
    result = train(args)
    _judged_by_the_core(core_calls, result["eval"], {"heuristic", "random"})
    _played_the_core_league(core_calls, "act")
    assert core_calls["run_schedules"], "the trainer's loop is not the core's TrainLoop"


@pytest.mark.parametrize("vec_env", ["dummy", "batched"])
def test_maskable_ppo(core_calls: Calls, tmp_path: Path, vec_env: str) -> None:
    from cardsuite.train.sb3.trainer import train

    sizes = {"num_games": 8, "rollout_steps": 16, "batch_size": 64} if vec_env == "batched" else {}
    config = tiny_config(vec_env=vec_env, eval_against="random,heuristic", **sizes)
    result = train(config, tmp_path / "run")
    _judged_by_the_core(core_calls, result.report, {"random", "heuristic"})
    # the learner's checkpoint, as an arena agent, against each baseline's spec
    assert {(a, b) for _, a, b, _ in core_calls["duel"]} <= {
        ("GreedyPolicy", "RandomPolicy"),
        ("GreedyPolicy", "BatchedScumHeuristic"),
    }
    _played_the_core_league(core_calls, "seat_table")
    assert core_calls["run_schedules"], "MaskablePPO's boundaries are not the core's TrainLoop"
