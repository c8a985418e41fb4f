"""The ``cardsuite`` command-line tool and its subcommand registry.

Subcommands register through the ``cardsuite.commands`` entry points
(`ENTRY_POINT_GROUP`): each names ``add_command(subparsers) -> (name,
runner)`` in the layer that owns the command (imported light: no torch).
Errors a user can cause print one line and exit with status 2. SIGTERM (how
schedulers and ``timeout`` stop a job) is handled as Ctrl-C is: a command that
saves on Ctrl-C saves on it too, and the exit status is 130.

One grammar: no parser abbreviates a flag, and every command that takes them names the
game, the players and the rule options alike, ``--game GAME --players N --rule KEY=VALUE``
(`TABLE_FLAGS`; `table_options` reads them, and the deprecated spellings with a warning).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from importlib.metadata import PackageNotFoundError, entry_points, version
from typing import TYPE_CHECKING, Any

from cardsuite.errors import CardsuiteError, ConfigError

if TYPE_CHECKING:
    from cardsuite.games import Game

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

#: The table flags, spelled alike by every command that takes them: flag -> argparse settings.
TABLE_FLAGS: dict[str, dict[str, Any]] = {
    "--game": {"metavar": "GAME"},
    "--players": {"type": int, "metavar": "N"},
    "--rule": {"dest": "rules", "action": "append", "default": [], "metavar": "KEY=VALUE"},
}

#: The help of ``--rule``.
RULE_HELP = "a rule option of the game (repeatable), e.g. --rule carousel=true"


class Parser(argparse.ArgumentParser):
    """An argument parser that never abbreviates a flag (``--game`` is never ``--games``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **{**kwargs, "allow_abbrev": False})


def package_version() -> str:
    """The installed version of cardsuite (``0+unknown`` in a checkout that is not installed)."""
    try:
        return version("cardsuite")
    except PackageNotFoundError:
        return "0+unknown"


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, Command]]:
    """The argument parser and the function behind each subcommand."""
    parser = Parser(
        prog="cardsuite",
        description="Card-game RL suite: simulate, benchmark and train agents.",
        epilog="Commands that take them name the table alike: --game GAME --players N "
        "--rule KEY=VALUE (e.g. --rule carousel=true).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=Parser
    )
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


def add_table_flag(parser: Any, flag: str, help: str, **settings: Any) -> None:
    """Add ``flag`` (one of `TABLE_FLAGS`) to ``parser`` or an argument group, with ``help``."""
    parser.add_argument(flag, **{**TABLE_FLAGS[flag], **settings, "help": help})


def deprecated(old: str, new: str) -> None:
    """One line on stderr: ``old`` still works, and ``new`` is how to write it now."""
    print(f"warning: {old} is deprecated; use {new}", file=sys.stderr)


def rule_text(key: str, value: Any) -> str:
    """``--rule KEY=VALUE`` for a parsed rule option (the value as YAML reads it back)."""
    return f"--rule {key}={_yaml(value)}"


def _yaml(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def table_options(
    game: Game,
    ns: argparse.Namespace,
    extra: Sequence[str] = (),
    base: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The rule options a command line gives: ``base`` (a preset), then ``--rule`` and
    ``--players``. Rule options left in ``extra`` as ``--key value`` (the spelling before
    ``--rule``) are read too, with a warning.

    Raises:
        ConfigError: an unknown argument or key, a key given twice, the player count
            given with ``--rule``, or two player counts that differ.
    """
    from cardsuite.overrides import parse_flags

    fields, key = game.config_class().field_names(), game.players_key
    _check_old_rules(extra, fields, game.name)
    old = parse_flags(extra, fields, what=game.name)
    rules = rule_values(getattr(ns, "rules", None) or [], game)
    if twice := sorted(set(old) & set(rules)):
        raise ConfigError(f"rule option {twice[0]} given twice (--{twice[0]} and --rule)")
    players = getattr(ns, "players", None)
    if key in old:
        if players is not None and old[key] != players:
            raise ConfigError(f"--players {players} contradicts --{key} {old[key]}")
        players = old.pop(key)
        deprecated(f"--{key} {players}", f"--players {players}")
    if old:
        deprecated(" ".join(f"--{k} {_yaml(v)}" for k, v in old.items()),
                   " ".join(rule_text(*kv) for kv in old.items()))  # fmt: skip
    options = {**(base or {}), **old, **rules}
    if players is not None:
        if options.get(key, players) != players:
            raise ConfigError(
                f"--players {players} contradicts {key}={options[key]} of the rule options"
            )
        options[key] = players
    return options


def rule_values(items: Sequence[str], game: Game | None = None) -> dict[str, Any]:
    """``--rule KEY=VALUE`` items as rule options (keys checked against ``game``'s config).

    Raises:
        ConfigError: an item that is not ``KEY=VALUE``, an unknown key, a key given
            twice, or the player count (it goes as ``--players``).
    """
    from cardsuite.overrides import parse_assignments

    fields = game.config_class().field_names() if game else None
    keys = [str(item).partition("=")[0].strip().replace("-", "_") for item in items]
    if twice := next((k for k in keys if keys.count(k) > 1), None):
        raise ConfigError(f"rule option {twice} given twice (--rule {twice}=...)")
    rules = parse_assignments(items, fields, what=game.name if game else "the game", flag="--rule")
    key = game.players_key if game else "num_players"
    if key in rules:
        raise ConfigError(f"--rule {key}=...: give the player count as --players {rules[key]}")
    return rules


def _check_old_rules(extra: Sequence[str], fields: Sequence[str], game: str) -> None:
    """ConfigError for the first argument in ``extra`` that is not a ``--key value`` rule option."""
    i = 0
    while i < len(extra):
        name, eq, _ = extra[i][2:].partition("=") if extra[i].startswith("--") else ("", "", "")
        if name.replace("-", "_") not in fields:
            close = difflib.get_close_matches(name.replace("-", "_"), fields, n=1)
            hint = f" (did you mean --rule {close[0]}=...?)" if close else ""
            raise ConfigError(
                f"unknown option {extra[i][:60]}{hint}: not a flag of this command (see --help), "
                f"nor a rule option of {game} (--rule KEY=VALUE: {', '.join(fields)})"
            )
        i += 1 if eq else 2


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
