"""An agent against a baseline at several table sizes, on the trainers' duplicate evaluator::

    python -m cardsuite.train.tools.sizes AGENT --game G --players 8 20 50 --deals N

One JSON line per player count: the share of deals won, with its 95% interval."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from cardsuite.errors import CardsuiteError
from cardsuite.train.core.evaluate import evaluate_specs
from cardsuite.train.core.games import train_game


def evaluate_sizes(
    spec: str, game: str, players: list[int], *, against: str = "heuristic", deals: int,
    seed: int,
) -> list[dict[str, Any]]:  # fmt: skip
    """`evaluate_specs` of agent ``spec`` against ``against`` at each player count; one row
    each, with ``players``."""
    rows = []
    for n in players:
        config = train_game(game).config(n, {})
        for row in evaluate_specs(spec, [against], game=game, config=config, deals=deals,
                                  seed=seed, step=0):  # fmt: skip
            rows.append({"players": n, **row.to_dict()})
    return rows


def main(argv: list[str] | None = None) -> int:
    """``python -m cardsuite.train.tools.sizes`` (module doc)."""
    p = argparse.ArgumentParser(description="an agent against a baseline at several table sizes")
    p.add_argument("agent", help="an agent spec: pretrained:NAME or ppo:PATH")
    p.add_argument("--game", required=True, help="scum_party or scandal (any batched game)")
    p.add_argument("--players", type=int, nargs="+", required=True, help="player counts")
    p.add_argument("--against", default="heuristic", help="the baseline (heuristic, random)")
    p.add_argument("--deals", type=int, default=400, help="duplicate deals per player count")
    p.add_argument("--seed", type=int, default=2_000_003, help="the deals' seed (unseen)")
    a = p.parse_args(argv)
    try:
        for n in a.players:  # one size at a time, so each line shows as soon as it is measured
            (row,) = evaluate_sizes(a.agent, a.game, [n], against=a.against, deals=a.deals,
                                    seed=a.seed)  # fmt: skip
            print(json.dumps(row), flush=True)
    except CardsuiteError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
