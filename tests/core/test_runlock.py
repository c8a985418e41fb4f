"""One writer per run folder (`cardsuite.runlock`, issue 59): the lock, its holder, stale locks."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cardsuite.errors import RunLockedError
from cardsuite.runlock import LOCK_FILE, RunLock


def _write_lock(folder: Path, **fields: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    record = {"pid": os.getpid(), "host": socket.gethostname(), "command": "cardsuite ppo",
              "started": "2026-12-07 10:00:00"} | fields  # fmt: skip
    path = folder / LOCK_FILE
    path.write_text(json.dumps(record))
    return path


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_the_lock_names_this_process_and_goes_when_released(tmp_path: Path) -> None:
    with RunLock(tmp_path / "run", "cardsuite ppo") as lock:
        held = json.loads(lock.path.read_text())
        assert held["pid"] == os.getpid() and held["host"] == socket.gethostname()
        assert held["command"] == "cardsuite ppo"
    assert not (tmp_path / "run" / LOCK_FILE).exists()


def test_a_second_writer_is_refused_naming_the_live_holder(tmp_path: Path) -> None:
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        path = _write_lock(tmp_path, pid=sleeper.pid, command="cardsuite dmc")
        with pytest.raises(RunLockedError, match=rf"cardsuite dmc \(process {sleeper.pid} on "):
            RunLock(tmp_path, "cardsuite ppo").acquire()
        assert json.loads(path.read_text())["pid"] == sleeper.pid  # untouched
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_stale_lock_is_taken_over_with_a_notice(tmp_path: Path) -> None:
    dead = _dead_pid()
    _write_lock(tmp_path, pid=dead)
    said: list[str] = []
    with RunLock(tmp_path, "cardsuite ppo", notice=said.append) as lock:
        assert json.loads(lock.path.read_text())["pid"] == os.getpid()
    assert len(said) == 1 and f"process {dead}" in said[0] and "no longer running" in said[0]


def test_a_lock_from_another_host_is_refused_with_what_to_do(tmp_path: Path) -> None:
    path = _write_lock(tmp_path, host="node-17.cluster", pid=1234)
    with pytest.raises(RunLockedError, match=rf"node-17.cluster.*delete {path}"):
        RunLock(tmp_path, "cardsuite ppo").acquire()


def test_an_unreadable_lock_file(tmp_path: Path) -> None:
    """Cut short by a crash while being written: refused while fresh, taken over when old."""
    path = tmp_path / LOCK_FILE
    path.write_text('{"pid": 12')
    with pytest.raises(RunLockedError, match="being locked by another process"):
        RunLock(tmp_path, "cardsuite ppo").acquire()
    old = time.time() - 60
    os.utime(path, (old, old))
    said: list[str] = []
    with RunLock(tmp_path, "cardsuite ppo", notice=said.append):
        assert "unreadable lock file" in said[0]


def test_racing_processes_get_one_lock(tmp_path: Path) -> None:
    """Six processes try at the same instant: exactly one holds the lock, the others are refused."""
    run, gate = tmp_path / "run", tmp_path / "gate"
    gate.mkdir()
    code = (
        "import sys, time, pathlib\n"
        "from cardsuite.runlock import RunLock\n"
        "from cardsuite.errors import RunLockedError\n"
        "gate = pathlib.Path(sys.argv[2])\n"
        "(gate / sys.argv[3]).touch()\n"
        "while not (gate / 'go').exists():\n"
        "    time.sleep(0.005)\n"
        "try:\n"
        "    lock = RunLock(sys.argv[1], 'racer').acquire()\n"
        "except RunLockedError:\n"
        "    print('refused')\n"
        "else:\n"
        "    print('held', flush=True); time.sleep(1.5); lock.release()\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(run), str(gate), f"ready{i}"],
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(6)
    ]
    deadline = time.monotonic() + 60
    while len(list(gate.glob("ready*"))) < 6 and time.monotonic() < deadline:
        time.sleep(0.01)
    (gate / "go").touch()
    outs = [p.communicate(timeout=60)[0].strip() for p in procs]
    assert sorted(outs) == ["held"] + ["refused"] * 5
    assert not (run / LOCK_FILE).exists()


def test_a_second_leaderboard_on_one_checkpoint_file_is_refused(tmp_path: Path) -> None:
    """The leaderboard (and a benchmark calibration, through it) locks its checkpoint file."""
    from cardsuite.agents.arena.round_robin import run_leaderboard

    checkpoint = tmp_path / "board.jsonl"
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        lock = Path(f"{checkpoint}.lock")
        lock.write_text(json.dumps({"pid": sleeper.pid, "host": socket.gethostname(),
                                    "command": "a scum leaderboard", "started": "now"}))  # fmt: skip
        with pytest.raises(RunLockedError, match=f"a scum leaderboard \\(process {sleeper.pid}"):
            run_leaderboard("scum", 4, ["random", "greedy"], deals=2, checkpoint=checkpoint)
        assert not checkpoint.exists() or checkpoint.read_text() == ""  # nothing played
    finally:
        sleeper.kill()
        sleeper.wait()
    lock.unlink()
    board = run_leaderboard("scum", 4, ["random", "greedy"], deals=2, checkpoint=checkpoint)
    assert len(board.pairs) == 1 and checkpoint.is_file() and not lock.exists()
