"""The ``cardsuite`` command-line tool.

Subcommands: ``simulate`` (random legal games: finish statistics and
throughput). Rule options of the chosen game follow as ``--key value``.
Errors a user can cause (bad options, unknown game) print one line and exit
with status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from scum_env.suite.errors import CardsuiteError

Command = Callable[[argparse.Namespace, list[str]], int]

# Each module has ``add_command(subparsers) -> (name, runner)``; importing it
# must stay light (no torch at import time).
COMMAND_MODULES = (
    "agents.simulate",
    "agents.tournament_cli",
    "agents.play",
    "agents.replay",
    "train.cli",
)


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, Command]]:
    """The argument parser and the function behind each subcommand."""
    import importlib

    parser = argparse.ArgumentParser(
        prog="cardsuite",
        description="Card-game RL suite: simulate, benchmark and train agents.",
        epilog="Game rule options follow as --key value (e.g. --carousel true).",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands: dict[str, Command] = {}
    for module_name in COMMAND_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as err:
            if err.name != module_name:
                raise
            continue  # a command whose module is not part of this install
        name, run = module.add_command(sub)
        commands[name] = run
    return parser, commands


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status."""
    parser, commands = build_parser()
    args, extra = parser.parse_known_args(list(sys.argv[1:] if argv is None else argv))
    try:
        return commands[args.command](args, extra)
    except CardsuiteError as err:
        print(f"cardsuite {args.command}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"cardsuite {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
