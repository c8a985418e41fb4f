"""``exec:COMMAND`` agents: the JSON-lines protocol, the example bots, every failure named, no zombies."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from cardsuite.agents.arena.tournament import run_tournament
from cardsuite.agents.external.exec import (
    AgentCrashed,
    AgentIllegalMove,
    AgentProtocolError,
    AgentTimeout,
    ExecAgent,
)
from cardsuite.agents.registry import make_agent
from cardsuite.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
PY = shlex.quote(sys.executable)

# A bot that plays the lowest legal id, misbehaving as told once it has made MOVES moves.
BOT = """
import json, sys, time
mode, moves = sys.argv[1], int(sys.argv[2])
seen = []
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "close":
        print("{}", flush=True); break
    if m["type"] == "reset":
        seen.append(m); print("{}", flush=True); continue
    if moves <= 0:
        if mode == "crash": sys.exit(3)
        if mode == "hang": time.sleep(600)
        if mode == "garbage": print("hello there", flush=True); continue
        if mode == "illegal": print(json.dumps({"action": -7}), flush=True); continue
        if mode == "badshape": print(json.dumps({"move": 1}), flush=True); continue
    moves -= 1
    print(json.dumps({"action": m["legal"][0]["id"]}), flush=True)
"""


def _bot(tmp_path: Path, mode: str, moves: int = 0, settings: str = "") -> str:
    path = tmp_path / "bot.py"
    path.write_text(BOT)
    return f"exec:{settings}{PY} {shlex.quote(str(path))} {mode} {moves}"


def _all_children() -> list[int]:
    """Pids whose parent is this process, zombies included (from /proc)."""
    me, found = os.getpid(), []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue  # exited meanwhile
        if int(fields[1]) == me:
            found.append(int(stat.parent.name))
    return found


_BEFORE: set[int] = set()


@pytest.fixture(autouse=True)
def _children_before_the_test() -> None:
    """Children this worker already had (another test's server) are not this test's."""
    _BEFORE.clear()
    _BEFORE.update(_all_children())


def _children() -> list[int]:
    """Child processes that appeared during this test and are still there."""
    return [pid for pid in _all_children() if pid not in _BEFORE]


def test_example_bots_play_a_tournament_and_leave_no_process() -> None:
    specs = [f"exec:{PY} {ROOT / 'examples/bots/random_bot.py'}", "heuristic"]
    if shutil.which("node"):
        specs.append(f"exec:node {ROOT / 'examples/bots/random_bot.js'}")
    res = run_tournament("scum", specs, games=2, players=4, duplicate=True, seed=0)
    assert len(res.results) == 2 * (4 if len(specs) == 3 else 2)
    assert sum(a.illegal_actions for a in res.agents) == 0
    assert _children() == []  # every bot got close, exited and was reaped


def test_reset_and_act_messages_follow_the_protocol(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    bot = tmp_path / "echo.py"
    bot.write_text(
        "import json, sys\n"
        f"log = open({str(log)!r}, 'a')\n"
        "for line in sys.stdin:\n"
        "    log.write(line); log.flush()\n"
        "    m = json.loads(line)\n"
        "    a = {'action': m['legal'][-1]['id']} if m['type'] == 'act' else {}\n"
        "    print(json.dumps(a), flush=True)\n"
        "    if m['type'] == 'close': break\n"
    )
    run_tournament("scandal", [f"exec:{PY} {bot}", "random"], games=1, players=2, seed=5)
    import json

    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert lines[0]["type"] == "reset" and lines[0]["game"] == "scandal"
    assert lines[0]["num_players"] == 2 and lines[0]["player"] in ("player_0", "player_1")
    assert isinstance(lines[0]["seed"], int)
    act = lines[1]
    assert act["type"] == "act" and set(act) == {"type", "observation", "action_mask", "legal"}
    ids = [m["id"] for m in act["legal"]]
    assert ids == [i for i, v in enumerate(act["action_mask"]) if v]
    assert all(isinstance(m["text"], str) and m["text"] for m in act["legal"])
    assert lines[-1] == {"type": "close"}


@pytest.mark.parametrize(
    ("mode", "error", "words"),
    [
        ("crash", AgentCrashed, "exited with code 3"),
        ("hang", AgentTimeout, "within 0.5 s"),
        ("garbage", AgentProtocolError, "not one JSON object"),
        ("badshape", AgentProtocolError, "expected"),
        ("illegal", AgentIllegalMove, "-7"),
    ],
)
def test_each_failure_stops_the_tournament_with_its_named_error(
    tmp_path: Path, mode: str, error: type[Exception], words: str
) -> None:
    spec = _bot(tmp_path, mode, moves=3, settings="timeout=0.5 ")
    with pytest.raises(error, match=words):
        run_tournament("scum", [spec, "random"], games=2, players=4, seed=0)
    import gc

    gc.collect()  # the stopped tournament's other seats are dropped
    assert _children() == []


def test_forfeit_records_the_seats_loss_and_goes_on(tmp_path: Path) -> None:
    spec = _bot(tmp_path, "hang", moves=2, settings="timeout=0.3 on_error=forfeit ")
    res = run_tournament("scandal", [spec, "random"], games=3, players=2, seed=0)
    assert len(res.results) == 3  # every game was played
    assert res.agents[0].illegal_actions == 3  # one forfeited game per game (a fresh process each)
    assert all(g.illegal_seat >= 0 and g.seating[g.illegal_seat] == 0 for g in res.results)
    assert all(g.rewards[g.illegal_seat] == min(g.rewards) for g in res.results)
    assert _children() == []


def test_spec_settings_and_bad_commands_are_config_errors(tmp_path: Path) -> None:
    agent = make_agent(f"exec:timeout=2.5 on_error=forfeit {PY} -c pass", "scum")
    assert isinstance(agent, ExecAgent)
    assert (agent.timeout, agent.on_error, agent.argv[1:]) == (2.5, "forfeit", ["-c", "pass"])
    for bad, words in [
        ("exec:timeout=0 python3 x.py", "timeout"),
        ("exec:on_error=ignore python3 x.py", "on_error"),
        ("exec:timeout=3", "no command"),
        ("exec:no-such-program-xyz --flag", "not found"),
        ("exec:python3 'unclosed", "cannot split"),
    ]:
        with pytest.raises(ConfigError, match=words):
            make_agent(bad, "scum")


def test_the_command_never_goes_through_a_shell(tmp_path: Path) -> None:
    """``;`` and ``$(...)`` are plain arguments: no shell ever sees them."""
    marker = tmp_path / "pwned"
    agent = make_agent(f"exec:{PY} -c pass ; touch {marker}", "scum")
    assert isinstance(agent, ExecAgent) and agent.argv[3:] == [";", "touch", str(marker)]
    run_tournament("scandal", [_bot(tmp_path, "none", 10**6), "random"], games=1, players=2)
    assert not marker.exists()


def test_the_web_page_cannot_name_an_exec_agent_that_serve_did_not_list() -> None:
    """A request naming ``exec:...`` would run a command: only ``serve --agents`` may offer one."""
    from cardsuite.agents.play.web.sessions import check_specs

    with pytest.raises(ConfigError, match="serve --agents"):
        check_specs(["exec:touch /tmp/cardsuite-pwned"])
    listed = f"exec:{PY} {ROOT / 'examples/bots/random_bot.py'}"
    check_specs([listed], allowed=frozenset([listed]))


def test_a_served_table_seats_exec_agents_the_server_listed() -> None:
    """``cardsuite serve --agents exec:...`` builds them through the same registry."""
    sessions = pytest.importorskip("cardsuite.agents.play.web.sessions")
    spec = f"exec:{PY} {ROOT / 'examples/bots/random_bot.py'}"
    table = sessions.PlaySession(
        "scum", agents=[spec], seat=0, seed=3, options={"num_players": 4}, allowed=frozenset([spec])
    )
    assert table.record_seats == {"player_0": "human", **{f"player_{i}": spec for i in (1, 2, 3)}}
    del table
    import gc

    gc.collect()
    assert _children() == []
