"""Agents in any language: ``exec:COMMAND`` runs an agent as a child process speaking JSON lines.

``exec:[timeout=SECONDS] [on_error=stop|forfeit] COMMAND...`` is split with `shlex` and started
without a shell, in its own session; the protocol and what each failure does:
``docs/protocol.md``. A failing process is killed and reaped at once.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import selectors
import shlex
import shutil
import signal
import subprocess
import sys
import time
import weakref
from collections.abc import Mapping
from typing import Any

import numpy as np

from cardsuite import safe_json
from cardsuite.agents.base import TableInfo
from cardsuite.agents.kinds import AgentKind
from cardsuite.errors import CardsuiteError, ConfigError
from cardsuite.games import get_game

#: Default per-answer limit in seconds.
DEFAULT_TIMEOUT = 10.0
#: The longest answer line read (bytes); a longer one is a protocol error.
MAX_LINE = 1 << 20
#: Seconds a closed process gets to exit before it is killed.
CLOSE_GRACE = 1.0

EXEC = AgentKind(
    "exec",
    "cardsuite.agents.external.exec:ExecAgent",
    "a child process speaking JSON lines (exec:[timeout=S] [on_error=stop|forfeit] COMMAND)",
    argument="name",
    operator_only=True,
)


class AgentProcessError(CardsuiteError):
    """An ``exec:`` agent failed; the message names the agent and what went wrong."""


class AgentCrashed(AgentProcessError):
    """The agent's process could not start, or exited before answering."""


class AgentTimeout(AgentProcessError):
    """The agent's process did not answer within its time limit."""


class AgentProtocolError(AgentProcessError):
    """The agent answered something other than one JSON object of the expected shape."""


class AgentIllegalMove(AgentProcessError):
    """The agent answered an action id that is not legal."""


_LIVE: weakref.WeakSet[ExecAgent] = weakref.WeakSet()


@atexit.register
def _kill_all() -> None:  # pragma: no cover - runs at interpreter exit
    for agent in list(_LIVE):
        agent.close()


def parse_command(text: str) -> tuple[list[str], float, str]:
    """``[timeout=S] [on_error=MODE] COMMAND...`` as (argv, timeout, on_error); ConfigError if bad."""
    where = f"agent spec exec:{text}"
    try:
        words = shlex.split(text)
    except ValueError as err:
        raise ConfigError(f"{where}: cannot split the command: {err}") from None
    timeout, on_error = DEFAULT_TIMEOUT, "stop"
    while words and words[0].partition("=")[0] in ("timeout", "on_error") and "=" in words[0]:
        key, _, value = words.pop(0).partition("=")
        if key == "timeout":
            try:
                timeout = float(value)
            except ValueError:
                timeout = -1.0
            if not (timeout > 0 and np.isfinite(timeout)):
                raise ConfigError(
                    f"{where}: timeout must be a positive number of seconds, got {value!r}"
                )
        elif value not in ("stop", "forfeit"):
            raise ConfigError(f"{where}: on_error must be stop or forfeit, got {value!r}")
        else:
            on_error = value
    if not words:
        raise ConfigError(f"{where}: no command to run (exec:python3 my_bot.py)")
    if shutil.which(words[0]) is None:
        raise ConfigError(f"{where}: command {words[0]!r} not found")
    return words, timeout, on_error


