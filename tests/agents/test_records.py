"""Game records: written by the arena, read back, replayed exactly, shown by ``cardsuite replay``."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from cardsuite.agents.arena.records import engine_state, read_records, replay_record, same_state
from cardsuite.agents.arena.tournament import run_tournament
from cardsuite.cli import main
from cardsuite.errors import ConfigError, StateError

MODULES = {
    "scum": "scum_env.scum_v0",
    "scum_party": "scum_env.scum_party_v0",
    "scandal": "scandal_env.scandal_v0",
}


@pytest.fixture(scope="module")
def scum_records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rec") / "scum.jsonl"
    run_tournament(
        "scum", ["random", "random", "random"], games=3, seed=2, record=path,
        options={"num_players": 5, "carousel": True},
    )  # fmt: skip
    return path


def test_a_record_holds_the_whole_game(scum_records: Path) -> None:
    records = read_records(scum_records)
    assert [r["index"] for r in records] == [0, 1, 2]
    first = records[0]
    assert first["game"] == "scum" and first["options"] == {"num_players": 5, "carousel": True}
    assert first["seats"] == {
        "player_0": "random#1", "player_1": "random#2", "player_2": "random#3",
        "player_3": "random#1", "player_4": "random#2",
    }  # fmt: skip
    agent, action, words = first["actions"][0]
    assert agent.startswith("player_") and isinstance(action, int) and words
    assert sorted(first["rewards"].values()) == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert sorted(i["finish_position"] for i in first["infos"].values()) == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("game", sorted(MODULES))
def test_records_replay_to_the_same_final_state(game: str, tmp_path: Path) -> None:
    if importlib.util.find_spec(MODULES[game]) is None:
        pytest.skip(f"{MODULES[game]} is not written yet")
    path = tmp_path / "games.jsonl"
    run_tournament(game, ["random", "random"], games=3, seed=1, record=path)
    for record in read_records(path):
        env = replay_record(record)
        assert isinstance(record["final_state"], dict)  # an object, not a JSON string
        assert same_state(env, record["final_state"], record.get("deck"))
        assert not same_state(env, record["initial_state"], record.get("deck"))
        assert engine_state(env) is not None


def test_a_tampered_record_is_a_state_error(scum_records: Path) -> None:
    record = read_records(scum_records)[0]
    wrong_seed = dict(record, seed=record["seed"] + 1)
    with pytest.raises(StateError, match="does not give the recorded initial state"):
        replay_record(wrong_seed)
    wrong_reward = dict(record, rewards=dict(record["rewards"], player_0=99.0))
    with pytest.raises(StateError, match="player_0 ends with return"):
        replay_record(wrong_reward)
    short = dict(record, actions=record["actions"][:-1])
    with pytest.raises(StateError, match="end before the game does"):
        replay_record(short)
    agent, action, words = record["actions"][0]
    other = "player_1" if agent != "player_1" else "player_2"
    wrong_turn = dict(record, actions=[[other, action, words], *record["actions"][1:]])
    with pytest.raises(StateError, match=f"move 1: {other} is recorded to act"):
        replay_record(wrong_turn)


def test_reading_bad_files_names_the_problem(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"record file .*missing\.jsonl.* not found"):
        read_records(tmp_path / "missing.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"game": "scum"}\nnot json\n')
    with pytest.raises(StateError, match="line 1: record lacks options, seed, seats, actions"):
        read_records(bad)
    bad.write_text("\n[1, 2]\n")
    with pytest.raises(StateError, match="line 2: a record must be a JSON object"):
        read_records(bad)
    bad.write_text("{oops\n")
    with pytest.raises(StateError, match="line 1: not valid JSON"):
        read_records(bad)


def test_cli_replay_prints_every_move(
    scum_records: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = read_records(scum_records)[1]
    assert main(["replay", str(scum_records), "--game-index", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("scum game 1 (deal 1, seed ")
    agent, _, words = record["actions"][0]
    assert f"\n1. {agent} ({record['seats'][agent]}): {words}\n" in out
    n = len(record["actions"])
    assert f"\n{n}. " in out and f"\n{n + 1}. " not in out
    assert "series over; finish order:" in out
    assert out.rstrip().endswith("final state matches the record")


def test_cli_replay_errors_exit_2(
    scum_records: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(scum_records), "--game-index", "3"]) == 2
    assert "--game-index 3 is out of range; the file holds games 0..2" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "none.jsonl")]) == 2
    assert "not found" in capsys.readouterr().err
    record = json.loads(scum_records.read_text().splitlines()[0])
    record["final_state"] = record["initial_state"]
    changed = tmp_path / "changed.jsonl"
    changed.write_text(json.dumps(record) + "\n")
    assert main(["replay", str(changed)]) == 2
    assert "final state differs" in capsys.readouterr().err
