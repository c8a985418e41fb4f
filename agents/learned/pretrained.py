"""Reference agents shipped inside the package: ``pretrained:NAME`` (e.g. ``pretrained:scum4``).

Each is a safe agent directory (``weights.safetensors`` + ``agent.json``,
`cardsuite.agents.learned.safe_io`) under ``cardsuite/train/pretrained/NAME/``,
installed as package data, and plays exactly like ``ppo:PATH`` on that
directory ([`PPOAgent`][cardsuite.agents.learned.policy.PPOAgent]: the most likely legal
action of the actor, a numpy forward pass). Loading reads safetensors with
numpy only: **torch is not needed** to play a pretrained agent, and
``safetensors`` is a core dependency, so ``pip install cardsuite`` plays them.

`CATALOGUE` lists every shipped agent with the one command that
reproduces it and its measured strength (``docs/results.md``).
The kind is registered through the ``cardsuite.agents`` entry-point group
(`PRETRAINED`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cardsuite.agents.kinds import AgentKind
from cardsuite.errors import CardsuiteError, ConfigError

ROOT = Path(__file__).resolve().parent / "models"

#: name -> (the game it plays, its doc line: how it was made)
CATALOGUE: dict[str, tuple[str, str]] = {
    "scum4": (
        "scum",
        "Scum, 4 players, default rules; Deep Monte-Carlo warm-started on the heuristic, "
        "12.76M decisions (7 minutes, the preset's budget then, on this run; float16 Q-network): "
        "cardsuite dmc --config configs/train/dmc_scum4.yaml --seed 1 --budget-minutes 0 "
        "--total-steps 12760309",
    ),
    "scum6": (
        "scum",
        "Scum, 6 players, default rules; Deep Monte-Carlo warm-started on the heuristic, "
        "3.15M decisions (the preset's 7-minute budget on a busy machine; float16 Q-network): "
        "cardsuite dmc --config configs/train/dmc_scum6.yaml --seed 0 --budget-minutes 0 "
        "--total-steps 3150413",
    ),
    "party8": (
        "scum_party",
        "Scum Party, trained at 8 players (one table, tournaments of 5 hands); any-table (it "
        "sits at any party of 5-50 players through its projection, network.layout: "
        "projected); batched PPO with "
        "card-counting inputs, warm-started on the heuristic with three DAgger rounds, then "
        "10.38M decisions (the preset's 20 minutes) of PPO with Monte-Carlo advantages against "
        "the heuristic, seed 2 of three: 66.25% of 400 unseen duplicate deals against the "
        "heuristic (seed 2,000,003), 61.75% of 400 of the trainer's evaluation seed; a "
        "specialist elsewhere (200 unseen deals: 30.25% at 5 players, 23.25% at 13, 46.25% at "
        "20, 33.75% at 50): "
        "cardsuite ppo --config configs/train/ppo_party8.yaml --seed 2 --budget-minutes 0 "
        "--total-steps 10384623, shipped with "
        "python -m cardsuite.agents.learned.pretrained RUN/agent party8 --any-table",
    ),
    "scandal2": (
        "scandal",
        "Scandal, trained at 2 players, default rules, on the size-generic layout (it sits at "
        "any Scandal table of 2-6 players); batched PPO warm-started on the heuristic, every "
        "game at 2 players, 5.33M decisions (30 minutes of PPO, the preset's budget until "
        "2026-12-06), seed 0 of three (the first trained; not chosen by its score), float16 "
        "actor; against the heuristic on "
        "unseen duplicate deals 86.0% of 400 at 2 players (arena 79.6%), 79%, 71.5%, 63% and "
        "59.5% of 200 at 3-6: "
        "cardsuite ppo --config configs/train/ppo_scandal2_generic.yaml --seed 0 "
        "--budget-minutes 0 --total-steps 5330000, shipped with "
        "python -m cardsuite.agents.learned.pretrained RUN/agent scandal2 --half; its critic (for the "
        "value leaves of search:pretrained:scandal2) fitted to that actor afterwards, 1.5M "
        "decisions of self-play with the actor frozen (float16): "
        "cardsuite ppo --config configs/train/ppo_scandal2_generic_critic.yaml --seed 0, then "
        "python -m cardsuite.agents.learned.pretrained RUN/agent scandal2 --critic",
    ),
    "scandal2_table": (
        "scandal",
        "Scandal, trained at 2 players, default rules (shipped as scandal2 until "
        "2026-12-05); any-table (it sits at 3-6 players through its projection, "
        "network.layout: projected); batched PPO warm-started on the heuristic, 8M "
        "decisions (float16 actor; against the heuristic on 200 unseen duplicate deals 71.0% "
        "at 2 players, 49.5-62% at 3-6): "
        "git checkout 5f16b60 && pip install -e '.[train]' && "
        "cardsuite ppo --config configs/train/ppo_scandal2.yaml --seed 1 (the trainer of "
        "2026-12-01, which gives these weights bit for bit; today's samples its snapshots' "
        "moves with numpy, so from the first snapshot, at 307,247 decisions, it follows another "
        "run, to a network as strong: docs/results.md), shipped with today's "
        "python -m cardsuite.agents.learned.pretrained RUN/agent scandal2_table --half --any-table; its "
        "critic (for the value leaves of search:pretrained:scandal2_table) fitted to that "
        "actor afterwards, 1.5M decisions of self-play with the actor frozen (float16): "
        "cardsuite ppo --config configs/train/ppo_scandal2_critic.yaml --seed 0, then "
        "python -m cardsuite.agents.learned.pretrained RUN/agent scandal2_table --critic",
    ),
    "party20": (
        "scum_party",
        "Scum Party, 20 players (two tables), on the size-generic layout (it sits at any "
        "party of 5-50 players); batched PPO with card-counting inputs, warm-started on the "
        "heuristic at 20 players with three DAgger rounds, then 6.25M decisions (the "
        "preset's 22 minutes) of PPO with Monte-Carlo advantages over 1024-step rollouts, the "
        "learner in 2 seats of each game against the heuristic, seed 0 of three (the first "
        "trained; not chosen by its score), "
        "float16 actor; against the heuristic on 400 unseen duplicate deals (seed 2,000,003) "
        "65.75% at 20 players, but 41.4% at 8 and 37.6% at 50 (a specialist: party_generic "
        "plays every size): "
        "cardsuite ppo --config configs/train/ppo_party20.yaml --seed 0 "
        "--budget-minutes 0 --total-steps 6253375",
    ),
    "party50": (
        "scum_party",
        "Scum Party, 50 players (four tables), on the size-generic layout (it sits at any "
        "party of 5-50 players); batched PPO with card-counting inputs, warm-started on the "
        "heuristic at 50 players with three DAgger rounds, then 5.91M decisions (the "
        "preset's 22 minutes) of PPO with Monte-Carlo advantages over 2560-step rollouts, the "
        "learner in 5 seats of each game against the heuristic, seed 0 of three (the first "
        "trained; not chosen by its score), "
        "float16 actor; against the heuristic on 400 unseen duplicate deals (seed 2,000,003) "
        "61.75% at 50 players, but 43.0% at 20 and 35.75% at 8 (a specialist: party_generic "
        "plays every size): "
        "cardsuite ppo --config configs/train/ppo_party50.yaml --seed 0 "
        "--budget-minutes 0 --total-steps 5911041",
    ),
    "party_generic": (
        "scum_party",
        "Scum Party, any party of 5-50 players, ONE size-generic network trained at 5, 8, 20 "
        "and 50 together (shipped as party20 and party50 until 2026-12-05); batched PPO "
        "warm-started on the heuristic (cross-entropy with card-counting inputs and three "
        "DAgger rounds, plus one PPO iteration), then 1.64M decisions of PPO with Monte-Carlo "
        "advantages (8 minutes), seed 2 of three, float16 actor; 53.75% of 200 unseen "
        "duplicate deals against the heuristic at 8 players, 57.25% at 20, 49.75% at 50: "
        "cardsuite ppo --config configs/train/ppo_party_generic.yaml --seed 2 --total-steps 1 "
        "--budget-minutes 0 --set rollout_steps=64 --set gae_lambda=0.95 --set ent_coef=0.01 "
        "--set critic_warmup=0 --run-dir WARM, then "
        "cardsuite ppo --config configs/train/ppo_party_generic.yaml --init WARM/agent "
        "--set bc_steps=0 --set bc_dagger=0 --seed 2 --budget-minutes 0 --total-steps 1637107",
    ),
    "scandal4": (
        "scandal",
        "Scandal, any player count 2-6 (size-generic: trained at 2-6 together), default "
        "rules; batched PPO warm-started on the heuristic, 2.70M decisions, seed 0, float16 "
        "actor (re-shipped on 2026-12-05 from this command: the weights shipped before it "
        "were not given again by any committed trainer); against the heuristic on unseen "
        "duplicate deals (seed 2,000,003) 74.25%, 63.5%, 64%, 63% and 55.5% of 200 at 2-6 "
        "players, 57.75% of 400 at 4: "
        "cardsuite ppo --config configs/train/ppo_scandal_generic.yaml --seed 0 "
        "--budget-minutes 0 --total-steps 2689466 (it stops at 2,697,931 decisions), "
        "shipped with python -m cardsuite.agents.learned.pretrained RUN/agent scandal4 --half",
    ),
}

#: names that play another name's shipped folder (the same weights under a second name)
SHARED: dict[str, str] = {}

PRETRAINED = AgentKind(
    "pretrained",
    "cardsuite.agents.learned.pretrained:PretrainedAgent",
    f"a reference agent shipped with the package: pretrained:NAME ({', '.join(CATALOGUE)})",
    argument="name",
)


def _folder(name: str) -> Path:
    return ROOT / SHARED.get(name, name)


def agent_dir(name: str) -> Path:
    """The shipped agent directory of ``name`` (`SHARED` names share one); ConfigError naming
    the known ones."""
    if name not in CATALOGUE or not (_folder(name) / "agent.json").is_file():
        known = ", ".join(n for n in CATALOGUE if (_folder(n) / "agent.json").is_file())
        raise ConfigError(f"no pretrained agent {name!r}; shipped: {known or 'none'}")
    return _folder(name)


class PretrainedAgent:
    """Namespace of the ``pretrained:`` kind: `load` builds the agent."""

    @classmethod
    def available(cls, game: str, options: dict[str, Any]) -> list[str]:
        """Shipped agents trained for ``game`` with these rule options (e.g. the player count).

        A size-generic agent records no player count, and an any-table one
        (``network.layout: projected``) sits at every count, so both are
        available at every size.
        """
        from cardsuite.agents.learned.safe_io import read_meta

        names = []
        for name, (trained_on, _doc) in CATALOGUE.items():
            if trained_on != game or not (_folder(name) / "agent.json").is_file():
                continue
            meta = read_meta(_folder(name))
            free = ("num_players",) if meta.network.layout == "projected" else ()
            if all(meta.options.get(k, v) == v for k, v in options.items() if k not in free):
                names.append(name)
        return names

    @classmethod
    def folder(cls, name: str) -> Path:
        """The shipped folder ``name`` plays (`agent_dir`; ConfigError for an unknown name)."""
        return agent_dir(name)

    @classmethod
    def shares(cls, name: str) -> str | None:
        """The name whose shipped weights ``name`` plays (`SHARED`), or None for its own."""
        return SHARED.get(name)

    @classmethod
    def load(cls, name: str | Path, game: str | None = None, seed: int | None = None) -> Any:
        """The shipped agent ``name`` (a `PPOAgent`, or a `SizeGenericAgent` if it is one)."""
        from cardsuite.agents.learned.size_generic import TrainedAgent

        key = str(name)
        agent = TrainedAgent.load(agent_dir(key), game, seed)
        agent.name = f"pretrained:{key}"
        return agent


def ship(
    source: str | Path, name: str, *, half: bool = False, any_table: bool = False,
    root: Path = ROOT,
) -> Path:  # fmt: skip
    """Copy the actor of the trained agent ``source`` into the package as ``pretrained:name``.

    Only the actor's layers are kept (the critic is not needed to play);
    ``half`` stores them as float16 (the numpy forward pass computes in
    float32), which keeps a Scandal network (864 inputs, 338 actions) at a
    few hundred KB. The metadata (game, options, network, training config)
    is the source's; ``any_table`` marks a table-sized network
    ``network.layout: projected`` (`cardsuite.agents.learned.any_table`: it plays its
    own table exactly as before and takes a seat at every other size of its
    game). The target must not exist yet.

    Raises:
        CheckpointError: ``any_table`` for a network that is not table-sized,
            or of a game without a size-generic layout.
    """
    import numpy as np

    from cardsuite.agents.learned.safe_io import load_agent_numpy, save_agent

    arrays, meta = load_agent_numpy(source)
    if any_table:
        from cardsuite.agents.learned.any_table import as_projected

        meta = as_projected(meta, f"agent {str(source)!r}")
    keep = {f"{p}.{k}" for p in meta.network.actor for k in ("weight", "bias")}
    dtype = np.float16 if half else np.float32
    actor = {k: np.ascontiguousarray(v, dtype=dtype) for k, v in arrays.items() if k in keep}
    return save_agent(root / name, actor, meta)


def add_critic(source: str | Path, name: str, *, root: Path = ROOT) -> Path:
    """Add the critic of the trained agent ``source`` to the shipped ``pretrained:name``.

    ``source`` must hold the shipped actor itself (a run started with
    ``init: pretrained:NAME`` and ``critic_warmup`` above its steps, which
    leaves the actor exactly as it was): a critic fitted to another policy
    would misjudge this one, so a differing actor is refused. The critic is
    stored in the actor's dtype; the metadata keeps the shipped agent's and
    records the critic's training config as ``config["critic"]``. The shipped
    folder is replaced through a temporary sibling.

    Raises:
        CheckpointError: ``source``'s actor is not the shipped one, it has no
            critic, or the shipped agent has one already.
    """
    import dataclasses
    import shutil

    import numpy as np

    from cardsuite.agents.learned.safe_io import load_agent_numpy, save_agent
    from cardsuite.errors import CheckpointError

    target = root / name
    shipped, meta = load_agent_numpy(target)
    arrays, source_meta = load_agent_numpy(source)
    if any(k.startswith("critic.") for k in shipped):
        raise CheckpointError(f"pretrained:{name} has a critic already")
    critic = {k: v for k, v in arrays.items() if k.startswith("critic.")}
    if not critic:
        raise CheckpointError(f"{str(source)!r} has no critic (critic.* tensors)")
    for k, v in shipped.items():
        if k not in arrays or not np.array_equal(np.asarray(arrays[k], v.dtype), v):
            raise CheckpointError(
                f"{str(source)!r}: {k} differs from pretrained:{name}'s; its critic was "
                "fitted to another actor (train it with init: pretrained:NAME and "
                "critic_warmup above total_steps)"
            )
    dtype = next(iter(shipped.values())).dtype
    tensors = {**shipped, **{k: np.ascontiguousarray(v, dtype=dtype) for k, v in critic.items()}}
    config = {**meta.config, "critic": {**source_meta.config, "step": source_meta.step}}
    new = dataclasses.replace(meta, config=config)
    tmp = target.with_name(f".{name}.critic-tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    save_agent(tmp, tensors, new)
    tmp.chmod(target.stat().st_mode)  # the shipped folder's permissions, not the temporary's
    for file in tmp.iterdir():
        file.chmod((target / file.name).stat().st_mode)
    old = target.with_name(f".{name}.old")
    shutil.rmtree(old, ignore_errors=True)
    target.rename(old)
    tmp.rename(target)
    shutil.rmtree(old)
    return target


def main(argv: list[str] | None = None) -> int:
    """``python -m cardsuite.agents.learned.pretrained RUN/agent NAME [--half] [--any-table] | --critic``:
    `ship`, or `add_critic` with ``--critic``."""
    import argparse
    import sys

    p = argparse.ArgumentParser(description=ship.__doc__.split("\n\n")[0] if ship.__doc__ else "")
    p.add_argument("source", help="a trained agent directory (RUN/agent)")
    p.add_argument("name", help="the pretrained name (a key of CATALOGUE)")
    p.add_argument("--half", action="store_true", help="store the weights as float16")
    p.add_argument(
        "--any-table",
        action="store_true",
        help="let a table-sized network sit at every size of its game (network.layout: projected)",
    )
    p.add_argument(
        "--critic",
        action="store_true",
        help="add RUN/agent's critic to the shipped NAME (its actor must be NAME's)",
    )
    a = p.parse_args(argv)
    if a.critic and (a.half or a.any_table):
        p.error("--critic adds a critic to a shipped agent (in its dtype and layout); "
                "--half and --any-table belong to shipping it")  # fmt: skip
    if a.name not in CATALOGUE:
        raise SystemExit(f"add {a.name!r} to CATALOGUE (game and doc line) first")
    try:
        if a.critic:
            print(add_critic(a.source, a.name))
        else:
            print(ship(a.source, a.name, half=a.half, any_table=a.any_table))
    except CardsuiteError as e:  # a clear line, not a traceback (e.g. NAME already shipped)
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
