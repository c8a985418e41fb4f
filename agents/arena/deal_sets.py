"""The benchmark's deal sets (``configs/benchmark/GAME_Np.json``), reference pools and the
SHA-256 digests a report carries (``docs/benchmark.md``)."""

from __future__ import annotations

import hashlib
import importlib
import json
import re
import sys
import types
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

from cardsuite.agents.arena.records import ENV_ONLY_FIELDS, engine_state
from cardsuite.agents.arena.round_robin import shipped_agents
from cardsuite.agents.arena.tournament import derive_seed
from cardsuite.agents.parts import part
from cardsuite.agents.registry import agent_folder, make_agent, parse_spec, weights_sha256
from cardsuite.errors import ConfigError
from cardsuite.games import get_game
from cardsuite.safe_json import loads

#: The protocol's name and version: results of different versions are not comparable.
#: A new deal set is made under this one; a shipped deal set names its own.
PROTOCOL = "cardsuite-benchmark/3"
#: Every version a shipped deal set may name: version 1 seated the per-game
#: reference ISMCTS in every pool (``ismcts-reference`` since 0.4); version 2 the
#: game's leaderboard ISMCTS (``ismcts-batched`` in Scandal); version 3 seats
#: ``ismcts``, the batched search, in every game.
PROTOCOLS = ("cardsuite-benchmark/1", "cardsuite-benchmark/2", PROTOCOL)
#: Deals of a ``--quick`` run (the first ones of the deal set).
QUICK_DEALS = 40
#: The ISMCTS budget of the pool in a ``--quick`` run (the deal set's ISMCTS kind).
QUICK_BUDGET = 10
#: The files of a shipped agent's folder that make its identity (not its model card).
AGENT_FILES = ("agent.json", "weights.safetensors")
#: The suite's own packages whose modules count as an agent's code.
_OWN = ("cardsuite.agents.", "cardsuite.train.")


@dataclass(frozen=True)
class DealSet:
    """One shipped deal set: the rules, seed, deals and pool (fields: ``docs/benchmark.md``)."""

    name: str
    game: str
    players: int
    options: dict[str, Any]
    seed: int
    deals: int
    sha256: str
    quick_sha256: str
    ismcts: str
    pool: tuple[str, ...]
    reference_ratings: dict[str, float]
    calibration: str
    quick_reference_ratings: dict[str, float]
    quick_calibration: str
    calibration_deals: int = 0
    quick_calibration_deals: int = 0
    protocol: str = PROTOCOL
    reference_weights: dict[str, str] = field(default_factory=dict)


def deal_set_names() -> list[str]:
    """The shipped deal sets (``scum_4p``, ...)."""
    root = files("cardsuite.configs") / "benchmark"
    return sorted(f.name[:-5] for f in root.iterdir() if f.name.endswith(".json"))


def load_deal_set(game: str, players: int) -> DealSet:
    """The shipped deal set of ``game`` at ``players`` seats; ConfigError listing the others."""
    name = f"{get_game(game).name}_{players}p"
    if name not in deal_set_names():
        raise ConfigError(
            f"no benchmark deal set for {get_game(game).name} at {players} players; "
            f"deal sets: {', '.join(deal_set_names())}"
        )
    text = (files("cardsuite.configs") / "benchmark" / f"{name}.json").read_text("utf-8")
    data = loads(text, f"deal set {name}", error=ConfigError)
    if data.get("protocol") not in PROTOCOLS:
        raise ConfigError(
            f"deal set {name} is for {data.get('protocol')!r}, not one of {', '.join(PROTOCOLS)}"
        )

    fields: dict[str, Any] = {k: str(data[k]) for k in ("game", "sha256", "quick_sha256", "ismcts")}
    fields |= {k: int(data[k]) for k in ("players", "seed", "deals")}
    fields |= {k: str(data.get(k, "")) for k in ("calibration", "quick_calibration")}
    fields |= {k: int(data.get(k, 0)) for k in ("calibration_deals", "quick_calibration_deals")}
    for key in ("reference_ratings", "quick_reference_ratings"):
        fields[key] = {str(k): float(v) for k, v in data.get(key, {}).items()}
    return DealSet(
        name=name,
        options=dict(data["options"]),
        pool=_pool(data, name),
        protocol=str(data["protocol"]),
        reference_weights=_reference_weights(data, name),
        **fields,
    )


