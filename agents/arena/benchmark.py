"""``cardsuite benchmark SPEC --game G --players N``: a standard, versioned evaluation of one agent.

The protocol (``docs/benchmark.md``), version `PROTOCOL`:

* **Deals.** One fixed deal set per game and player count, shipped as
  ``configs/benchmark/GAME_Np.json``: the rule options, a master seed, the
  number of deals, and the SHA-256 of the dealt games (`deal_set_hash`: the
  engine state right after each seeded reset, i.e. every hand, role and the
  engine's generator for later deals, in canonical JSON). Deal ``d`` is
  ``env.reset(seed=derive_seed(seed, 0, d))``, as in every duplicate
  tournament of the arena, and every deal is played in every rotation of the
  two agents over the seats (`cardsuite.agents.arena.tournament.run_tournament` with
  ``duplicate=True``). A test recomputes the hashes, so an engine change that
  changes a deal cannot go unnoticed.
* **Opponents.** A fixed reference pool per deal set, stored in its file
  (``pool``): ``random``, ``greedy``, ``heuristic``, ISMCTS at the budget the
  deal set names, and the shipped ``pretrained:`` agents for that game and
  size when the deal set was made. An agent shipped later does not enter
  the pool (that would change the protocol's numbers); ``--quick`` swaps
  the ISMCTS entry for the same kind at `QUICK_BUDGET` (`quick_ismcts`:
  ``ismcts:budget=10``, in Scandal ``ismcts-batched:budget=10``). The agent under test plays
  every reference head to head (one reference at the table at a time).
* **Size.** The default uses all the deals: 400, enough for a 95% interval
  of at most ±5 points on the share of deals won against each reference
  (385 needed in the worst case, a share of 1/2: `deals_for_half_width`).
  ``--quick`` plays the first `QUICK_DEALS` deals against a cheaper ISMCTS;
  its output and card say that it is quick and not citable.
* **Report.** Against each reference: the share of deals won (ties half) and
  the agent's mean points per deal (its mean episode return over its seats),
  each with a 95% percentile bootstrap interval over deals (scipy); a rating on
  the leaderboard's Elo scale (`cardsuite.agents.arena.ratings`: Bradley-Terry
  maximum likelihood over every deal, random = 0) against the protocol's
  calibrated reference ratings (held fixed). Where the deal set stores no
  calibrated rating for a reference of the pool (`calibrate` has not been run
  for it), there is no rating: the report and the card name the uncalibrated
  references, and say how many deals per pair the stored calibration used.
  The same holds for a learned reference that now plays other weights than
  the SHA-256 the deal set records for its calibration (``reference_weights``,
  `stale_references`): a re-shipped agent never lends its old rating to new
  weights.
  Then the protocol version, the deal set's hash, a SHA-256 of the game's
  rules engine (`engine_hash`: every file of its package, so a changed
  rule is visible even where the deals are not) and a SHA-256 of every
  reference agent (its spec, its code and, for shipped agents, its weights). Written as
  ``benchmark.json`` and a Markdown card, ``benchmark.md``, into a new
  ``--out`` folder (nothing is ever overwritten; without ``--out`` the card
  is only printed).
"""

from __future__ import annotations

import argparse
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

import numpy as np

from cardsuite.errors import ConfigError

#: The protocol's name and version: results of different versions are not comparable.
#: A new deal set is made under this one; a shipped deal set names its own.
PROTOCOL = "cardsuite-benchmark/2"
#: Every version a shipped deal set may name: version 1 seated the per-game
#: reference ``ismcts`` in every pool; version 2 seats the game's leaderboard
#: ISMCTS (`SearchKind.baseline`: ``ismcts-batched`` in Scandal, ``ismcts``
#: elsewhere), so the two differ only in Scandal.
PROTOCOLS = ("cardsuite-benchmark/1", PROTOCOL)
#: Deals of a ``--quick`` run (the first ones of the deal set).
QUICK_DEALS = 40
#: The ISMCTS budget of the pool in a ``--quick`` run (the deal set's ISMCTS kind).
QUICK_BUDGET = 10
#: Bootstrap resamples behind every interval.
RESAMPLES = 2000
#: What a benchmark folder holds.
RESULT_FILES = ("benchmark.json", "benchmark.md")


