"""``cardsuite play``: a person plays one seat in the terminal against agents (``docs/arena.md``).

The person sees their own view and the others' moves as they may know them.
"""

from __future__ import annotations

import argparse
import re
import secrets
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.arena.cli import GAME_HELP, command_parser, table_args
from cardsuite.agents.arena.records import (
    HUMAN,
    RecordAppender,
    engine_state,
    finish_record,
    record_options,
)
from cardsuite.agents.arena.tournament import act_info, derive_seed
from cardsuite.agents.base import Agent, TableInfo, table_info
from cardsuite.agents.play.views import RESULT_KEYS, legend, relative_names, step, table_view
from cardsuite.agents.registry import make_agent
from cardsuite.cli import RULE_HELP
from cardsuite.errors import ConfigError
from cardsuite.games import get_game

InputFn = Callable[[str], str]
PrintFn = Callable[[str], None]


class HumanQuit(Exception):
    """The person left the game (``q`` or end of input)."""


class HumanAgent:
    """An `Agent` that asks a person for every move."""

    name = "human"

    def __init__(self, input_fn: InputFn = input, print_fn: PrintFn = print) -> None:
        """Read moves with ``input_fn(prompt)`` and show the table with ``print_fn``."""
        self._input = input_fn
        self._print = print_fn
        self._table: TableInfo | None = None

    def reset(self, table: TableInfo, seed: int | None = None) -> None:
        """Remember the table (the person's seat and the observation layout)."""
        self._table = table

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        """Show the table and the numbered legal moves; return the chosen action id."""
        table = self._table
        if table is None:
            raise ConfigError("HumanAgent.act called before reset")
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        self._print(table_view(table, observation, info.get("seat_names")))
        self._print("Your moves:")
        for number, action in enumerate(legal, start=1):
            self._print(f"  {number:>2}. {table.describe_action(action)}")
        return legal[self.ask(len(legal)) - 1]

    def ask(self, count: int) -> int:
        """A move number 1..count read from the person, asking again until valid."""
        prompt = f"Your move (1-{count}, q to quit): "
        while True:
            try:
                text = self._input(prompt).strip()
            except EOFError:
                raise HumanQuit("input ended") from None
            if text.lower() in ("q", "quit", "exit"):
                raise HumanQuit("you left the game")
            if not text:
                self._print(f"Please type the number of a move, 1 to {count}.")
                continue
            try:
                number = int(text)
            except ValueError:
                self._print(f"{text!r} is not a move number; type a number from 1 to {count}.")
                continue
            if not 1 <= number <= count:
                self._print(f"There is no move {number}; type a number from 1 to {count}.")
                continue
            return number


def play_games(
    game: str,
    vs: list[str],
    *,
    seat: int = 0,
    seed: int | None = None,
    games: int = 1,
    options: dict[str, Any] | None = None,
    input_fn: InputFn = input,
    print_fn: PrintFn = print,
    record: str | Path | None = None,
) -> int:
    """A person plays ``seat`` against ``vs`` (filling the other seats cyclically); episodes done.

    Episode k continues the running game, restarted with seed ``seed + k`` so
    that its record replays.
    """
    spec = get_game(game)
    if not vs:
        raise ConfigError("give at least one opponent with --vs")
    if games < 1:
        raise ConfigError(f"--games must be at least 1, got {games}")
    if seed is None:
        seed = secrets.randbelow(2**31)
    if seed < 0:
        raise ConfigError(f"--seed must be non-negative, got {seed}")
    env = spec.make(**(options or {}))
    n = len(env.possible_agents)
    if not 0 <= seat < n:
        raise ConfigError(f"--seat {seat} is out of range; seats are 0..{n - 1}")
    if len(vs) > n - 1:
        raise ConfigError(f"{len(vs)} opponents given but only {n - 1} other seats")
    appender = RecordAppender(record) if record is not None else None
    stored, deck = record_options(options or {}) if appender is not None else (None, None)
    names = env.possible_agents
    others = [s for s in range(n) if s != seat]
    specs = {names[s]: vs[i % len(vs)] for i, s in enumerate(others)}  # by name, seat order
    players: dict[str, Agent] = {names[seat]: HumanAgent(input_fn, print_fn)}
    for s in others:
        players[names[s]] = make_agent(specs[names[s]], spec.name, seed=derive_seed(seed, 2, s))
    print_fn(
        f"{spec.name}: you are {names[seat]}; " + ", ".join(f"{a} = {t}" for a, t in specs.items())
    )
    print_fn(f"seed {seed} (play this deal again with --seed {seed})")
    if legend(env):
        print_fn(legend(env))
    done = 0
    try:
        for episode in range(games):
            reset_options = None
            if episode:  # continue the running game, then make it reproducible
                env.reset(seed=None)
                reset_options = {"state": engine_state(env)}
            env.reset(seed=seed + episode, options=reset_options)
            print_fn(f"\n--- game {episode + 1} of {games} ---")
            initial = engine_state(env)
            for s, name in enumerate(names):
                table = table_info(env, spec.name, name)
                players[name].reset(table, seed=derive_seed(seed, 3, episode, s))
            actions, returns, infos = _play_episode(env, players, specs, print_fn)
            done += 1
            if appender is not None:
                played = {
                    "game": spec.name,
                    "options": stored,
                    "reset_options": reset_options,
                    "seed": seed + episode,
                    "index": episode,
                    "seats": {a: specs.get(a, HUMAN) for a in names},
                    "initial_state": initial,
                    "actions": actions,
                    "rewards": returns,
                    "infos": infos,
                }
                finish_record(env, played, deck)
                index = appender.append(played)
                print_fn(f"(recorded as game {index} of {appender.path})")
    except HumanQuit as why:
        print_fn(f"\n{why}; leaving the game after {done} complete game(s).")
    return done