class ExecAgent:
    """An agent played by a child process over JSON lines (module doc)."""

    def __init__(
        self,
        command: str,
        game: str | None = None,
        seed: int | None = None,
        *,
        timeout: float | None = None,
        on_error: str | None = None,
    ) -> None:
        """Check ``command`` (module doc), started at the first game; ``timeout`` and ``on_error``
        override its settings, ``seed`` is unused (each game's comes in ``reset``).

        Raises:
            ConfigError: an empty or unsplittable command, a program not on PATH, a bad setting.
        """
        self.argv, self.timeout, self.on_error = parse_command(command)
        if timeout is not None:
            self.timeout = float(timeout)
        if on_error is not None:
            self.on_error = on_error
        self.name = f"exec:{command}"
        self.game = game
        self.failures: list[AgentProcessError] = []
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self._table: TableInfo | None = None
        self._failed = False
        _LIVE.add(self)

    @classmethod
    def load(cls, command: str, game: str, seed: int | None = None) -> ExecAgent:
        """The registry's constructor for ``exec:COMMAND`` (a ``name`` kind)."""
        return cls(str(command), game, seed)

    # ------------------------------------------------------------ agent API
    def reset(self, table: TableInfo, seed: int | None = None) -> None:
        """Start the process if needed and tell it the table."""
        self._table = table
        self._failed = False
        key = get_game(table.game).players_key
        message = {
            "type": "reset",
            "game": table.game,
            "player": table.agent,
            "num_players": getattr(table.config, key, None),
            "seed": seed,
        }
        try:
            limit = self.timeout
            if self._proc is None:
                self._start()
                limit = max(self.timeout, DEFAULT_TIMEOUT)  # start-up time
            answer = self._ask(message, limit)
            if answer != {}:
                raise AgentProtocolError(
                    f"{self.name}: answered reset with {_brief(answer)}, not {{}}"
                )
        except AgentProcessError as err:
            self._fail(err)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        """Ask the process for an action; a failure is raised or forfeits (``on_error``)."""
        legal = np.flatnonzero(action_mask)
        if self._failed:
            return -1  # this game is forfeited
        describe = self._table.describe_action if self._table is not None else str
        message = {
            "type": "act",
            "observation": np.asarray(observation).tolist(),
            "action_mask": np.asarray(action_mask).astype(int).tolist(),
            "legal": [{"id": int(i), "text": describe(int(i))} for i in legal],
        }
        try:
            answer = self._ask(message, self.timeout)
            action = answer.get("action") if isinstance(answer, dict) else None
            if isinstance(action, bool) or not isinstance(action, int):
                raise AgentProtocolError(
                    f'{self.name}: answered {_brief(answer)}; expected {{"action": N}} '
                    "with N an integer action id"
                )
            if action not in set(legal.tolist()):
                raise AgentIllegalMove(
                    f"{self.name}: answered action {action}, which is not legal here "
                    f"(legal: {', '.join(str(int(i)) for i in legal[:20])}"
                    f"{' ...' if len(legal) > 20 else ''})"
                )
            return action
        except AgentProcessError as err:
            self._fail(err)
            return -1

    def close(self) -> None:
        """Send ``close``, give the process a second to exit, then kill it; always reaps it."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        with contextlib.suppress(OSError, ValueError, subprocess.TimeoutExpired):
            if proc.poll() is None and proc.stdin is not None:
                proc.stdin.write(b'{"type": "close"}\n')
                proc.stdin.flush()
                proc.stdin.close()
                proc.wait(timeout=CLOSE_GRACE)
        _kill(proc)

    def __del__(self) -> None:
        """Close the process when the agent is dropped (the end of a tournament)."""
        with contextlib.suppress(Exception):  # interpreter shutdown
            self.close()

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (a copy for another seat or worker) without the process."""
        state = dict(self.__dict__)
        state.update(_proc=None, _buffer=b"", _table=None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore a copy; its process starts at its first game."""
        self.__dict__.update(state)
        _LIVE.add(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> ExecAgent:
        """A copy with a process of its own (started at its first game)."""
        clone = type(self).__new__(type(self))
        clone.__setstate__(self.__getstate__())
        clone.failures = []
        return clone

    # ------------------------------------------------------------ process
    @property
    def pid(self) -> int | None:
        """The running process's id, or None."""
        return None if self._proc is None else self._proc.pid

    def _start(self) -> None:
        try:
            self._proc = subprocess.Popen(  # stderr inherited: the bot's own log goes to ours
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True
            )
        except OSError as err:
            raise AgentCrashed(f"{self.name}: cannot start {self.argv[0]!r}: {err}") from None
        self._buffer = b""
        assert self._proc.stdout is not None and self._proc.stdin is not None
        os.set_blocking(self._proc.stdout.fileno(), False)
        os.set_blocking(self._proc.stdin.fileno(), False)

    def _fail(self, err: AgentProcessError) -> None:
        """Kill the process; raise ``err`` (stop) or mark the game forfeited."""
        proc, self._proc = self._proc, None
        if proc is not None:
            _kill(proc)
        self.failures.append(err)
        if self.on_error == "stop":
            raise err
        self._failed = True
        print(f"cardsuite: {err} (the seat forfeits this game)", file=sys.stderr)

    def _ask(self, message: dict[str, Any], timeout: float) -> Any:
        """Write one line, read one answer line within ``timeout`` seconds."""
        proc = self._proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        deadline = time.monotonic() + timeout
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdin.fileno(), selectors.EVENT_WRITE)
            while data:
                if not sel.select(max(0.0, deadline - time.monotonic())):
                    raise AgentTimeout(f"{self.name}: did not read its input within {timeout:g} s")
                try:
                    written = os.write(proc.stdin.fileno(), data)
                except BrokenPipeError:
                    raise self._crashed() from None
                data = data[written:]
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout.fileno(), selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                if len(self._buffer) > MAX_LINE:
                    raise AgentProtocolError(f"{self.name}: an answer longer than {MAX_LINE} bytes")
                if not sel.select(max(0.0, deadline - time.monotonic())):
                    raise AgentTimeout(
                        f"{self.name}: no answer to {message['type']!r} within {timeout:g} s"
                    )
                chunk = os.read(proc.stdout.fileno(), 65536)
                if not chunk:
                    raise self._crashed()
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            answer = safe_json.loads(line, f"{self.name}: answer", error=AgentProtocolError)
        except AgentProtocolError:
            raise AgentProtocolError(
                f"{self.name}: answered {_brief(line.decode('utf-8', 'replace'))}, "
                "which is not one JSON object"
            ) from None
        if not isinstance(answer, dict):
            raise AgentProtocolError(f"{self.name}: answered {_brief(answer)}, not a JSON object")
        return answer

    def _crashed(self) -> AgentCrashed:
        code = None
        with contextlib.suppress(subprocess.TimeoutExpired):
            code = None if self._proc is None else self._proc.wait(timeout=1.0)
        how = f"exited with code {code}" if code is not None else "closed its output"
        return AgentCrashed(f"{self.name}: the process {how} before answering")


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill the process (and its session) if it still runs, and reap it."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            proc.kill()
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    proc.wait()


def _brief(value: Any, limit: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")
