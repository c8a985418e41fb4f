"""The tournament: agents play seeded games with fair seating (``docs/arena.md``)."""

from __future__ import annotations

import copy
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.arena.records import (
    check_new_file,
    engine_state,
    finish_record,
    record_options,
    write_records,
)
from cardsuite.agents.arena.results import TournamentResult
from cardsuite.agents.arena.stats import GameResult, seat_ranks
from cardsuite.agents.arena.workers import progress_bar, run_chunks
from cardsuite.agents.base import Agent, act_info, table_info
from cardsuite.agents.registry import display_names, make_agent, parse_spec
from cardsuite.errors import ConfigError
from cardsuite.games import get_game


def base_pattern(num_agents: int, seats: int) -> list[int]:
    """Agent index per seat before rotation: agents fill the seats cyclically."""
    return [s % num_agents for s in range(seats)]


def num_rotations(num_agents: int, seats: int) -> int:
    """The number p of distinct rotations of the base pattern (K if K divides n, else n)."""
    return num_agents if seats % num_agents == 0 else seats


def seating(num_agents: int, seats: int, rotation: int) -> tuple[int, ...]:
    """Agent index per seat in ``rotation``: seat s gets ``((s + rotation) mod n) mod K``."""
    return tuple((s + rotation) % seats % num_agents for s in range(seats))


@dataclass(frozen=True)
class GamePlan:
    """Everything that fixes one game: its place, seating and seeds."""

    index: int
    deal: int
    rotation: int
    seating: tuple[int, ...]
    deal_seed: int
    agent_seeds: tuple[int, ...]


def derive_seed(*words: int) -> int:
    """A 63-bit seed from a tuple of non-negative integers."""
    a, b = np.random.SeedSequence(list(words)).generate_state(2, dtype=np.uint32)
    return int((int(a) << 31) ^ int(b))


