"""Saved states from outside (issue 12): every field validated, StateError naming it.

A state reached by the rules is always accepted; a state no play can reach is
refused with the field named; a mutated state either plays on and ends like a
dealt one or is refused, and a refused ``reset(options={"state": ...})``
leaves the env exactly as it was.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardsuite.errors import PresetError, StateError
from scandal_env import engine as E
from scandal_env.config import ScandalConfig
from scandal_env.encoding import Encoder
from scandal_env.scandal_v0 import raw_env
from tests.scandal.test_properties import play

CONFIGS = [
    ScandalConfig(num_players=2, max_turns=12, episode="hand"),
    ScandalConfig(num_players=3, max_turns=20, episode="game", max_hands=3, target_score=150),
    ScandalConfig(num_players=4, max_turns=8, episode="hand"),
    ScandalConfig(num_players=6, max_turns=15, episode="game", max_hands=3, target_score=150),
]


def reachable_states(cfg: ScandalConfig, seed: int, every: int = 1) -> list[E.State]:
    """Clones of the states of one random game, every ``every``-th step."""
    return [E.clone(s) for i, (s, _) in enumerate(play(cfg, seed)) if i % every == 0]


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(0, len(CONFIGS) - 1))
def test_every_reachable_state_is_accepted(seed: int, k: int) -> None:
    for s in reachable_states(CONFIGS[k], seed):
        text = E.to_json(s)
        assert E.to_json(E.from_json(text)) == text


def saved(seed: int = 3, step: int = 5, cfg: ScandalConfig | None = None) -> dict[str, Any]:
    """A saved state as a dict: the state before action ``step`` of a random game."""
    states = reachable_states(cfg or CONFIGS[0], seed)
    out: dict[str, Any] = json.loads(E.to_json(states[min(step, len(states) - 1)]))
    return out


def in_phase(phase: int) -> dict[str, Any]:
    for step in range(40):
        d = saved(step=step)
        if d["phase"] == phase:
            return d
    raise AssertionError(f"no phase {phase} in the first 40 steps")


def _set(name: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def mutate(d: dict[str, Any]) -> None:
        d[name] = value

    return mutate


def _set_item(name: str, index: int, value: Any) -> Callable[[dict[str, Any]], None]:
    def mutate(d: dict[str, Any]) -> None:
        d[name][index] = value

    return mutate


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (_set_item("meld_owner", 3, 9), "meld_owner"),  # issue 12: never ended before
        (_set("duty", 999), "duty"),
        (_set("to_act", 5), "to_act"),
        (_set("dealer", -1), "dealer"),
        (_set("turn", -3), "turn"),
        (_set("hand_number", -1), "hand_number"),
        (_set("phase", 7), "phase"),
        (_set("to_act", "0"), "to_act"),
        (_set("done", 0), "done"),
        (_set("build_scandal", True), "build_scandal"),
        (_set("turn", 12), "turn"),  # max_turns 12: a hand in play has played fewer
        (_set("hands", [[1] * 80, [0] * 80]), "hands"),
        (_set_item("scores", 0, 10**6), "scores"),
        (_set_item("placed_by", 20, 1), "placed_by"),
        (_set("pile", [0, 0]), "pile"),
        (_set("stock", "abc"), "stock"),
        (_set("hand_end", "bored"), "hand_end"),
        (_set("phase", 2), "build_scandal"),  # the build phase without a meld being built
        (_set("rng", {"bit_generator": "seed"}), "rng"),  # never getattr(np.random, "seed")
        (_set("rng", {"bit_generator": "PCG64", "state": {"state": -1, "inc": "x"}}), "rng"),
        (_set("surprise", 1), "surprise"),
        (_set("game_over", True), "game_over"),
    ],
)
def test_unreachable_field_values_name_the_field(
    mutate: Callable[[dict[str, Any]], None], field: str
) -> None:
    d = in_phase(0)
    mutate(d)
    with pytest.raises(StateError, match=field):
        E.from_json(json.dumps(d))


def test_phase_inconsistent_with_the_duty_and_forbidden_card() -> None:
    d = in_phase(0)
    d["duty"] = next(c for c in range(80) if d["hands"][d["to_act"]][c])
    with pytest.raises(StateError, match=r"'phase'.*S3, S7"):
        E.from_json(json.dumps(d))
    d = in_phase(1)
    d["duty"] = d["forbidden"] = next(c for c in range(80) if d["hands"][d["to_act"]][c])
    with pytest.raises(StateError, match="duty"):
        E.from_json(json.dumps(d))


def test_strict_json_and_size() -> None:
    text = json.dumps(saved())
    with pytest.raises(StateError, match="duplicate key 'turn'"):
        E.from_json(text[:-1] + ', "turn": 0}')
    with pytest.raises(StateError, match="NaN"):
        E.from_json(text.replace('"turn": ', '"turn": NaN, "x": ', 1))
    with pytest.raises(StateError, match="nested deeper"):
        E.from_json("[" * 5000 + "]" * 5000)
    with pytest.raises(StateError, match="UTF-8"):
        E.from_json(b'{"format": "\xff"}')
    with pytest.raises(StateError, match="longer than the limit"):
        E.from_json(" " * (2 << 20))


# ------------------------------------------------------------------ mutation fuzzing

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.integers(-3, 100)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


def mutate(data: st.DataObject, d: dict[str, Any]) -> None:
    """One random change: a field replaced, deleted or nudged, or an entry of an array set."""
    name = data.draw(st.sampled_from(sorted(d)))
    how = data.draw(st.sampled_from(["replace", "delete", "small", "entry"]))
    value = d[name]
    if how == "delete":
        del d[name]
    elif how == "small" and isinstance(value, int) and not isinstance(value, bool):
        d[name] = value + data.draw(st.integers(-3, 3))
    elif how == "entry" and isinstance(value, list) and value:
        i = data.draw(st.integers(0, len(value) - 1))
        if isinstance(value[i], list) and value[i]:
            j = data.draw(st.integers(0, len(value[i]) - 1))
            value[i][j] = data.draw(st.booleans() | st.integers(-2, 90))
        else:
            value[i] = data.draw(st.booleans() | st.integers(-2, 90))
    elif isinstance(value, bool):
        d[name] = not value
    else:
        d[name] = data.draw(json_values)


def plays_on_and_ends(state: E.State) -> None:
    """Random legal play from ``state`` ends within the turn and hand limits, and every
    observation on the way lies in its space."""
    cfg = state.rules.config
    rng = np.random.default_rng(0)
    bound = (cfg.max_turns + 1) * cfg.max_hands * 300
    encoder = Encoder(state.rules)
    low, high = encoder.spec.bounds()
    for _ in range(bound):
        for seat in range(cfg.num_players):  # observations stay in their space
            obs = encoder.encode(state, seat)
            assert ((obs >= low) & (obs <= high)).all()
        if state.done:
            return
        legal = np.flatnonzero(E.legal_mask(state))
        assert legal.size
        E.apply(state, int(legal[rng.integers(legal.size)]))
        E.check_cards(state)
    raise AssertionError("an accepted state did not end")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**16),
    step=st.integers(0, 60),
    k=st.integers(0, len(CONFIGS) - 1),
    data=st.data(),
)
def test_mutated_states_are_refused_or_play_on(
    seed: int, step: int, k: int, data: st.DataObject
) -> None:
    d = saved(seed, step, CONFIGS[k])
    for _ in range(data.draw(st.integers(1, 3))):
        mutate(data, d)
    try:
        text = json.dumps(d)
    except (TypeError, ValueError):
        return
    try:
        state = E.from_json(text)
    except StateError:
        state = None
    if state is not None:
        plays_on_and_ends(state)
    env = raw_env(**CONFIGS[k].to_dict())
    env.reset(seed=seed)
    before = E.to_json(env.game)  # type: ignore[arg-type]
    obs_before = env.observe(env.agent_selection)["observation"].copy()
    try:
        env.reset(options={"state": text})
    except (StateError, PresetError):
        assert E.to_json(env.game) == before  # type: ignore[arg-type]
        assert (env.observe(env.agent_selection)["observation"] == obs_before).all()