@dataclass(frozen=True)
class DealSet:
    """One shipped deal set (``configs/benchmark/GAME_Np.json``).

    Attributes:
        name: ``"scum_4p"``.
        game: registry name.
        players: seats.
        options: the rule options (the player count included).
        seed: master seed; deal ``d`` is ``derive_seed(seed, 0, d)``.
        deals: deals of a full run.
        sha256: `deal_set_hash` of all ``deals`` deals.
        quick_sha256: `deal_set_hash` of the first `QUICK_DEALS`.
        ismcts: the pool's ISMCTS spec.
        protocol: the protocol version the deal set was made under (`PROTOCOLS`).
        pool: the reference pool, fixed with the deal set (``ismcts`` among them).
        reference_ratings: calibrated Elo ratings of the pool by spec (full
            runs), or empty where the deal set has none yet.
        calibration: how the ratings were made (a command), or empty.
        quick_reference_ratings: the same for the ``--quick`` pool and deals.
        quick_calibration: how those were made, or empty.
        calibration_deals: deals per pair of the calibration round-robin (0: none).
        quick_calibration_deals: the same for the quick calibration.
        reference_weights: the SHA-256 of the weights each learned reference
            played when the pool was calibrated (`registry.weights_sha256`), by
            spec; a reference whose weights differ now has no calibrated rating
            (`stale_references`). Empty in a deal set that records none.
    """

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
    from cardsuite.games import get_game
    from cardsuite.safe_json import loads

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
    return DealSet(
        name=name,
        game=str(data["game"]),
        players=int(data["players"]),
        options=dict(data["options"]),
        seed=int(data["seed"]),
        deals=int(data["deals"]),
        sha256=str(data["sha256"]),
        quick_sha256=str(data["quick_sha256"]),
        ismcts=str(data["ismcts"]),
        pool=_pool(data, name),
        reference_ratings={str(k): float(v) for k, v in data.get("reference_ratings", {}).items()},
        calibration=str(data.get("calibration", "")),
        quick_reference_ratings={
            str(k): float(v) for k, v in data.get("quick_reference_ratings", {}).items()
        },
        quick_calibration=str(data.get("quick_calibration", "")),
        calibration_deals=int(data.get("calibration_deals", 0)),
        quick_calibration_deals=int(data.get("quick_calibration_deals", 0)),
        protocol=str(data["protocol"]),
        reference_weights=_reference_weights(data, name),
    )


def _reference_weights(data: dict[str, Any], name: str) -> dict[str, str]:
    """The deal set's ``reference_weights``: spec -> SHA-256 (64 hex digits); ConfigError
    naming the field and the entry otherwise."""
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
    """The references of ``refs`` whose weights differ from those they were calibrated with.

    Returns ``{spec: (recorded SHA-256, SHA-256 now or None)}`` for each spec
    the deal set records weights for (``reference_weights``) that now plays
    other weights, or none it can find. A reference re-shipped with new weights
    thereby loses its calibrated rating instead of lending it to other weights.
    """
    from cardsuite.agents.registry import weights_sha256

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


