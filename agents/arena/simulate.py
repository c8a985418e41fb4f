"""``cardsuite simulate``: random legal games, finish statistics and throughput."""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from typing import Any

import numpy as np

from cardsuite.agents.arena.cli import GAME_HELP, command_parser, table_args
from cardsuite.agents.arena.stats import mean_ci
from cardsuite.agents.arena.workers import progress_bar
from cardsuite.cli import RULE_HELP
from cardsuite.errors import ConfigError


def add_command(sub: Any) -> tuple[str, Any]:
    """Register the subcommand; returns its name and runner."""
    command_parser(
        sub,
        "simulate",
        "play random legal games and print finish statistics and throughput",
        "Play games with uniformly random legal agents through the user-facing env() "
        "(observation and mask every step).",
        game=f"{GAME_HELP} (required)",
        players="number of players",
        rule=RULE_HELP,
        games="episodes to play (default 100)",
        seed="seed of the deals and the agents",
        render=("print the first episode move by move", {"action": "store_true"}),
        no_progress="no progress bar",
    )
    return "simulate", run


def run(args: argparse.Namespace, extra: list[str]) -> int:
    """Play the games and print the report."""
    game, options = table_args(args, extra)
    if args.games < 1:
        raise ConfigError(f"--games must be at least 1, got {args.games}")
    if args.seed < 0:
        raise ConfigError(f"--seed must be a non-negative integer, got {args.seed}")
    env = game.make(render_mode="ansi" if args.render else None, **options)
    progress = not args.no_progress and not args.render
    stats = simulate(env, args.games, args.seed, render=args.render, progress=progress)
    print(format_report(game.name, env, stats))
    return 0


def simulate(
    env: Any, games: int, seed: int, *, render: bool = False, progress: bool = False
) -> dict[str, Any]:
    """Play ``games`` episodes with random legal agents; their results (``truncated``: episodes)."""
    rng = np.random.default_rng(seed)
    rewards: dict[str, list[float]] = defaultdict(list)
    finish: dict[str, list[int]] = defaultdict(list)
    by_role: dict[str, list[int]] = defaultdict(list)
    steps = truncated = 0
    start = time.perf_counter()
    env.reset(seed=seed)
    with progress_bar(games, f"{env.metadata.get('name', 'simulate')} simulate", progress) as bar:
        for episode in range(games):
            if episode:
                env.reset()
            episode_truncated = False
            show = render and episode == 0
            if show:
                print(env.render())
            for agent in env.agent_iter():
                obs, _, term, trunc, info = env.last()
                if term or trunc:
                    rewards[agent].append(float(env._cumulative_rewards[agent]))
                    if "finish_position" in info:
                        finish[agent].append(info["finish_position"])
                        if "role" in info:
                            by_role[info["role"]].append(info["finish_position"])
                    episode_truncated = episode_truncated or bool(trunc)
                    env.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
                if show:
                    print(f"> {agent}: {env.unwrapped.describe_action(action)}")
                env.step(action)
                steps += 1
                if show and env.agents:
                    print(env.render())
            truncated += int(episode_truncated)
            bar.update(1)
    return {
        "games": games,
        "steps": steps,
        "seconds": time.perf_counter() - start,
        "rewards": dict(rewards),
        "finish": dict(finish),
        "by_role": dict(by_role),
        "truncated": truncated,
    }


def format_report(name: str, env: Any, stats: dict[str, Any]) -> str:
    """The finish statistics and throughput as a text table."""
    n = len(env.possible_agents)
    lines = [f"{name}: {stats['games']} games, {n} players, random legal agents", ""]
    header = f"{'agent':<10} {'mean reward':>12} {'± 95% CI':>9}"
    if stats["finish"]:
        header += f" {'mean finish':>12} {'1st %':>7}"
    lines.append(header)
    for agent in env.possible_agents:
        mean, half = mean_ci(stats["rewards"].get(agent, []))  # Student t (scipy.stats.t)
        ci = float("nan") if half is None else half
        row = f"{agent:<10} {mean:>12.3f} {ci:>9.3f}"
        if stats["finish"]:
            f = np.asarray(stats["finish"].get(agent, []))
            row += f" {f.mean():>12.2f} {100 * np.mean(f == 1):>6.1f}%"
        lines.append(row)
    if stats["by_role"]:
        lines += ["", f"{'role in series':<16} {'mean finish':>12} {'1st %':>7} {'series':>7}"]
        for role, values in sorted(stats["by_role"].items(), key=lambda kv: np.mean(kv[1])):
            f = np.asarray(values)
            lines.append(f"{role:<16} {f.mean():>12.2f} {100 * np.mean(f == 1):>6.1f}% {len(f):>7}")
    rate = stats["steps"] / stats["seconds"] if stats["seconds"] > 0 else float("nan")
    lines += [
        "",
        f"throughput: {stats['steps']} agent steps in {stats['seconds']:.2f} s = "
        f"{rate:,.0f} steps/s, {stats['games'] / stats['seconds']:,.1f} games/s "
        "(env(), observation and mask every step)",
    ]
    if stats["truncated"]:
        lines.append(f"truncated episodes: {stats['truncated']} of {stats['games']}")
    return "\n".join(lines)
