"""Bradley-Terry over deals against Plackett-Luce over whole finishing orders, on leaderboard deals.

Plays again every pair of ``--agents`` on the board's deals (checking the board's stored
outcomes), fits both models (`cardsuite.agents.arena.ratings.rate` and ``rate_orders``)
and prints each one's order, Kendall's tau against the other, interval widths, separated
adjacent pairs and held-out log-likelihood (5-fold over deals). docs/leaderboard.md.
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.stats import kendalltau

from cardsuite.agents.arena.ratings import ELO_PER_UNIT, PairDeals, Ratings, rate, rate_orders
from cardsuite.agents.arena.round_robin import deal_outcomes
from cardsuite.agents.arena.tournament import run_tournament


def play(
    board: dict[str, Any], agents: list[str]
) -> tuple[list[PairDeals], list[list[int]], list[int]]:
    """Every pair's deal outcomes, and every game's finishing order (agent per place) and deal."""
    pairs, orders, deals = [], [], []
    for i, j in itertools.combinations(range(len(agents)), 2):
        res = run_tournament(board["game"], [agents[i], agents[j]], games=board["deals_per_pair"],
                             options=board["options"], duplicate=True, seed=board["seed"])  # fmt: skip
        won = deal_outcomes(res)
        stored = next(
            p["outcomes"] for p in board["pairs"] if (p["a"], p["b"]) == (agents[i], agents[j])
        )
        assert won.tolist() == stored, f"{agents[i]} vs {agents[j]}: not the board's outcomes"
        pairs.append(PairDeals(i, j, won))
        pair = (i, j)
        for g in res.results:
            places = sorted(range(len(g.ranks)), key=lambda s: (g.ranks[s], s))
            orders.append([pair[g.seating[s]] for s in places])
            deals.append(len(pairs) * 10_000 + g.deal)  # a pair's deal is its own unit
    return pairs, orders, deals


def summary(name: str, r: Ratings, other: Ratings) -> str:
    """One line: order, tau against the other model, relative width, separated neighbours."""
    order = r.order()
    tau = kendalltau(r.rating, other.rating).statistic
    spread = max(r.rating) - min(r.rating)
    width = np.mean([h - lo for lo, h in zip(r.low, r.high, strict=True)]) / spread
    apart = sum(r.low[a] > r.high[b] for a, b in itertools.pairwise(order))
    return (f"{name}: order {[r.agents[i] for i in order]}, tau {tau:.2f}, "
            f"mean interval / spread {width:.3f}, adjacent pairs separated {apart}/{len(order) - 1}")  # fmt: skip


def nll(scale: float, theta: np.ndarray, data: list[PairDeals]) -> float:
    """Negative log-likelihood of deal outcomes (ties half) under ``scale`` times the gaps."""
    total = 0.0
    for p in data:
        q = 1.0 / (1.0 + np.exp(-scale * (theta[p.a] - theta[p.b])))
        total -= float(np.sum(p.outcomes * np.log(q) + (1 - p.outcomes) * np.log1p(-q)))
    return total


def held_out(
    pairs: list[PairDeals], orders: list[list[int]], deals: list[int], k: int
) -> tuple[float, float]:
    """Mean log-likelihood per held-out deal outcome, BT and PL (5 folds over deal numbers)."""
    n = len(pairs[0].outcomes)
    fold = np.arange(n) % 5
    ll: dict[str, list[float]] = {"bt": [], "pl": []}
    names = [str(i) for i in range(k)]
    for f in range(5):
        train = [PairDeals(p.a, p.b, p.outcomes[fold != f]) for p in pairs]
        bt = np.array(rate(names, train, anchor="0", resamples=0).rating) / ELO_PER_UNIT
        keep = [m for m, d in enumerate(deals) if fold[d % 10_000] != f]
        pl = np.array(rate_orders(names, [orders[m] for m in keep], [deals[m] for m in keep],
                                  anchor="0", resamples=0).rating) / ELO_PER_UNIT  # fmt: skip

        s = minimize_scalar(nll, bounds=(0.01, 20), args=(pl, train), method="bounded").x
        test = [PairDeals(p.a, p.b, p.outcomes[fold == f]) for p in pairs]
        count = sum(len(p.outcomes) for p in test)
        ll["bt"].append(-nll(1.0, bt, test) / count)
        ll["pl"].append(-nll(s, pl, test) / count)
    return float(np.mean(ll["bt"])), float(np.mean(ll["pl"]))


def main() -> None:
    """Parse the arguments, play, fit, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--board", required=True, help="a leaderboard JSON (docs/data)")
    parser.add_argument("--agents", nargs="+", required=True, help="agents of the board")
    parser.add_argument("--resamples", type=int, default=200, help="bootstrap resamples")
    args = parser.parse_args()
    board = json.loads(Path(args.board).read_text(encoding="utf-8"))
    pairs, orders, deals = play(board, args.agents)
    bt = rate(args.agents, pairs, resamples=args.resamples, seed=0)
    pl = rate_orders(args.agents, orders, deals, resamples=args.resamples, seed=0)
    print(f"{board['game']} {board['players']} players, {board['deals_per_pair']} deals per pair, "
          f"{len(orders)} games (outcomes identical to the board's)")  # fmt: skip
    print(summary("BT over deals", bt, pl))
    print(summary("PL over finishing orders", pl, bt))
    lb, lp = held_out(pairs, orders, deals, len(args.agents))
    print(f"held-out deal outcomes, mean log-likelihood per deal: BT {lb:.4f}, PL {lp:.4f}")


if __name__ == "__main__":
    main()
