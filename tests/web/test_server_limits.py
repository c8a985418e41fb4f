"""Game work off the event loop: search caps, the per-move clock, a bounded pool, shutdown."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
httpx = pytest.importorskip("httpx", reason="the web tests need httpx")
uvicorn = pytest.importorskip("uvicorn", reason="the web extra is not installed")

from starlette.testclient import TestClient  # noqa: E402

from cardsuite.agents.play.web.app import create_app  # noqa: E402
from cardsuite.agents.play.web.limits import Limits  # noqa: E402
from cardsuite.errors import ConfigError  # noqa: E402

HOG = "ismcts:budget=100000000,max_hand=0"  # the runaway spec


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def served(request: pytest.FixtureRequest) -> Iterator[tuple[str, Any]]:
    """The app (limits from the test's parameter) served by uvicorn in a thread."""
    app = create_app(limits=Limits(**getattr(request, "param", {})))
    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline, "the server did not start within 20 s"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", app
    app.state.workers.stop()
    srv.should_exit = True
    thread.join(timeout=10)


def test_a_page_cannot_ask_for_search_above_the_cap() -> None:
    client = TestClient(create_app())
    for path in ("/api/play", "/api/watch"):
        response = client.post(path, json={"game": "scum", "agents": [HOG]})
        assert response.status_code == 400, response.text
        error = response.json()["error"]
        assert "budget=100000000" in error and "cap of 2000" in error and "--max-budget" in error
    small = TestClient(create_app(limits=Limits(caps={"budget": 50})))
    assert small.post(
        "/api/watch", json={"game": "scum", "agents": ["ismcts:budget=50"]}
    ).is_success
    refused = small.post("/api/watch", json={"game": "scum", "agents": ["ismcts:budget=51"]})
    assert refused.status_code == 400 and "cap of 50" in refused.json()["error"]
    assert client.get("/api/info").json()["limits"]["caps"] == {"budget": 2000}


@pytest.mark.parametrize(
    "spec",
    [
        "search:exec:echo hacked",
        "search:ppo:/etc/passwd",
        "search:search:exec:true",
        "search:os:system",
        "search:pretrained:scum4:budget=100000000",
        "search:search:pretrained:scum4:budget=5000",
    ],
)
def test_a_wrapping_spec_is_checked_through_to_what_it_wraps(spec: str) -> None:
    """``search:AGENT`` meets the rules of AGENT: no command, file or module a request
    names, and the search's own budget under the cap (a hole before ``wraps``)."""
    client = TestClient(create_app())
    response = client.post("/api/watch", json={"game": "scum", "agents": [spec, "heuristic"]})
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert "serve --agents SPEC" in error or "cap of 2000" in error


def test_a_wrapped_spec_the_operator_listed_is_offered() -> None:
    from cardsuite.agents.play.web.sessions import check_specs

    check_specs(["search:pretrained:scum4:budget=20"])
    with pytest.raises(ConfigError, match="serve --agents SPEC"):
        check_specs(["search:exec:python bot.py"])
    check_specs(["search:exec:python bot.py"], allowed=frozenset({"exec:python bot.py"}))


def test_limits_are_checked() -> None:
    with pytest.raises(ConfigError, match="move_seconds must be a positive number"):
        Limits(move_seconds=0)
    with pytest.raises(ConfigError, match="the cap on budget must be a positive integer"):
        Limits(caps={"budget": -1})
    with pytest.raises(ConfigError, match="workers must be a positive integer"):
        Limits(workers=0)


def test_a_move_past_the_time_limit_stops_its_game_and_frees_the_lock() -> None:
    limits = Limits(move_seconds=0.3, caps={"budget": 10**9})
    client = TestClient(create_app(limits=limits))
    view = client.post("/api/watch", json={"game": "scum", "agents": [HOG], "seed": 1}).json()
    url = f"/api/session/{view['id']}"
    start = time.monotonic()
    response = client.post(f"{url}/advance", json={"moves": 50})
    took = time.monotonic() - start
    assert response.status_code == 503, response.text
    error = response.json()["error"]
    assert "needed more than 0.3 s for one move" in error and "--move-seconds" in error
    assert took < 60  # the search stopped (it would run for hours otherwise)
    again = client.post(f"{url}/advance", json={"moves": 1})
    assert again.status_code == 409 and "this game was stopped" in again.json()["error"]
    assert client.get(url).status_code == 409  # the lock is free: answered, not waiting
    session = client.app.state.store.get(view["id"])  # type: ignore[attr-defined]
    assert not session.lock.locked()
    assert client.delete(url).json() == {"closed": True}


@pytest.mark.parametrize(
    "served", [{"move_seconds": 600, "caps": {"budget": 10**9}, "workers": 2, "queue": 0}],
    indirect=True,
)  # fmt: skip
def test_runaway_moves_never_stop_the_page_info_or_static_files(served: tuple[str, Any]) -> None:
    """The issue's 40 runaway calls exhausted the pool; here they are refused at once."""
    url, app = served
    with httpx.Client(base_url=url, timeout=30) as client:
        ids = [
            client.post("/api/watch", json={"game": "scum", "agents": [HOG], "seed": s}).json()[
                "id"
            ]
            for s in range(3)
        ]

        def hog(sid: str) -> None:
            with httpx.Client(base_url=url, timeout=120) as c:
                c.post(f"/api/session/{sid}/advance", json={"moves": 100})

        threads = [threading.Thread(target=hog, args=(sid,), daemon=True) for sid in ids[:2]]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 30
        while app.state.workers.pending < 2:  # both workers searching
            assert time.monotonic() < deadline
            time.sleep(0.05)
        for path in ("/", "/api/info", "/static/app.js"):
            assert client.get(path).status_code == 200, path
        busy = client.post(f"/api/session/{ids[2]}/advance", json={"moves": 1})
        assert busy.status_code == 503 and "the server is busy" in busy.json()["error"]
        same = client.post(f"/api/session/{ids[0]}/advance", json={"moves": 1})
        assert same.status_code in (409, 503)  # that game is busy: answered, never queued
        app.state.workers.stop()  # what Ctrl-C does: the searches stop at their next iteration
        for t in threads:
            t.join(timeout=30)
            assert not t.is_alive()


def serve_process(*flags: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "cardsuite.agents.play.web.cli", "--port", str(port), *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(f"{url}/api/info", timeout=2).raise_for_status()
            return proc, url
        except httpx.HTTPError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"the server did not start: {proc.communicate()[0].decode()[-2000:]}")
            time.sleep(0.2)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_the_server_stops_promptly_mid_search_without_a_traceback(sig: signal.Signals) -> None:
    proc, url = serve_process("--max-budget", "100000000", "--move-seconds", "600")
    try:
        view = httpx.post(
            f"{url}/api/watch", json={"game": "scum", "agents": [HOG], "seed": 1}, timeout=60
        ).json()
        answers: list[int] = []

        def hog() -> None:
            try:
                r = httpx.post(
                    f"{url}/api/session/{view['id']}/advance", json={"moves": 100}, timeout=120
                )
                answers.append(r.status_code)
            except httpx.HTTPError:
                answers.append(0)

        thread = threading.Thread(target=hog, daemon=True)
        thread.start()
        time.sleep(1.0)  # the search is under way
        start = time.monotonic()
        proc.send_signal(sig)
        out, _ = proc.communicate(timeout=30)
        took = time.monotonic() - start
        thread.join(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    text = out.decode()
    assert took < 15, f"stopping took {took:.1f} s"  # a generous bound; about 0.5 s idle
    assert proc.returncode in (0, -signal.SIGTERM), text
    assert "Traceback" not in text and "CancelledError" not in text, text
    assert answers in ([503], [0]), answers  # the move under way is told the server stops


def test_game_work_does_not_run_on_the_event_loop() -> None:
    """Building a game runs in a worker thread (so a slow parse never stalls /api/info)."""
    seen: list[str] = []
    app = create_app()
    import cardsuite.agents.play.web.app as web_app

    original = web_app.parse_page_options

    def spy(game: str, raw: Any) -> dict[str, Any]:
        seen.append(threading.current_thread().name)
        return original(game, raw)

    web_app.parse_page_options = spy  # type: ignore[assignment]
    try:
        client = TestClient(app)
        assert client.post(
            "/api/play", json={"game": "scum", "options": {"num_players": 5}}
        ).is_success
    finally:
        web_app.parse_page_options = original  # type: ignore[assignment]
    assert seen and seen[0].startswith("cardsuite-game-")
    json.dumps(seen)
