"""What the server does with odd requests: file options, sizes, fields, hosts, origins, replays."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx")

from starlette.testclient import TestClient

from cardsuite.agents.arena.records import read_records
from cardsuite.agents.play.web.app import create_app
from cardsuite.agents.play.web.limits import Limits

JSON = {"content-type": "application/json"}


@pytest.fixture
def client() -> TestClient:
    return TestClient(create_app())


@pytest.fixture
def secret_file(tmp_path: Path) -> Path:
    path = tmp_path / "settings.yaml"
    path.write_text("db_password: hunter2\n")
    return path


@pytest.mark.parametrize(
    "key", [" deck", "deck ", "deck=/x", "DECK", "--deck", "de\u00adck", "deck\n"]
)
def test_no_spelling_of_a_file_option_gets_through(
    client: TestClient, secret_file: Path, key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 25 item 3: the check runs on the parsed key; the file is never opened."""
    import scandal_env.deck

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the server opened a file a request named")

    # every deck file is read through this one reader (scandal_env.deck.load_deck)
    monkeypatch.setattr(scandal_env.deck.safe_json, "read_bounded", never)
    response = client.post(
        "/api/play", json={"game": "scandal", "options": {key: str(secret_file)}}
    )
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert "db_password" not in error and "hunter2" not in error
    assert any(why in error for why in ("names a file", "not a rule option name", "unknown option"))


def test_the_parsed_deck_key_is_refused(client: TestClient, secret_file: Path) -> None:
    response = client.post(
        "/api/play", json={"game": "scandal", "options": {"deck": str(secret_file)}}
    )
    assert response.status_code == 400 and "'deck' names a file" in response.json()["error"]


def test_a_huge_integer_is_a_named_400(client: TestClient) -> None:
    body = b'{"game": "scum", "seed": ' + b"9" * 5000 + b"}"
    response = client.post("/api/play", content=body, headers=JSON)
    assert response.status_code == 400, response.text
    assert "not JSON this server reads" in response.json()["error"]
    big = client.post("/api/play", json={"game": "scum", "seed": 10**40})
    assert big.status_code == 400 and "seed must be 0.." in big.json()["error"]


def test_oversize_bodies_are_413_while_reading() -> None:
    client = TestClient(create_app(limits=Limits(max_body=1000, max_upload=5000)))
    declared = client.post("/api/play", content=b"{" + b" " * 2000 + b"}", headers=JSON)
    assert declared.status_code == 413 and "at most 1000" in declared.json()["error"]

    read: list[int] = []

    def chunks() -> Iterator[bytes]:  # no Content-Length: the size is checked while reading
        for _ in range(100):
            read.append(1)
            yield b" " * 500

    streamed = client.post("/api/watch", content=chunks(), headers=JSON)
    assert streamed.status_code == 413 and "over 1000 bytes" in streamed.json()["error"]
    upload = client.post("/api/replay", json={"text": "x" * 6000})
    assert upload.status_code == 413 and "at most 5000" in upload.json()["error"]


def test_a_wrong_host_gets_the_json_error_format() -> None:
    client = TestClient(create_app(allowed_hosts=["127.0.0.1", "localhost"]))
    for path in ("/api/info", "/", "/static/app.js", "/api/play"):
        response = client.get(path, headers={"host": "evil.example:8000"})
        assert response.status_code == 400
        assert "evil.example" in response.json()["error"]
    assert client.get("/api/info", headers={"host": "localhost:8000"}).status_code == 200


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/play", {"game": "scum", "players": "abc"}, "players"),
        ("/api/watch", {"game": "scum", "seat": 1}, "seat"),
        ("/api/replay", {"index": 0, "file": "/etc/passwd"}, "file"),
    ],
)
def test_unknown_fields_are_named(client: TestClient, path: str, body: dict, field: str) -> None:
    response = client.post(path, json=body)
    assert response.status_code == 400, response.text
    assert f"unknown field {field!r}" in response.json()["error"]


def test_session_endpoints_name_unknown_fields(client: TestClient) -> None:
    view = client.post("/api/play", json={"game": "scum", "seed": 1}).json()
    response = client.post(f"/api/session/{view['id']}/move", json={"action": 0, "cheat": 1})
    assert response.status_code == 400 and "unknown field 'cheat'" in response.json()["error"]


def test_replay_needs_json_and_this_site_like_every_post(record_file: Path) -> None:
    client = TestClient(create_app(record_file))
    plain = client.post("/api/replay", headers={"content-type": "text/plain"})
    assert plain.status_code == 415 and "application/json" in plain.json()["error"]
    bare = client.post("/api/replay")
    assert bare.status_code == 415
    foreign = client.post(
        "/api/replay", headers={**JSON, "origin": "http://evil.example"}, content=b"{}"
    )
    assert foreign.status_code == 403 and "another site" in foreign.json()["error"]
    for origin in ("null", "http://testserver.evil.example"):
        response = client.post("/api/play", json={"game": "scum"}, headers={"origin": origin})
        assert response.status_code == 403
    own = client.post("/api/replay", json={}, headers={"origin": "http://testserver"})
    assert own.status_code == 200, own.text


def test_an_illegal_record_gives_the_same_named_error_at_every_goto(record_file: Path) -> None:
    """Issue 25 item 5: later calls were 500 "coroutine raised StopIteration"."""
    record = read_records(record_file)[0]
    bad = json.loads(json.dumps(record))
    bad["actions"][5][1] = 10_000  # move 6 is no action at all
    client = TestClient(create_app())
    view = client.post("/api/replay", json={"text": json.dumps(bad)}).json()
    url = f"/api/session/{view['id']}/goto"
    errors = []
    for step in (10, 10, len(bad["actions"]), 7, 6):
        response = client.post(url, json={"step": step})
        assert response.status_code == 400, response.text
        errors.append(response.json()["error"])
    assert len(set(errors)) == 1 and errors[0].startswith("record move 6")
    at5 = client.post(url, json={"step": 5})
    assert at5.status_code == 200 and at5.json()["step"] == 5
    assert [entry["n"] for entry in at5.json()["log"]] == [1, 2, 3, 4, 5]  # the good moves logged
    assert client.post(url, json={"step": 0}).json()["step"] == 0
    assert client.post(url, json={"step": 9}).json()["error"] == errors[0]


def test_a_game_s_seed_is_random_unless_set_and_always_reported(client: TestClient) -> None:
    seeds = set()
    for _ in range(3):
        view = client.post("/api/play", json={"game": "scum", "agents": ["heuristic"]}).json()
        assert isinstance(view["seed"], int) and view["seed"] >= 0
        seeds.add(view["seed"])
    assert len(seeds) > 1  # a fixed default would give one seed (a clash is 1 in 2**31)
    again = client.post(
        "/api/play", json={"game": "scum", "agents": ["heuristic"], "seed": view["seed"]}
    ).json()
    mine = {k: v for k, v in view.items() if k != "id"}
    assert {k: v for k, v in again.items() if k != "id"} == mine  # the same deal again
    watch = client.post("/api/watch", json={"game": "scandal", "seed": None}).json()
    assert isinstance(watch["seed"], int)
