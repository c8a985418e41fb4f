"""Ctrl-C for a training loop: finish the iteration, checkpoint, stop; a second Ctrl-C aborts."""

from __future__ import annotations

import signal
import threading
from typing import Any


class StopOnSigint:
    """While active, a first Ctrl-C (SIGINT) asks the loop to checkpoint and stop; a second one raises.

    Installed only from the main thread (Python's rule for signal handlers).
    """

    def __init__(self, log: Any) -> None:
        """Not yet installed; `requested` turns True on the first SIGINT."""
        self.requested = False
        self.log = log
        self._previous: Any = None

    def __enter__(self) -> StopOnSigint:
        """Install the handler (main thread only)."""
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: Any) -> None:
        """Restore the previous handler."""
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)

    def _handle(self, signum: int, frame: Any) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        self.log("  Ctrl-C: stopping after this iteration with a checkpoint (again to abort)")
