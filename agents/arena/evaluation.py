"""The benchmark's standard evaluation of one agent (``cardsuite benchmark``; ``docs/benchmark.md``)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.arena.deal_sets import (
    QUICK_DEALS,
    DealSet,
    agent_hash,
    engine_hash,
    load_deal_set,
    pool_ismcts,
    reference_pool,
    stale_references,
    stale_text,
)
from cardsuite.agents.arena.ratings import PairDeals, rate
from cardsuite.agents.arena.round_robin import deal_outcomes, play_pair, run_leaderboard
from cardsuite.agents.arena.stats import deals_for_half_width, mean_interval, unit_values
from cardsuite.agents.registry import parse_spec, weights_sha256
from cardsuite.cli import package_version
from cardsuite.errors import ConfigError

#: Bootstrap resamples behind every interval.
RESAMPLES = 2000
#: The rating scale of a report.
SCALE = "Elo (400 points = 10:1 odds of winning a deal), random = 0"


@dataclass
class VersusReference:
    """The agent under test against one reference, per deal of the deal set."""

    reference: str
    sha256: str
    won: np.ndarray  # 1, 0.5, 0 (the agent won, tie, lost)
    points: np.ndarray  # the agent's mean return over its seats
    reference_points: np.ndarray  # the reference's mean return
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
    game, players, seed = deal_set.game, deal_set.players, deal_set.seed
    res = play_pair(
        game, players, spec, reference, deals, seed, deal_set.options, workers, progress
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
    """The agent's Elo rating against the calibrated references held fixed (``docs/benchmark.md``)."""
    refs = [v.reference for v in versus]
    table = deal_set.quick_reference_ratings if quick else deal_set.reference_ratings
    how = deal_set.quick_calibration if quick else deal_set.calibration
    calib_deals = deal_set.quick_calibration_deals if quick else deal_set.calibration_deals
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
        absent = [r for r in missing if r not in stale]
        why = [stale_text(r, a, b) for r, (a, b) in stale.items()]
        if absent:
            kind = "quick-run" if quick else "full-run"
            why.insert(
                0,
                f"deal set {deal_set.name} holds no {kind} calibrated rating for {', '.join(absent)}",
            )
        basis = f"none: {'; '.join(why)} (cardsuite benchmark --calibrate" + (
            " --quick" if quick else ""
        )
        return {
            **dict.fromkeys(("elo", "low", "high")),
            "scale": SCALE,
            "measured": None,
            "basis": basis + " makes them)",
            **facts,
        }
    pairs = [PairDeals(0, i + 1, v.won) for i, v in enumerate(versus)]
    fixed = {x: table[x] for x in refs}
    r = rate(["(agent)", *refs], pairs, fixed=fixed, resamples=resamples, seed=seed)
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
        "scale": SCALE,
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
    """Rate the reference pool on the deal set: its new entries, and the ``leaderboard``."""
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
        + f" ({n} deals per pair, cardsuite {package_version()})"
    )
    weights = {spec: weights_sha256(spec) for spec in pool}
    return {
        f"{prefix}reference_ratings": dict(zip(pool, board.ratings.rating, strict=True)),
        f"{prefix}calibration": command,
        f"{prefix}calibration_deals": n,
        "reference_weights": {spec: d for spec, d in weights.items() if d is not None},
        "leaderboard": board.to_dict(),
    }


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
    """Benchmark the agent ``spec``; the report as a JSON-ready dict (``docs/benchmark.md``).

    ``quick``, ``ismcts`` (another ISMCTS for the pool) and ``deals`` (fewer)
    make the run not citable. ConfigError: no deal set, a bad spec or deal count.
    """
    parse_spec(spec)
    deal_set = load_deal_set(game, players)
    n = deals if deals is not None else (QUICK_DEALS if quick else deal_set.deals)
    if not 1 <= n <= deal_set.deals:
        raise ConfigError(f"deals must be between 1 and {deal_set.deals}, got {n}")
    pool = reference_pool(deal_set, quick=quick, ismcts=ismcts)
    standard = not quick and ismcts is None and n == deal_set.deals
    seed = deal_set.seed % 2**32
    versus = []
    for reference in pool:
        if progress:
            print(f"benchmark: {spec} against {reference} ({n} deals)", file=sys.stderr)
        versus.append(
            play_reference(spec, reference, deal_set, n, workers=workers, progress=progress)
        )
    rows = []
    for v in versus:
        share, s_lo, s_hi = mean_interval(v.won, resamples=resamples, seed=seed)
        pts, p_lo, p_hi = mean_interval(v.points, resamples=resamples, seed=seed)
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
    sha = {QUICK_DEALS: deal_set.quick_sha256, deal_set.deals: deal_set.sha256}.get(n)
    return {
        "protocol": deal_set.protocol,
        "cardsuite": package_version(),
        "agent": spec,
        "game": deal_set.game,
        "players": deal_set.players,
        "options": deal_set.options,
        "deal_set": {"name": deal_set.name, "seed": deal_set.seed, "deals": n, "sha256": sha},
        "engine_sha256": engine_hash(deal_set.game),
        "quick": quick,
        "standard": standard,
        "citable": standard,
        "deals_for_5_points": deals_for_half_width(0.05),
        "pool": pool,
        "ismcts": pool_ismcts(deal_set, quick=quick, ismcts=ismcts),
        "versus": rows,
        "rating": benchmark_rating(versus, deal_set, quick=quick, resamples=resamples, seed=seed),
        "resamples": resamples,
        "interval": "95% percentile bootstrap over deals (scipy.stats.bootstrap)",
    }
