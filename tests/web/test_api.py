"""The web app's JSON API: play, watch and replay; hidden cards never reach another seat's page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip(
    "starlette", reason="the web extra is not installed (pip install cardsuite[web])"
)
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx")

from starlette.testclient import TestClient

from cardsuite.agents.play.web.app import create_app
from cardsuite.agents.play.web.sessions import LOG_SHOWN, PlaySession, Store

JSON = {"content-type": "application/json"}


@pytest.fixture
def client() -> TestClient:
    return TestClient(create_app())


def play_to_end(client: TestClient, view: dict[str, Any], pick: int = -1) -> list[dict[str, Any]]:
    """Make the person's moves (the ``pick``-th legal one) to the end; every view seen."""
    views = [view]
    while not view["over"]:
        assert view["moves"], "the person's turn must offer moves"
        response = client.post(
            f"/api/session/{view['id']}/move", json={"action": view["moves"][pick]["id"]}
        )
        assert response.status_code == 200, response.text
        view = response.json()
        views.append(view)
    return views


def session_of(client: TestClient, view: dict[str, Any]) -> Any:
    return client.app.state.store.get(view["id"])  # type: ignore[attr-defined]


def hidden_cards(session: Any) -> dict[str, list[str]]:
    """Per other seat, the names of its cards that only it may see."""
    state = session.env.unwrapped.game
    out: dict[str, list[str]] = {}
    if hasattr(state, "known"):  # Scandal: one name per card
        deck = state.rules.deck
        for p in range(state.num_players):
            name = f"player_{p}"
            if name != session.human:
                out[name] = [
                    deck.names[c] for c in np.flatnonzero(state.hands[p]) if not state.known[p, c]
                ]
    return out


def test_a_whole_scum_game_through_the_api_shows_only_the_seat_s_own_hand(
    client: TestClient,
) -> None:
    response = client.post(
        "/api/play",
        json={"game": "scum", "agents": ["heuristic"], "seed": 1,
              "options": {"episode": "game", "target_score": 10}},
    )  # fmt: skip
    assert response.status_code == 200, response.text
    views = play_to_end(client, response.json())
    assert len(views) > 10 and views[-1]["over"] and views[-1]["result"]
    for view in views:
        for seat in view["model"]["seats"]:
            if seat["name"] == view["you"]:
                assert seat["cards"] is not None and len(seat["cards"]) == seat["count"]
            else:
                assert seat["cards"] is None
    log = views[-1]["log"]
    assert any(e["text"] == "pass" for e in log)  # passes are in the log
    assert any("leads" in e.get("note", "") for e in log)  # so is who takes the lead


def test_the_seat_s_json_does_not_depend_on_the_other_hands() -> None:
    """Differential: deals that differ only in the others' hands give the person the same bytes."""
    hands_a = [["2", "5", "P"], ["W", "3"], ["4", "6"], ["7", "8"]]
    hands_b = [["2", "5", "P"], ["7", "8"], ["W", "3"], ["4", "6"]]
    views = []
    for hands in (hands_a, hands_b):
        session = PlaySession(
            "scum",
            agents=["random"],
            seat=0,
            reset_options={"roles": [0, 1, 2, 3], "hands": hands},
        )
        assert session.env.agent_selection == "player_0"
        views.append(json.dumps({k: v for k, v in session.view().items() if k != "id"}))
    assert views[0] == views[1]
    assert '"W"' not in views[0]  # player_1's Wild President is nowhere in the person's JSON


@pytest.mark.parametrize(("game", "options"), [("scandal", {"num_players": 3}),
                                               ("scum_party", {"num_players": 12})])  # fmt: skip
def test_no_hidden_card_of_another_seat_is_ever_sent(
    client: TestClient, game: str, options: dict[str, Any]
) -> None:
    view = client.post(
        "/api/play", json={"game": game, "agents": ["greedy"], "seed": 2, "options": options}
    ).json()
    session = session_of(client, view)
    for _ in range(40):
        if view["over"]:
            break
        sent = json.dumps({k: v for k, v in view["model"].items() if k != "card_info"})
        for name, cards in hidden_cards(session).items():
            for card in cards:
                assert json.dumps(card) not in sent, f"{name}'s hidden {card} was sent"
        for seat in view["model"]["seats"]:
            assert (seat["cards"] is None) == (seat["name"] != view["you"])
        for table in view["model"].get("tables", []):
            assert all("cards" not in seat for seat in table["seats"])
        view = client.post(
            f"/api/session/{view['id']}/move", json={"action": view["moves"][-1]["id"]}
        ).json()


