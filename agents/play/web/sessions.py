"""The games a running ``cardsuite serve`` holds: play, watch and replay sessions.

All state lives in this process (a [Store][cardsuite.agents.play.web.sessions.Store]
in the app); nothing is written to disk unless the server was started with
``--record FILE``, which appends each finished play or watch game to FILE.
Each session has a lock, so two requests for one game never interleave (the
second is told the game is busy, never queued behind it). Sessions idle for
``IDLE_SECONDS`` are dropped, at most ``MAX_SESSIONS`` are kept, and a page's
request for a dropped or closed session gets a clear "start a new game"
message.

Every agent move runs under the session's
[MoveClock][cardsuite.agents.play.web.limits.MoveClock]: a move past the limit
stops the game (MoveTooLong) and the game answers every later request with
that reason. The log a seat's page receives is built for that seat
([cardsuite.agents.play.move_log][]): a private J5 give-back is named only to the
giver and the receiver. Watch and replay pages show the whole table to a
spectator, every move included.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

import numpy as np

from cardsuite.agents.arena.records import (
    apply_moves,
    engine_state,
    jsonable,
    make_env,
    record_options,
)
from cardsuite.agents.arena.tournament import derive_seed
from cardsuite.agents.base import Agent, table_info
from cardsuite.agents.play.move_log import Move, step
from cardsuite.agents.play.views import round_note, table_marker
from cardsuite.agents.play.web.limits import MoveClock, MoveTooLong
from cardsuite.agents.play.web.models import seat_model, table_model
from cardsuite.agents.registry import make_agent, parse_spec
from cardsuite.errors import CardsuiteError, ConfigError, StateError
from cardsuite.games import get_game

MAX_SESSIONS = 64
IDLE_SECONDS = 3600.0
LOG_SHOWN = 300  # log entries sent with a view (the newest)
MAX_AGENT_MOVES = 100_000  # agent moves between two human moves, at most
MAX_SEED = 2**63 - 1
HUMAN = "human"  # the seat spec of a person's seat in a record

#: Called with each finished game's record (``cardsuite serve --record``).
Recorder = Callable[[dict[str, Any]], None]


class SessionGone(CardsuiteError):
    """A page asked for a game this server no longer holds."""


class SessionBusy(CardsuiteError):
    """A request for a game that is still working on an earlier request (HTTP 409)."""


class SessionStopped(CardsuiteError):
    """A request for a game the server stopped (an agent's move ran too long; HTTP 409)."""


class BadMove(CardsuiteError):
    """A move the page sent is not one of the legal moves."""


def random_seed() -> int:
    """A fresh deal seed for a game whose seed the person did not set."""
    return secrets.randbelow(2**31)


class PartyTracker:
    """Each Scum Party player's table before the last hand, to mark moves up and down."""

    def __init__(self) -> None:
        """Start with no hand seen."""
        self.hand = -1
        self.start: list[int] | None = None
        self.previous: list[int] | None = None

    def update(self, env: Any) -> None:
        """Call after every move (and after the reset)."""
        state = env.unwrapped.game
        if not hasattr(state, "tables"):
            return
        if state.hand != self.hand:
            self.previous = self.start if self.hand >= 0 else None
            self.start = list(state.table_of)
            self.hand = state.hand


class Session:
    """One game in the server: an env, the move log, a lock, a move clock."""

    mode = "session"

    def __init__(self, game: str, clock: MoveClock | None = None) -> None:
        """A fresh session id, its lock and its move clock."""
        self.id = secrets.token_urlsafe(12)
        self.game = game
        self.lock = threading.Lock()
        self.touched = time.monotonic()
        self.moves: list[Move] = []
        self.tracker = PartyTracker()
        self.clock = clock or MoveClock(float("inf"))
        self.stopped: str | None = None
        self.seed: int | None = None

    def view(self) -> dict[str, Any]:
        """The JSON the page draws."""
        raise NotImplementedError

    def held(self) -> _Held:
        """The session's lock, taken without waiting: SessionBusy/SessionStopped otherwise."""
        if not self.lock.acquire(blocking=False):
            raise SessionBusy(
                "this game is still working on an earlier request; wait for it and try again"
            )
        if self.stopped is not None:
            self.lock.release()
            raise SessionStopped(f"this game was stopped: {self.stopped}")
        return _Held(self.lock)

    def log_view(self, seat: str | None) -> list[dict[str, Any]]:
        """The newest log entries as ``seat`` may read them (None: a spectator)."""
        return [m.entry(seat) for m in self.moves[-LOG_SHOWN:]]

    def _header(self, env: Any, seat: str | None = None) -> dict[str, Any]:
        over = _over(env)
        result = None
        if over:
            result = {
                a: {
                    "reward": float(env._cumulative_rewards.get(a, 0.0)),
                    **{
                        k: v
                        for k, v in env.infos.get(a, {}).items()
                        if k in ("finish_position", "role", "points", "score", "illegal_action")
                    },
                }
                for a in env.possible_agents
            }
        return {
            "id": self.id,
            "mode": self.mode,
            "game": self.game,
            "seed": self.seed,
            "over": over,
            "result": jsonable(result),
            "log": self.log_view(seat),
            "log_total": len(self.moves),
        }


class _Held:
    """A lock already acquired, released by ``with``."""

    def __init__(self, lock: threading.Lock) -> None:
        self.lock = lock

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        self.lock.release()


def _over(env: Any) -> bool:
    return not env.agents or all(env.terminations[a] or env.truncations[a] for a in env.agents)


class LiveGame(Session):
    """A game being played (play or watch): agents under the move clock, and its record."""

    def _start(
        self,
        game: str,
        env: Any,
        specs: Mapping[int, str],
        seed: int,
        options: Mapping[str, Any],
        reset_options: Mapping[str, Any] | None,
        recorder: Recorder | None,
    ) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            raise ConfigError(f"seed must be an integer 0..{MAX_SEED}, got {str(seed)[:40]}")
        self.env = env
        self.seed = seed
        self.options = dict(options)
        self.reset_options = None if reset_options is None else dict(reset_options)
        self.recorder = recorder
        self.recorded = False
        env.reset(seed=seed, options=self.reset_options)
        self.initial = engine_state(env) if recorder is not None else None
        self.returns = dict.fromkeys(env.possible_agents, 0.0)
        self.tracker.update(env)
        self.players = self._build_agents(game, specs, seed)

    def _build_agents(
        self, game: str, specs: Mapping[int, str], seed: int
    ) -> dict[str, tuple[Agent, dict[str, Any]]]:
        """Agents by seat (reset for the episode) with the info each ``act`` gets."""
        env = self.env
        base = env.unwrapped
        players: dict[str, tuple[Agent, dict[str, Any]]] = {}
        for seat, text in specs.items():
            name = env.possible_agents[seat]
            agent = make_agent(text, game, seed=derive_seed(seed, 2, seat))
            agent.reset(table_info(env, game, name), seed=derive_seed(seed, 3, seat))
            info: dict[str, Any] = {"agent": name}
            if hasattr(base, "determinize"):
                info["determinize"] = self.clock.wrap(partial(base.determinize, name))
            players[name] = (agent, info)
        return players

    def _agent_move(self, name: str, label: str) -> None:
        """The agent ``name`` moves under the clock; a move past the limit stops the game."""
        agent, info = self.players[name]
        obs = self.env.observe(name)
        self.clock.start(label)
        try:
            action = int(agent.act(obs["observation"], obs["action_mask"], info))
            self.clock.check()  # an agent that does not ask for determinizations
        except MoveTooLong as err:
            self.stopped = str(err)
            raise
        finally:
            self.clock.stop()
        self._apply(name, action)

    def _apply(self, name: str, action: int) -> None:
        env = self.env
        self.moves.append(step(env, name, action, len(self.moves) + 1))
        for a, r in env.rewards.items():
            self.returns[a] += r
        self.tracker.update(env)
        if _over(env) and not self.recorded and self.recorder is not None:
            self.recorded = True
            self.recorder(self.record())

    def record(self) -> dict[str, Any]:
        """The game as a record (``agents.records`` format); the person's seat is ``"human"``."""
        env = self.env
        stored, deck = record_options(self.options)
        record: dict[str, Any] = {
            "game": self.game,
            "options": stored,
            "reset_options": jsonable(self.reset_options),
            "seed": self.seed,
            "seats": dict(self.record_seats),
            "initial_state": self.initial,
            "actions": [[m.agent, m.action, m.text] for m in self.moves],
            "rewards": dict(self.returns),
            "infos": jsonable({a: dict(env.infos.get(a, {})) for a in env.possible_agents}),
            "final_state": engine_state(env),
        }
        if deck is not None:
            record["deck"] = deck
        return record

    @property
    def record_seats(self) -> dict[str, str]:
        """The seat specs a record stores."""
        raise NotImplementedError


def check_specs(
    agents: list[str],
    allowed: frozenset[str] = frozenset(),
    limits: Any = None,
) -> None:
    """ConfigError for a spec the page may not choose.

    The page offers the installed agent kinds with parameters, each
    parameter within ``limits.caps`` (``ismcts:budget`` at most 2000 by
    default). A spec that names a file or module (``module:Class``,
    ``file.py:Class``) or a checkpoint path (``ppo:PATH``) runs or reads what
    a request names, so it is accepted only when the person listed it with
    ``cardsuite serve --agents`` (and is then theirs: not capped). Which kinds
    those are is each kind's ``operator_only`` flag, not a list kept here; a
    kind that wraps another agent (``search:AGENT``) is checked through to the
    agent it wraps (``search:exec:CMD`` is refused as ``exec:CMD`` is), and
    its own parameters meet the same caps.
    """
    if not agents:
        raise ConfigError("choose at least one agent")
    for text in agents:
        if not isinstance(text, str):
            raise ConfigError(f"agent {str(text)[:40]!r} is not a spec string")
        _check_spec(text, text, allowed, limits)


def _check_spec(
    text: str, outer: str, allowed: frozenset[str], limits: Any, depth: int = 0
) -> None:
    """`check_specs` for one spec; a wrapping kind (``search:``) checks what it wraps too."""
    from cardsuite.agents.registry import KINDS, wrapped_spec

    if text.strip() in allowed:
        return
    if depth > 3:
        raise ConfigError(f"agent {outer[:80]!r}: agents wrapped more than 3 deep")
    parsed = parse_spec(text)
    kind = KINDS.get(parsed.kind)
    if kind is None or kind.operator_only or kind.argument == "path":
        raise ConfigError(
            f"agent {outer[:80]!r}: the page offers the installed agent kinds only; "
            "start the server with cardsuite serve --agents SPEC to offer this one"
        )
    params = parsed.params
    wrapped = wrapped_spec(parsed)
    if wrapped is not None:
        inner, params = wrapped
        _check_spec(inner, outer, allowed, limits, depth + 1)
    if limits is not None:
        limits.check_spec_params(outer, params)


class PlaySession(LiveGame):
    """A person plays one seat against agents; the page sees only that seat's view."""

    mode = "play"

    def __init__(
        self,
        game: str,
        *,
        agents: list[str],
        seat: int = 0,
        seed: int = 0,
        options: dict[str, Any] | None = None,
        reset_options: dict[str, Any] | None = None,
        allowed: frozenset[str] = frozenset(),
        clock: MoveClock | None = None,
        limits: Any = None,
        recorder: Recorder | None = None,
    ) -> None:
        """Deal with ``seed``; the agents fill the other seats in turn, then move until the person's turn."""
        spec = get_game(game)
        super().__init__(spec.name, clock)
        check_specs(agents, allowed, limits)
        env = spec.make(raw=True, **(options or {}))
        n = len(env.possible_agents)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ConfigError(f"seat must be 0..{n - 1}, got {str(seat)[:40]}")
        self.human = env.possible_agents[seat]
        others = [s for s in range(n) if s != seat]
        self.specs = {s: agents[i % len(agents)] for i, s in enumerate(others)}
        self._start(spec.name, env, self.specs, seed, options or {}, reset_options, recorder)
        self.seats = {self.env.possible_agents[s]: t for s, t in self.specs.items()}
        self.seats[self.human] = "you"
        self._run_agents()

    @property
    def record_seats(self) -> dict[str, str]:
        """Agents by their specs, the person's seat as ``"human"``."""
        return {a: (HUMAN if a == self.human else t) for a, t in self.seats.items()}

    def _run_agents(self) -> None:
        env = self.env
        for _ in range(MAX_AGENT_MOVES):
            if _over(env) or env.agent_selection == self.human:
                return
            name = env.agent_selection
            self._agent_move(name, f"{name} ({self.seats[name]})")
        raise ConfigError(f"the agents made {MAX_AGENT_MOVES} moves without the person's turn")

    def legal_moves(self) -> list[dict[str, Any]]:
        """The person's legal moves (from the mask), or none when it is not their turn."""
        env = self.env
        if _over(env) or env.agent_selection != self.human:
            return []
        mask = env.observe(self.human)["action_mask"]
        describe = env.unwrapped.describe_action
        return [{"id": int(a), "text": describe(int(a))} for a in np.flatnonzero(mask)]

    def move(self, action: Any) -> None:
        """Apply the person's move (BadMove unless it is one of `legal_moves`), then the agents'."""
        if _over(self.env):
            raise BadMove("the game is over; start a new one")
        if self.env.agent_selection != self.human:
            raise BadMove("it is not your turn")
        if isinstance(action, bool) or not isinstance(action, int):
            raise BadMove(f"a move is an action id (an integer), got {str(action)[:40]}")
        legal = {m["id"]: m["text"] for m in self.legal_moves()}
        if action not in legal:
            why = (
                self.env.unwrapped._why_illegal(action)
                if 0 <= action < len(self.env.observe(self.human)["action_mask"])
                else "no such action"
            )
            raise BadMove(f"move {action} is not legal now: {why}")
        self._apply(self.human, action)
        self._run_agents()

    def view(self) -> dict[str, Any]:
        """The person's view: the table without others' hands, their moves, their own log."""
        data = self._header(self.env, self.human)
        data.update(
            you=self.human,
            seats=self.seats,
            to_act=None if data["over"] else self.env.agent_selection,
            model=seat_model(self.env, self.human, self.tracker.previous),
            moves=self.legal_moves(),
        )
        return data


class WatchSession(LiveGame):
    """Agents play each other; the page sees the whole table and asks for moves at its speed."""

    mode = "watch"

    def __init__(
        self,
        game: str,
        *,
        agents: list[str],
        seed: int = 0,
        options: dict[str, Any] | None = None,
        allowed: frozenset[str] = frozenset(),
        clock: MoveClock | None = None,
        limits: Any = None,
        recorder: Recorder | None = None,
    ) -> None:
        """Deal with ``seed``; ``agents`` fill the seats in turn."""
        spec = get_game(game)
        super().__init__(spec.name, clock)
        check_specs(agents, allowed, limits)
        env = spec.make(raw=True, **(options or {}))
        n = len(env.possible_agents)
        specs = {s: agents[s % len(agents)] for s in range(n)}
        self._start(spec.name, env, specs, seed, options or {}, None, recorder)
        self.seats = {self.env.possible_agents[s]: t for s, t in specs.items()}

    @property
    def record_seats(self) -> dict[str, str]:
        """Every seat's agent spec."""
        return dict(self.seats)

    def advance(self, moves: int) -> None:
        """Play up to ``moves`` moves (1..1000)."""
        if isinstance(moves, bool) or not isinstance(moves, int) or not 1 <= moves <= 1000:
            raise ConfigError(f"moves must be 1..1000, got {str(moves)[:40]}")
        env = self.env
        for _ in range(moves):
            if _over(env):
                return
            name = env.agent_selection
            self._agent_move(name, f"{name} ({self.seats[name]})")

    def view(self) -> dict[str, Any]:
        """The whole table and the whole log (a spectator of agents sees everything)."""
        data = self._header(self.env)
        data.update(
            seats=self.seats,
            to_act=None if data["over"] else self.env.agent_selection,
            model=table_model(self.env, self.tracker.previous),
        )
        return data


class ReplaySession(Session):
    """A recorded game, move by move, forward and back (replayed by `agents.records`)."""

    mode = "replay"

    def __init__(self, record: Mapping[str, Any], source: str) -> None:
        """Check the record by building its env (StateError if it does not replay)."""
        super().__init__(str(record["game"]))
        self.record = record
        self.source = source
        self.seed = int(record["seed"])
        self.total = len(record["actions"])
        self.seats = {str(k): str(v) for k, v in record["seats"].items()}
        self.failure: tuple[int, str] | None = None  # the first move that does not replay
        self._restart()

    def _restart(self) -> None:
        self.env = make_env(self.record)
        self.tracker = PartyTracker()
        self.tracker.update(self.env)
        self.moves = []
        self.step = 0
        self._moves = apply_moves(self.env, self.record)
        self._before = table_marker(self.env)

    def goto(self, step: int) -> None:
        """Show the table after ``step`` recorded moves (0 = the deal).

        A record that does not replay past some move answers every ``goto``
        beyond it with the same StateError, and stays at the last good move.
        """
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= self.total:
            raise ConfigError(f"step must be 0..{self.total}, got {str(step)[:40]}")
        if self.failure is not None and step >= self.failure[0]:
            raise StateError(self.failure[1])
        if step < self.step:
            self._restart()
        try:
            while self.step < step:
                move = next(self._moves)
                self.tracker.update(self.env)
                entry = Move(
                    move.number, move.agent, move.action, move.description, move.description,
                    note=round_note(self.env, self._before),
                )  # fmt: skip
                self._before = table_marker(self.env)
                self.moves.append(entry)
                self.step += 1
            if self.step == self.total:
                for _ in self._moves:  # the reader's end-of-game checks (rewards)
                    pass
        except StateError as err:
            self.failure = (self.step + 1, str(err))
            good = self.step
            self._restart()  # the env may be half-stepped: replay to the last good move
            for _ in range(good):
                next(self._moves)
                self.tracker.update(self.env)
                self.step += 1
            raise
        except StopIteration:  # never expected: the generator ended early
            raise StateError(f"record replay: no move {self.step + 1} to replay") from None

    def view(self) -> dict[str, Any]:
        """The whole table after the current step, and the log so far."""
        data = self._header(self.env)
        data.update(
            seats=self.seats,
            step=self.step,
            total=self.total,
            source=self.source,
            to_act=None if data["over"] else self.env.agent_selection,
            model=table_model(self.env, self.tracker.previous),
        )
        return data


class Store:
    """The sessions of this server, by id."""

    def __init__(self, max_sessions: int = MAX_SESSIONS, idle: float = IDLE_SECONDS) -> None:
        """An empty store."""
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()
        self.max_sessions = max_sessions
        self.idle = idle

    def add(self, session: Session) -> Session:
        """Keep ``session``; the least recently used goes when the store is full."""
        with self._lock:
            self._expire()
            while len(self._sessions) >= self.max_sessions:
                oldest = min(self._sessions.values(), key=lambda s: s.touched)
                del self._sessions[oldest.id]
            self._sessions[session.id] = session
        return session

    def get(self, sid: str) -> Session:
        """The session ``sid``; SessionGone with a clear message otherwise."""
        with self._lock:
            self._expire()
            session = self._sessions.get(sid)
            if session is None:
                raise SessionGone(
                    "this game is no longer on the server (its tab was closed, it was idle "
                    "for an hour, or the server restarted); start a new game"
                )
            session.touched = time.monotonic()
            return session

    def close(self, sid: str) -> bool:
        """Drop a session (its page was closed); whether it existed."""
        with self._lock:
            return self._sessions.pop(sid, None) is not None

    def __len__(self) -> int:
        """Sessions held."""
        return len(self._sessions)

    def _expire(self) -> None:
        now = time.monotonic()
        for sid in [s.id for s in self._sessions.values() if now - s.touched > self.idle]:
            del self._sessions[sid]
