"""Reference agents shipped inside the package: ``pretrained:NAME`` (e.g. ``pretrained:scum4``).

Each is a safe agent folder ``models/NAME/`` with its model card, played like ``ppo:PATH``.
`ship` and `add_critic` (``python -m cardsuite.agents.learned.pretrained``) add one.
A name plays the same weights for good (``tests/agents/test_shipped_names.py`` pins each
digest): a new network ships under a new name, and a retired name stays loadable, its
card's ``retired`` note given as a warning when it loads.
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.kinds import AgentKind
from cardsuite.agents.learned.any_table import as_projected
from cardsuite.agents.learned.cards import CATALOGUE, ROOT, SHARED, read_card
from cardsuite.agents.learned.safe_io import (
    CARD_FILE,
    META_FILE,
    load_agent_numpy,
    read_meta,
    save_agent,
)
from cardsuite.agents.learned.size_generic import TrainedAgent
from cardsuite.errors import CardsuiteError, CheckpointError, ConfigError

PRETRAINED = AgentKind(
    "pretrained",
    "cardsuite.agents.learned.pretrained:PretrainedAgent",
    f"a reference agent shipped with the package: pretrained:NAME ({', '.join(CATALOGUE)})",
    argument="name",
)


def _folder(name: str) -> Path:
    return ROOT / SHARED.get(name, name)


def agent_dir(name: str) -> Path:
    """The shipped agent directory of ``name``; ConfigError naming the known ones."""
    if name not in CATALOGUE or not (_folder(name) / META_FILE).is_file():
        known = ", ".join(n for n in CATALOGUE if (_folder(n) / META_FILE).is_file())
        raise ConfigError(f"no pretrained agent {name!r}; shipped: {known or 'none'}")
    return _folder(name)


class PretrainedAgent:
    """Namespace of the ``pretrained:`` kind: `load` builds the agent."""

    @classmethod
    def available(cls, game: str, options: dict[str, Any]) -> list[str]:
        """Shipped agents for ``game`` with these rule options (any-table: any player count)."""
        names = []
        for name, (trained_on, _doc) in CATALOGUE.items():
            if trained_on != game or not (_folder(name) / META_FILE).is_file():
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
        key = str(name)
        agent = TrainedAgent.load(agent_dir(key), game, seed)
        agent.name = f"pretrained:{key}"
        retired = read_card(agent_dir(key)).retired
        if retired:
            warnings.warn(f"pretrained:{key} is retired: {retired}", UserWarning, stacklevel=2)
        return agent


def ship(
    source: str | Path, name: str, *, half: bool = False, any_table: bool = False,
    root: Path = ROOT,
) -> Path:  # fmt: skip
    """Copy the actor of the trained agent ``source`` into the package as ``pretrained:name``.

    ``half`` stores it as float16; ``any_table`` marks a table-sized network
    ``network.layout: projected``. The target must not exist yet.

    Raises:
        CheckpointError: ``any_table`` for a network that is not table-sized,
            or of a game without a size-generic layout.
    """
    arrays, meta = load_agent_numpy(source)
    if any_table:
        meta = as_projected(meta, f"agent {str(source)!r}")
    keep = {f"{p}.{k}" for p in meta.network.actor for k in ("weight", "bias")}
    dtype = np.float16 if half else np.float32
    actor = {k: np.ascontiguousarray(v, dtype=dtype) for k, v in arrays.items() if k in keep}
    return save_agent(root / name, actor, meta)


def add_critic(source: str | Path, name: str, *, root: Path = ROOT) -> Path:
    """Add the critic of the trained agent ``source`` to the shipped ``pretrained:name``.

    ``source`` must hold the shipped actor itself (a run from ``init: pretrained:NAME`` with
    ``critic_warmup`` above its steps). The critic is stored in the actor's dtype, its config
    as ``config["critic"]``; the model card is kept (update its ``weights_sha256``). It
    belongs to shipping a new name: a name's pinned weights never change.

    Raises:
        CheckpointError: ``source``'s actor is not the shipped one, it has no
            critic, or the shipped agent has one already.
    """
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
    if (target / CARD_FILE).is_file():  # the model card stays beside the weights
        shutil.copy2(target / CARD_FILE, tmp / CARD_FILE)
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

    p = argparse.ArgumentParser(description=ship.__doc__.split("\n\n")[0] if ship.__doc__ else "")
    p.add_argument("source", help="a trained agent directory (RUN/agent)")
    p.add_argument("name", help="the pretrained name (a key of CATALOGUE)")
    flags = {
        "--half": "store the weights as float16",
        "--any-table": "let a table-sized network sit at every size of its game "
        "(network.layout: projected)",
        "--critic": "add RUN/agent's critic to the shipped NAME (its actor must be NAME's)",
    }
    for flag, text in flags.items():
        p.add_argument(flag, action="store_true", help=text)
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
