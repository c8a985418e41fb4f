"""What every game of a running ``cardsuite serve`` shares, and the store that holds them."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from cardsuite.agents.arena.records import jsonable, over
from cardsuite.agents.play.views import RESULT_KEYS, Move
from cardsuite.agents.play.web.limits import HttpError, Limits, MoveClock

MAX_SESSIONS = Limits.max_sessions
IDLE_SECONDS = Limits.idle_seconds
LOG_SHOWN = 300  # log entries sent with a view (the newest)
MAX_AGENT_MOVES = 100_000  # agent moves between two human moves, at most
MAX_SEED = 2**63 - 1

#: Called with each finished game's record (``cardsuite serve --record``).
Recorder = Callable[[dict[str, Any]], None]


class SessionGone(HttpError, status=404):
    """A page asked for a game this server no longer holds."""


class SessionBusy(HttpError, status=409):
    """A request for a game that is still working on an earlier request."""


class SessionStopped(HttpError, status=409):
    """A request for a game the server stopped (an agent's move ran too long)."""


class BadMove(HttpError):
    """A move the page sent is not one of the legal moves."""


def random_seed() -> int:
    """A fresh deal seed for a game whose seed the person did not set."""
    return secrets.randbelow(2**31)


@dataclass
class PartyTracker:
    """Each Scum Party player's table before the last hand, to mark moves up and down."""

    hand: int = -1  # none seen yet
    start: list[int] | None = None
    previous: list[int] | None = None

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
        self.seats: dict[str, str] = {}

    def view(self) -> dict[str, Any]:
        """The JSON the page draws."""
        raise NotImplementedError

    @contextmanager
    def held(self) -> Iterator[None]:
        """The session's lock, taken without waiting: SessionBusy/SessionStopped otherwise."""
        if not self.lock.acquire(blocking=False):
            raise SessionBusy(
                "this game is still working on an earlier request; wait for it and try again"
            )
        try:
            if self.stopped is not None:
                raise SessionStopped(f"this game was stopped: {self.stopped}")
            yield
        finally:
            self.lock.release()

    def _header(self, env: Any, seat: str | None = None) -> dict[str, Any]:
        done = over(env)
        result = None
        shown = (*RESULT_KEYS, "illegal_action")
        if done:
            result = {
                a: {
                    "reward": float(env._cumulative_rewards.get(a, 0.0)),
                    **{k: v for k, v in env.infos.get(a, {}).items() if k in shown},
                }
                for a in env.possible_agents
            }
        return {
            "id": self.id,
            "mode": self.mode,
            "game": self.game,
            "seed": self.seed,
            "over": done,
            "result": jsonable(result),
            "log": [m.entry(seat) for m in self.moves[-LOG_SHOWN:]],  # as ``seat`` reads them
            "log_total": len(self.moves),
            "seats": self.seats,
            "to_act": None if done else env.agent_selection,
        }


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
                del self._sessions[min(self._sessions.values(), key=lambda s: s.touched).id]
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
