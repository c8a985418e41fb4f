"""OpenSpiel's ISMCTS on our games: one ISMCTS seat against uniformly random players.

``python -m cardsuite.agents.external.openspiel.demo scum --sims 100 --episodes 40`` prints
seat 0's mean return (``--sims 0``: a random seat 0, the baseline) and the time per ISMCTS
decision; the measured rows are in ``docs/openspiel.md``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from cardsuite.agents.external.openspiel import load_game
from cardsuite.agents.registry import spec_scalar


def play(
    game: Any, sims: int, episodes: int, seed: int = 0, uct_c: float = 2.0
) -> tuple[np.ndarray, list[float]]:
    """Seat-0 returns of ``episodes`` episodes and the seconds of every ISMCTS decision."""
    from open_spiel.python.algorithms import ismcts, mcts

    returns, times = [], []
    for ep in range(episodes):
        evaluator = mcts.RandomRolloutEvaluator(
            n_rollouts=1, random_state=np.random.RandomState(seed + ep)
        )
        bot = ismcts.ISMCTSBot(
            game, evaluator, uct_c, max(sims, 1), random_state=np.random.RandomState(seed + ep)
        )
        rng = np.random.default_rng(seed + 1000 + ep)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            if state.current_player() == 0 and sims > 0:
                start = time.perf_counter()
                action = int(bot.step(state))
                times.append(time.perf_counter() - start)
            else:
                action = int(rng.choice(state.legal_actions()))
            state.apply_action(action)
        returns.append(state.returns()[0])
    return np.asarray(returns), times


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the arguments, play, print one line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=["scum", "scum_party", "scandal"])
    parser.add_argument("--sims", type=int, default=100, help="ISMCTS simulations (0: random)")
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                        help="OpenSpiel game parameters, e.g. players=5 max_turns=60")  # fmt: skip
    args = parser.parse_args(argv)
    pairs = (item.partition("=") for item in args.set)
    game = load_game(args.game, **{key: spec_scalar(value) for key, _, value in pairs})
    returns, times = play(game, args.sims, args.episodes, args.seed)
    error = returns.std(ddof=1) / np.sqrt(len(returns)) if len(returns) > 1 else float("nan")
    per = f"; {1000 * float(np.mean(times)):.0f} ms per ISMCTS decision" if times else ""
    print(f"{game}: sims={args.sims}, {len(returns)} episodes: seat-0 mean return "
          f"{returns.mean():.2f} +- {error:.2f}{per}")  # fmt: skip


if __name__ == "__main__":
    main()
