"""The AEC base: a refused reset leaves the env, its random stream included, unchanged."""

from __future__ import annotations

import numpy as np
import pytest

from cardsuite.errors import PresetError
from scandal_env import scandal_v0
from scum_env import scum_party_v0, scum_v0

FACTORIES = [scum_v0.raw_env, scum_party_v0.raw_env, scandal_v0.raw_env]


@pytest.mark.parametrize("make", FACTORIES)
def test_a_refused_reset_does_not_move_the_random_stream(make) -> None:  # type: ignore[no-untyped-def]
    a, b = make(), make()
    a.reset(seed=7)
    b.reset(seed=7)
    with pytest.raises(PresetError):
        a.reset(options=[1, 2])  # type: ignore[arg-type]
    with pytest.raises(PresetError):
        a.reset(options={"hands": "not hands"})
    a.reset()
    b.reset()
    np.testing.assert_array_equal(a.state(), b.state())
    assert a.agent_selection == b.agent_selection


@pytest.mark.parametrize(
    ("make", "typo", "meant"),
    [
        (scum_v0.raw_env, "hand", "hands"),
        (scum_v0.raw_env, "role", "roles"),
        (scum_party_v0.raw_env, "seatings", "seating"),
        (scandal_v0.raw_env, "dicard", "discard"),
    ],
)
def test_an_unknown_reset_option_is_a_named_error_with_a_hint(make, typo: str, meant: str) -> None:  # type: ignore[no-untyped-def]
    """Issue 25: a typo used to deal a random game with a warning; now it is refused."""
    a, b = make(), make()
    a.reset(seed=3)
    b.reset(seed=3)
    with pytest.raises(PresetError, match=rf"unknown option '{typo}' \(did you mean '{meant}'\?\)"):
        a.reset(options={typo: []})
    a.reset()  # the refused reset left the env and its random stream as they were
    b.reset()
    np.testing.assert_array_equal(a.state(), b.state())


@pytest.mark.parametrize("make", FACTORIES)
def test_an_unknown_reset_option_names_the_known_ones_briefly(make) -> None:  # type: ignore[no-untyped-def]
    env = make()
    with pytest.raises(PresetError, match=r"known options: .*hands.*state") as info:
        env.reset(options={"zzz" * 10_000: 1})
    assert len(str(info.value)) < 300 and "did you mean" not in str(info.value)
    with pytest.raises(PresetError, match="unknown option 7;"):
        env.reset(options={7: 1})


@pytest.mark.parametrize("make", FACTORIES)
def test_the_pettingzoo_api_test_probe_is_still_accepted(make) -> None:  # type: ignore[no-untyped-def]
    """``pettingzoo.test.api_test`` calls ``reset(seed=0, options={"options": 1})``."""
    a, b = make(), make()
    a.reset(seed=0, options={"options": 1})
    b.reset(seed=0)
    np.testing.assert_array_equal(a.state(), b.state())
