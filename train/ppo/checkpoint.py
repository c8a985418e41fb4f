"""Checkpoints and resume of the batched PPO trainer, on the core's writer and reader.

``RUN/checkpoint/`` holds::

    agent/                 the network (actor + critic): safe_io agent directory
    optimizer.safetensors  Adam's moments and step counts by parameter index
    league/<name>.safetensors   each league snapshot's actor weights
    run.safetensors        the games in flight (the engine's arrays), each
                           game's learner seat and league member
    anchor.safetensors     with ``anchor_coef``: the frozen actor and critic
                           that the KL penalty pulls towards
    state.json             step, iteration, schedule, the run's config, league
                           statistics, RNG states (numpy, torch, python), the
                           evaluation history and the files' checksums

Written by `cardsuite.train.core.checkpoint.write_checkpoint` (atomic, the
checksummed manifest) and read by its `read_checkpoint`. Resuming restores
the network, optimiser, league, schedule, generators and the games in
flight, so a resumed run continues where it stopped (engines whose state is
not all arrays deal fresh games instead). ``RUN/agent`` is the final agent
(``ppo:RUN/agent``).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cardsuite.agents.learned.safe_io import (
    AgentMeta,
    load_tensors,
    load_tensors_numpy,
    save_tensors,
)
from cardsuite.errors import CheckpointError
from cardsuite.train.core.checkpoint import (
    capture_rng,
    check_must_match,
    engine_state,
    finite,
    flatten_optimizer,
    gen_state,
    read_checkpoint,
    restore_engine_state,
    restore_optimizer,
    restore_rng,
    set_gen,
    write_checkpoint,
)
from cardsuite.train.core.duplicate import split_twin
from cardsuite.train.ppo.network import agent_meta, load_network, save_network

if TYPE_CHECKING:
    from cardsuite.train.ppo.trainer import Trainer

STATE_VERSION = 2
MUST_MATCH = ("game", "num_players", "options", "hidden", "layers", "activation", "num_games",
              "sizes", "features", "duplicate_baseline", "learner_seats")  # fmt: skip
_FILES = re.compile(
    r"agent/(weights\.safetensors|agent\.json)|optimizer\.safetensors|run\.safetensors"
    r"|league/snapshot@\d{1,15}\.safetensors|anchor\.safetensors"
)


def save_checkpoint(tr: Trainer) -> Path:
    """Write ``RUN/checkpoint`` atomically; its path."""

    def fill(tmp: Path) -> dict[str, Any]:
        save_network(tmp / "agent", tr.net, trainer_meta(tr))
        tensors, _groups = flatten_optimizer(tr.opt.state_dict())  # lr: set each iteration
        if tensors:
            save_tensors(tmp / "optimizer.safetensors", tensors)
        (tmp / "league").mkdir()
        for snap in tr.league.snapshots():
            save_tensors(tmp / "league" / f"snapshot@{snap.step}.safetensors", dict(snap.params))
        run: dict[str, Any] = {}
        saved = tr.xp.name == "numpy"
        for t in tr.tables:
            games = engine_state(t.eng) if saved else None
            saved = games is not None
            part = t.seat_state()
            twin = t.twin.state() if t.twin is not None and games is not None else None
            if t.twin is not None and twin is None:
                games, saved = None, False
            if games is not None:
                part.update(obs=t.obs, mask=t.mask, to_act=t.to_act, **games, **(twin or {}))
            run.update({t.key + k: v for k, v in part.items()})
        save_tensors(tmp / "run.safetensors", run)
        if tr.anchor is not None:
            save_tensors(tmp / "anchor.safetensors", dict(tr.anchor.state_dict()))
        return {
            "version": STATE_VERSION, "step": tr.step, "iteration": tr.iteration,
            "due": tr.due, "config": tr.args.to_dict(), "league": tr.league.state(),
            "leagues": {t.key: t.league.state() for t in tr.tables[1:]},
            "games_saved": saved,
            "rng": {"numpy": tr.rng.bit_generator.state, "torch": gen_state(tr.gen),
                    "torch_cpu": gen_state(tr.cpu_gen), "global": capture_rng()},
            "history": finite(tr.history),
        }  # fmt: skip

    return write_checkpoint(tr.run_dir, fill)


def load_checkpoint(tr: Trainer, path: Path) -> None:
    """Restore ``tr`` from the checkpoint at ``path`` (CheckpointError naming what is wrong)."""
    ckpt, state = read_checkpoint(path, lambda n: bool(_FILES.fullmatch(n)), "agent/, "
                                  "optimizer, run and league/*.safetensors")  # fmt: skip
    if state.get("version") != STATE_VERSION:
        raise CheckpointError(f"checkpoint {str(ckpt)!r}: unknown state.json version")
    try:
        check_must_match(state["config"], tr.args, MUST_MATCH)
        check_anchor(ckpt, state["config"], tr)
        net, _meta = load_network(ckpt / "agent")
        tr.net.load_state_dict(net.state_dict())
        opt_file = ckpt / "optimizer.safetensors"
        if opt_file.exists():  # checked against the optimizer; torch moves it to the device
            restore_optimizer(tr.opt, load_tensors(opt_file), None)
        tr.league.restore(state["league"], lambda name: load_tensors_numpy(
            ckpt / "league" / f"{Path(name).name}.safetensors"), tr.args.activation,
            tr.net.features)  # fmt: skip
        for t in tr.tables[1:]:
            t.league.restore(state["leagues"][t.key], lambda name: load_tensors_numpy(
                ckpt / "league" / f"{Path(name).name}.safetensors"), tr.args.activation,
            tr.net.features)  # fmt: skip
        tr.step, tr.iteration = int(state["step"]), int(state["iteration"])
        tr.due = {k: int(v) for k, v in state["due"].items()}
        rng = state["rng"]
        tr.rng.bit_generator.state = rng["numpy"]
        set_gen(tr.gen, rng["torch"])
        set_gen(tr.cpu_gen, rng["torch_cpu"])
        restore_rng(rng["global"])
        tr.history = list(state.get("history", []))
        run = load_tensors_numpy(ckpt / "run.safetensors")
        restore = bool(state.get("games_saved")) and tr.xp.name == "numpy"
        for t in tr.tables:
            k = t.key
            mine = {name[len(k):]: v for name, v in run.items() if name.startswith(k)
                    and (k or "/" not in name)}  # fmt: skip
            t.restore_seats(mine)
            mine, twin = split_twin(mine)
            if restore:
                t.obs, t.mask, t.to_act = mine.pop("obs"), mine.pop("mask"), mine.pop("to_act")
                restore_engine_state(t.eng, mine)
                if t.twin is not None:
                    t.twin.restore(twin)
        tr.games_restored = restore
    except (KeyError, TypeError, ValueError, RuntimeError) as err:
        raise CheckpointError(f"checkpoint {str(ckpt)!r}: cannot resume: {err}") from None


def check_anchor(ckpt: Path, saved: dict[str, Any], tr: Trainer) -> None:
    """Restore the anchor of ``anchor_coef``; a resume may change the coefficient, not
    whether there is one (the anchor is the actor as the run's PPO began)."""
    had = bool(saved.get("anchor_coef", 0.0))
    if had != bool(tr.args.anchor_coef):
        raise CheckpointError(
            f"checkpoint {str(ckpt)!r}: anchor_coef: the run was trained "
            f"{'with' if had else 'without'} an anchor; a resume cannot "
            f"{'drop' if had else 'add'} it"
        )
    if not had:
        return
    anchor = tr.frozen_copy()
    restore = load_tensors(ckpt / "anchor.safetensors")
    anchor.load_state_dict(restore)
    tr.anchor = anchor


def save_final_agent(tr: Trainer, name: str = "agent") -> Path:
    """Write the trained network as ``RUN/<name>`` (replacing an older one)."""
    out = tr.run_dir / name
    if out.exists():
        shutil.rmtree(out)
    save_network(out, tr.net, trainer_meta(tr))
    return out


def trainer_meta(tr: Trainer) -> AgentMeta:
    """The agent metadata of the run's network now (size-generic with ``sizes``: the rule
    options without a player count, ``network.layout: generic``)."""
    options = dict(tr.config)
    if tr.generic:
        options.pop("num_players", None)
    return agent_meta(tr.net, tr.game.name, options, tr.step, tr.args.to_dict(),
                      layout="generic" if tr.generic else "table")  # fmt: skip
