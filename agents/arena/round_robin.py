"""The leaderboard's round-robin: every pair of agents plays the same duplicate deals.

Its checkpoint keeps a JSON line per finished pair: a rerun skips those, and
refuses a line of other settings or of an agent now playing other weights.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.arena.ratings import PairDeals, Ratings, rate
from cardsuite.agents.arena.records import cut_line
from cardsuite.agents.arena.results import TournamentResult
from cardsuite.agents.arena.stats import mean_interval, unit_values
from cardsuite.agents.arena.tournament import run_tournament
from cardsuite.agents.arena.workers import progress_bar
from cardsuite.agents.parts import part
from cardsuite.agents.registry import KINDS, make_agent, weights_sha256
from cardsuite.errors import ConfigError
from cardsuite.games import resolve
from cardsuite.runlock import RunLock
from cardsuite.safe_json import loads, read_bounded

#: Bootstrap resamples behind the published intervals.
RESAMPLES = 1000
#: Largest checkpoint file read (bytes): 200 deals x 100 pairs is about 1 MB.
MAX_CHECKPOINT_BYTES = 64 * 2**20


@dataclass
class Board:
    """A finished leaderboard: agents, every pair's deal outcomes, ratings, head-to-head shares."""

    game: str
    players: int
    deals: int
    seed: int
    agents: list[str]
    pairs: list[PairDeals]
    ratings: Ratings
    head_to_head: list[list[float | None]]
    h2h_interval: list[list[tuple[float, float] | None]]
    options: dict[str, Any] = field(default_factory=dict)

    def order(self) -> list[int]:
        """Agent indices, best rating first."""
        return self.ratings.order()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready board: settings, ratings, head-to-head and every deal outcome."""
        r = self.ratings
        return {
            "game": self.game,
            "players": self.players,
            "options": self.options,
            "deals_per_pair": self.deals,
            "seed": self.seed,
            "agents": self.agents,
            "rating_scale": f"Elo (400 points = 10:1 odds of winning a deal), {r.anchor} = 0",
            "ratings": {
                a: {"rating": r.rating[i], "low": r.low[i], "high": r.high[i]}
                for i, a in enumerate(self.agents)
            },
            "bootstrap_resamples": r.resamples,
            "rating_tiers": dict(zip(self.agents, r.tiers, strict=True)),
            "unmeasured": r.unmeasured(),
            "head_to_head": {
                self.agents[i]: {
                    self.agents[j]: {"share": v, "low": lo_hi[0], "high": lo_hi[1]}
                    for j, (v, lo_hi) in enumerate(zip(row, self.h2h_interval[i], strict=True))
                    if v is not None and lo_hi is not None
                }
                for i, row in enumerate(self.head_to_head)
            },
            "pairs": [
                {"a": self.agents[p.a], "b": self.agents[p.b], "outcomes": p.outcomes.tolist()}
                for p in self.pairs
            ],
        }


def default_agents(game: str, options: dict[str, Any], ismcts: str) -> list[str]:
    """The baselines, the game's ISMCTS, every shipped agent that fits, and what kinds add
    (a kind's ``leaderboard`` entry: ``search:pretrained:scum4``)."""
    kind = part(game, "search").baseline
    specs = ["random", "greedy", "heuristic", f"{kind}:{ismcts}" if ismcts else kind]
    shipped = shipped_agents(game, options)
    added = [
        s for k in KINDS.values() if k.leaderboard for s in resolve(k.leaderboard)(game, shipped)
    ]
    return specs + shipped + added


def shipped_agents(game: str, options: dict[str, Any]) -> list[str]:
    """Every shipped agent that fits ``game`` and ``options``, but twins of another (``shares``)."""
    specs: list[str] = []
    for kind in KINDS.values():
        if kind.argument != "name":
            continue
        try:
            loader = resolve(kind.target)
        except ModuleNotFoundError:
            continue  # its extra is not installed
        available = getattr(loader, "available", None)
        if available is not None:
            names = available(game, options)
            shares = getattr(loader, "shares", lambda _name: None)
            specs += [f"{kind.name}:{n}" for n in names if shares(n) not in names]
    return specs


def deal_outcomes(result: TournamentResult) -> np.ndarray:
    """Per deal of a 2-agent duplicate tournament: 1 (agent 0 won), 0.5, 0."""
    scores = unit_values(result.results, 2, "rewards")
    mine, theirs = np.asarray(scores[0]), np.asarray(scores[1])
    return np.asarray((mine > theirs) + 0.5 * (mine == theirs), dtype=np.float64)


def run_leaderboard(
    game: str,
    players: int,
    agents: list[str],
    *,
    deals: int,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    workers: int = 1,
    progress: bool = False,
    resamples: int = RESAMPLES,
    checkpoint: str | Path | None = None,
) -> Board:
    """Play the round-robin of ``agents`` (at least 2) and rate it; ``checkpoint``: module doc."""
    if len(agents) < 2:
        raise ConfigError("a leaderboard needs at least 2 agents")
    k = len(agents)
    combos = list(itertools.combinations(range(k), 2))
    pairs: list[PairDeals] = []
    h2h: list[list[float | None]] = [[None] * k for _ in range(k)]
    ci: list[list[tuple[float, float] | None]] = [[None] * k for _ in range(k)]
    key = checkpoint_key(game, players, dict(options or {}), seed, deals)
    done: dict[tuple[str, str], np.ndarray] = {}
    lock: Any = contextlib.nullcontext()
    if checkpoint is not None:
        done = read_checkpoint(checkpoint, key)
        check_writable(checkpoint)  # before the first game, not an hour later
        lock = RunLock.of_file(checkpoint, f"a {game} leaderboard").acquire()  # one writer
        kept = sum((agents[i], agents[j]) in done for i, j in combos)
        print(f"{checkpoint} keeps the finished pairs ({kept} of {len(combos)} now): after a "
              "stop, the same command plays only the rest", file=sys.stderr)  # fmt: skip
    with lock, progress_bar(len(combos), f"{game} leaderboard", progress, "pair") as bar:
        for i, j in combos:
            a, b = agents[i], agents[j]
            bar.set_postfix_str(f"{a} vs {b}")
            won = done.get((a, b))
            if won is None:
                weights = (weights_sha256(a), weights_sha256(b))
                res = play_pair(game, players, a, b, deals, seed, options, workers, progress)
                won = deal_outcomes(res)
                if checkpoint is not None:
                    append_checkpoint(checkpoint, key, a, b, won, weights)
            pairs.append(PairDeals(i, j, won))
            share, low, high = mean_interval(won, resamples=resamples, seed=seed)
            h2h[i][j], h2h[j][i] = share, 1.0 - share
            ci[i][j], ci[j][i] = (low, high), (1.0 - high, 1.0 - low)
            bar.update(1)
    ratings = rate(agents, pairs, resamples=resamples, seed=seed)
    return Board(
        game, players, deals, seed, list(agents), pairs, ratings, h2h, ci, dict(options or {})
    )


def play_pair(
    game: str,
    players: int,
    a: str,
    b: str,
    deals: int,
    seed: int,
    options: dict[str, Any] | None,
    workers: int = 1,
    progress: bool = False,
) -> TournamentResult:
    """The duplicate tournament of ``a`` against ``b`` on the first ``deals`` deals of ``seed``."""
    return run_tournament(
        game,
        [a, b],
        games=deals,
        players=players,
        options=dict(options or {}),
        duplicate=True,
        seed=seed,
        workers=workers,
        progress=progress,
    )


def pilot(
    game: str,
    players: int,
    agents: list[str],
    *,
    pilot_deals: int,
    deals: int,
    seed: int = 0,
    options: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Time ``pilot_deals`` deals of every pair in this process (CPU); project ``deals`` deals."""
    if pilot_deals < 1 or deals < 1:
        raise ConfigError(f"--pilot and --deals must be at least 1, got {pilot_deals}, {deals}")
    for spec in agents:  # imports and first loads outside the timed pairs
        close = getattr(make_agent(spec, game), "close", None)
        if callable(close):
            close()
    rows = []
    for i, j in itertools.combinations(range(len(agents)), 2):
        start = time.process_time()
        res = play_pair(game, players, agents[i], agents[j], pilot_deals, seed, options)
        cpu = time.process_time() - start
        games = len(res.results)
        rows.append(
            {
                "a": agents[i],
                "b": agents[j],
                "games": games,
                "cpu_s": cpu,
                "cpu_s_per_game": cpu / games,
                "projected_cpu_s": cpu / pilot_deals * deals,
            }
        )
    return rows


def checkpoint_key(
    game: str, players: int, options: dict[str, Any], seed: int, deals: int
) -> dict[str, Any]:
    """The settings every line of a run's checkpoint must repeat."""
    return {"game": game, "players": players, "options": options, "seed": seed, "deals": deals}


def default_checkpoint(key: dict[str, Any], folder: str | Path = ".") -> Path:
    """The checkpoint a run keeps when given none: named for its game, table and settings."""
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:8]
    return Path(folder) / f"leaderboard-{key['game']}-{key['players']}p-{digest}.jsonl"


def read_checkpoint(path: str | Path, key: dict[str, Any]) -> dict[tuple[str, str], np.ndarray]:
    """The finished pairs of a checkpoint file, ``{(spec_a, spec_b): outcomes}`` (module doc).

    A last line cut short (a killed run) is ignored; `append_checkpoint` drops it.
    """
    source = Path(path)
    if not source.exists():
        return {}
    text = read_bounded(source, "--checkpoint file", MAX_CHECKPOINT_BYTES, ConfigError)
    lines = text.decode("utf-8", errors="replace").split("\n")[:-1]  # after the last \n: unfinished
    expected = loads(json.dumps(key), "the run's settings", error=ConfigError)
    done: dict[tuple[str, str], np.ndarray] = {}
    hashes: dict[str, str | None] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"--checkpoint {str(source)!r} line {number}"
        data = loads(line, where, error=ConfigError)
        if not isinstance(data, dict):
            raise ConfigError(f"{where}: not a JSON object")
        settings = {k: data.get(k) for k in key}
        if settings != expected:
            raise ConfigError(
                f"{where} is from another run ({json.dumps(settings, sort_keys=True)}); "
                f"this run is {json.dumps(key, sort_keys=True)}: give a new --checkpoint file"
            )
        a, b, out = data.get("a"), data.get("b"), data.get("outcomes")
        if (
            not isinstance(a, str)
            or not isinstance(b, str)
            or not isinstance(out, list)
            or len(out) != key["deals"]
            or any(x not in (0, 0.5, 1) for x in out)
        ):
            raise ConfigError(f"{where}: needs a, b and {key['deals']} outcomes of 0, 0.5 or 1")
        recorded = data.get("weights", [None, None])
        if (
            not isinstance(recorded, list)
            or len(recorded) != 2
            or any(w is not None and not isinstance(w, str) for w in recorded)
        ):
            raise ConfigError(f"{where}: weights must be a list of two SHA-256 strings or null")
        for spec, then in zip((a, b), recorded, strict=True):
            if then is None:
                continue
            if spec not in hashes:
                hashes[spec] = weights_sha256(spec)
            if hashes[spec] != then:
                now = (hashes[spec] or "none")[:12]
                raise ConfigError(
                    f"{where}: {spec!r} played weights of SHA-256 {then[:12]}... then and "
                    f"plays {now}... now (re-shipped or retrained): delete that line to play "
                    "the pair again, or give a new --checkpoint file"
                )
        done[(a, b)] = np.asarray(out, dtype=np.float64)
    return done


def check_writable(path: str | Path) -> None:
    """ConfigError unless the checkpoint can be appended to (checked before the first game)."""
    try:
        with Path(path).open("ab"):
            pass
    except OSError as err:
        raise ConfigError(
            f"cannot write --checkpoint {str(path)!r}: {err.strerror or err}"
        ) from None


def append_checkpoint(
    path: str | Path,
    key: dict[str, Any],
    a: str,
    b: str,
    outcomes: np.ndarray,
    weights: tuple[str | None, str | None] | None = None,
) -> None:
    """Append one finished pair and the SHA-256 of the weights each played (default: now)."""
    target = Path(path)
    played = list(weights) if weights is not None else [weights_sha256(a), weights_sha256(b)]
    line = json.dumps({
        **key, "a": a, "b": b, "outcomes": [float(x) for x in outcomes], "weights": played,
    })  # fmt: skip
    try:
        cut = cut_line(target) if target.is_file() else None  # a line cut short by a killed run
        with target.open("a+b") as fh:
            if cut is not None:
                fh.truncate(cut)
            fh.write(line.encode("utf-8") + b"\n")
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as err:
        raise ConfigError(
            f"cannot write --checkpoint {str(target)!r}: {err.strerror or err}"
        ) from None