def deal_set_hash(game: str, options: dict[str, Any], seed: int, deals: int) -> str:
    """SHA-256 of the engine state right after each of the first ``deals`` seeded resets.

    Each state is the engine's JSON (`cardsuite.agents.arena.records.engine_state`)
    in canonical form (sorted keys, no spaces), one line per deal.
    """
    from cardsuite.agents.arena.records import engine_state
    from cardsuite.agents.arena.tournament import derive_seed
    from cardsuite.games import get_game

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
    """The content of a new deal set file: the full rule options, the seed and the hashes.

    The options are the game's whole config at the rule book's defaults (so a
    later change of a default cannot change the protocol's games silently).
    ``ismcts`` defaults to the game's leaderboard ISMCTS at budget 100
    (`baseline_ismcts`), as `PROTOCOL` fixes it.
    """
    from cardsuite.games import get_game

    spec = get_game(game)
    ismcts = ismcts or baseline_ismcts(spec.name)
    config = spec.config_class().from_dict({spec.players_key: players}).to_dict()
    # how the env treats an illegal move is the arena's business (env(): the penalty)
    options = {k: v for k, v in config.items() if k not in ("illegal_action", "illegal_penalty")}
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
    from cardsuite.agents.registry import parse_spec

    return f"{parse_spec(deal_set.ismcts).kind}:budget={QUICK_BUDGET}"


def baseline_ismcts(game: str) -> str:
    """The ISMCTS a new deal set seats: the game's leaderboard kind at budget 100 (`PROTOCOL`)."""
    from cardsuite.agents.search.reference import search_kind

    return f"{search_kind(game).baseline}:budget=100"


def reference_pool_now(game: str, players: int, ismcts: str) -> list[str]:
    """The pool a new deal set gets: the baselines, ``ismcts``, the shipped agents of today."""
    from cardsuite.agents.arena.leaderboard import shipped_agents
    from cardsuite.games import get_game

    size = {get_game(game).players_key: players}  # any reward variant
    return ["random", "greedy", "heuristic", ismcts, *shipped_agents(game, size)]


def engine_hash(game: str) -> str:
    """SHA-256 of ``game``'s rules engine: every file of its package (``scum_env``, ...).

    The deal set's hash sees a changed deal, not a changed rule; this sees
    both (and any other edit of the package's source, so a change of a
    docstring changes it too). Files are taken in sorted order of their path
    relative to the package, each hashed with that path.
    """
    from cardsuite.games import get_game

    package = importlib.import_module(get_game(game).module.partition(".")[0])
    return source_tree_hash(Path(str(package.__file__)).parent)


def source_tree_hash(root: Path) -> str:
    """SHA-256 of every file under ``root`` but Python's caches (relative path, then bytes).

    Files are taken in the sorted order of their relative paths; the source
    and the data beside it (Scandal's ``data/deck.json``) count alike.
    """
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
    """SHA-256 of an agent: its spec, the source of its code and, for a shipped agent, its files.

    The code is the agent class's module and every ``cardsuite.agents`` or
    ``cardsuite.train`` module it reaches through its module-level names
    (transitively), plus the loaded modules whose name starts with the class
    module's (``heuristic`` covers ``heuristic_scum``); a ``pretrained:NAME``
    agent adds every file of its shipped folder (weights and metadata).
    """
    from cardsuite.agents.registry import make_agent, parse_spec

    agent = make_agent(spec, game)
    digest = hashlib.sha256(spec.strip().encode() + b"\0")
    for name in sorted(_code_modules(type(agent).__module__)):
        source = getattr(sys.modules[name], "__file__", None)
        if source and source.endswith(".py"):
            digest.update(name.encode() + b"\0" + Path(source).read_bytes() + b"\0")
    parsed = parse_spec(spec)
    if parsed.kind == "pretrained" and parsed.path:
        agent_dir = importlib.import_module("cardsuite.agents.learned.pretrained").agent_dir(
            parsed.path
        )
        for file in sorted(agent_dir.iterdir()):
            if file.is_file():
                digest.update(file.name.encode() + b"\0" + file.read_bytes() + b"\0")
    close = getattr(agent, "close", None)
    if callable(close):
        close()
    return digest.hexdigest()


_OWN = ("cardsuite.agents.", "cardsuite.train.")


def _code_modules(root: str) -> set[str]:
    """``root`` and the suite's agent/training modules it reaches (module doc of `agent_hash`)."""
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
            name = (
                value.__name__
                if isinstance(value, types.ModuleType)
                else getattr(value, "__module__", None)
            )
            if (
                isinstance(name, str)
                and name.startswith(_OWN)
                and name in sys.modules
                and name not in found
            ):
                found.add(name)
                todo.append(name)
    return found