def _pool(data: dict[str, Any], name: str) -> tuple[str, ...]:
    pool = data.get("pool")
    if (
        not isinstance(pool, list)
        or not all(isinstance(x, str) for x in pool)
        or data.get("ismcts") not in pool
    ):
        raise ConfigError(
            f"deal set {name}: 'pool' must list the reference specs, its ismcts among them"
        )
    return tuple(pool)


def _reference_weights(data: dict[str, Any], name: str) -> dict[str, str]:
    """The deal set's ``reference_weights``: spec -> SHA-256; ConfigError naming the entry."""
    raw = data.get("reference_weights", {})
    if not isinstance(raw, dict):
        raise ConfigError(f"deal set {name}: 'reference_weights' must map specs to SHA-256 digests")
    for spec, digest in raw.items():
        if not (isinstance(digest, str) and re.fullmatch(r"[0-9a-f]{64}", digest)):
            raise ConfigError(
                f"deal set {name}: 'reference_weights' entry {spec!r} must be a SHA-256 digest "
                f"(64 lowercase hex digits), got {digest!r}"
            )
    return {str(k): str(v) for k, v in raw.items()}


def stale_references(deal_set: DealSet, refs: Sequence[str]) -> dict[str, tuple[str, str | None]]:
    """``{spec: (recorded SHA-256, SHA-256 now or None)}`` of each reference playing other weights."""
    stale: dict[str, tuple[str, str | None]] = {}
    for spec in refs:
        recorded = deal_set.reference_weights.get(spec)
        if recorded is not None and (now := weights_sha256(spec)) != recorded:
            stale[spec] = (recorded, now)
    return stale


def stale_text(spec: str, calibrated: str, now: str | None, quote: str = "") -> str:
    """How a stale reference is named in a report's basis and on its card."""
    q = quote
    return (
        f"{q}{spec}{q} now plays other weights than it was calibrated with (SHA-256 "
        f"{q}{calibrated[:16]}…{q} then, "
        + ("none found" if now is None else f"{q}{now[:16]}…{q}")
        + " now)"
    )


def deal_set_hash(game: str, options: dict[str, Any], seed: int, deals: int) -> str:
    """SHA-256 of the engine state (canonical JSON, a line each) after the first ``deals`` resets."""
    env = get_game(game).make(**options)
    digest = hashlib.sha256()
    for d in range(deals):
        env.reset(seed=derive_seed(seed, 0, d))
        state = engine_state(env)
        digest.update(json.dumps(state, sort_keys=True, separators=(",", ":")).encode() + b"\n")
    return digest.hexdigest()


def deal_set_data(
    game: str, players: int, seed: int, *, ismcts: str | None = None, deals: int = 400
) -> dict[str, Any]:
    """A new deal set file: the whole config at the rule book's defaults, the seed and the hashes."""
    spec = get_game(game)
    ismcts = ismcts or baseline_ismcts(spec.name)
    config = spec.config_class().from_dict({spec.players_key: players}).to_dict()
    options = {k: v for k, v in config.items() if k not in ENV_ONLY_FIELDS}
    return {
        "protocol": PROTOCOL,
        "game": spec.name,
        "players": players,
        "options": options,
        "seed": seed,
        "deals": deals,
        "deal_seeds": "deal d is env.reset(seed=cardsuite.agents.arena.tournament.derive_seed(seed, 0, d))",
        "sha256": deal_set_hash(spec.name, options, seed, deals),
        "quick_sha256": deal_set_hash(spec.name, options, seed, QUICK_DEALS),
        "ismcts": ismcts,
        "pool": reference_pool_now(spec.name, players, ismcts),
        "reference_ratings": {},
        "calibration": "",
        "quick_reference_ratings": {},
        "quick_calibration": "",
        "calibration_deals": 0,
        "quick_calibration_deals": 0,
    }


