"""Checkpoints and resume of the batched PPO trainer, in the safe format only.

``RUN/checkpoint/`` holds::

    agent/                 the network (actor + critic): safe_io agent directory
    optimizer.safetensors  Adam's moments and step counts by parameter index
    league/<name>.safetensors   each league snapshot's actor weights
    state.json             step, iteration, schedule, the run's Args, league
                           statistics, RNG states (numpy, torch, python) and
                           the evaluation history

Nothing is pickled: tensors are safetensors and the rest is JSON. A new
checkpoint is written to a temporary folder and swapped in by renames, so a
crash never leaves the run without one. Resuming restores the network,
optimiser, league, schedule and generators; the games in flight are not
saved, so a resumed run deals fresh games (seeded by the iteration) and is
not bit-identical to an uninterrupted one. ``RUN/agent`` is the final agent
(``ppo:RUN/agent``).
"""

from __future__ import annotations

import base64
import json
import math
import os
import random
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from cardsuite.errors import CheckpointError
from cardsuite.train.actor_critic import ActorCritic, agent_meta, load_network, save_network
from cardsuite.train.safe_io import load_tensors, read_json_file, save_tensors

if TYPE_CHECKING:
    from cardsuite.train.ppo import Trainer

STATE_VERSION = 1
MUST_MATCH = ("game", "num_players", "options", "hidden", "layers", "activation", "num_games")


def _gen_state(gen: torch.Generator) -> str:
    return base64.b64encode(gen.get_state().numpy().tobytes()).decode("ascii")


def _set_gen(gen: torch.Generator, text: str) -> None:
    raw = np.frombuffer(base64.b64decode(text.encode("ascii")), dtype=np.uint8).copy()
    gen.set_state(torch.from_numpy(raw))


def _finite(x: Any) -> Any:
    """``x`` with every NaN or infinite float (an undefined statistic) as ``None`` (strict JSON)."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_finite(v) for v in x]
    return x


def save_checkpoint(tr: Trainer) -> Path:
    """Write ``RUN/checkpoint`` atomically; its path."""
    run = tr.args.out_dir()
    run.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".checkpoint-", dir=run))
    try:
        meta = agent_meta(tr.net, tr.game.name, tr.config, tr.step, tr.args.to_dict())
        save_network(tmp / "agent", tr.net, meta)
        opt_state = tr.opt.state_dict()["state"]
        tensors = {f"state.{i}.{k}": v for i, s in opt_state.items() for k, v in s.items()
                   if isinstance(v, torch.Tensor)}  # fmt: skip
        if tensors:
            save_tensors(tmp / "optimizer.safetensors", tensors)
        (tmp / "league").mkdir()
        members = []
        for m in tr.league.members:
            entry = {"name": m.name, "wins": m.wins, "games": m.games}
            if m.name.startswith("snapshot@"):
                save_tensors(tmp / "league" / f"{m.name}.safetensors",
                             m.policy.actor.state_dict())  # type: ignore[attr-defined]  # fmt: skip
            members.append(entry)
        py = random.getstate()
        state = {
            "version": STATE_VERSION, "step": tr.step, "iteration": tr.iteration,
            "due": tr.due, "args": tr.args.to_dict(), "league": members,
            "rng": {"numpy": tr.rng.bit_generator.state, "league": tr.league.rng.bit_generator.state,
                    "torch": _gen_state(tr.gen), "torch_cpu": _gen_state(tr.cpu_gen),
                    "python": [py[0], list(py[1]), py[2]]},
            "history": _finite(tr.history),
        }  # fmt: skip
        with open(tmp / "state.json", "w", encoding="utf-8") as fh:
            json.dump(state, fh, indent=1, allow_nan=False)
            fh.flush()
            os.fsync(fh.fileno())
        final, prev = run / "checkpoint", run / "checkpoint.prev"
        if prev.exists():
            shutil.rmtree(prev)
        if final.exists():
            os.replace(final, prev)
        os.replace(tmp, final)
        if prev.exists():
            shutil.rmtree(prev)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return run / "checkpoint"


def load_checkpoint(tr: Trainer) -> None:
    """Restore ``tr`` from ``RUN/checkpoint`` (CheckpointError naming what is wrong)."""
    ckpt = tr.args.out_dir() / "checkpoint"
    if not ckpt.is_dir():
        raise CheckpointError(f"resume: no checkpoint at {str(ckpt)!r}")
    state = read_json_file(ckpt / "state.json", f"checkpoint {str(ckpt)!r}: state.json")
    if not isinstance(state, dict) or state.get("version") != STATE_VERSION:
        raise CheckpointError(f"checkpoint {str(ckpt)!r}: unknown state.json version")
    try:
        saved = state["args"]
        for key in MUST_MATCH:
            was = saved.get(key, "scum") if key == "game" else saved[key]  # 0.2.0: Scum only
            if was != getattr(tr.args, key):
                raise CheckpointError(
                    f"resume: field {key!r} is {getattr(tr.args, key)!r} but the checkpoint "
                    f"was trained with {was!r}"
                )
        net, _meta = load_network(ckpt / "agent")
        tr.net.load_state_dict(net.state_dict())
        opt_file = ckpt / "optimizer.safetensors"
        if opt_file.exists():
            tensors = load_tensors(opt_file)
            sd = tr.opt.state_dict()
            per: dict[int, dict[str, Any]] = {}
            for name, value in tensors.items():
                _, idx, key = name.split(".", 2)
                per.setdefault(int(idx), {})[key] = value.to(tr.dev) if key != "step" else value
            sd["state"] = per
            tr.opt.load_state_dict(sd)
        by_name = {m.name: m for m in tr.league.members}
        for entry in state["league"]:
            name = entry["name"]
            if name.startswith("snapshot@"):
                actor = ActorCritic(net.obs_size, net.num_actions, tr.args.hidden, tr.args.layers,
                                    tr.args.activation).actor  # fmt: skip
                actor.load_state_dict(
                    load_tensors(ckpt / "league" / f"{Path(name).name}.safetensors")
                )
                member = tr.league.add_snapshot(actor.to(tr.dev), tr.scale, int(name.split("@")[1]))
            elif name in by_name:
                member = by_name[name]
            else:
                continue
            member.wins, member.games = float(entry["wins"]), float(entry["games"])
        tr.step, tr.iteration = int(state["step"]), int(state["iteration"])
        tr.due = {k: int(v) for k, v in state["due"].items()}
        rng = state["rng"]
        tr.rng.bit_generator.state = rng["numpy"]
        tr.league.rng.bit_generator.state = rng["league"]
        _set_gen(tr.gen, rng["torch"])
        _set_gen(tr.cpu_gen, rng["torch_cpu"])
        random.setstate((rng["python"][0], tuple(rng["python"][1]), rng["python"][2]))
        tr.history = list(state.get("history", []))
    except (KeyError, TypeError, ValueError, RuntimeError) as err:
        raise CheckpointError(f"checkpoint {str(ckpt)!r}: cannot resume: {err}") from None
    if tr.league.members and (~tr.selfplay).any():
        tr.opp[~tr.selfplay] = tr.league.draw(int((~tr.selfplay).sum()))


def save_final_agent(tr: Trainer) -> Path:
    """Write the trained network as ``RUN/agent`` (replacing an older one)."""
    out = tr.args.out_dir() / "agent"
    if out.exists():
        shutil.rmtree(out)
    meta = agent_meta(tr.net, tr.game.name, tr.config, tr.step, tr.args.to_dict())
    save_network(out, tr.net, meta)
    return out