@dataclass
class VersusReference:
    """The agent under test against one reference."""

    reference: str
    sha256: str
    won: np.ndarray  # per deal: 1, 0.5, 0 (the agent won, tie, lost)
    points: np.ndarray  # per deal: the agent's mean return over its seats
    reference_points: np.ndarray  # per deal: the reference's mean return
    illegal: int  # games the agent ended with an illegal move


def play_reference(
    spec: str,
    reference: str,
    deal_set: DealSet,
    deals: int,
    *,
    workers: int = 1,
    progress: bool = False,
) -> VersusReference:
    """Play the deal set's first ``deals`` deals, every rotation, ``spec`` against ``reference``."""
    from cardsuite.agents.arena.leaderboard import deal_outcomes
    from cardsuite.agents.arena.stats import unit_values
    from cardsuite.agents.arena.tournament import run_tournament

    res = run_tournament(
        deal_set.game,
        [spec, reference],
        games=deals,
        players=deal_set.players,
        options=dict(deal_set.options),
        duplicate=True,
        seed=deal_set.seed,
        workers=workers,
        progress=progress,
    )
    values = unit_values(res.results, 2, "rewards")
    return VersusReference(
        reference=reference,
        sha256=agent_hash(reference, deal_set.game),
        won=deal_outcomes(res),
        points=np.asarray(values[0]),
        reference_points=np.asarray(values[1]),
        illegal=res.agents[0].illegal_actions,
    )


def benchmark_rating(
    versus: list[VersusReference], deal_set: DealSet, *, quick: bool, resamples: int, seed: int
) -> dict[str, Any]:
    """The agent's Elo rating against the protocol's calibrated references (held fixed).

    The rating is the one-parameter Bradley-Terry maximum-likelihood fit to
    every deal the agent played, the references held at the ratings the deal
    set stores (``reference_ratings``, or ``quick_reference_ratings`` for a
    quick run: a round-robin of the pool on the same deals, `calibrate`); its
    interval is a bootstrap over the agent's deals. Where the deal set holds
    no ratings for every reference of the pool, the rating is None and the
    report says why.

    Besides the rating: ``"calibration"`` (``"full"`` or ``"quick"``: whose
    stored ratings were used), ``"calibration_deals"`` (deals per pair of
    that calibration, None where there is none), ``"reference_ratings"``
    (each reference's calibrated rating, None where uncalibrated) and
    ``"uncalibrated"`` (the references without one).
    """
    from cardsuite.agents.arena.ratings import PairDeals, rate

    refs = [v.reference for v in versus]
    table = deal_set.quick_reference_ratings if quick else deal_set.reference_ratings
    how = deal_set.quick_calibration if quick else deal_set.calibration
    calib_deals = deal_set.quick_calibration_deals if quick else deal_set.calibration_deals
    scale = "Elo (400 points = 10:1 odds of winning a deal), random = 0"
    stale = stale_references(deal_set, refs)
    missing = [r for r in refs if r not in table or r in stale]
    facts = {
        "calibration": "quick" if quick else "full",
        "calibration_deals": calib_deals if table else None,
        "reference_ratings": {r: None if r in stale else table.get(r) for r in refs},
        "uncalibrated": missing,
        "stale_weights": {r: {"calibrated": a, "now": b} for r, (a, b) in stale.items()},
    }
    if missing:
        kind = "quick-run" if quick else "full-run"
        absent = [r for r in missing if r not in stale]
        why = (
            [f"deal set {deal_set.name} holds no {kind} calibrated rating for {', '.join(absent)}"]
            if absent
            else []
        )
        why += [stale_text(r, a, b) for r, (a, b) in stale.items()]
        return {
            "elo": None,
            "low": None,
            "high": None,
            "scale": scale,
            "measured": None,
            "basis": f"none: {'; '.join(why)} (cardsuite benchmark --calibrate"
            + (" --quick" if quick else "")
            + " makes them)",
            **facts,
        }
    names = ["(agent)", *refs]
    pairs = [PairDeals(0, i + 1, v.won) for i, v in enumerate(versus)]
    r = rate(names, pairs, fixed={x: table[x] for x in refs}, resamples=resamples, seed=seed)
    bound = ""
    if not r.identified:
        won = r.tiers[0] == 0
        bound = (
            f"; not measured: the agent {'won' if won else 'lost'} every deal against every "
            "reference, so this rating is set by the fit's prior (one virtual tied deal per "
            "reference), not by the games, and its interval does not measure it: read it as "
            + ("above" if won else "below")
            + " every reference"
        )
    return {
        "elo": r.rating[0],
        "low": r.low[0],
        "high": r.high[0],
        "scale": scale,
        "measured": r.identified,
        "basis": f"the references held at their calibrated ratings ({how}); "
        "Bradley-Terry fit over every deal, interval by bootstrap over deals" + bound,
        **facts,
    }


