"""``cardsuite serve --record FILE``: every finished game appended, replayable, human seats marked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx")

from starlette.testclient import TestClient

from cardsuite.agents.arena.records import (
    RecordAppender,
    read_records,
    replay_record,
    same_state,
)
from cardsuite.agents.play.web.app import create_app
from cardsuite.errors import ConfigError


def play_to_end(client: TestClient, view: dict[str, Any]) -> dict[str, Any]:
    while not view["over"]:
        response = client.post(
            f"/api/session/{view['id']}/move", json={"action": view["moves"][0]["id"]}
        )
        assert response.status_code == 200, response.text
        view = response.json()
    return view


def test_a_played_and_a_watched_game_are_recorded_and_replay(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    client = TestClient(create_app(record_to=path))
    assert client.get("/api/info").json()["recording"] is True
    played = client.post(
        "/api/play", json={"game": "scum", "agents": ["heuristic", "greedy"], "seat": 2, "seed": 7}
    ).json()
    end = play_to_end(client, played)
    watched = client.post("/api/watch", json={"game": "scandal", "agents": ["greedy"]}).json()
    while not watched["over"]:
        watched = client.post(f"/api/session/{watched['id']}/advance", json={"moves": 1000}).json()
    records = read_records(path)
    assert len(records) == 2
    first, second = records
    assert first["seats"] == {
        "player_0": "heuristic", "player_1": "greedy", "player_2": "human", "player_3": "heuristic"
    }  # fmt: skip
    assert first["seed"] == 7 and second["seed"] == watched["seed"]
    assert len(first["actions"]) == end["log_total"]
    session = client.app.state.store.get(played["id"])  # type: ignore[attr-defined]
    final = replay_record(first)
    assert same_state(final, first["final_state"], None)
    assert final.unwrapped.game.scores.tolist() == session.env.unwrapped.game.scores.tolist()
    replay_record(second)
    # the page offers the new games for replay at once, and replays them to the end
    info = client.get("/api/info").json()
    assert [r["index"] for r in info["recorded"]] == [0, 1]
    replay = client.post("/api/replay", json={"index": 0}).json()
    at_end = client.post(f"/api/session/{replay['id']}/goto", json={"step": replay["total"]}).json()
    assert at_end["over"] and at_end["result"] == end["result"]


def test_an_abandoned_game_is_not_recorded(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    client = TestClient(create_app(record_to=path))
    view = client.post("/api/play", json={"game": "scum"}).json()
    client.delete(f"/api/session/{view['id']}")
    assert not path.exists()  # the file is made by the first finished game


def test_record_never_damages_a_file_that_is_not_a_record_file(tmp_path: Path) -> None:
    precious = tmp_path / "notes.txt"
    precious.write_text("my notes\n")
    with pytest.raises(ConfigError, match="is not a record file"):
        create_app(record_to=precious)
    assert precious.read_text() == "my notes\n"
    partial = tmp_path / "partial.jsonl"
    partial.write_text("")
    RecordAppender(partial)  # an empty file holds no records: appended to
    with pytest.raises(ConfigError):
        RecordAppender(tmp_path)  # a folder


def test_an_existing_record_file_is_appended_to(tmp_path: Path, record_file: Path) -> None:
    path = tmp_path / "more.jsonl"
    path.write_bytes(record_file.read_bytes())
    before = read_records(path)
    client = TestClient(create_app(record_to=path))
    play_to_end(client, client.post("/api/play", json={"game": "scum", "seed": 3}).json())
    after = read_records(path)
    assert after[: len(before)] == before and len(after) == len(before) + 1
    assert after[-1]["seats"]["player_0"] == "human"
    text = path.read_text()
    assert text.endswith("\n") and all(json.loads(line) for line in text.splitlines())


def test_a_record_file_cut_mid_line_keeps_its_finished_games(
    tmp_path: Path, record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A power cut while a game was appended leaves a last line cut short: the next
    ``serve --record`` drops that line (saying so), keeps every finished game, and goes on."""
    path = tmp_path / "games.jsonl"
    whole = record_file.read_bytes()
    path.write_bytes(whole + whole.splitlines(keepends=True)[0][:-40])  # half a game
    appender = RecordAppender(path)
    assert "dropped its last line, cut short" in capsys.readouterr().err
    assert path.read_bytes() == whole and appender.count == len(read_records(record_file))
    appender.append(json.loads(whole.splitlines()[0]))
    assert len(read_records(path)) == appender.count == len(read_records(record_file)) + 1
