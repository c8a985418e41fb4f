"""Hostile requests at every endpoint: only named 4xx errors (or a normal answer), never a 5xx.

Hypothesis throws malformed and oversized requests: bad JSON, wrong types,
huge integers, deep nesting, unknown fields, bad agent specs, huge search
budgets, odd option keys, weird headers, other hosts and origins, wrong
methods. Afterwards the server still answers ``/api/info``.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from cardsuite.agents.play.web.app import create_app
from cardsuite.agents.play.web.limits import Limits

LIMITS = Limits(caps={"budget": 5}, max_body=4096, max_upload=8192, move_seconds=5.0)
SETTINGS = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

SPECS = st.sampled_from(
    [
        "random",
        "greedy",
        "heuristic",
        "ismcts:budget=100000000,max_hand=0",
        "ismcts:budget=5",
        "ismcts:budget=-1",
        "ismcts:budget=1e308",
        "ismcts:budget=nan",
        "ismcts:nope=1",
        "ppo:/etc/passwd",
        "os:system",
        "/etc/passwd:X",
        "heuristic:" + "a=1," * 100,
        "",
        " ",
        "\x00",
        "x" * 500,
    ]
)
NUMBERS = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.just(10**4000),  # over 4300 digits: RAW_BODIES (json.dumps cannot write it)
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0, 1, 2, 3, 50, 1000, 10**9, -1]),
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, st.text(max_size=30), SPECS)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)
OPTION_KEYS = st.one_of(
    st.sampled_from(
        ["num_players", "deck", " deck", "deck=/etc/passwd", "--deck", "episode", "target_score",
         "max_turns", "a" * 100, "num-players", "illegal_action", "DECK", "\u00addeck"]
    ),
    st.text(max_size=12),
)  # fmt: skip
OPTIONS = st.one_of(
    st.dictionaries(OPTION_KEYS, SCALARS, max_size=5),
    st.dictionaries(
        st.just("num_players"), st.sampled_from(["&a [*a]", "*a", "!!python/object:os.system", "4"])
    ),
    JSON_VALUES,
)
GAMES = st.one_of(st.sampled_from(["scum", "scum_party", "scandal", "chess", "", None]), SCALARS)


def fields(names: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects with some of the endpoint's fields (wild values) and maybe an unknown one."""
    known = st.fixed_dictionaries({}, optional=names)
    extra = st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=2)
    return st.one_of(known, st.builds(lambda a, b: {**a, **b}, known, extra))


BODIES = {
    "play": fields(
        {"game": GAMES, "agents": st.one_of(st.lists(SPECS, max_size=3), SPECS, JSON_VALUES),
         "seat": st.one_of(NUMBERS, SCALARS), "seed": st.one_of(NUMBERS, SCALARS),
         "options": OPTIONS}
    ),
    "watch": fields(
        {"game": GAMES, "agents": st.one_of(st.lists(SPECS, max_size=3), JSON_VALUES),
         "seed": SCALARS, "options": OPTIONS}
    ),
    "replay": fields(
        {"index": st.one_of(NUMBERS, SCALARS),
         "text": st.one_of(st.text(max_size=200), st.just("{}\n" * 3), st.just("x" * 10000),
                           JSON_VALUES)}
    ),
    "move": fields({"action": st.one_of(NUMBERS, SCALARS, JSON_VALUES)}),
    "advance": fields({"moves": st.one_of(NUMBERS, SCALARS)}),
    "goto": fields({"step": st.one_of(NUMBERS, SCALARS)}),
}  # fmt: skip

RAW_BODIES = st.one_of(
    st.binary(max_size=200),
    st.just(b"{" * 100_000),
    st.just(b"[" * 5000 + b"]" * 5000),
    st.just(b'{"game": "scum", "seed": ' + b"9" * 5000 + b"}"),
    st.just(b'{"game": "scum", "seed": 1e999}'),
    st.just(b'{"game": NaN}'),
    st.just(b"\xff\xfe{}"),
    st.just(b'{"a": 1, "a": 2}'),
    st.just(b" " * 5000),
    st.just(b'{"text": "' + b"a" * 9000 + b'"}'),
    st.just(b""),
)
HEADERS = st.dictionaries(
    st.sampled_from(["content-type", "origin", "host", "x-forwarded-for", "accept", "cookie"]),
    st.one_of(
        st.sampled_from(
            ["application/json", "text/plain", "application/json; charset=latin-1", "",
             "multipart/form-data; boundary=x", "http://evil.example", "null", "testserver",
             "evil.example", "http://testserver", "application/JSON"]
        ),
        st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=40),
    ),
    max_size=3,
)  # fmt: skip