def calibrate(
    game: str,
    players: int,
    *,
    quick: bool = False,
    workers: int = 1,
    progress: bool = False,
    resamples: int = 1000,
    checkpoint: str | Path | None = None,
) -> dict[str, Any]:
    """Rate the reference pool on the deal set (a leaderboard round-robin); the deal set's new entries.

    ``checkpoint``: a JSON-lines file of finished pairs, as ``cardsuite
    leaderboard --checkpoint`` (`cardsuite.agents.arena.leaderboard.run_leaderboard`):
    a calibration of hours can be spread over several sittings.

    Returns ``{"reference_ratings" (or "quick_reference_ratings"): {spec:
    Elo}, "calibration" (or "quick_calibration"): the command,
    "calibration_deals" (or "quick_calibration_deals"): deals per pair,
    "reference_weights": {spec: SHA-256 of the weights each learned reference
    played}, "leaderboard": the board}``: paste the first four into
    ``configs/benchmark/GAME_Np.json``.
    """
    from cardsuite.agents.arena.leaderboard import run_leaderboard
    from cardsuite.agents.registry import weights_sha256

    deal_set = load_deal_set(game, players)
    pool = reference_pool(deal_set, quick=quick)
    n = QUICK_DEALS if quick else deal_set.deals
    board = run_leaderboard(
        deal_set.game,
        players,
        pool,
        deals=n,
        seed=deal_set.seed,
        options=dict(deal_set.options),
        workers=workers,
        progress=progress,
        resamples=resamples,
        checkpoint=checkpoint,
    )
    prefix = "quick_" if quick else ""
    command = (
        f"cardsuite benchmark --calibrate --game {deal_set.game} --players {players}"
        + (" --quick" if quick else "")
        + f" ({n} deals per pair, cardsuite {_version()})"
    )
    weights = {spec: weights_sha256(spec) for spec in pool}
    return {
        f"{prefix}reference_ratings": dict(zip(pool, board.ratings.rating, strict=True)),
        f"{prefix}calibration": command,
        f"{prefix}calibration_deals": n,
        "reference_weights": {spec: d for spec, d in weights.items() if d is not None},
        "leaderboard": board.to_dict(),
    }


def _version() -> str:
    from cardsuite import __version__

    return str(__version__)


