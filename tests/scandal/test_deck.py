"""Deck file validation: one test per S1 invariant."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from cardsuite.errors import DeckError
from scandal_env.deck import COLOUR_COUNTS, load_deck

CANON = json.loads(
    (Path(__file__).resolve().parents[2] / "scandal_env" / "data" / "deck.json").read_text()
)


def card(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in data["cards"] if c["name"] == name)


def write(tmp_path: Path, data: Any, name: str = "deck.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_s1_canonical_deck() -> None:
    deck = load_deck()
    assert deck.n_cards == 80 and deck.n_scandals == 16
    assert int(deck.member.sum()) == 96
    counts = {col: deck.colours.count(col) for col in COLOUR_COUNTS}
    assert counts == COLOUR_COUNTS
    assert int(deck.member[deck.is_gold].sum()) == 23
    assert deck.title_of.tolist() == list(range(16))  # titles are cards 0..15
    assert (deck.member.sum(axis=0) == deck.set_size).all()
    assert ((deck.member & deck.is_bg[:, None]).sum(axis=0) >= 1).all()
    assert int(deck.value.sum()) == 16 * 5 + 7 * 15 + 13 * 10 + 12 * 5 + 25 * 5 + 23 * 5
    assert deck.n_pairs == 80
    assert not deck.member.flags.writeable
    assert deck.card_id("Richard Nixon") == deck.name_to_id["Richard Nixon"]


def test_s1_yaml_deck_loads(tmp_path: Path) -> None:
    path = tmp_path / "deck.yaml"
    path.write_text(yaml.safe_dump(CANON))
    deck = load_deck(path)
    assert deck.names == load_deck().names


Mutation = Callable[[dict[str, Any]], None]


def _recolour(d: dict[str, Any]) -> None:
    card(d, "Dike Bridge")["colour"] = "red"


def _unknown_scandal(d: dict[str, Any]) -> None:
    card(d, "Dike Bridge")["scandals"] = [16]


def _set_size(d: dict[str, Any]) -> None:
    card(d, "Dike Bridge")["scandals"] = [1]


def _two_titles(d: dict[str, Any]) -> None:
    card(d, "The Agnew Capers")["scandals"] = [0]


def _gold_one_scandal(d: dict[str, Any]) -> None:
    c = card(d, "FBI Sting")
    c["scandals"], c["value"] = [5], 5


def _gold_memberships(d: dict[str, Any]) -> None:
    c = card(d, "Special Prosecutor")
    c["scandals"], c["value"] = [2, 6, 12], 15


def _single_in_two(d: dict[str, Any]) -> None:
    card(d, "Dike Bridge")["scandals"] = [0, 1]


def _no_blue_green(d: dict[str, Any]) -> None:
    card(d, "Ted Kennedy")["scandals"] = [1]
    card(d, "Lester Matz")["scandals"] = [0]


def _duplicate_name(d: dict[str, Any]) -> None:
    card(d, "Dike Bridge")["name"] = "Ted Kennedy"


def _bad_id(d: dict[str, Any]) -> None:
    d["cards"][5]["id"] = 6


def _bad_value(d: dict[str, Any]) -> None:
    card(d, "Richard Nixon")["value"] = 10


def _missing_field(d: dict[str, Any]) -> None:
    del card(d, "Richard Nixon")["value"]


def _unknown_field(d: dict[str, Any]) -> None:
    card(d, "Richard Nixon")["party"] = "R"


def _wrong_type(d: dict[str, Any]) -> None:
    card(d, "Richard Nixon")["scandals"] = "Watergate"


def _bad_colour(d: dict[str, Any]) -> None:
    card(d, "Richard Nixon")["colour"] = "purple"


def _wrong_table(d: dict[str, Any]) -> None:
    d["scandals"][2]["size"] = 11


def _fifteen_scandals(d: dict[str, Any]) -> None:
    d["scandals"].pop()


def _no_scandal(d: dict[str, Any]) -> None:
    card(d, "Dike Bridge")["scandals"] = []


def _unknown_top(d: dict[str, Any]) -> None:
    d["extra"] = 1


@pytest.mark.parametrize(
    ("mutate", "match"),
    [
        (_recolour, "expected 12 red cards, got 13"),
        (_unknown_scandal, "card .*'Dike Bridge': scandal 16 does not exist"),
        (_set_size, "scandal 0 'The Chappaquiddick Incident': set size 3"),
        (_two_titles, "exactly one brown title card, has 2"),
        (_gold_one_scandal, "'FBI Sting': a gold card must belong to 2 or more"),
        (_gold_memberships, "gold cards must carry 23 memberships, got 22"),
        (_single_in_two, "'Dike Bridge': a black card must belong to exactly one"),
        (_no_blue_green, "scandal 0 .* has no blue or green card"),
        (_duplicate_name, "'Ted Kennedy': duplicate name"),
        (_bad_id, "id must equal its position 5"),
        (_bad_value, "'Richard Nixon': value 10 breaks S1 \\(blue is worth 15\\)"),
        (_missing_field, "'Richard Nixon' is missing field 'value'"),
        (_unknown_field, "'Richard Nixon' has unknown field 'party'"),
        (_wrong_type, "field 'scandals' must be list"),
        (_bad_colour, "unknown colour 'purple'"),
        (_wrong_table, "scandal 2 'Watergate': S1 requires the rule book's entry"),
        (_fifteen_scandals, "expected 16 scandals, got 15"),
        (_no_scandal, "'Dike Bridge': belongs to no scandal"),
        (_unknown_top, "unknown top-level field 'extra'"),
    ],
    ids=lambda x: getattr(x, "__name__", "")[1:] if callable(x) else "",
)
def test_s1_broken_deck_is_rejected(tmp_path: Path, mutate: Mutation, match: str) -> None:
    data = copy.deepcopy(CANON)
    mutate(data)
    with pytest.raises(DeckError, match=match):
        load_deck(write(tmp_path, data))


def test_deck_file_errors(tmp_path: Path) -> None:
    with pytest.raises(DeckError, match=r"cannot read deck file .*nope.json"):
        load_deck(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(DeckError, match=r"bad.json: not valid JSON"):
        load_deck(bad)
    bad_yaml = tmp_path / "bad.yaml"
    bad_yaml.write_text("cards: [unclosed")
    with pytest.raises(DeckError, match=r"bad.yaml is not valid YAML"):
        load_deck(bad_yaml)
    with pytest.raises(DeckError, match="top level must be a mapping"):
        load_deck(write(tmp_path, [1, 2]))


def test_deck_lookup_arrays_consistent() -> None:
    deck = load_deck()
    for c in range(deck.n_cards):
        assert list(np.flatnonzero(deck.member[c])) == list(deck.scandals_of[c])
    assert (deck.member[deck.pair_card, deck.pair_scandal]).all()
    assert not deck.is_title[deck.pair_card].any()
