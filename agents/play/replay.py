"""``cardsuite replay``: show a recorded game move by move, replayed through the strict env.

A record that departs from its replay ends the command with one line naming the move.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from cardsuite.agents.arena.cli import command_parser
from cardsuite.agents.arena.records import apply_moves, check_final_state, make_env, select_record
from cardsuite.errors import ConfigError


def add_command(sub: Any) -> tuple[str, Any]:
    """Register the subcommand; returns its name and runner."""
    command_parser(
        sub,
        "replay",
        "replay a recorded game move by move",
        "Replay one game of a record file (cardsuite tournament --record) through the strict "
        "env: the table after every move, then the rewards.",
        file=("a JSON-lines record file", {"flag": "file"}),
        game_index=("which game (default 0)", {"type": int, "default": 0}),
    )
    return "replay", run


def run(args: argparse.Namespace, extra: list[str]) -> int:
    """Print the chosen game of the record file."""
    if extra:
        raise ConfigError(f"unexpected arguments: {' '.join(extra)}")
    show_record(select_record(args.file, args.game_index), print)
    return 0


def show_record(record: dict[str, Any], print_fn: Callable[[str], None]) -> None:
    """Print a checked record: header, the table, each move and the table after it, the rewards."""
    seats = record["seats"]
    deck = " (custom deck)" if record.get("deck") else ""
    print_fn(
        f"{record['game']} game {record.get('index', '?')} (deal {record.get('deal', '?')}, "
        f"seed {record['seed']}), options {record['options'] or 'default'}{deck}"
    )
    print_fn("seats: " + ", ".join(f"{a} = {name}" for a, name in seats.items()))
    env = make_env(record, render_mode="ansi")
    print_fn(str(env.render()))
    for step in apply_moves(env, record):
        print_fn(
            f"\n{step.number}. {step.agent} ({seats.get(step.agent, '?')}): {step.description}"
        )
        print_fn(str(env.render()))
    print_fn("\nrewards: " + ", ".join(f"{a} {r:g}" for a, r in record["rewards"].items()))
    if check_final_state(env, record):
        print_fn("final state matches the record")
