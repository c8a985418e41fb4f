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
