"""Saved Scum Party tournaments: each bad field is a StateError naming it (issue 12, P2–P8)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from cardsuite.errors import StateError
from scum_env.party import engine as PE
from tests.scum_party.helpers import config, play_random_hand

CONFIG = config(11, "6,5", num_hands=2)


def saved(hands: int = 0) -> dict[str, Any]:
    party = PE.new_party(CONFIG, 3)
    for seed in range(hands):
        play_random_hand(party, np.random.default_rng(seed))
    return json.loads(PE.to_json(party))


def changed(base: dict[str, Any], **fields: Any) -> dict[str, Any]:
    data = json.loads(json.dumps(base))
    data.update(fields)
    return data


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"current": 2}, r"field 'current' must be an integer from 0 to 1, got 2"),
        ({"current": True}, r"field 'current' must be an integer from 0 to 1, got True"),
        ({"hand": 3}, r"field 'hand' must be an integer from 0 to 2"),
        ({"hand": 1}, r"'last_finish' and 'last_points' are set once a hand has been scored"),
        ({"over": True}, r"field 'over' must say whether every hand has been played"),
        ({"over": 0}, r"field 'over' must be true or false"),
        ({"scores": [0.5] + [0] * 10}, r"field 'scores' must be an integer"),
        ({"scores": [2**70] + [0] * 10}, r"field 'scores' must be an integer from"),
        ({"scores": 5}, r"field 'scores' must be a list of 11 integers"),
        ({"members": [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 9]]}, r"seat each of the 11 players once"),
        ({"members": [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, True]]}, r"field 'members' must be"),
        ({"tables": []}, r"field 'tables' must hold one saved table per table"),
        ({"sizes": [5, 6]}, r"saved for tables \[5, 6\]"),
        ({"rogue": 1}, r"unknown fields \['rogue'\]"),
    ],
)
def test_bad_tournament_fields_are_named(fields: dict[str, Any], words: str) -> None:
    with pytest.raises(StateError, match=words):
        PE.from_dict(CONFIG, changed(saved(), **fields))


def test_bad_table_fields_name_the_table_and_field() -> None:
    base = saved()
    base["tables"][1]["top_count"] = 99
    with pytest.raises(StateError, match=r"table 1: saved Scum state: field 'top_count'"):
        PE.from_dict(CONFIG, base)
    base = saved()
    base["tables"][0]["order"] = [1, 0, 2, 3, 4, 5]
    with pytest.raises(StateError, match=r"table 0 must seat its players in dealt order"):
        PE.from_dict(CONFIG, base)


def test_finished_tournament_must_match_its_tables() -> None:
    base = saved(hands=2)
    assert base["over"]
    assert PE.to_json(PE.from_dict(CONFIG, base)) == json.dumps(base, separators=(",", ":"))
    base["last_finish"] = [base["last_finish"][0][::-1], base["last_finish"][1]]
    with pytest.raises(StateError, match=r"field 'last_finish' must be table 0's finish order"):
        PE.from_dict(CONFIG, base)
