"""The engine's vocabulary (issue 13): Rules, State, to_act, Phase; old names still work."""

from __future__ import annotations

import json

import pytest

from scandal_env import engine as E
from scandal_env.config import ScandalConfig
from scandal_env.scandal_v0 import raw_env


def test_rules_state_to_act_phase() -> None:
    s = E.new_game(ScandalConfig(num_players=3), seed=1)
    assert isinstance(s.rules, E.Rules) and s.rules is E.make_rules(ScandalConfig(num_players=3))
    assert s.to_act == (s.dealer + 1) % 3
    assert s.phase is E.Phase.DRAW and E.PHASE_DRAW == E.Phase.DRAW == 0
    E.apply(s, s.rules.layout.DRAW_STOCK)
    assert s.phase is E.Phase.MELD


def test_deprecated_names_warn_and_alias() -> None:
    s = E.new_game(ScandalConfig(), seed=1)
    with pytest.warns(DeprecationWarning, match="State.game"):
        assert s.game is s.rules
    with pytest.warns(DeprecationWarning, match="State.current"):
        assert s.current == s.to_act
    with pytest.warns(DeprecationWarning, match="Rules"):
        assert E.Game is E.Rules
    with pytest.warns(DeprecationWarning, match="make_rules"):
        assert E.make_game(ScandalConfig()) is s.rules


def test_version_1_state_files_still_load() -> None:
    """Saved states of version 1 called the player to act ``current``."""
    s = E.new_game(ScandalConfig(), seed=4)
    data = json.loads(E.to_json(s))
    data["version"] = 1
    data["current"] = data.pop("to_act")
    assert E.to_json(E.from_json(json.dumps(data))) == E.to_json(s)


def test_env_holds_rules_and_engine_state() -> None:
    env = raw_env()
    env.reset(seed=3)
    assert isinstance(env.rules, E.Rules) and isinstance(env.game, E.State)
    assert env.game.rules is env.rules
    assert env.state().shape == env.state_space.shape  # PettingZoo's global state


def test_decode_covers_every_id_once_in_layout_order() -> None:
    """One decode step (issue 13) shared by describe, apply and why_illegal."""
    from scandal_env.actions import Kind, decode

    lay = E.make_rules(ScandalConfig()).layout
    seen = [decode(lay, a) for a in range(lay.size)]
    for name, first, count, _ in lay.ranges():
        kinds = {k for k, _ in seen[first : first + count]}
        assert kinds == {Kind[name.upper()]}
        assert [x for _, x in seen[first : first + count]] == list(range(count))
    for bad in (-1, lay.size):
        with pytest.raises(ValueError, match="out of range"):
            decode(lay, bad)