def run_benchmark(
    spec: str,
    game: str,
    players: int,
    *,
    quick: bool = False,
    ismcts: str | None = None,
    deals: int | None = None,
    workers: int = 1,
    progress: bool = False,
    resamples: int = RESAMPLES,
) -> dict[str, Any]:
    """Run the benchmark of ``spec``; the report as a JSON-ready dict (module doc).

    Args:
        spec: the agent under test (any agent spec, ``exec:`` included).
        game: registry name.
        players: seats (a shipped deal set must exist).
        quick: the first `QUICK_DEALS` deals and the cheap ISMCTS (not citable).
        ismcts: another ISMCTS spec for the pool (the report marks the pool non-standard).
        deals: fewer deals than the protocol's (tests; the report marks it non-standard).
        workers: worker processes per reference.
        progress: tqdm bars.
        resamples: bootstrap resamples.

    Raises:
        ConfigError: no deal set for this game and size, a bad spec, a deal
            count outside the set.
    """
    from cardsuite import __version__
    from cardsuite.agents.arena.ratings import deals_for_half_width, mean_interval
    from cardsuite.agents.registry import parse_spec

    parse_spec(spec)
    deal_set = load_deal_set(game, players)
    n = deals if deals is not None else (QUICK_DEALS if quick else deal_set.deals)
    if not 1 <= n <= deal_set.deals:
        raise ConfigError(f"deals must be between 1 and {deal_set.deals}, got {n}")
    pool = reference_pool(deal_set, quick=quick, ismcts=ismcts)
    standard = not quick and ismcts is None and n == deal_set.deals
    versus = []
    for reference in pool:
        if progress:
            print(f"benchmark: {spec} against {reference} ({n} deals)", file=sys.stderr)
        versus.append(
            play_reference(spec, reference, deal_set, n, workers=workers, progress=progress)
        )
    rows = []
    for v in versus:
        share, s_lo, s_hi = mean_interval(v.won, resamples=resamples, seed=deal_set.seed % 2**32)
        pts, p_lo, p_hi = mean_interval(v.points, resamples=resamples, seed=deal_set.seed % 2**32)
        rows.append(
            {
                "reference": v.reference,
                "reference_sha256": v.sha256,
                "deals_won": share,
                "deals_won_low": s_lo,
                "deals_won_high": s_hi,
                "mean_points": pts,
                "mean_points_low": p_lo,
                "mean_points_high": p_hi,
                "reference_mean_points": float(v.reference_points.mean()),
                "illegal_games": v.illegal,
                "outcomes": [float(x) for x in v.won],
            }
        )
    rating = benchmark_rating(
        versus, deal_set, quick=quick, resamples=resamples, seed=deal_set.seed % 2**32
    )
    return {
        "protocol": deal_set.protocol,
        "cardsuite": __version__,
        "agent": spec,
        "game": deal_set.game,
        "players": deal_set.players,
        "options": deal_set.options,
        "deal_set": {
            "name": deal_set.name,
            "seed": deal_set.seed,
            "deals": n,
            "sha256": deal_set.sha256
            if n == deal_set.deals
            else deal_set.quick_sha256
            if n == QUICK_DEALS
            else None,
        },
        "engine_sha256": engine_hash(deal_set.game),
        "quick": quick,
        "standard": standard,
        "citable": standard,
        "deals_for_5_points": deals_for_half_width(0.05),
        "pool": pool,
        "ismcts": pool_ismcts(deal_set, quick=quick, ismcts=ismcts),
        "versus": rows,
        "rating": rating,
        "resamples": resamples,
        "interval": "95% percentile bootstrap over deals (scipy.stats.bootstrap)",
    }


