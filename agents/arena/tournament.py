"""The tournament arena: agents play many seeded games; fair seating, statistics, ratings.

Seating. With K agent specs and n seats (K <= n), the *base pattern* gives
seat s the agent ``s mod K`` (agents fill the seats cyclically: 2 agents at 4
seats sit A B A B). Rotation r shifts it: seat s gets agent
``((s + r) mod n) mod K``. Only the p distinct rotations are used, p being
the period of the pattern (p = K when K divides n, else p = n). Game g is
played in rotation ``g mod p`` (``(g mod p)`` of its deal with
``duplicate``), so over any p consecutive games every agent sits in every
seat equally often.

Duplicate dealing. With ``duplicate=True``, ``games`` counts *deals*: each
deal (a seed, i.e. the env's seeded deal: for Scum the drawn roles and the
hands) is played once per rotation, so every agent holds every seat's cards
and role equally often and the luck of the deal cancels (DouZero's evaluation
practice, extended to 2-12 seats). The tournament then plays ``games * p`` games.

Seeds. Game g's deal seed derives only from ``(seed, deal)`` and each seat's
agent seed only from ``(seed, g, seat)``, through `numpy.random.SeedSequence`;
results are merged in game order, so they do not depend on ``workers``.

Each game is one episode from a seeded ``env.reset(seed=...)`` of ``env()``
with the given options (Scum with ``episode="series"``: the first series of a
fresh game, roles drawn, no trades; ``reset_options`` passes presets such as
``{"trade": True}``). Every agent is told ``reset(table_info(...), seed)`` at
each game start and asked ``act(observation, mask, info)``. Statistics are
defined in `agents.stats`.
"""

from __future__ import annotations