def test_a_scandal_hand_shows_the_pile_melds_and_who_laid_each_card(client: TestClient) -> None:
    view = client.post(
        "/api/play", json={"game": "scandal", "agents": ["greedy"], "options": {"num_players": 2}}
    ).json()
    views = play_to_end(client, view)
    melds = [p for v in views for p in v["model"]["piles"] if p.get("kind") == "meld"]
    assert melds and all(card["by"].startswith("player_") for m in melds for card in m["cards"])
    piles = [p for v in views for p in v["model"]["piles"] if p.get("kind") == "pile"]
    assert any(len(p["cards"]) > 1 and p["cards"][1]["depth"] == 2 for p in piles)
    assert views[-1]["over"] and "score" in views[-1]["model"]["seats"][0]["score"]


def test_illegal_moves_are_refused_with_a_message_and_change_nothing(client: TestClient) -> None:
    view = client.post("/api/play", json={"game": "scum", "agents": ["random"], "seed": 0}).json()
    url = f"/api/session/{view['id']}/move"
    legal = {m["id"] for m in view["moves"]}
    illegal = next(a for a in range(1, 200) if a not in legal)
    for action, message in [
        (illegal, "is not legal now"),
        (10_000, "no such action"),
        ("1", "an integer"),
        (None, "an integer"),
        (True, "an integer"),
    ]:
        response = client.post(url, json={"action": action})
        assert response.status_code == 400
        assert message in response.json()["error"]
    assert client.get(f"/api/session/{view['id']}").json() == view


def test_bad_requests_get_clear_messages(client: TestClient) -> None:
    cases = [
        (client.post("/api/play", content=b"{not json", headers=JSON), 400, "not JSON"),
        (client.post("/api/play", json=[1, 2]), 400, "JSON object"),
        (client.post("/api/play", json={"game": "chess"}), 400, "unknown game"),
        (client.post("/api/play", json={"game": "scum", "agents": ["nobody"]}), 400, "unknown agent"),
        (client.post("/api/play", json={"game": "scum", "seat": 9}), 400, "seat must be"),
        (client.post("/api/play", json={"game": "scum", "options": {"num_players": 99}}), 400,
         "num_players"),
        (client.post("/api/play", json={"game": "scandal", "options": {"deck": "/etc/passwd"}}),
         400, "names a file"),
        (client.post("/api/play", json={"game": "scum", "agents": ["os:system"]}), 400,
         "installed agent kinds"),
        (client.get("/api/session/unknown"), 404, "start a new game"),
        (client.get("/api/nothing-here"), 404, "no such page"),
        (client.post("/api/replay", json={}), 400, "holds no games"),
    ]  # fmt: skip
    for response, status, message in cases:
        assert response.status_code == status, response.text
        assert message in response.json()["error"]


def test_a_closed_tab_ends_its_game(client: TestClient) -> None:
    view = client.post("/api/play", json={"game": "scum", "agents": ["random"]}).json()
    assert client.post(f"/api/session/{view['id']}/close").json() == {"closed": True}
    response = client.post(f"/api/session/{view['id']}/move", json={"action": 0})
    assert response.status_code == 404 and "tab was closed" in response.json()["error"]


def test_watch_plays_agents_to_the_end_and_shows_every_hand(client: TestClient) -> None:
    view = client.post(
        "/api/watch", json={"game": "scum", "agents": ["heuristic", "greedy"], "seed": 3}
    ).json()
    assert all(seat["cards"] is not None for seat in view["model"]["seats"])
    while not view["over"]:
        view = client.post(f"/api/session/{view['id']}/advance", json={"moves": 7}).json()
    assert view["result"] and view["log_total"] > 7
    assert client.post(f"/api/session/{view['id']}/advance", json={"moves": 0}).status_code == 400