def to_markdown(report: dict[str, Any], command: str) -> str:
    """The report as a Markdown card a paper can paste."""
    ds = report["deal_set"]
    lines = [
        f"### Benchmark of `{report['agent']}`: {report['game']}, {report['players']} players",
        "",
    ]
    if not report["citable"]:
        why = "QUICK RUN" if report["quick"] else "NON-STANDARD RUN"
        lines += [
            f"> **{why}: not citable.** {ds['deals']} deals"
            + (f", ISMCTS at `{report['ismcts']}`" if report["quick"] else "")
            + f"; the protocol's run plays {report['deals_for_5_points']}+ deals "
            "(`cardsuite benchmark` without `--quick`).",
            "",
        ]
    lines += [
        f"Protocol `{report['protocol']}`, cardsuite {report['cardsuite']}; deal set "
        f"`{ds['name']}`: {ds['deals']} duplicate deals (every seat rotation), seed {ds['seed']}"
        + (f", SHA-256 `{ds['sha256'][:16]}…`" if ds["sha256"] else "")
        + ".",
        "",
        "| reference | deals won | 95% interval | mean points | 95% interval "
        "| reference's mean points | reference's calibrated rating |",
        "|---|---|---|---|---|---|---|",
    ]
    r = report["rating"]
    calibrated = r.get("reference_ratings", {})
    for row in report["versus"]:
        known = calibrated.get(row["reference"])
        lines.append(
            f"| `{row['reference']}` | {100 * row['deals_won']:.1f}% "
            f"| {100 * row['deals_won_low']:.1f} to {100 * row['deals_won_high']:.1f} "
            f"| {row['mean_points']:.3f} | {row['mean_points_low']:.3f} to {row['mean_points_high']:.3f} "
            f"| {row['reference_mean_points']:.3f} "
            f"| {'uncalibrated' if known is None else f'{known:.0f}'} |"
        )
    kind = r.get("calibration", "quick" if report["quick"] else "full")
    missing = r.get("uncalibrated", [])
    stale = r.get("stale_weights", {})
    if missing:
        names = ", ".join(f"`{m}`" for m in missing)
        absent = ", ".join(f"`{m}`" for m in missing if m not in stale)
        reasons = (
            [f"Deal set `{ds['name']}` stores no {kind}-run rating for {absent}."] if absent else []
        )
        reasons += [
            stale_text(m, w["calibrated"], w["now"], "`") + ", so its stored rating is not its own."
            for m, w in stale.items()
        ]
        lines += [
            "",
            f"**Uncalibrated references: {names}.** " + " ".join(reasons) + " So this card gives "
            f"no rating; the shares and points above stand on their own ({ds['deals']} deals "
            "against each reference).",
        ]
    if r.get("calibration_deals"):
        lines += [
            "",
            f"Reference ratings: calibrated by a round-robin of the {kind} pool on "
            f"{r['calibration_deals']} deals per pair of this deal set.",
        ]
    rating = (
        f"Rating: **{r['elo']:.0f}** (95% interval {r['low']:.0f} to {r['high']:.0f}), {r['scale']}; "
        if r["elo"] is not None
        else "Rating: none; "
    )
    lines += [
        "",
        rating + f"{r['basis']}.",
        "",
        "Deals won: share of deals on which the agent's mean return over its seats beat the "
        "reference's (ties half). Mean points: the agent's mean return per deal. Intervals: "
        f"{report['interval']}, {report['resamples']} resamples.",
        "",
        f"Rules engine (SHA-256 of its package's source): `{report['engine_sha256'][:16]}…`.",
        "",
        "Reference agents (SHA-256 of spec, code and weights):",
        "",
    ]
    lines += [
        f"- `{row['reference']}`: `{row['reference_sha256'][:16]}…`" for row in report["versus"]
    ]
    lines += ["", f"Command: `{command}`", ""]
    return "\n".join(lines)


