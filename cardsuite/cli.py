"""The ``cardsuite`` command-line tool and its subcommand registry.

Subcommands register through the ``cardsuite.commands`` entry points
(`ENTRY_POINT_GROUP`): each names ``add_command(subparsers) -> (name,
runner)`` in the layer that owns the command (imported light: no torch).
Errors a user can cause print one line and exit with status 2. SIGTERM (how
schedulers and ``timeout`` stop a job) is handled as Ctrl-C is: a command that
saves on Ctrl-C saves on it too, and the exit status is 130.
"""

from __future__ import annotations

import argparse
import difflib
import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from importlib.metadata import PackageNotFoundError, entry_points, version
from typing import Any

from cardsuite.errors import CardsuiteError

# The extra that provides each optional third-party module (for the message when missing).
_EXTRA_OF: dict[str, str] = {
    **dict.fromkeys(
        ("torch", "stable_baselines3", "sb3_contrib", "safetensors", "tensorboard"), "train"
    ),
    "ray": "rllib",
}

Command = Callable[[argparse.Namespace, list[str]], int]

#: The entry-point group of the subcommands.
ENTRY_POINT_GROUP = "cardsuite.commands"


def package_version() -> str:
    """The installed version of cardsuite (``0+unknown`` in a checkout that is not installed)."""
    try:
        return version("cardsuite")
    except PackageNotFoundError:
        return "0+unknown"


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, Command]]:
    """The argument parser and the function behind each subcommand."""
    parser = argparse.ArgumentParser(
        prog="cardsuite",
        description="Card-game RL suite: simulate, benchmark and train agents.",
        epilog="Game rule options follow as --key value (e.g. --carousel true).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands: dict[str, Command] = {}
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            add_command = ep.load()
        except ModuleNotFoundError as err:
            if err.name and err.name.split(".")[0] in _EXTRA_OF:
                continue  # a command of an extra that is not installed
            raise
        name, run = add_command(sub)
        commands[name] = run
    return parser, commands


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status."""
    parser, commands = build_parser()
    tokens = list(sys.argv[1:] if argv is None else argv)
    if tokens and not tokens[0].startswith("-") and tokens[0] not in commands:
        hint = difflib.get_close_matches(tokens[0], commands, n=1)
        print(
            f"cardsuite: error: unknown command {tokens[0]!r}"
            + (f" (did you mean {hint[0]!r}?)" if hint else "")
            + f"; commands: {', '.join(sorted(commands))}",
            file=sys.stderr,
        )
        return 2
    args, extra = parser.parse_known_args(tokens)
    previous = _term_as_ctrl_c()
    try:
        return commands[args.command](args, extra)
    except CardsuiteError as err:
        print(f"cardsuite {args.command}: error: {err}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as err:  # a command that needs an extra not installed
        top = (err.name or "").split(".")[0]
        if top not in _EXTRA_OF:
            raise
        print(
            f"cardsuite {args.command}: error: this needs the {_EXTRA_OF[top]} extra, which is "
            f"not installed (module {top!r} not found): pip install 'cardsuite[{_EXTRA_OF[top]}]'",
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        print(f"cardsuite {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (``cardsuite ... | head``)
        # Point stdout at devnull so the interpreter's final flush is silent.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, as a shell reports it
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: object) -> None:
    """SIGTERM's handler while a command runs: what Ctrl-C does (KeyboardInterrupt)."""
    raise KeyboardInterrupt


def _term_as_ctrl_c() -> Any:
    """Handle SIGTERM as Ctrl-C (module doc); the handler it replaced (None off the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _interrupt)


if __name__ == "__main__":
    sys.exit(main())
