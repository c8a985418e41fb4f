"""The games a running ``cardsuite serve`` holds: play, watch and replay sessions.

All state lives in this process (a :class:`Store` in the app); nothing is
written to disk. Each session has a lock, so two requests for one game never
interleave. Sessions idle for :data:`IDLE_SECONDS` are dropped, at most
:data:`MAX_SESSIONS` are kept, and a page's request for a dropped or closed
session gets a clear "start a new game" message.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from cardsuite.agents.arena import derive_seed
from cardsuite.agents.base import Agent, table_info
from cardsuite.agents.records import apply_moves, make_env
from cardsuite.agents.registry import make_agent, parse_spec
from cardsuite.agents.views import round_note, table_marker
from cardsuite.agents.web.models import seat_model, table_model
from cardsuite.errors import CardsuiteError, ConfigError
from cardsuite.games import get_game

MAX_SESSIONS = 64
IDLE_SECONDS = 3600.0
LOG_SHOWN = 300  # log entries sent with a view (the newest)
MAX_AGENT_MOVES = 100_000  # agent moves between two human moves, at most


class SessionGone(CardsuiteError):
    """A page asked for a game this server no longer holds."""


class BadMove(CardsuiteError):
    """A move the page sent is not one of the legal moves."""


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
    """One game in the server: an env, the move log, a lock."""

    mode = "session"

    def __init__(self, game: str) -> None:
        """A fresh session id and its lock."""
        self.id = secrets.token_urlsafe(12)
        self.game = game
        self.lock = threading.Lock()
        self.touched = time.monotonic()
        self.log: list[dict[str, Any]] = []
        self.tracker = PartyTracker()

    def view(self) -> dict[str, Any]:
        """The JSON the page draws."""
        raise NotImplementedError

    def _log_move(self, env: Any, agent: str, action: int, who: str) -> None:
        """Apply ``action`` and log it (with a note when it ends a round or hand)."""
        base = env.unwrapped
        text = base.describe_action(action)
        before = table_marker(env)
        env.step(action)
        self.tracker.update(env)
        entry = {"n": len(self.log) + 1, "who": who, "text": text}
        note = round_note(env, before)
        if note:
            entry["note"] = note
        self.log.append(entry)

    def _header(self, env: Any) -> dict[str, Any]:
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
            "over": over,
            "result": _jsonable(result),
            "log": self.log[-LOG_SHOWN:],
            "log_total": len(self.log),
        }


def _over(env: Any) -> bool:
    return not env.agents or all(env.terminations[a] or env.truncations[a] for a in env.agents)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _build_agents(
    game: str, env: Any, specs: Mapping[int, str], seed: int
) -> dict[str, tuple[Agent, dict[str, Any]]]:
    """Agents by seat (reset for the episode) with the info each ``act`` gets."""
    base = env.unwrapped
    players: dict[str, tuple[Agent, dict[str, Any]]] = {}
    for seat, text in specs.items():
        name = env.possible_agents[seat]
        agent = make_agent(text, game, seed=derive_seed(seed, 2, seat))
        agent.reset(table_info(env, game, name), seed=derive_seed(seed, 3, seat))
        info: dict[str, Any] = {"agent": name}
        if hasattr(base, "determinize"):
            info["determinize"] = lambda rng, a=name: base.determinize(a, rng)
        players[name] = (agent, info)
    return players


def _check_specs(agents: list[str], allowed: frozenset[str] = frozenset()) -> None:
    """ConfigError for a spec the page may not choose.

    The page offers the installed agent kinds with parameters. A spec that
    names a file or module (``module:Class``, ``file.py:Class``) or a
    checkpoint path (``ppo:PATH``) runs or reads what a request names, so it
    is accepted only when the person listed it with ``cardsuite serve --agents``.
    """
    from cardsuite.agents.registry import KINDS

    if not agents:
        raise ConfigError("choose at least one agent")
    for text in agents:
        if not isinstance(text, str):
            raise ConfigError(f"agent {text!r} is not a spec string")
        if text.strip() in allowed:
            continue
        parsed = parse_spec(text)
        if parsed.kind == "class" or KINDS[parsed.kind].argument == "path":
            raise ConfigError(
                f"agent {text!r}: the page offers the installed agent kinds only; "
                "start the server with cardsuite serve --agents SPEC to offer this one"
            )


class PlaySession(Session):
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
    ) -> None:
        """Deal with ``seed``; the agents fill the other seats in turn, then move until the person's turn."""
        spec = get_game(game)
        super().__init__(spec.name)
        _check_specs(agents, allowed)
        self.env = spec.make(raw=True, **(options or {}))
        n = len(self.env.possible_agents)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ConfigError(f"seat must be 0..{n - 1}, got {seat!r}")
        self.human = self.env.possible_agents[seat]
        others = [s for s in range(n) if s != seat]
        self.specs = {s: agents[i % len(agents)] for i, s in enumerate(others)}
        self.env.reset(seed=seed, options=reset_options)
        self.tracker.update(self.env)
        self.players = _build_agents(spec.name, self.env, self.specs, seed)
        self.seats = {self.env.possible_agents[s]: t for s, t in self.specs.items()}
        self.seats[self.human] = "you"
        self._run_agents()

    def _run_agents(self) -> None:
        env = self.env
        for _ in range(MAX_AGENT_MOVES):
            if _over(env) or env.agent_selection == self.human:
                return
            name = env.agent_selection
            agent, info = self.players[name]
            obs = env.observe(name)
            action = int(agent.act(obs["observation"], obs["action_mask"], info))
            self._log_move(env, name, action, name)
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
        """Apply the person's move (BadMove unless it is one of :meth:`legal_moves`), then the agents'."""
        if _over(self.env):
            raise BadMove("the game is over; start a new one")
        if self.env.agent_selection != self.human:
            raise BadMove("it is not your turn")
        if isinstance(action, bool) or not isinstance(action, int):
            raise BadMove(f"a move is an action id (an integer), got {action!r}")
        legal = {m["id"]: m["text"] for m in self.legal_moves()}
        if action not in legal:
            why = (
                self.env.unwrapped._why_illegal(action)
                if 0 <= action < len(self.env.observe(self.human)["action_mask"])
                else "no such action"
            )
            raise BadMove(f"move {action} is not legal now: {why}")
        self._log_move(self.env, self.human, action, self.human)
        self._run_agents()

    def view(self) -> dict[str, Any]:
        """The person's view: the table without others' hands, their moves, the log."""
        data = self._header(self.env)
        data.update(
            you=self.human,
            seats=self.seats,
            to_act=None if data["over"] else self.env.agent_selection,
            model=seat_model(self.env, self.human, self.tracker.previous),
            moves=self.legal_moves(),
        )
        return data


