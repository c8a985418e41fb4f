"""Deck files from outside (issue 12): the book's spelling. Every problem is a DeckError."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from cardsuite.errors import DeckError
from scandal_env.deck import load_deck
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
