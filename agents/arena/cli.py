"""``cardsuite tournament``: agents play seeded games with fair seating; statistics and ratings."""

from __future__ import annotations

import argparse
from typing import Any

from cardsuite.agents.arena.results import check_results_dir
from cardsuite.agents.arena.tournament import run_tournament
from cardsuite.agents.registry import available_agents
from cardsuite.games import get_game, parse_options


def add_command(sub: Any) -> tuple[str, Any]:
    """Register the subcommand; returns its name and runner."""
    p = sub.add_parser(
        "tournament",
        help="play agents against each other: scores, ranks, head-to-head, ratings",
        description="Agents play seeded games with their seats rotated game by game "
        "(--duplicate: every deal once per rotation). Game rule options follow as "
        "--key value.",
        epilog="agents:\n  " + "\n  ".join(available_agents()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("game", help="scum, scum_party or scandal")
    p.add_argument(
        "--agents", nargs="+", required=True, metavar="SPEC", help="two or more agent specs"
    )
    p.add_argument("--games", type=int, default=100, help="games (deals with --duplicate)")
    p.add_argument("--players", type=int, default=None, help="seats at the table")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--duplicate", action="store_true", help="play each deal in every rotation")
    p.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    p.add_argument(
        "--out",
        default=None,
        help="write results.json/.csv/.png to this folder (new, or without results)",
    )
    p.add_argument("--record", default=None, help="write every game as JSON lines to this new file")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return "tournament", run


def run(args: argparse.Namespace, extra: list[str]) -> int:
    """Play the tournament, print the table, write the files asked for."""
    game = get_game(args.game)
    options = parse_options(game, extra)
    if args.out:
        check_results_dir(args.out)  # before any game is played
    result = run_tournament(
        game.name,
        list(args.agents),
        games=args.games,
        players=args.players,
        options=options,
        duplicate=args.duplicate,
        seed=args.seed,
        workers=args.workers,
        record=args.record,
        progress=not args.no_progress,
    )
    print(result.format_table())
    if args.record:
        print(f"\nrecords: {args.record}")
    if args.out:
        paths = result.write(args.out)
        print(f"results: {', '.join(str(p) for p in paths)}")
    return 0