@pytest.fixture(scope="module")
def arena() -> dict[str, Any]:
    """A guarded app and a live session of each kind to aim at."""
    client = TestClient(
        create_app(allowed_hosts=["testserver"], limits=LIMITS), raise_server_exceptions=False
    )
    ids = {
        "play": client.post("/api/play", json={"game": "scum", "seed": 1}).json()["id"],
        "watch": client.post("/api/watch", json={"game": "scandal", "seed": 1}).json()["id"],
    }
    watch = client.post("/api/watch", json={"game": "scum", "seed": 2}).json()
    while not watch["over"]:
        watch = client.post(f"/api/session/{watch['id']}/advance", json={"moves": 1000}).json()
    record = client.app.state.store.get(watch["id"]).record()  # type: ignore[attr-defined]
    text = json.dumps(record)
    ids["replay"] = client.post("/api/replay", json={"text": text}).json()["id"]
    return {"client": client, "ids": ids}


def check(response: Any) -> None:
    """A named 4xx (JSON ``{"error": text}``) or a normal JSON answer; never a 5xx."""
    assert response.status_code < 500, (response.status_code, response.text[:500])
    data = response.json()
    if response.status_code >= 400:
        assert set(data) == {"error"} and isinstance(data["error"], str) and data["error"]
        assert "Traceback" not in data["error"]
        assert len(data["error"]) <= 2000


ENDPOINT = st.sampled_from(["play", "watch", "replay", "move", "advance", "goto"])


def path_of(endpoint: str, ids: dict[str, str], target: str) -> str:
    if endpoint in ("play", "watch", "replay"):
        return f"/api/{endpoint}"
    sid = ids.get(target, target)
    return f"/api/session/{sid}/{endpoint}"


TARGET = st.one_of(
    st.sampled_from(["play", "watch", "replay"]),
    st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), max_size=20).map(
        lambda t: t.replace("/", "").replace("?", "").replace("#", "") or "x"
    ),
)


@SETTINGS
@given(data=st.data(), endpoint=ENDPOINT, target=TARGET)
def test_wild_json_bodies_get_named_answers(
    arena: dict[str, Any], data: st.DataObject, endpoint: str, target: str
) -> None:
    body = data.draw(BODIES[endpoint])
    path = path_of(endpoint, arena["ids"], target)
    check(arena["client"].post(path, json=body))


@SETTINGS
@given(endpoint=ENDPOINT, target=TARGET, raw=RAW_BODIES, headers=HEADERS)
def test_raw_bodies_and_weird_headers_get_named_answers(
    arena: dict[str, Any], endpoint: str, target: str, raw: bytes, headers: dict[str, str]
) -> None:
    path = path_of(endpoint, arena["ids"], target)
    check(arena["client"].post(path, content=raw, headers=headers))


@SETTINGS
@given(
    method=st.sampled_from(["GET", "PUT", "PATCH", "DELETE", "POST", "OPTIONS", "HEAD"]),
    path=st.one_of(
        st.sampled_from(
            ["/", "/api/info", "/static/app.js", "/static/../app.py", "/static/%2e%2e/app.py",
             "/api/session/", "/api/session/x/y/z", "/api/play", "/api/nothing"]
        ),
        st.text(alphabet="abc/%.?&=", max_size=30).map(lambda p: "/" + p.lstrip("/")),  # "//x": a host
    ),
    headers=HEADERS,
)  # fmt: skip
def test_any_method_and_path_gets_a_named_answer(
    arena: dict[str, Any], method: str, path: str, headers: dict[str, str]
) -> None:
    response = arena["client"].request(method, path, headers=headers)
    assert response.status_code < 500, (response.status_code, response.text[:300])
    if response.status_code >= 400 and method != "HEAD":
        assert "error" in response.json()


def test_info_still_answers_after_the_hostile_requests(arena: dict[str, Any]) -> None:
    """Runs after the hypothesis tests (file order): the server is not stuck."""
    client = arena["client"]
    start = time.monotonic()
    response = client.get("/api/info")
    took = time.monotonic() - start
    assert response.status_code == 200
    assert took < 5, f"/api/info took {took:.2f} s after the hostile suite"  # 1 s goal, loaded box
    assert client.app.state.workers.pending == 0  # type: ignore[attr-defined]
