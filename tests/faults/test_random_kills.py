"""Runs killed at random moments and resumed, for every long job (issue 59, item 4).

Each trial starts a job as its own process, waits a random share of the time a
whole run takes (from the interpreter's first second to its last checkpoint
write), sends SIGKILL or SIGTERM (alternately), then does what a user does
next: ``--resume RUN`` (a trainer, or the same command again if the run folder
was never made) or the same command again (the leaderboard and a calibration,
whose finished pairs are in their checkpoint file). Each trial ends as

The warm start (imitation of the heuristic, and DAgger) is killed too: a run
checkpoints as soon as it is done, and a kill during it repeats it on resume.

* ``recovered``: the resumed job finished with what an uninterrupted run gives:
  the same weights where the trainer is deterministic (batched PPO, Deep
  Monte-Carlo), the same board (leaderboard, calibration), and otherwise (SB3,
  RLlib) an agent that loads and plays a game without an illegal move;
* ``named error``: the resume stopped with the project's named error (exit 2,
  ``error:`` and no traceback);
* ``lost``: anything else (a traceback, other weights, a lost pair). Never allowed.

A SIGTERM must also stop a working job gracefully (exit 130, inside a 30 s grace
period); one that arrives while the interpreter starts (nothing is written yet) or
exits (the run is complete) ends it as the system does.

``CARDSUITE_FAULT_TRIALS`` sets the trials per job over all eight jobs (without it: one
trial of five jobs, `BOUNDED`; the jobs take turns at the two signals),
``CARDSUITE_FAULT_TALLY`` a JSON-lines file that gets one line per job with the
counts (the figures of ``docs/training.md``). All slow: they run real processes.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.train.test_checkpoint_faults import DMC_FLAGS as DMC
from tests.train.test_checkpoint_faults import FLAGS as PPO

pytestmark = pytest.mark.slow

TRIALS = int(os.environ.get("CARDSUITE_FAULT_TRIALS", "1"))
SIGNALS = (signal.SIGKILL, signal.SIGTERM)
REPO = Path(__file__).resolve().parents[2]
GRACE_S = 30.0  # a scheduler's usual grace period between SIGTERM and SIGKILL
STOP_S: list[float] = []  # seconds from each SIGTERM to the job's exit
UNGRACEFUL: list[str] = []  # SIGTERMs that killed a working job at once (no exit 130)
#: ``python -m cardsuite.cli`` with a smaller calibration (3 deals per pair, 3 references).
SMALL_CALIBRATION = (
    "import sys; from cardsuite.agents.arena import evaluation as e; e.QUICK_DEALS = 3; "
    "e.reference_pool = lambda ds, quick=False, ismcts=None: ['random', 'greedy', 'heuristic']; "
    "from cardsuite.cli import main; sys.exit(main(sys.argv[1:]))"
)

WARM = ["--bc-steps", "3000", "--bc-games", "64", "--bc-epochs", "2"]  # an imitation first
SB3 = [f"--set={item}" for item in (
    "total_steps=1024", "rollout_steps=128", "batch_size=128", "update_epochs=1", "hidden=16",
    "eval_every=0", "final_eval_deals=2", "eval_against=random", "progress=false",
    "vec_env=dummy", "num_games=1", "checkpoint_every=256", "snapshot_every=256",
)]  # fmt: skip
RLLIB = {"game": "scum", "num_players": 4, "sampler": "batched", "num_env_runners": 0,
         "num_envs_per_env_runner": 16, "train_batch_size": 256, "minibatch_size": 128,
         "update_epochs": 1, "hidden": 16, "layers": 1, "eval_deals": 0, "eval_every": 0,
         "snapshot_every": 256, "checkpoint_every": 256, "total_steps": 1024}  # fmt: skip
LEADERBOARD = ["leaderboard", "scum", "--players", "4", "--agents", "random", "greedy",
               "heuristic", "ismcts-batched:budget=4", "--deals", "4", "--resamples", "0",
               "--no-progress", "--json", "board.json"]  # fmt: skip


@dataclass(frozen=True)
class Job:
    """A long job: how to start it in ``here``, resume it, and read what it produced."""

    name: str
    start: Callable[[Path], list[str]]
    resume: Callable[[Path], list[str]]
    result: Callable[[Path], Any]  # equal to the clean run's, or None where it cannot be
    check: Callable[[Path], None] = lambda _here: None  # a working result (non-deterministic)


def _cardsuite(*args: str) -> list[str]:
    return [sys.executable, "-m", "cardsuite.cli", *args]


def _weights(here: Path) -> bytes:
    return (here / "run" / "agent" / "weights.safetensors").read_bytes()


def _board(here: Path, name: str) -> Any:
    data = json.loads((here / name).read_text())
    data.pop("command", None)
    return data.get("leaderboard", data)


def _plays(game: str) -> Callable[[Path], None]:
    def check(here: Path) -> None:
        from cardsuite.agents.arena.tournament import run_tournament

        result = run_tournament(game, [f"ppo:{here / 'run'}", "random"], games=2, seed=1)
        assert sum(a.illegal_actions for a in result.agents) == 0

    return check


def _rllib_start(here: Path) -> list[str]:
    config = here / "rllib.yaml"
    config.write_text(json.dumps({**RLLIB, "run_dir": str(here / "run")}), encoding="utf-8")
    return _cardsuite("train", "--backend", "rllib", "--config", str(config))


JOBS = {
    "ppo": Job("ppo", lambda h: _cardsuite("ppo", "--run-dir", str(h / "run"), *PPO),
               lambda h: _cardsuite("ppo", "--resume", str(h / "run")), _weights),
    "ppo warm start": Job("ppo warm start",
                          lambda h: _cardsuite("ppo", "--run-dir", str(h / "run"), *PPO, *WARM,
                                               "--bc-dagger", "1"),
                          lambda h: _cardsuite("ppo", "--resume", str(h / "run")), _weights),
    "dmc warm start": Job("dmc warm start",
                          lambda h: _cardsuite("dmc", "--run-dir", str(h / "run"), *DMC, *WARM),
                          lambda h: _cardsuite("dmc", "--resume", str(h / "run")), _weights),
    "dmc": Job("dmc", lambda h: _cardsuite("dmc", "--run-dir", str(h / "run"), *DMC),
               lambda h: _cardsuite("dmc", "--resume", str(h / "run")), _weights),
    "sb3": Job("sb3", lambda h: _cardsuite("train", "--config", "configs/train/scum_quick.yaml",
                                           "--out", str(h / "run"), *SB3),
               lambda h: _cardsuite("train", "--resume", str(h / "run")),
               lambda _h: None, _plays("scum")),
    "rllib": Job("rllib", _rllib_start,
                 lambda h: _cardsuite("train", "--backend", "rllib", "--resume", str(h / "run")),
                 lambda _h: None, _plays("scum")),
    "leaderboard": Job("leaderboard", lambda _h: _cardsuite(*LEADERBOARD),
                       lambda _h: _cardsuite(*LEADERBOARD), lambda h: _board(h, "board.json")),
    "calibration": Job(
        "calibration",
        lambda h: [sys.executable, "-c", SMALL_CALIBRATION, "benchmark", "--calibrate", "--game",
                   "scum", "--players", "4", "--quick", "--resamples", "20", "--no-progress",
                   "--out", str(h / "out")],
        lambda h: [sys.executable, "-c", SMALL_CALIBRATION, "benchmark", "--calibrate", "--game",
                   "scum", "--players", "4", "--quick", "--resamples", "20", "--no-progress",
                   "--out", str(h / "out")],
        lambda h: _board(h, "out/calibration.json"),
    ),
}  # fmt: skip


def _run(argv: list[str], here: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=here, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip


def _outcome(done: subprocess.CompletedProcess[str], job: Job, here: Path, clean: Any) -> str:
    """``recovered``, ``named error`` or ``lost`` (with the reason)."""
    if done.returncode == 2 and "already" in done.stderr:  # it was killed as it exited
        return "recovered" if _result(job, here) == clean else "lost: a result cut short"
    if "Traceback" in done.stderr:
        return f"lost: a traceback\n{done.stderr[-3000:]}"
    if done.returncode == 2 and "error:" in done.stderr:
        return f"named error: {done.stderr.strip().splitlines()[-1]}"
    if done.returncode != 0:
        return f"lost: exit {done.returncode}\n{done.stderr[-3000:]}"
    if job.result(here) != clean:
        return "lost: not what an uninterrupted run gives"
    job.check(here)
    return "recovered"


def _result(job: Job, here: Path) -> Any:
    try:
        return job.result(here)
    except (OSError, ValueError) as err:
        return f"unreadable: {err}"


def _trial(job: Job, here: Path, clean: Any, whole_s: float, k: int) -> str:
    """Kill ``job`` at a random moment of its run, resume it; the outcome."""
    here.mkdir()
    sig = SIGNALS[(k + list(JOBS).index(job.name)) % len(SIGNALS)]
    delay = random.Random(f"{job.name}{k}").uniform(0.05, 1.0) * whole_s
    proc = subprocess.Popen(job.start(here), cwd=here, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
    time.sleep(delay)
    sent = time.monotonic()
    if proc.poll() is None:
        proc.send_signal(sig)
    proc.communicate(timeout=120)
    if sig == signal.SIGTERM:
        STOP_S.append(time.monotonic() - sent)
    started = any(here.glob("run")) or any(here.glob("leaderboard-*")) or any(here.glob("out/*"))
    finished = _result(job, here) == clean and (
        clean is not None or (here / "run" / "agent" / "agent.json").is_file()
    )  # a SIGTERM while the interpreter exits, the job done
    if sig == signal.SIGTERM and proc.returncode not in (0, 130) and started and not finished:
        UNGRACEFUL.append(f"{job.name}: SIGTERM ended it with {proc.returncode}")
    started = started or job.name in ("leaderboard", "calibration")
    again = job.resume(here) if started else job.start(here)
    return _outcome(_run(again, here), job, here, clean)


#: The jobs of a run without CARDSUITE_FAULT_TRIALS (CI): the warm starts and DMC are also
#: held by tests/train/test_run_faults.py and test_checkpoint_faults.py, in process.
BOUNDED = ("ppo", "sb3", "rllib", "leaderboard", "calibration")


@pytest.mark.parametrize("name", list(JOBS) if "CARDSUITE_FAULT_TRIALS" in os.environ else BOUNDED)
def test_a_job_killed_at_random_moments_loses_nothing(name: str, tmp_path: Path) -> None:
    if name == "rllib":
        pytest.importorskip("ray.rllib", reason="ray[rllib] is not installed")
    job = JOBS[name]
    clean_dir = tmp_path / "clean"
    clean_dir.mkdir()
    began = time.monotonic()
    done = _run(job.start(clean_dir), clean_dir)
    whole_s = time.monotonic() - began
    assert done.returncode == 0, done.stderr
    clean = job.result(clean_dir)
    STOP_S.clear()
    UNGRACEFUL.clear()
    outcomes = [_trial(job, tmp_path / f"t{k}", clean, whole_s, k) for k in range(TRIALS)]
    tally: dict[str, Any] = {kind: sum(o.startswith(kind) for o in outcomes)
                             for kind in ("recovered", "named error", "lost")}  # fmt: skip
    tally["sigterm_to_exit_max_s"] = round(max(STOP_S, default=0.0), 2)
    tally["sigterm_ungraceful"] = len(UNGRACEFUL)
    print(f"{name}: {TRIALS} trials over {whole_s:.1f} s runs: {tally}")
    print(*(o for o in outcomes if not o.startswith("recovered")), sep="\n")
    if os.environ.get("CARDSUITE_FAULT_TALLY"):
        with open(os.environ["CARDSUITE_FAULT_TALLY"], "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"job": name, "trials": TRIALS, "run_s": whole_s, **tally}) + "\n")
    assert tally["lost"] == 0, [o for o in outcomes if o.startswith("lost")]
    assert tally["sigterm_to_exit_max_s"] < GRACE_S
    assert not UNGRACEFUL, UNGRACEFUL
