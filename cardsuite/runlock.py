"""One writer per folder: a lock file naming the process that writes there.

A trainer takes `RunLock` on its run folder before any work (``.lock`` inside it), the
leaderboard and a benchmark calibration on their checkpoint file (``FILE.lock``
beside it, `RunLock.of_file`). The lock file holds the
holder's process id, host, command and start time as JSON. A second writer gets a
`RunLockedError` naming the holder. A lock left by a process that is gone (same
host, the process id no longer running) is stale: it is taken over, with a notice.
A lock held on another host cannot be checked from here; the error says how to
remove it by hand once that process is known to be gone.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cardsuite import safe_json
from cardsuite.errors import CardsuiteError, RunLockedError

LOCK_FILE = ".lock"


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this host (a zombie counts as gone)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    with contextlib.suppress(OSError):  # Linux: a zombie waits for its parent, it holds nothing
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][:1] != "Z"
    return True


class RunLock:
    """The lock of ``folder`` for ``command`` (a context manager: `acquire`, then `release`).

    Args:
        folder: the folder written (made if absent).
        command: what holds it, for the messages (``"cardsuite ppo"``).
        notice: where the take-over of a stale lock is said (default: standard error).
    """

    def __init__(
        self, folder: str | Path, command: str, notice: Callable[[str], Any] | None = None
    ) -> None:
        self.path = Path(folder) / LOCK_FILE
        self.command = command
        self.notice = notice or (lambda text: print(text, file=sys.stderr, flush=True))
        self.held = False

    @classmethod
    def of_file(cls, file: str | Path, command: str) -> RunLock:
        """The lock of a file appended to by one writer (``FILE.lock`` beside it)."""
        lock = cls(Path(file).parent, command)
        lock.path = Path(f"{file}.lock")
        return lock

    def holder(self) -> dict[str, Any] | None:
        """The lock file's record (None: no lock; ``{}``: unreadable, e.g. cut short)."""
        try:
            doc = safe_json.loads(self.path.read_bytes(), str(self.path), max_chars=4096)
        except FileNotFoundError:
            return None
        except (OSError, CardsuiteError):
            return {}
        return doc if isinstance(doc, dict) else {}

    def acquire(self) -> RunLock:
        """Take the lock, or take over a stale one (with a notice).

        Raises:
            RunLockedError: a live process (or one on another host) holds it.
        """
        if self.path.name == LOCK_FILE:  # a folder's lock: the folder is made
            self.path.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(3):  # a take-over races another at most once or twice
            if self._create():
                self.held = True
                return self
            holder = self.holder()
            if holder is None:
                continue  # released between the two calls
            self._check_stale(holder)
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
        raise RunLockedError(f"{self.path.parent}: could not take the lock {self.path}")

    def check(self) -> None:
        """Raise `RunLockedError` if a live process holds the lock (takes nothing).

        Raises:
            RunLockedError: as `acquire`.
        """
        holder = self.holder()
        if holder:
            self._check_stale(holder, quiet=True)

    def _create(self) -> bool:
        """Create the lock file with this process's record; False if it exists."""
        record = {"pid": os.getpid(), "host": socket.gethostname(), "command": self.command,
                  "started": time.strftime("%Y-%m-%d %H:%M:%S")}  # fmt: skip
        try:
            fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(record, out)
        return True

    def _check_stale(self, holder: dict[str, Any], quiet: bool = False) -> None:
        """Return when ``holder``'s lock may be taken over (saying so unless ``quiet``);
        else raise."""
        folder, pid, host = self.path.parent, holder.get("pid"), holder.get("host")
        who = (f"{holder.get('command', 'a process')} (process {pid} on {host}, "
               f"since {holder.get('started', '?')})")  # fmt: skip
        if not holder:
            age = time.time() - self.path.stat().st_mtime
            if age < 10:  # being written this instant by another process
                raise RunLockedError(f"{folder} is being locked by another process; try again")
            self.notice(f"{folder}: taking over an unreadable lock file ({self.path})")
            return
        if host == socket.gethostname() and pid == os.getpid():
            return  # this process locked it before (a second trainer object on the same run)
        if host != socket.gethostname():
            raise RunLockedError(
                f"{folder} is in use by {who}; one writer per run. If that process is gone, "
                f"delete {self.path} and run again"
            )
        if type(pid) is int and _alive(pid):
            raise RunLockedError(
                f"{folder} is in use by {who}; one writer per run: wait for it to end, stop it "
                f"(Ctrl-C or kill -TERM {pid} saves and exits), or choose another folder"
            )
        if not quiet:
            self.notice(f"{folder}: taking over the lock of {who}, which is no longer running")

    def release(self) -> None:
        """Remove the lock file if this process holds it."""
        if self.held:
            holder = self.holder()
            if holder and holder.get("pid") == os.getpid():
                with contextlib.suppress(FileNotFoundError):
                    self.path.unlink()
            self.held = False

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *exc: Any) -> None:
        self.release()
