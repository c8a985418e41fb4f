"""``cardsuite tournament``, and the arguments every arena and play command spells alike."""

from __future__ import annotations

import argparse
from typing import Any

from cardsuite.agents.arena.results import check_results_dir
from cardsuite.agents.arena.tournament import run_tournament
from cardsuite.agents.registry import available_agents
from cardsuite.config import read_yaml_mapping
from cardsuite.errors import ConfigError
from cardsuite.games import Game, get_game, parse_options

#: The help of the game argument.
GAME_HELP = "scum, scum_party or scandal"

#: name -> (flag, the argparse settings every command that takes it shares).
SHARED: dict[str, tuple[str, dict[str, Any]]] = {
    "game": ("game", {}),
    "players": ("--players", {"type": int, "default": None}),
    "games": ("--games", {"type": int, "default": 100}),
    "seed": ("--seed", {"type": int, "default": 0}),
    "agents": ("--agents", {"nargs": "+"}),
    "workers": ("--workers", {"type": int, "default": 1}),
    "resamples": ("--resamples", {"type": int}),
    "no_progress": ("--no-progress", {"action": "store_true"}),
}


def add_arguments(parser: Any, **helps: str | tuple[str, dict[str, Any]]) -> None:
    """Add the arguments named, in order: `SHARED`'s, or ``--name`` with ``(help, settings)``.

    ``settings`` override the shared ones (``flag`` turns ``game`` into ``--game``).
    """
    for name, value in helps.items():
        text, extra = (value, {}) if isinstance(value, str) else value
        flag, settings = SHARED.get(name, ("--" + name.replace("_", "-"), {}))
        settings = {**settings, **extra, "help": text}
        parser.add_argument(settings.pop("flag", flag), **settings)


def rule_options(game: Game, config: str | None, extra: list[str]) -> dict[str, Any]:
    """Rule options from a ``--config`` preset (file or shipped name), then ``--key value`` flags."""
    base: dict[str, Any] = {}
    if config:
        base = read_yaml_mapping(config)
        game.config_class().from_dict(base, source=str(config))  # unknown keys named
    return {**base, **parse_options(game, extra)}


def no_extra(extra: list[str], why: str = "") -> None:
    """ConfigError naming the arguments a command does not take (``why`` appended)."""
    if extra:
        raise ConfigError(f"unknown arguments: {' '.join(extra)}{why}")


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
        duplicate=("play each deal in every rotation", {"action": "store_true"}),
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
        print(f"results: {', '.join(str(p) for p in result.write(args.out))}")
    return 0
