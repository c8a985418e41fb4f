"""Trained steps per second: the batched PPO trainer beside the MaskablePPO paths, in one run.

A *trained step* is one learner decision through a rollout and the PPO update (Scum 4p,
128x2 tanh MLPs): ``batched_ppo``, ``maskable_batched`` (``scum_batched.yaml``) and
``maskable_per_game`` (``scum_quick.yaml``), each for about ``--seconds`` of whole
iterations, setup excluded::

    python -m benchmarks.train_bench --seconds 20 --out train_bench.json
"""

from __future__ import annotations

import argparse
import json
import platform
import tempfile
import time
from collections.abc import Sequence
from typing import Any

import torch


def bench_batched_ppo(
    seconds: float, games: int, rollout: int, device: str, threads: int, self_play: float,
    game: str = "scum", players: int = 4,
) -> dict[str, Any]:  # fmt: skip
    """Whole PPO iterations of `cardsuite.train.ppo.trainer.Trainer` for about ``seconds``."""
    from cardsuite.train.ppo.config import PPOConfig
    from cardsuite.train.ppo.trainer import Trainer, ppo_update

    with tempfile.TemporaryDirectory() as d:
        args = PPOConfig(game=game, num_players=players, num_games=games, rollout_steps=rollout, device=device, threads=threads,
                    self_play=self_play, snapshot_every=0, eval_every=0, checkpoint_every=0,
                    tensorboard=False, quiet=True, run_dir=d, total_steps=10**12)  # fmt: skip
        tr = Trainer(args)
        tr.rollout()  # warm-up iteration (allocations, first-call costs)
        steps0, roll, upd, iters = tr.step, 0.0, 0.0, 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds or iters < 2:
            a = time.perf_counter()
            tr.rollout()
            adv, ret = tr.buf.advantages(args.gamma, args.gae_lambda)
            data = tr.buf.flat(adv, ret)
            b = time.perf_counter()
            ppo_update(tr.net, tr.opt, data, args, tr.cpu_gen)
            if device.startswith("cuda"):
                torch.cuda.synchronize()
            c = time.perf_counter()
            roll, upd, iters = roll + b - a, upd + c - b, iters + 1
        steps = tr.step - steps0
        total = roll + upd
    return {"path": f"batched_ppo({game} {players}p, self_play={self_play})", "games": games, "rollout": rollout,
            "iterations": iters, "steps": steps, "seconds": total,
            "trained_steps_per_s": steps / total, "rollout_steps_per_s": steps / roll,
            "update_share": upd / total}  # fmt: skip


def bench_maskable(seconds: float, preset: str) -> dict[str, Any]:
    """SB3 MaskablePPO ``learn`` on a preset's vec env, whole rollouts, about ``seconds``."""
    from cardsuite.train.sb3.config import TrainConfig
    from cardsuite.train.sb3.trainer import build_model, make_vec_env

    doc = {"scum_quick": {"num_games": 2, "vec_env": "auto", "rollout_steps": 1024},
           "scum_batched": {"num_games": 64, "vec_env": "batched", "rollout_steps": 32}}[preset]  # fmt: skip
    config = TrainConfig.from_dict({"game": "scum", "num_players": 4, "options": {"reward": "centered"},
                                    "batch_size": 512, "update_epochs": 4, "hidden": 128,
                                    "layers": 2, "gamma": 0.99, "opponent_random": 0.5,
                                    "opponent_heuristic": 0.5, "opponent_snapshot": 0.0,
                                    "progress": False, **doc})  # fmt: skip
    venv = make_vec_env(config, [])
    try:
        model = build_model(config, venv)
        per_rollout = config.num_games * config.rollout_steps
        model.learn(per_rollout)  # warm-up
        t0 = time.perf_counter()
        done = 0
        while time.perf_counter() - t0 < seconds or done < 2 * per_rollout:
            model.learn(per_rollout, reset_num_timesteps=False)
            done += per_rollout
        took = time.perf_counter() - t0
    finally:
        venv.close()
    return {"path": f"maskable_{'per_game' if preset == 'scum_quick' else 'batched'}",
            "preset": preset, "steps": done, "seconds": took,
            "trained_steps_per_s": done / took}  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print (and optionally save) the table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=20.0, help="time per path")
    p.add_argument("--games", type=int, default=1024, help="games of the batched trainer")
    p.add_argument("--rollout", type=int, default=32, help="rollout steps of the batched trainer")
    p.add_argument("--device", default="cpu", help="torch device of the batched trainer")
    p.add_argument("--threads", type=int, default=0,
                   help="torch threads (0: torch's default, one per core)")  # fmt: skip
    p.add_argument("--game", default="scum", help="game of the batched trainer rows")
    p.add_argument("--players", type=int, default=4, help="players of the batched trainer rows")
    p.add_argument("--skip-sb3", action="store_true", help="only the batched trainer")
    p.add_argument("--out", help="write the results as JSON")
    a = p.parse_args(argv)
    if a.threads:
        torch.set_num_threads(a.threads)
    rows = [bench_batched_ppo(a.seconds, a.games, a.rollout, a.device, a.threads, share,
                              a.game, a.players) for share in (1.0, 0.5)]  # fmt: skip
    if not a.skip_sb3 and (a.game, a.players) == ("scum", 4):
        rows += [bench_maskable(a.seconds, "scum_batched"), bench_maskable(a.seconds, "scum_quick")]
    info = {"machine": platform.processor() or platform.machine(), "torch": torch.__version__,
            "threads": torch.get_num_threads(), "device": a.device}  # fmt: skip
    print(f"trained steps/s, 128x2 MLP ({info})")
    for r in rows:
        print(f"  {r['path']:<44} {r['trained_steps_per_s']:>10,.0f}   ({r['steps']:,} steps "
              f"in {r['seconds']:.1f} s)")  # fmt: skip
    if a.out:
        with open(a.out, "w", encoding="utf-8") as fh:
            json.dump({"info": info, "rows": rows}, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
