"""``cardsuite tournament``: agents play seeded games with fair seating; statistics and ratings."""

from __future__ import annotations

import argparse
from typing import Any

from cardsuite.agents.arena.arguments import GAME_HELP, add_arguments
from cardsuite.agents.arena.result_files import check_results_dir
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
    add_arguments(
        p,
        game=GAME_HELP,
        agents=("two or more agent specs", {"required": True, "metavar": "SPEC"}),
        games="games (deals with --duplicate)",
        players="seats at the table",
        workers="worker processes (default 1)",
    )
    p.add_argument("--duplicate", action="store_true", help="play each deal in every rotation")
    add_arguments(
        p,
        seed="master seed (default 0)",
        out="write results.json/.csv/.png to this folder (new, or without results)",
        record="write every game as JSON lines to this new file",
        no_progress="no progress bar",
    )
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
