"""One strict JSON reader for the whole suite (issue 20): `cardsuite.safe_json`.

Every reader of outside JSON (saved states of the three games, deck files,
game records, agent metadata, checkpoint files, web bodies, exec agents'
answers) refuses a repeated key with its own named error, where it used to
keep the last value silently in some of them; an ``ast`` scan keeps any other
``json.loads`` out of the packages.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from cardsuite import safe_json
from cardsuite.errors import CheckpointError, DeckError, StateError

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"a": 1, "a": 2}', "here: duplicate key 'a'"),
        ('{"a": {"b": 1, "b": 1}}', "here: duplicate key 'b'"),
        ('{"a": NaN}', "here: NaN is not allowed"),
        ("[Infinity]", "here: Infinity is not allowed"),
        ("[" * 100 + "]" * 100, "here: JSON nested too deeply"),
        (b'{"a": "\xff"}', "here: not valid UTF-8 (byte 7)"),
        ("{oops", "here: not valid JSON"),
        (17, "here: expected JSON text, got int"),
    ],
)
def test_bad_text_is_the_named_error_with_where_it_came_from(
    text: str | bytes, message: str
) -> None:
    with pytest.raises(StateError) as err:
        safe_json.loads(text, "here")
    assert str(err.value).startswith(message)


def test_good_text_reads_as_json_loads_does() -> None:
    doc = {"a": [1, 2.5, None, True, {"b": "é"}], "c": {}}
    assert safe_json.loads(json.dumps(doc), "here") == doc
    assert safe_json.loads(json.dumps(doc).encode(), "here") == doc


def test_files_are_bounded_regular_files(tmp_path: Path) -> None:
    good = tmp_path / "a.json"
    good.write_text('{"x": 1}')
    assert safe_json.read_file(good, "thing") == {"x": 1}
    big = tmp_path / "big.json"
    big.write_text("[" + "0," * 100 + "0]")
    with pytest.raises(DeckError, match=r"thing '.*big.json' is larger than the limit of 50 bytes"):
        safe_json.read_file(big, "thing", error=DeckError, max_bytes=50)
    with pytest.raises(DeckError, match="is not a regular file"):
        safe_json.read_file(tmp_path, "thing", error=DeckError)
    link = tmp_path / "link.json"
    link.symlink_to(good)
    assert safe_json.read_file(link, "thing") == {"x": 1}
    with pytest.raises(CheckpointError, match="is not a regular file"):
        safe_json.read_file(link, "thing", error=CheckpointError, follow_links=False)
    with pytest.raises(StateError, match="cannot read thing"):
        safe_json.read_file(tmp_path / "missing.json", "thing")


def _repeat_first_key(text: str) -> str:
    """``text`` (a JSON object) with its first key given twice."""
    doc = json.loads(text)
    key = next(iter(doc))
    return "{" + json.dumps(key) + ": " + json.dumps(doc[key]) + ", " + text[1:]


@pytest.mark.parametrize("game", ["scum", "scum_party", "scandal"])
def test_every_games_saved_state_refuses_a_repeated_key(game: str) -> None:
    from cardsuite.games import get_game

    env = get_game(game).make()
    env.reset(seed=0)
    engine = get_game(game).part("engine")
    text = engine.to_json(env.unwrapped.game)
    with pytest.raises(StateError, match="duplicate key"):
        env.reset(options={"state": _repeat_first_key(text)})


def test_deck_files_and_agent_metadata_refuse_a_repeated_key(tmp_path: Path) -> None:
    from importlib import resources

    from scandal_env.deck import load_deck

    canon = resources.files("scandal_env").joinpath("data/deck.json").read_text("utf-8")
    deck = tmp_path / "deck.json"
    deck.write_text(_repeat_first_key(canon))
    with pytest.raises(DeckError, match="duplicate key"):
        load_deck(deck)
    pytest.importorskip("safetensors")
    from cardsuite.agents.learned.pretrained import ROOT as PRETRAINED
    from cardsuite.agents.learned.safe_io import META_FILE, read_meta

    meta = tmp_path / "agent"
    meta.mkdir()
    (meta / META_FILE).write_text(_repeat_first_key((PRETRAINED / "scum4" / META_FILE).read_text()))
    with pytest.raises(CheckpointError, match="duplicate key"):
        read_meta(meta)


#: json.loads of text the suite itself has just written (never outside text).
OWN_TEXT = {
    "agents/arena/records.py": "engine_state parses the engine's own to_json output",
    "train/tools/export.py": "a json.dumps round trip that makes a config JSON-plain",
}


def test_no_other_json_reader_is_left() -> None:
    found = []
    for folder in ("cardsuite", "scum_env", "scandal_env", "agents", "train"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel == "cardsuite/safe_json.py" or rel in OWN_TEXT:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Attribute)
                    and node.attr in ("loads", "load")
                    and isinstance(node.value, ast.Name)
                    and node.value.id == "json"
                ):
                    found.append(f"{rel}:{node.lineno}")
    assert found == [], "read JSON through cardsuite.safe_json:\n" + "\n".join(found)
