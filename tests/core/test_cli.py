"""The ``cardsuite`` command as a shell user meets it."""

from __future__ import annotations

import subprocess
import sys


def test_a_closed_pipe_ends_quietly_with_the_sigpipe_status() -> None:
    # `cardsuite simulate ... --render | head -1`: the reader goes away early.
    proc = subprocess.Popen(
        [sys.executable, "-m", "cardsuite.cli", "simulate", "scum", "--games", "300",
         "--render", "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().startswith(b"Scum")
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert "Traceback" not in err and "BrokenPipeError" not in err


def test_help_lists_every_registered_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cardsuite.cli", "--help"], capture_output=True, text=True
    )
    assert done.returncode == 0
    for command in ("simulate", "tournament", "play", "replay", "train", "serve"):
        assert command in done.stdout


def test_sigterm_stops_a_command_as_ctrl_c_does() -> None:
    """SIGTERM (a scheduler's or ``timeout``'s stop) ends a long command as Ctrl-C does:
    one line, exit status 130, no traceback (issue 59)."""
    import signal

    proc = subprocess.Popen(
        [sys.executable, "-m", "cardsuite.cli", "simulate", "scum", "--games", "10000000",
         "--render", "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdout is not None
    assert proc.stdout.readline().startswith(b"Scum")  # playing now
    proc.send_signal(signal.SIGTERM)
    err = proc.communicate(timeout=60)[1]
    assert proc.returncode == 130, err.decode()
    assert "cardsuite simulate: interrupted" in err.decode()
    assert "Traceback" not in err.decode()