def reference_pool(
    deal_set: DealSet, *, quick: bool = False, ismcts: str | None = None
) -> list[str]:
    """The deal set's fixed pool, its ISMCTS entry swapped for ``--quick`` or ``ismcts``."""
    search = pool_ismcts(deal_set, quick=quick, ismcts=ismcts)
    return [search if spec == deal_set.ismcts else spec for spec in deal_set.pool]


def pool_ismcts(deal_set: DealSet, *, quick: bool = False, ismcts: str | None = None) -> str:
    """The ISMCTS a run seats: ``ismcts`` if given, else `quick_ismcts` or the deal set's own."""
    return ismcts or (quick_ismcts(deal_set) if quick else deal_set.ismcts)


def quick_ismcts(deal_set: DealSet) -> str:
    """The pool's ISMCTS in a ``--quick`` run: the deal set's kind at `QUICK_BUDGET`."""
    return f"{parse_spec(deal_set.ismcts).kind}:budget={QUICK_BUDGET}"


def baseline_ismcts(game: str) -> str:
    """The ISMCTS a new deal set seats: the game's leaderboard kind at budget 100 (`PROTOCOL`)."""
    return f"{part(game, 'search').baseline}:budget=100"


def reference_pool_now(game: str, players: int, ismcts: str) -> list[str]:
    """The pool a new deal set gets: the baselines, ``ismcts``, the shipped agents of today."""
    size = {get_game(game).players_key: players}  # any reward variant
    return ["random", "greedy", "heuristic", ismcts, *shipped_agents(game, size)]


def engine_hash(game: str) -> str:
    """SHA-256 of ``game``'s rules engine: every file of its package (``scum_env``, ...)."""
    package = importlib.import_module(get_game(game).module.partition(".")[0])
    return source_tree_hash(Path(str(package.__file__)).parent)


def source_tree_hash(root: Path) -> str:
    """SHA-256 of every file under ``root`` but Python's caches (relative path, then bytes)."""
    digest = hashlib.sha256()
    files_in = [
        f
        for f in root.rglob("*")
        if f.is_file() and "__pycache__" not in f.parts and f.suffix not in (".pyc", ".pyo")
    ]
    for file in sorted(files_in, key=lambda f: f.relative_to(root).as_posix()):
        digest.update(file.relative_to(root).as_posix().encode() + b"\0")
        digest.update(file.read_bytes() + b"\0")
    return digest.hexdigest()


def agent_hash(spec: str, game: str) -> str:
    """SHA-256 of an agent: its spec, its code (`_code_modules`) and a shipped agent's `AGENT_FILES`."""
    agent = make_agent(spec, game)
    digest = hashlib.sha256(spec.strip().encode() + b"\0")
    for name in sorted(_code_modules(type(agent).__module__)):
        source = getattr(sys.modules[name], "__file__", None)
        if source and source.endswith(".py"):
            digest.update(name.encode() + b"\0" + Path(source).read_bytes() + b"\0")
    folder = agent_folder(parse_spec(spec))
    for file in [folder / f for f in AGENT_FILES] if folder else []:
        if file.is_file():
            digest.update(file.name.encode() + b"\0" + file.read_bytes() + b"\0")
    close = getattr(agent, "close", None)
    if callable(close):
        close()
    return digest.hexdigest()


def _code_modules(root: str) -> set[str]:
    """``root`` and the suite's agent/training modules it reaches (`agent_hash`)."""
    package, _, stem = root.rpartition(".")
    found = {
        m
        for m in list(sys.modules)
        if m.rpartition(".")[0] == package and m.rpartition(".")[2].startswith(stem)
    }
    todo = list(found | {root})
    while todo:
        module = sys.modules.get(todo.pop())
        if module is None:
            continue
        found.add(module.__name__)
        for value in list(vars(module).values()):
            module_of = "__name__" if isinstance(value, types.ModuleType) else "__module__"
            name = getattr(value, module_of, None)
            own = isinstance(name, str) and name.startswith(_OWN)
            if own and name in sys.modules and name not in found:
                found.add(name)
                todo.append(name)
    return found