import copy
import math
import multiprocessing
import multiprocessing.connection
import os
import pickle
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.arena.records import (
    check_new_file,
    deck_tag,
    engine_state,
    jsonable,
    normalize_state,
    record_options,
    write_records,
)
from cardsuite.agents.arena.results import TournamentResult
from cardsuite.agents.arena.stats import GameResult, seat_ranks
from cardsuite.agents.base import Agent, table_info
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
    base = base_pattern(num_agents, seats)
    return tuple(base[(s + rotation) % seats] for s in range(seats))


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
    total = games * p if duplicate else games
    plans = []
    for g in range(total):
        deal, rotation = (g // p, g % p) if duplicate else (g, g % p)
        plans.append(
            GamePlan(
                index=g,
                deal=deal,
                rotation=rotation,
                seating=seating(num_agents, seats, rotation),
                deal_seed=derive_seed(seed, 0, deal),
                agent_seeds=tuple(derive_seed(seed, 1, g, s) for s in range(seats)),
            )
        )
    return plans


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
            spec = self.setup.specs[index]
            if isinstance(spec, str):
                self._agents[key] = make_agent(spec, self.setup.game)
            else:  # an Agent object: each seat plays its own copy
                self._agents[key] = copy.deepcopy(spec)
        return self._agents[key]

    def play(self, plan: GamePlan) -> GameResult:
        """Play one game to its end."""
        env, setup = self.env, self.setup
        base = env.unwrapped
        env.reset(seed=plan.deal_seed, options=setup.reset_options)
        tag = deck_tag(setup.deck)
        initial = normalize_state(engine_state(env), tag) if setup.record else None
        players: dict[str, tuple[Agent, dict[str, Any]]] = {}
        for seat, name in enumerate(env.possible_agents):
            agent = self.agent(plan.seating[seat], seat)
            agent.reset(table_info(env, setup.game, name), seed=plan.agent_seeds[seat])
            info: dict[str, Any] = {"agent": name}
            if hasattr(base, "determinize"):
                info["determinize"] = partial(base.determinize, name)
            players[name] = (agent, info)
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
                actions.append([name, action, base.describe_action(action)])
            env.step(action)
            for a, r in env.rewards.items():
                rewards[a] += r
            steps += 1
        order = env.possible_agents
        reward_list = [rewards[a] for a in order]
        info_list = [infos[a] for a in order]
        illegal = next((i["illegal_action"] for i in info_list if "illegal_action" in i), None)
        record = None
        if setup.record:
            record = {
                "game": setup.game,
                "options": setup.stored_options,
                "reset_options": jsonable(setup.reset_options),
                "seed": plan.deal_seed,
                "index": plan.index,
                "deal": plan.deal,
                "rotation": plan.rotation,
                "seats": {a: setup.names[plan.seating[s]] for s, a in enumerate(order)},
                "initial_state": initial,
                "actions": actions,
                "rewards": dict(zip(order, reward_list, strict=True)),
                "infos": jsonable(dict(zip(order, info_list, strict=True))),
                "final_state": normalize_state(engine_state(env), tag),
            }
            if setup.deck is not None:
                record["deck"] = setup.deck
        return GameResult(
            index=plan.index,
            deal=plan.deal,
            rotation=plan.rotation,
            seating=plan.seating,
            rewards=tuple(reward_list),
            ranks=tuple(seat_ranks(reward_list, info_list, self.episode)),
            illegal_seat=-1 if illegal is None else order.index(illegal["agent"]),
            steps=steps,
            record=record,
        )


def play_chunk(setup: Setup, plans: list[GamePlan]) -> list[GameResult]:
    """Play ``plans`` in order at one table (the unit of work of a worker process)."""
    table = Table(setup)
    return [table.play(plan) for plan in plans]


def exit_with_parent() -> None:
    """In a worker process: exit as soon as the process that started it is gone.

    The pool's ``initializer``. A tournament killed by a signal that lets it run no
    clean-up (SIGTERM, SIGKILL) would otherwise leave its workers behind: busy
    with their chunk, then blocked for ever on the pool's queue. A daemon thread
    waits on the parent's sentinel and ends the worker at once.
    """
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


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
            or [`Agent`][cardsuite.agents.base.Agent] objects, named by their
            ``name`` (each seat an object sits at plays a ``copy.deepcopy`` of
            it; with ``workers > 1`` it must be picklable). The same spec or
            name twice is allowed and named ``spec#1``, ``spec#2``.
        games: games to play; with ``duplicate``, deals (each played in all
            its p rotations).
        players: seats at the table (default: ``options`` or the game default).
        num_players: the same as ``players`` (the config field's name).
        options: game config options (``env(**options)``).
        duplicate: play every deal once per rotation of the agents over the seats.
        seed: master seed (non-negative); results depend only on it.
        workers: worker processes (results do not depend on it).
        record: write every game as a JSON line to this file (a new file: it
            is checked before any game is played, and never overwritten).
        progress: show a tqdm progress bar.
        reset_options: presets passed to every ``env.reset(options=...)``.

    Raises:
        ConfigError: fewer than 2 specs, more specs than seats, ``games`` or
            ``workers`` below 1, a negative seed, a bad option or agent spec,
            a ``record`` file that exists or cannot be written.
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
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ConfigError(f"games must be a positive integer, got {games!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ConfigError(f"workers must be a positive integer, got {workers!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ConfigError(f"seed must be a non-negative integer, got {seed!r}")
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
    bar = _progress_bar(len(plans), spec.name) if progress else None
    try:
        if workers == 1:
            results = []
            for plan in plans:
                results.append(probe.play(plan))
                if bar is not None:
                    bar(1)
        else:
            results = _run_parallel(setup, plans, workers, bar)
    finally:
        if bar is not None:
            bar(0, close=True)
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


#: The thread pools a worker's numerical libraries start (OpenBLAS, OpenMP, and
#: so torch, MKL): one thread each in a tournament's workers.
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


@contextmanager
def one_thread_per_worker() -> Iterator[None]:
    """Within: worker processes spawned now start their BLAS and OpenMP pools with one thread.

    The workers already fill the cores; a learned agent's small matrix
    products (a 10-row batch through a 128-unit layer) gain nothing from more
    threads, and BLAS threads that spin while other processes hold the cores
    made those products over 100 times slower (45 ms against 0.3 ms a
    batch, beside two busy workers on the 2-core machine) and a 2-worker
    match of a value-leaf Scandal search 7 times slower (7 s a game against
    1 s). A variable the user has set is kept; the parent's environment is
    restored on exit.
    """
    saved = {name: os.environ.get(name) for name in THREAD_VARIABLES}
    for name, value in saved.items():
        if value is None:
            os.environ[name] = "1"
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)


def _run_parallel(
    setup: Setup, plans: list[GamePlan], workers: int, bar: Callable[..., None] | None
) -> list[GameResult]:
    """Play fixed chunks of ``plans`` in spawned worker processes."""
    size = max(1, math.ceil(len(plans) / (workers * 4)))
    chunks = [plans[i : i + size] for i in range(0, len(plans), size)]
    results: list[GameResult] = []
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=exit_with_parent
    ) as pool:
        with one_thread_per_worker():  # the workers are spawned by the first submit
            pending: set[Future[list[GameResult]]] = {
                pool.submit(play_chunk, setup, chunk) for chunk in chunks
            }
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                chunk_results = future.result()
                results.extend(chunk_results)
                if bar is not None:
                    bar(len(chunk_results))
    return results


def _progress_bar(total: int, game: str) -> Callable[..., None]:
    """A tqdm bar as a callable ``update(n, close=False)``."""
    from tqdm import tqdm

    bar = tqdm(
        total=total,
        desc=f"{game} tournament",
        unit="game",
        mininterval=0.1 if sys.stderr.isatty() else 10.0,  # a log file gets a line per 10 s
    )

    def update(n: int, close: bool = False) -> None:
        if n:
            bar.update(n)
        if close:
            bar.close()

    return update
