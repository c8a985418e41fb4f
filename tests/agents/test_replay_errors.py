"""Hostile and careless record files: ``cardsuite replay`` exits 2 with one line naming the problem.

Issue 12: a record never points at a file (its deck travels by content),
replays use the strict env (an illegal recorded move is reported with its
number and reason), and every malformed field is a named error.
"""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from cardsuite.agents.arena import record_schema
from cardsuite.agents.arena.records import read_records, replay_record
from cardsuite.agents.arena.tournament import Table, run_tournament
from cardsuite.cli import main
from cardsuite.errors import ConfigError, StateError


@pytest.fixture(scope="module")
def record_line(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = tmp_path_factory.mktemp("rec") / "scum.jsonl"
    run_tournament("scum", ["random", "random"], games=1, seed=3, record=path)
    return dict(json.loads(path.read_text().splitlines()[0]))


def replay_exit(tmp_path: Path, content: bytes | str, capsys: pytest.CaptureFixture[str]) -> str:
    """Run ``cardsuite replay`` on a file holding ``content``; assert exit 2 and one line."""
    path = tmp_path / "r.jsonl"
    if isinstance(content, str):
        content = content.encode()
    path.write_bytes(content)
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("cardsuite replay: error: "), err
    return err


def test_a_record_whose_only_move_is_an_illegal_pass_exits_2(
    record_line: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = record_line["actions"][0][0]  # the leader may not pass (J6)
    bad = dict(record_line, actions=[[first, 0, "pass"]], final_state=None)
    err = replay_exit(tmp_path, json.dumps(bad), capsys)
    assert "record move 1 (pass) is illegal" in err and "illegal action 0" in err


def test_the_recorded_record_replays(
    record_line: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ok.jsonl"
    path.write_text(json.dumps(record_line) + "\n")
    assert main(["replay", str(path)]) == 0
    assert capsys.readouterr().out.rstrip().endswith("final state matches the record")


def test_old_records_with_states_as_json_strings_still_replay(
    record_line: dict[str, Any], tmp_path: Path
) -> None:
    old = dict(record_line)
    for key in ("initial_state", "final_state"):
        old[key] = json.dumps(old[key])
    path = tmp_path / "old.jsonl"
    path.write_text(json.dumps(old) + "\n")
    (record,) = read_records(path)
    replay_record(record)


BROKEN_FIELDS: list[tuple[str, Any, str]] = [
    ("options", [1, 2], "field 'options' must be an object"),
    ("options", {"render_mode": "human"}, "field 'options' holds 'render_mode', not a scum rule"),
    ("options", {"raw": True}, "field 'options' holds 'raw', not a scum rule option"),
    ("seed", None, "field 'seed' must be a non-negative integer"),
    ("seed", "abc", "field 'seed' must be a non-negative integer"),
    ("seed", -5, "field 'seed' must be a non-negative integer"),
    ("seed", True, "field 'seed' must be a non-negative integer"),
    ("actions", "p0 p1", "field 'actions' must be a list"),
    ("actions", [["player_0"]], "field 'actions' move 1 must be [agent, action id"),
    ("actions", [[0, 1, "x"]], "field 'actions' move 1 must be [agent, action id"),
    ("actions", [["player_0", 1.5, "x"]], "field 'actions' move 1 must be [agent, action id"),
    ("actions", [["player_0", 1, "\x1b[2J"]], "field 'actions' move 1"),
    ("rewards", [1, 2], "field 'rewards' must map each agent to a finite number"),
    ("rewards", {"player_0": "1"}, "field 'rewards' must map"),
    ("seats", "random", "field 'seats' must map each agent to a printable name"),
    ("seats", {"player_0": "\x1b]0;pwned\x07"}, "field 'seats' must map"),
    ("reset_options", "trade", "field 'reset_options' must be an object or null"),
    ("initial_state", [1], "field 'initial_state' must be an engine state object"),
    ("game", 7, "field 'game' must be a game name"),
    ("game", "poker", "field 'game' is wrong: unknown game 'poker'"),
    ("index", -1, "field 'index' must be a non-negative integer"),
    ("deck", "/dev/zero", "field 'deck' must be"),
]


@pytest.mark.parametrize(("key", "value", "message"), BROKEN_FIELDS)
def test_a_broken_field_is_named(
    record_line: dict[str, Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    key: str,
    value: Any,
    message: str,
) -> None:
    bad = dict(record_line, **{key: value})
    assert message in replay_exit(tmp_path, json.dumps(bad), capsys)


def test_rewards_and_seats_must_name_the_agents(
    record_line: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = dict(record_line, seats={"player_0": "a", "player_7": "b"})
    assert "field 'seats' must name the agents player_0" in replay_exit(
        tmp_path, json.dumps(bad), capsys
    )


def test_a_deck_path_in_a_record_is_never_followed(
    record_line: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = dict(record_line, game="scandal", options={"deck": "/dev/zero"})
    assert "names a deck file ('/dev/zero')" in replay_exit(tmp_path, json.dumps(bad), capsys)


def test_bad_bytes_and_nesting(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "line 1: not valid UTF-8 (byte 1)" in replay_exit(tmp_path, b'{\xff"a": 1}\n', capsys)
    deep = "[" * 100_000 + "]" * 100_000
    assert "line 1: JSON nested too deeply" in replay_exit(tmp_path, deep, capsys)
    medium = '{"game": ' + "[" * 70 + "]" * 70 + "}"
    assert "line 1: JSON nested too deeply" in replay_exit(tmp_path, medium, capsys)
    assert "NaN is not allowed" in replay_exit(tmp_path, '{"seed": NaN}', capsys)
    assert "not valid JSON" in replay_exit(tmp_path, "{oops", capsys)
    assert "a record must be a JSON object" in replay_exit(tmp_path, "[1]", capsys)


def test_line_and_file_sizes_are_bounded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(record_schema, "MAX_LINE_BYTES", 100)
    assert "line 1: longer than the limit of 100 bytes" in replay_exit(tmp_path, "x" * 1000, capsys)
    monkeypatch.setattr(record_schema, "MAX_FILE_BYTES", 10)
    assert "the limit is 10" in replay_exit(tmp_path, "x" * 20, capsys)
    assert main(["replay", "/dev/zero"]) == 2  # never read until memory runs out
    assert "is not a regular file" in capsys.readouterr().err
    assert main(["replay", str(tmp_path)]) == 2
    assert "is not a regular file" in capsys.readouterr().err


def test_a_custom_deck_travels_by_content(tmp_path: Path) -> None:
    deck = tmp_path / "mydeck.json"
    with resources.as_file(resources.files("scandal_env").joinpath("data/deck.json")) as src:
        shutil.copy(src, deck)
    path = tmp_path / "games.jsonl"
    run_tournament(
        "scandal", ["random", "random"], games=1, seed=2, record=path, options={"deck": str(deck)}
    )
    text = path.read_text()
    assert str(deck) not in text and "mydeck" not in text  # no path anywhere in the record
    deck.unlink()  # the replay needs no file
    (record,) = read_records(path)
    assert record["options"] == {} and len(record["deck"]["sha256"]) == 64
    replay_record(record)
    tampered = dict(record, deck=dict(record["deck"], sha256="0" * 64))
    with pytest.raises(StateError, match="field 'deck': the content does not match its sha256"):
        replay_record(tampered)


def _no_games(self: Table, plan: Any) -> Any:
    raise AssertionError("a game was played before the output paths were checked")


def test_tournament_outputs_are_checked_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Table, "play", _no_games)
    base = ["tournament", "--game", "scum", "--agents", "random", "random", "--no-progress"]
    a_file = tmp_path / "taken.txt"
    a_file.write_text("keep me")
    cases = [
        (["--out", str(a_file)], "is a file; give a folder"),
        (["--out", str(a_file / "sub")], "is a file, not a folder"),
        (["--record", str(tmp_path)], "is a directory; give a file name"),
        (["--record", str(a_file)], "already exists; choose a new name"),
        (["--record", str(a_file / "r.jsonl")], "cannot write record file"),
    ]
    for extra, message in cases:
        assert main([*base, *extra]) == 2, extra
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
    done = tmp_path / "done"
    done.mkdir()
    (done / "results.json").write_text("{}")
    assert main([*base, "--out", str(done)]) == 2
    assert "already holds results.json" in capsys.readouterr().err
    assert a_file.read_text() == "keep me"


def test_api_errors_are_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        read_records(tmp_path / "none.jsonl")
    with pytest.raises(ConfigError, match="already exists"):
        existing = tmp_path / "x.jsonl"
        existing.write_text("")
        run_tournament("scum", ["random", "random"], games=1, record=existing)