class WatchSession(Session):
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
    ) -> None:
        """Deal with ``seed``; ``agents`` fill the seats in turn."""
        spec = get_game(game)
        super().__init__(spec.name)
        _check_specs(agents, allowed)
        self.env = spec.make(raw=True, **(options or {}))
        n = len(self.env.possible_agents)
        specs = {s: agents[s % len(agents)] for s in range(n)}
        self.env.reset(seed=seed)
        self.tracker.update(self.env)
        self.players = _build_agents(spec.name, self.env, specs, seed)
        self.seats = {self.env.possible_agents[s]: t for s, t in specs.items()}

    def advance(self, moves: int) -> None:
        """Play up to ``moves`` moves (1..1000)."""
        if isinstance(moves, bool) or not isinstance(moves, int) or not 1 <= moves <= 1000:
            raise ConfigError(f"moves must be 1..1000, got {moves!r}")
        env = self.env
        for _ in range(moves):
            if _over(env):
                return
            name = env.agent_selection
            agent, info = self.players[name]
            obs = env.observe(name)
            self._log_move(
                env, name, int(agent.act(obs["observation"], obs["action_mask"], info)), name
            )

    def view(self) -> dict[str, Any]:
        """The whole table and the log."""
        data = self._header(self.env)
        data.update(
            seats=self.seats,
            to_act=None if data["over"] else self.env.agent_selection,
            model=table_model(self.env, self.tracker.previous),
        )
        return data


class ReplaySession(Session):
    """A recorded game, move by move, forward and back (replayed by :mod:`agents.records`)."""

    mode = "replay"

    def __init__(self, record: Mapping[str, Any], source: str) -> None:
        """Check the record by building its env (StateError if it does not replay)."""
        super().__init__(str(record["game"]))
        self.record = record
        self.source = source
        self.total = len(record["actions"])
        self.seats = {str(k): str(v) for k, v in record["seats"].items()}
        self._restart()

    def _restart(self) -> None:
        self.env = make_env(self.record)
        self.tracker = PartyTracker()
        self.tracker.update(self.env)
        self.log = []
        self.step = 0
        self._moves = apply_moves(self.env, self.record)
        self._before = table_marker(self.env)

    def goto(self, step: int) -> None:
        """Show the table after ``step`` recorded moves (0 = the deal)."""
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= self.total:
            raise ConfigError(f"step must be 0..{self.total}, got {step!r}")
        if step < self.step:
            self._restart()
        while self.step < step:
            move = next(self._moves)
            self.tracker.update(self.env)
            entry = {"n": move.number, "who": move.agent, "text": move.description}
            note = round_note(self.env, self._before)
            if note:
                entry["note"] = note
            self._before = table_marker(self.env)
            self.log.append(entry)
            self.step += 1
        if self.step == self.total:
            for _ in self._moves:  # the reader's end-of-game checks (rewards)
                pass

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
