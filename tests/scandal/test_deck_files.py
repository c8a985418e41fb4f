"""Deck files from outside (issue 12): the book's spelling, bounded reads, strict JSON/YAML,
printable names. Every problem is a DeckError naming it."""

from __future__ import annotations

import copy
import json
import os
import time
from pathlib import Path

import pytest

from cardsuite.errors import DeckError
from scandal_env.config import ScandalConfig
from scandal_env.deck import MAX_DECK_BYTES, load_deck
from scandal_env.engine import new_game
from tests.scandal.test_deck import CANON, write


def test_s1_the_rule_books_spelling_is_accepted(tmp_path: Path) -> None:
    """The book spells "The Chappiquiddick Incident"; the canonical deck the real name."""
    data = copy.deepcopy(CANON)
    data["scandals"][0]["name"] = "The Chappiquiddick Incident"
    deck = load_deck(write(tmp_path, data))
    assert deck.scandal_names[0] == "The Chappiquiddick Incident"
    assert load_deck().scandal_names[0] == "The Chappaquiddick Incident"


def test_s1_a_wrong_scandal_name_quotes_the_book_truly(tmp_path: Path) -> None:
    data = copy.deepcopy(CANON)
    data["scandals"][0]["name"] = "The Chappaquidick Incident"
    with pytest.raises(DeckError) as err:
        load_deck(write(tmp_path, data))
    msg = str(err.value)
    assert "rule book's entry 1969 'The Chappiquiddick Incident'" in msg
    assert "(or 'The Chappaquiddick Incident')" in msg
    book = Path(__file__).resolve().parents[3] / "shared" / "rules" / "scandal.txt"
    if book.is_file():  # the message quotes the rule book as it is spelt there
        assert "The Chappiquiddick Incident" in book.read_text(encoding="utf-8")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_dev_zero_fails_fast() -> None:
    start = time.monotonic()
    with pytest.raises(DeckError, match="not a regular file"):
        load_deck("/dev/zero")
    assert time.monotonic() - start < 30  # generous: it must not read until memory runs out
    with pytest.raises(DeckError, match="not a regular file"):
        new_game(ScandalConfig(deck="/dev/zero"))


def test_oversized_file_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (MAX_DECK_BYTES + 1))
    with pytest.raises(DeckError, match="larger than the limit"):
        load_deck(big)
    with pytest.raises(DeckError, match="not a regular file"):
        load_deck(tmp_path)


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_invalid_utf8(tmp_path: Path, suffix: str) -> None:
    bad = tmp_path / f"deck{suffix}"
    bad.write_bytes(b'{"scandals": "\xff\xfe"}')
    with pytest.raises(DeckError, match="not valid UTF-8"):
        load_deck(bad)


def test_duplicate_keys(tmp_path: Path) -> None:
    text = json.dumps(CANON)
    dup = tmp_path / "dup.json"
    dup.write_text(text.replace('"cards":', '"cards": [], "cards":', 1))
    with pytest.raises(DeckError, match="duplicate key 'cards'"):
        load_deck(dup)
    dup_yaml = tmp_path / "dup.yaml"
    dup_yaml.write_text("scandals: []\nscandals: []\ncards: []\n")
    with pytest.raises(DeckError, match="duplicate key 'scandals'"):
        load_deck(dup_yaml)


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_deep_nesting(tmp_path: Path, suffix: str) -> None:
    deep = tmp_path / f"deep{suffix}"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(DeckError, match="nested deeper"):
        load_deck(deep)


def test_nan_refused(tmp_path: Path) -> None:
    bad = tmp_path / "nan.json"
    bad.write_text(json.dumps(CANON).replace('"value": 5', '"value": NaN', 1))
    with pytest.raises(DeckError, match="NaN is not allowed"):
        load_deck(bad)


@pytest.mark.parametrize(
    "name", ["Richard \x1b[31mNixon", "Bell\x07", "Two\nlines", "\u202eRTL", "", "   ", "x" * 101]
)
def test_card_names_must_be_printable(tmp_path: Path, name: str) -> None:
    data = copy.deepcopy(CANON)
    data["cards"][17]["name"] = name
    with pytest.raises(DeckError, match=r"card #17 .*printable text") as err:
        load_deck(write(tmp_path, data))
    assert "\x1b" not in str(err.value) and "\x07" not in str(err.value)


def test_scandal_names_must_be_printable(tmp_path: Path) -> None:
    data = copy.deepcopy(CANON)
    data["scandals"][2]["name"] = "Watergate\x1b]0;owned\x07"
    with pytest.raises(DeckError, match=r"scandal #2: .*printable text"):
        load_deck(write(tmp_path, data))