def plan_games(
    num_agents: int, seats: int, games: int, *, duplicate: bool, seed: int
) -> list[GamePlan]:
    """The plans of every game of a tournament, in game order."""
    p = num_rotations(num_agents, seats)
    deals = [g // p if duplicate else g for g in range(games * p if duplicate else games)]
    return [
        GamePlan(g, d, g % p, seating(num_agents, seats, g % p), derive_seed(seed, 0, d),
                 tuple(derive_seed(seed, 1, g, s) for s in range(seats)))
        for g, d in enumerate(deals)
    ]  # fmt: skip


@dataclass(frozen=True)
class Setup:
    """What a worker needs to play games (picklable)."""

    game: str
    options: dict[str, Any]
    specs: tuple[str | Agent, ...]  # spec strings, or Agent objects given from Python
    names: tuple[str, ...]
    reset_options: dict[str, Any] | None
    record: bool
    stored_options: dict[str, Any] | None = None  # options as records store them (no paths)
    deck: dict[str, Any] | None = None  # a custom deck by content, for records


class Table:
    """An env and agent instances (one per agent and seat), reused game after game."""

    def __init__(self, setup: Setup) -> None:
        """Create the env; agents are built on first use."""
        self.setup = setup
        self.env = get_game(setup.game).make(**setup.options)
        self.episode = getattr(self.env.unwrapped.config, "episode", None)
        self._agents: dict[tuple[int, int], Agent] = {}

    def agent(self, index: int, seat: int) -> Agent:
        """The instance of agent ``index`` that plays ``seat``."""
        key = (index, seat)
        if key not in self._agents:
            spec = self.setup.specs[index]  # a spec, or an Agent object: a copy for each seat
            self._agents[key] = (
                make_agent(spec, self.setup.game) if isinstance(spec, str) else copy.deepcopy(spec)
            )
        return self._agents[key]

    def play(self, plan: GamePlan) -> GameResult:
        """Play one game to its end."""
        env, setup = self.env, self.setup
        env.reset(seed=plan.deal_seed, options=setup.reset_options)
        initial = engine_state(env) if setup.record else None
        players: dict[str, tuple[Agent, dict[str, Any]]] = {}
        for seat, name in enumerate(env.possible_agents):
            agent = self.agent(plan.seating[seat], seat)
            agent.reset(table_info(env, setup.game, name), seed=plan.agent_seeds[seat])
            players[name] = (agent, act_info(env, name))
        actions: list[list[Any]] = []
        rewards = dict.fromkeys(env.possible_agents, 0.0)  # episode returns
        infos: dict[str, dict[str, Any]] = {}
        steps = 0
        for name in env.agent_iter():
            obs, _, term, trunc, last_info = env.last()
            if term or trunc:
                infos[name] = dict(last_info)
                env.step(None)
                continue
            agent, info = players[name]
            action = int(agent.act(obs["observation"], obs["action_mask"], info))
            if setup.record:
                actions.append([name, action, env.unwrapped.describe_action(action)])
            env.step(action)
            for a, r in env.rewards.items():
                rewards[a] += r
            steps += 1
        order = env.possible_agents
        info_list = [infos[a] for a in order]
        illegal = next((i["illegal_action"] for i in info_list if "illegal_action" in i), None)
        record = None
        if setup.record:
            played = {
                "game": setup.game,
                "options": setup.stored_options,
                "reset_options": setup.reset_options,
                "seed": plan.deal_seed,
                "index": plan.index,
                "deal": plan.deal,
                "rotation": plan.rotation,
                "seats": {a: setup.names[plan.seating[s]] for s, a in enumerate(order)},
                "initial_state": initial,
                "actions": actions,
                "rewards": rewards,
                "infos": infos,
            }
            record = finish_record(env, played, setup.deck)
        reward_list = tuple(rewards[a] for a in order)
        ranks = tuple(seat_ranks(reward_list, info_list, self.episode))
        illegal_seat = -1 if illegal is None else order.index(illegal["agent"])
        return GameResult(plan.index, plan.deal, plan.rotation, plan.seating,
                          reward_list, ranks, illegal_seat, steps, record)  # fmt: skip


def play_chunk(setup: Setup, plans: list[GamePlan]) -> list[GameResult]:
    """Play ``plans`` in order at one table (the unit of work of a worker process)."""
    table = Table(setup)
    return [table.play(plan) for plan in plans]


def run_tournament(
    game: str,
    agents: list[str | Agent],
    *,
    games: int,
    players: int | None = None,
    num_players: int | None = None,
    options: dict[str, Any] | None = None,
    duplicate: bool = False,
    seed: int = 0,
    workers: int = 1,
    record: str | Path | None = None,
    progress: bool = False,
    reset_options: dict[str, Any] | None = None,
) -> TournamentResult:
    """Play a tournament and return its statistics.

    Args:
        game: registry name (``"scum"``, ``"scum_party"``, ``"scandal"``).
        agents: at least two agents: spec strings ([`agents.registry`][cardsuite.agents.registry]),
            or [`Agent`][cardsuite.agents.base.Agent] objects (each seat plays a
            ``copy.deepcopy``; picklable with ``workers > 1``). The same spec
            twice is named ``spec#1``, ``spec#2``.
        games: games to play; with ``duplicate``, deals (each played in all
            its p rotations).
        players: seats at the table (default: ``options`` or the game default).
        num_players: the same as ``players`` (the config field's name).
        options: game config options (``env(**options)``).
        duplicate: play every deal once per rotation of the agents over the seats.
        seed: master seed (non-negative); results depend only on it.
        workers: worker processes (results do not depend on it).
        record: write every game as a JSON line to this new file (checked
            before any game is played).
        progress: show a tqdm progress bar.
        reset_options: presets passed to every ``env.reset(options=...)``.

    Raises:
        ConfigError: naming the bad argument (before any game is played).
    """
    spec = get_game(game)
    opts = dict(options or {})
    if num_players is not None:
        if players is not None and players != num_players:
            raise ConfigError(f"players={players} contradicts num_players={num_players}")
        players = num_players
    if players is not None:
        if opts.get(spec.players_key, players) != players:
            raise ConfigError(
                f"players={players} contradicts option {spec.players_key}={opts[spec.players_key]}"
            )
        opts[spec.players_key] = players
    if len(agents) < 2:
        raise ConfigError(
            f"a tournament needs at least 2 agent specs, got {len(agents)}; "
            "the same spec may be given twice (random random)"
        )
    for name, value, low in (("games", games, 1), ("workers", workers, 1), ("seed", seed, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            kind = "a positive" if low else "a non-negative"
            raise ConfigError(f"{name} must be {kind} integer, got {value!r}")
    texts = [_agent_text(a, i, workers) for i, a in enumerate(agents)]
    if record is not None:
        check_new_file(record)  # before any game is played
    stored, deck = record_options(opts) if record is not None else (None, None)
    setup = Setup(
        game=spec.name,
        options=opts,
        specs=tuple(a.strip() if isinstance(a, str) else a for a in agents),
        names=tuple(display_names(texts)),
        reset_options=reset_options,
        record=record is not None,
        stored_options=stored,
        deck=deck,
    )
    probe = Table(setup)  # validates the options and builds every agent once
    seats = len(probe.env.possible_agents)
    if len(agents) > seats:
        raise ConfigError(
            f"{len(agents)} agent specs but only {seats} seats at {spec.name}; "
            f"give at most {seats} agents or more players"
        )
    for index in range(len(agents)):
        probe.agent(index, 0)
    plans = plan_games(len(agents), seats, games, duplicate=duplicate, seed=seed)
    with progress_bar(len(plans), f"{spec.name} tournament", progress) as bar:
        if workers > 1:
            results = run_chunks(play_chunk, setup, plans, workers, bar)
        else:
            results = []
            for plan in plans:
                results.append(probe.play(plan))
                bar.update(1)
    results.sort(key=lambda r: r.index)
    if record is not None:
        write_records(record, [r.record for r in results if r.record is not None])
    return TournamentResult.from_games(
        game=spec.name,
        names=list(setup.names),
        specs=[t.strip() for t in texts],
        seats=seats,
        options=opts,
        seed=seed,
        duplicate=duplicate,
        deals=games,
        rotations=num_rotations(len(agents), seats),
        results=results,
    )


def _agent_text(agent: Any, index: int, workers: int) -> str:
    """The spec string, or an Agent object's name; ConfigError for anything else."""
    if isinstance(agent, str):
        parse_spec(agent)
        return agent
    if not isinstance(agent, Agent) or isinstance(agent, type):
        raise ConfigError(
            f"agents[{index}] is {agent!r}: give a spec string or an Agent object "
            "(with name, reset and act; see cardsuite.agents.base.Agent)"
        )
    if workers > 1:
        try:
            pickle.dumps(agent)  # in memory, to our own worker processes
        except Exception as err:
            raise ConfigError(
                f"agents[{index}] ({agent.name!r}) cannot be sent to worker processes "
                f"({err}); use workers=1"
            ) from None
    return str(agent.name)
