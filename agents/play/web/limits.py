"""What one ``cardsuite serve`` lets a page ask for, and the threads that do the game work.

A search checks its `MoveClock` at every determinization. Why threads: ``docs/web.md``.
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cardsuite.errors import CardsuiteError, ConfigError

#: Default caps on agent-spec parameters a page may choose (name: highest value).
DEFAULT_CAPS: Mapping[str, int] = {"budget": 2000}


class HttpError(CardsuiteError):
    """An error answered with its own HTTP status: ``class E(HttpError, status=503)``."""

    http_status = 400

    def __init_subclass__(cls, status: int = 400, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.http_status = status


class ServerBusy(HttpError, status=503):
    """Every game worker is busy and the waiting line is full."""


class MoveTooLong(HttpError, status=503):
    """An agent's move ran past the per-move time limit; its game is stopped."""


class StillWorking(HttpError, status=503):
    """A request's game work ran past the request time limit."""


class ServerStopping(HttpError, status=503):
    """The server is shutting down."""


class TooLarge(ConfigError, HttpError, status=413):
    """A request body over the size limit."""


@dataclass(frozen=True)
class Limits:
    """The server's settings (``cardsuite serve --move-seconds ...``; each in ``docs/web.md``)."""

    move_seconds: float = 10.0
    request_seconds: float = 60.0
    workers: int = 4
    queue: int = 64
    caps: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_CAPS))
    max_body: int = 64 << 10
    max_upload: int = 16 << 20
    max_sessions: int = 64
    idle_seconds: float = 3600.0

    def __post_init__(self) -> None:
        """ConfigError naming a setting out of range."""
        for name in ("move_seconds", "request_seconds", "idle_seconds"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or isinstance(value, bool) or not value > 0:
                raise ConfigError(f"{name} must be a positive number of seconds, got {value!r}")
        for name in ("workers", "max_body", "max_upload", "max_sessions", "queue"):
            value, low = getattr(self, name), int(name != "queue")
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                kind = "a positive" if low else "a non-negative"
                raise ConfigError(f"{name} must be {kind} integer, got {value!r}")
        for name, cap in self.caps.items():
            if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
                raise ConfigError(f"the cap on {name} must be a positive integer, got {cap!r}")

    def check_spec_params(self, text: str, params: Mapping[str, Any]) -> None:
        """ConfigError naming the first parameter of ``text`` above its cap."""
        for name, cap in self.caps.items():
            value = params.get(name)  # not a number: the agent's own check names it
            if isinstance(value, int | float) and not isinstance(value, bool) and value > cap:
                raise ConfigError(
                    f"agent {text[:80]!r}: {name}={str(value)[:40]} is above this server's cap "
                    f"of {cap} (cardsuite serve --max-{name.replace('_', '-')} sets it)"
                )


class MoveClock:
    """The deadline of the agent move under way in one game."""

    def __init__(self, seconds: float, stopping: threading.Event | None = None) -> None:
        """A clock for moves of at most ``seconds``; ``stopping`` ends every move at once."""
        self.seconds = float(seconds)
        self.stopping = stopping or threading.Event()
        self.deadline = float("inf")
        self.who = ""

    def start(self, who: str) -> None:
        """A move of ``who`` begins now."""
        self.who = who
        self.deadline = time.monotonic() + self.seconds

    def check(self) -> None:
        """MoveTooLong (or ServerStopping) when the move under way must stop."""
        if self.stopping.is_set():
            raise ServerStopping("the server is stopping")
        if time.monotonic() > self.deadline:
            raise MoveTooLong(
                f"{self.who} needed more than {self.seconds:g} s for one move (this server's "
                "per-move limit, cardsuite serve --move-seconds); the game is stopped: start a new one"
            )

    def stop(self) -> None:
        """The move is over."""
        self.deadline = float("inf")

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn`` that checks the clock first (for an agent's ``determinize`` callback)."""

        def checked(*args: Any, **kwargs: Any) -> Any:
            self.check()
            return fn(*args, **kwargs)

        return checked


class GameWorkers:
    """A bounded pool of daemon threads for game work, awaited from the event loop.

    Not ``concurrent.futures``: it joins its threads at exit, so a runaway search kept the server up.
    """

    def __init__(self, workers: int, waiting: int) -> None:
        """``workers`` threads (started on first use), at most ``waiting`` jobs in line."""
        self.size = workers
        self.waiting = waiting
        self.stopping = threading.Event()
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self.pending = 0  # jobs running or waiting
        self._threads: list[threading.Thread] = []

    async def run(self, fn: Callable[[], Any], timeout: float) -> Any:
        """``fn()`` in a worker; its result or exception. ServerBusy when the line is full."""
        if self.stopping.is_set():
            raise ServerStopping("the server is stopping")
        with self._lock:
            if self.pending >= self.size + self.waiting:
                raise ServerBusy(
                    f"the server is busy ({self.pending} games are working or waiting); "
                    "try again in a moment"
                )
            self.pending += 1
            if len(self._threads) < min(self.size, self.pending):
                thread = threading.Thread(
                    target=self._serve, name=f"cardsuite-game-{len(self._threads)}", daemon=True
                )
                self._threads.append(thread)
                thread.start()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        future.add_done_callback(_retrieve)  # an answer nobody waits for any more is dropped
        self._jobs.put((fn, future, loop))
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except TimeoutError:
            raise StillWorking(
                f"this request's game work took more than {timeout:g} s; the game is busy "
                "until it ends"
            ) from None

    def stop(self) -> None:
        """Ask every running move to stop (the server is shutting down)."""
        self.stopping.set()
        for _ in self._threads:
            self._jobs.put(None)

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            fn, future, loop = job
            try:
                result, error = fn(), None
            except BaseException as err:  # handed to the request, which names it
                result, error = None, err
            finally:
                with self._lock:
                    self.pending -= 1
            try:
                loop.call_soon_threadsafe(_settle, future, result, error)
            except RuntimeError:  # the loop is closed: the server stopped
                return


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():
        return
    if isinstance(error, StopIteration):  # asyncio refuses to carry it
        error = RuntimeError(f"StopIteration: {error}")
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)
