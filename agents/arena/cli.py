"""``cardsuite tournament``, and the arguments every arena and play command spells alike."""

from __future__ import annotations

import argparse
from typing import Any

from cardsuite.agents.arena.results import check_results_dir
from cardsuite.agents.arena.tournament import run_tournament
from cardsuite.agents.registry import available_agents
from cardsuite.cli import RULE_HELP, TABLE_FLAGS, deprecated, table_options
from cardsuite.config import read_yaml_mapping
from cardsuite.errors import ConfigError
from cardsuite.games import Game, get_game, parse_options

#: The help of the game argument.
GAME_HELP = "scum, scum_party or scandal"

#: name -> (flag, the argparse settings every command that takes it shares).
SHARED: dict[str, tuple[str, dict[str, Any]]] = {
    **{flag[2:]: (flag, settings) for flag, settings in TABLE_FLAGS.items()},
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


def command_parser(sub: Any, name: str, help: str, description: str, **arguments: Any) -> Any:
    """The parser of subcommand ``name``, with `add_arguments`'s ``arguments`` in order."""
    parser = sub.add_parser(name, help=help, description=description)
    add_arguments(parser, **arguments)
    return parser


def _positional_game(ns: argparse.Namespace, extra: list[str]) -> list[str]:
    """``extra`` less a game given as the first positional argument (the spelling of
    tournament, play, simulate and leaderboard before ``--game``: it goes to ``ns.game``,
    with a warning)."""
    if not extra or extra[0].startswith("-"):
        return extra
    if getattr(ns, "game", None):
        raise ConfigError(f"unexpected argument {extra[0]!r} (the game is --game {ns.game})")
    ns.game = extra[0]
    deprecated(f"the game as a positional argument ({ns.game})", f"--game {ns.game}")
    return extra[1:]


def table_args(
    ns: argparse.Namespace, extra: list[str], preset: str | None = None
) -> tuple[Game, dict[str, Any]]:
    """The game and rule options of an arena or play command: ``--game``, the rule preset,
    ``--rule``, ``--players`` (`cardsuite.cli.table_options`); a game given first as a
    positional argument is read too, with a warning."""
    rest = _positional_game(ns, extra)
    if not ns.game:
        raise ConfigError(f"give the game: --game GAME ({GAME_HELP})")
    game = get_game(ns.game)
    return game, table_options(game, ns, rest, rule_options(game, preset, []))


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
    p = command_parser(
        sub,
        "tournament",
        "play agents against each other: scores, ranks, head-to-head, ratings",
        "Agents play seeded games with their seats rotated game by game (--duplicate: every "
        "deal once per rotation).",
        game=f"{GAME_HELP} (required)",
        players="seats at the table",
        rule=RULE_HELP,
        agents=("two or more agent specs", {"required": True, "metavar": "SPEC"}),
        games="games (deals with --duplicate)",
        workers="worker processes (default 1)",
        duplicate=("play each deal in every rotation", {"action": "store_true"}),
        seed="master seed (default 0)",
        out="write results.json/.csv/.png to this folder (new, or without results)",
        record="write every game as JSON lines to this new file",
        no_progress="no progress bar",
    )
    p.epilog = "agents:\n  " + "\n  ".join(available_agents())
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    return "tournament", run


def run(args: argparse.Namespace, extra: list[str]) -> int:
    """Play the tournament, print the table, write the files asked for."""
    game, options = table_args(args, extra)
    if args.out:
        check_results_dir(args.out)  # before any game is played
    result = run_tournament(
        game.name,
        list(args.agents),
        games=args.games,
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
