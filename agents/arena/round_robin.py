"""The leaderboard's round-robin: every pair of agents plays the same duplicate deals.

On each deal the agent with the higher mean return over its seats wins
(equal: a tie); the ratings are one Bradley-Terry fit to every deal of every
pair (`cardsuite.agents.arena.ratings.rate`), beside the head-to-head shares
with their 95% bootstrap intervals (``docs/leaderboard.md``).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.arena.checkpoints import (
    append_checkpoint,
    check_writable,
    checkpoint_key,
    read_checkpoint,
)
from cardsuite.agents.arena.ratings import PairDeals, Ratings, rate
from cardsuite.agents.arena.results import TournamentResult
from cardsuite.agents.arena.stats import mean_interval, unit_values
from cardsuite.agents.arena.tournament import run_tournament
from cardsuite.agents.arena.workers import progress_bar
from cardsuite.agents.parts import part
from cardsuite.agents.registry import KINDS, make_agent, weights_sha256
from cardsuite.errors import ConfigError
from cardsuite.games import resolve

#: Bootstrap resamples behind the published intervals.
RESAMPLES = 1000


@dataclass
class Board:
    """A finished leaderboard: agents, every deal outcome, ratings and the head-to-head table.

    Attributes:
        game, players, deals, seed, options: how it was played.
        agents: agent specs.
        pairs: the deal outcomes of every pair (``a < b``; 1 = ``a`` won).
        ratings: the order-free Elo ratings with bootstrap intervals.
        head_to_head: ``h[a][b]``, share of deals ``a`` beat ``b`` (ties half).
        h2h_interval: ``(low, high)`` 95% bootstrap interval of each share.
    """

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
                {
                    "a": self.agents[p.a],
                    "b": self.agents[p.b],
                    "outcomes": [float(x) for x in p.outcomes],
                }
                for p in self.pairs
            ],
        }


def default_agents(game: str, options: dict[str, Any], ismcts: str) -> list[str]:
    """The baselines, the game's ISMCTS, every shipped agent that fits, and what kinds add.

    The ISMCTS is the game's leaderboard kind (its ``search`` part's
    ``baseline``: ``ismcts``, or ``ismcts-batched`` in Scandal) with the
    ``ismcts`` parameters given; a kind with a ``leaderboard`` entry adds its
    specs for the shipped agents (``search:pretrained:scum4``).
    """
    kind = part(game, "search").baseline
    specs = ["random", "greedy", "heuristic", f"{kind}:{ismcts}" if ismcts else kind]
    shipped = shipped_agents(game, options)
    added = [
        s for k in KINDS.values() if k.leaderboard for s in resolve(k.leaderboard)(game, shipped)
    ]
    return specs + shipped + added


def shipped_agents(game: str, options: dict[str, Any]) -> list[str]:
    """Every shipped reference agent (a ``name`` kind) that fits ``game`` and ``options``.

    The kind's class lists them (``available(game, options)``). A name that
    plays another listed name's weights (its class's ``shares``) is left out:
    it would only play its twin to a tie.
    """
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
    """Play the round-robin of ``agents`` (at least 2) and rate it (module doc).

    Every pair plays ``deals`` duplicate deals of master ``seed`` at
    ``players`` seats, ``workers`` processes a pair; ``checkpoint``: a
    JSON-lines file of finished pairs, those in it not played again
    (`cardsuite.agents.arena.checkpoints`). ConfigError: fewer than 2 agents,
    a checkpoint of other settings, or anything `run_tournament` refuses.
    """
    if len(agents) < 2:
        raise ConfigError("a leaderboard needs at least 2 agents")
    k = len(agents)
    combos = list(itertools.combinations(range(k), 2))
    pairs: list[PairDeals] = []
    h2h: list[list[float | None]] = [[None] * k for _ in range(k)]
    ci: list[list[tuple[float, float] | None]] = [[None] * k for _ in range(k)]
    key = checkpoint_key(game, players, dict(options or {}), seed, deals)
    done: dict[tuple[str, str], np.ndarray] = {}
    if checkpoint is not None:
        done = read_checkpoint(checkpoint, key)
        check_writable(checkpoint)  # before the first game, not an hour later
    with progress_bar(len(combos), f"{game} leaderboard", progress, "pair") as bar:
        for i, j in combos:
            a, b = agents[i], agents[j]
            bar.set_postfix_str(f"{a} vs {b}")
            won = done.get((a, b))
            if won is None:
                weights = (weights_sha256(a), weights_sha256(b))
                res = _pair(game, players, a, b, deals, seed, options, workers, progress)
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


def _pair(
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
    """The duplicate tournament of one pair on the run's deals."""
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
    """Time ``pilot_deals`` deals of every pair and project the CPU time of ``deals`` deals.

    Every agent is built once first, then each pair plays in this process,
    timed in CPU seconds (`time.process_time`). One row per pair: ``a``,
    ``b``, ``games``, ``cpu_s``, ``cpu_s_per_game`` and ``projected_cpu_s``.
    """
    if pilot_deals < 1 or deals < 1:
        raise ConfigError(f"--pilot and --deals must be at least 1, got {pilot_deals}, {deals}")
    for spec in agents:  # imports and first loads outside the timed pairs
        close = getattr(make_agent(spec, game), "close", None)
        if callable(close):
            close()
    rows = []
    for i, j in itertools.combinations(range(len(agents)), 2):
        start = time.process_time()
        res = _pair(game, players, agents[i], agents[j], pilot_deals, seed, options)
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