def test_party_ladder_marks_promotion_and_relegation(client: TestClient) -> None:
    view = client.post(
        "/api/watch",
        json={"game": "scum_party", "agents": ["greedy"], "options": {"num_players": 50}},
    ).json()
    assert len(view["model"]["ladder"]) == 50 and len(view["model"]["tables"]) > 3
    # Steps shorter than the log the view carries (LOG_SHOWN), so the note
    # that ends the hand is still in the view when the ladder shows it.
    while view["model"]["ladder"][0]["gained"] is None:
        view = client.post(
            f"/api/session/{view['id']}/advance", json={"moves": LOG_SHOWN // 3}
        ).json()
    moved = [row["moved"] for row in view["model"]["ladder"]]
    assert "up" in moved and "down" in moved
    assert any("players move up and down" in e.get("note", "") for e in view["log"])


def test_replay_goes_forward_and_back(record_file: Path) -> None:
    client = TestClient(create_app(record_file))
    info = client.get("/api/info").json()
    assert [r["index"] for r in info["recorded"]] == [0, 1]
    view = client.post("/api/replay", json={"index": 1}).json()
    assert view["step"] == 0 and view["total"] > 5
    url = f"/api/session/{view['id']}/goto"
    at5 = client.post(url, json={"step": 5}).json()
    assert at5["step"] == 5 and len(at5["log"]) == 5
    end = client.post(url, json={"step": view["total"]}).json()
    assert end["over"]
    back = client.post(url, json={"step": 5}).json()
    assert back["model"] == at5["model"] and back["log"] == at5["log"]
    assert client.post(url, json={"step": view["total"] + 1}).status_code == 400
    text = record_file.read_text()
    uploaded = client.post("/api/replay", json={"text": text, "index": 1}).json()
    assert uploaded["total"] == view["total"]
    bad = client.post("/api/replay", json={"text": "{broken"})
    assert bad.status_code == 400 and "uploaded line 1" in bad.json()["error"]


def test_the_store_drops_idle_and_excess_sessions() -> None:
    store = Store(max_sessions=2, idle=1e9)
    sessions = [store.add(PlaySession("scum", agents=["random"], seed=s)) for s in range(3)]
    assert len(store) == 2
    with pytest.raises(Exception, match="start a new game"):
        store.get(sessions[0].id)
    store.idle = -1.0
    with pytest.raises(Exception, match="start a new game"):
        store.get(sessions[2].id)


def test_serve_listens_on_localhost_by_default() -> None:
    import argparse

    from cardsuite.agents.play.web.cli import _is_loopback, add_command

    parser = argparse.ArgumentParser()
    name, _ = add_command(parser.add_subparsers())
    args = parser.parse_args([name])
    assert (args.host, args.port) == ("127.0.0.1", 8000)
    assert _is_loopback("127.0.0.1") and _is_loopback("::1") and _is_loopback("localhost")
    assert not _is_loopback("0.0.0.0")


def test_file_and_checkpoint_agents_only_when_the_person_listed_them(tmp_path: Path) -> None:
    path = tmp_path / "mine.py"
    path.write_text(
        "import numpy as np\n\n\nclass First:\n    name = 'first'\n\n"
        "    def reset(self, table, seed=None):\n        pass\n\n"
        "    def act(self, observation, action_mask, info):\n"
        "        return int(np.flatnonzero(action_mask)[0])\n"
    )
    spec = f"{path}:First"
    for refused in (spec, "ppo:/etc/passwd"):
        response = TestClient(create_app()).post(
            "/api/play", json={"game": "scum", "agents": [refused]}
        )
        assert response.status_code == 400 and "serve --agents" in response.json()["error"]
    client = TestClient(create_app(agents=[spec]))
    assert spec in client.get("/api/info").json()["agents"]
    view = client.post("/api/play", json={"game": "scum", "agents": [spec]}).json()
    assert view["seats"]["player_1"] == spec


def test_a_seat_sees_its_own_trade_and_no_one_else_s() -> None:
    """J5: after the trade the person's page says what they gave and received."""
    session = PlaySession("scum", agents=["heuristic"], seed=4, options={"episode": "game"})
    while not session.view()["over"] and session.env.unwrapped.game.series == 1:
        session.move(session.legal_moves()[-1]["id"])
    view = session.view()
    assert not view["over"]
    lines = [line for line in view["model"]["lines"] if "trade" in line]
    assert lines and lines[0].startswith("This deal's trade: you gave")


def test_cardsuite_serve_starts_and_answers(tmp_path: Path) -> None:
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "cardsuite.cli", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/info", timeout=2) as r:
                    info = json.loads(r.read())
                break
            except OSError:
                assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
                assert time.monotonic() < deadline, "cardsuite serve did not answer in 60 s"
                time.sleep(0.2)
        assert set(info["games"]) == {"scum", "scum_party", "scandal"}
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_requests_from_other_sites_are_refused() -> None:
    """Plain-text posts (which any site may send to localhost) and foreign Host headers."""
    client = TestClient(create_app())
    response = client.post(
        "/api/play", content=b'{"game": "scum"}', headers={"content-type": "text/plain"}
    )
    assert response.status_code == 415 and "application/json" in response.json()["error"]
    guarded = TestClient(create_app(allowed_hosts=["127.0.0.1", "localhost"]))
    assert guarded.get("/api/info", headers={"host": "evil.example"}).status_code == 400
    assert guarded.get("/api/info", headers={"host": "127.0.0.1:8000"}).status_code == 200
