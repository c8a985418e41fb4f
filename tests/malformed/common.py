"""Shared checks of the malformed-input suite: only named errors, nothing hangs.

`named_or_ok` runs a callable under a watchdog (``SIGALRM``: a hang
becomes a test failure after a few seconds instead of a stuck run) and
returns the [`CardsuiteError`][cardsuite.errors.CardsuiteError] it raised, or None.
Any other exception propagates and fails the test.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from cardsuite.errors import CardsuiteError

WATCHDOG_SECONDS = 20.0  # generous: the machine is shared; a hang is unbounded


class Hung(BaseException):
    """Raised by the watchdog: the call did not return in time (BaseException so no
    ``except Exception`` in the code under test can swallow it)."""


@contextmanager
def watchdog(seconds: float = WATCHDOG_SECONDS) -> Iterator[None]:
    """Raise `Hung` in the main thread if the block runs longer than ``seconds``."""

    def fire(signum: int, frame: Any) -> None:
        raise Hung(f"no result after {seconds} s: the input made the code hang")

    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def named_or_ok(fn: Callable[[], Any], seconds: float = WATCHDOG_SECONDS) -> CardsuiteError | None:
    """Run ``fn``; the project's named error it raised, or None. Anything else fails."""
    with watchdog(seconds):
        try:
            fn()
        except CardsuiteError as err:
            assert "\n" not in str(err).strip(), f"a multi-line message: {err}"
            return err
    return None