def _play_episode(
    env: Any, players: dict[str, Agent], specs: dict[str, str], print_fn: PrintFn
) -> tuple[list[list[Any]], dict[str, float], dict[str, dict[str, Any]]]:
    """Play one episode, printing every move as the person may know it; its moves, returns, infos."""
    person = next(a for a in env.possible_agents if a not in specs)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    results: dict[str, tuple[float, dict[str, Any]]] = {}
    actions: list[list[Any]] = []
    for name in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            results[name] = (returns[name], dict(info))
            env.step(None)
            continue
        info = act_info(env, name)
        if name not in specs:  # the person: the table names players as the log does
            info["seat_names"] = relative_names(env, name)
        action = int(players[name].act(obs["observation"], obs["action_mask"], info))
        who = "you" if name not in specs else f"{name} ({specs[name]})"
        move = step(env, name, action, len(actions) + 1)
        actions.append([name, action, move.text])
        print_fn(f"> {who}: {move.line(person)}")
        if move.note:
            note = re.sub(rf"\b{person}\b", "you", move.note)
            print_fn(f"  ({note.replace('you leads', 'you lead')})")
        for a, r in env.rewards.items():
            returns[a] += r
    print_fn("\nEnd of the game:")
    for name, (reward, info) in results.items():
        you = "" if name in specs else " (you)"
        details = ", ".join(f"{key} {info[key]}" for key in RESULT_KEYS if key in info)
        print_fn(f"  {name}{you}: reward {reward:g}" + (f" — {details}" if details else ""))
    return actions, returns, {a: info for a, (_, info) in results.items()}


def add_command(sub: Any) -> tuple[str, Any]:
    """Register the subcommand; returns its name and runner."""
    command_parser(
        sub,
        "play",
        "play a seat yourself against agents in the terminal",
        "Play one seat against agents: the table and your legal moves are shown each turn; "
        "type a move number (q to quit).",
        game=f"{GAME_HELP} (required)",
        players="seats at the table",
        rule=RULE_HELP,
        vs=("opponent specs", {"nargs": "+", "required": True, "metavar": "AGENT"}),
        seat=("your seat (default 0)", {"type": int, "default": 0}),
        seed=("seed of the first deal (default: a random one)", {"default": None}),
        games=("episodes to play (default 1)", {"default": 1}),
        record=(
            "append each finished game to FILE (a new file, or an existing record file), "
            "your seat marked 'human'; cardsuite replay FILE shows it",
            {"metavar": "FILE"},
        ),
    )
    return "play", run


def run(args: argparse.Namespace, extra: list[str]) -> int:
    """Play the games at the terminal."""
    game, options = table_args(args, extra)
    play_games(
        game.name,
        list(args.vs),
        seat=args.seat,
        seed=args.seed,
        games=args.games,
        options=options,
        record=args.record,
    )
    return 0