def check_out_dir(out: str | Path) -> Path:
    """A folder for the results: new, or existing without benchmark files (never overwritten)."""
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise ConfigError(f"--out {str(path)!r} is a file; give a folder")
    clash = [name for name in RESULT_FILES if (path / name).exists()]
    if clash:
        raise ConfigError(f"--out {str(path)!r} already holds {clash[0]}; choose a new folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ConfigError(f"cannot create --out {str(path)!r}: {err.strerror or err}") from None
    return path


def add_command(sub: Any) -> tuple[str, Any]:
    """The ``cardsuite benchmark`` subcommand (``cardsuite.commands`` entry point)."""
    p = sub.add_parser(
        "benchmark",
        help="the standard evaluation of one agent: fixed deals, a reference pool, a citable card",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument(
        "spec",
        nargs="?",
        default=None,
        help="the agent under test (any agent spec, e.g. 'exec:python3 bot.py')",
    )
    p.add_argument(
        "--calibrate",
        action="store_true",
        help="rate the reference pool on the deal set instead (maintainers: "
        "writes calibration.json into --out)",
    )
    p.add_argument("--game", required=True, help="scum, scum_party or scandal")
    p.add_argument("--players", type=int, required=True, help="seats (a shipped deal set)")
    p.add_argument(
        "--quick",
        action="store_true",
        help=f"first {QUICK_DEALS} deals, the pool's ISMCTS at budget={QUICK_BUDGET}: "
        "a smoke test, not citable",
    )
    p.add_argument("--ismcts", default=None, help="another ISMCTS spec for the pool (not citable)")
    p.add_argument("--workers", type=int, default=1, help="worker processes")
    p.add_argument("--out", default=None, help="a new folder for benchmark.json and benchmark.md")
    p.add_argument("--resamples", type=int, default=RESAMPLES, help="bootstrap resamples")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument(
        "--checkpoint",
        default=None,
        help="with --calibrate: a JSON-lines file of finished pairs; a rerun plays only "
        "the pairs not in it (as cardsuite leaderboard --checkpoint)",
    )

    def run(ns: argparse.Namespace, extra: list[str]) -> int:
        if extra:
            raise ConfigError(
                f"unknown arguments: {' '.join(extra)} (the benchmark's rules are fixed by its "
                "deal set; use cardsuite tournament for other rules)"
            )
        if ns.resamples < 1:
            raise ConfigError(f"--resamples must be at least 1, got {ns.resamples}")
        if ns.calibrate:
            return _run_calibrate(ns)
        if ns.checkpoint:
            raise ConfigError("--checkpoint is for --calibrate (a benchmark run takes minutes)")
        if ns.spec is None:
            raise ConfigError(
                "give the agent to benchmark: cardsuite benchmark SPEC --game G --players N"
            )
        out = check_out_dir(ns.out) if ns.out else None
        if ns.quick:
            print("benchmark: QUICK run: a smoke test, not citable", file=sys.stderr)
        report = run_benchmark(
            ns.spec,
            ns.game,
            ns.players,
            quick=ns.quick,
            ismcts=ns.ismcts,
            workers=ns.workers,
            progress=not ns.no_progress,
            resamples=ns.resamples,
        )
        import shlex

        command = " ".join(
            [
                "cardsuite benchmark",
                shlex.quote(ns.spec),
                "--game",
                report["game"],
                "--players",
                str(ns.players),
            ]
            + (["--quick"] if ns.quick else [])
            + (["--ismcts", ns.ismcts] if ns.ismcts else [])
        )
        report["command"] = command
        card = to_markdown(report, command)
        print(card)
        if out is not None:
            (out / "benchmark.json").write_text(json.dumps(report, indent=1) + "\n", "utf-8")
            (out / "benchmark.md").write_text(card, "utf-8")
            print(f"wrote {out / 'benchmark.json'} and {out / 'benchmark.md'}")
        return 0

    return "benchmark", run


def _run_calibrate(ns: argparse.Namespace) -> int:
    """``cardsuite benchmark --calibrate``: the pool's round-robin, written to --out/calibration.json."""
    if ns.spec is not None or ns.ismcts:
        raise ConfigError("--calibrate rates the protocol's own pool: give no SPEC and no --ismcts")
    if not ns.out:
        raise ConfigError("--calibrate needs --out DIR (a new folder for calibration.json)")
    out = Path(ns.out)
    if (out / "calibration.json").exists():
        raise ConfigError(f"--out {str(out)!r} already holds calibration.json; choose a new folder")
    check_out_dir(out)
    result = calibrate(
        ns.game,
        ns.players,
        quick=ns.quick,
        workers=ns.workers,
        progress=not ns.no_progress,
        resamples=ns.resamples,
        checkpoint=ns.checkpoint,
    )
    (out / "calibration.json").write_text(json.dumps(result, indent=1) + "\n", "utf-8")
    shown = {k: v for k, v in result.items() if k != "leaderboard"}
    print(json.dumps(shown, indent=1))
    print(
        f"wrote {out / 'calibration.json'}: paste the first four entries into the deal set's file"
    )
    return 0
