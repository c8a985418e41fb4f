"""Every batched engine's step names each malformed input and changes no game (issue 12).

The three engines share one check (`cardsuite.batched.checks`), so Scum,
Scum Party and Scandal refuse the same inputs with the same words, and accept
whole-number floats as their AEC envs do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from cardsuite.errors import IllegalActionError, UsageError
from scandal_env.batched.engine import BatchedScandal
from scum_env.batched.engine import BatchedScum
from scum_env.party.batched.engine import BatchedParty

N = 4

MAKERS: dict[str, Callable[[str], Any]] = {
    "scum": lambda backend: BatchedScum(N, num_players=4, backend=backend),
    "scum_party": lambda backend: BatchedParty(N, num_players=8, backend=backend),
    "scandal": lambda backend: BatchedScandal(N, num_players=2, backend=backend),
}


def engine(backend: str = "numpy", game: str = "scum") -> tuple[Any, np.ndarray]:
    eng = MAKERS[game](backend)
    _obs, mask, _to_act = eng.reset(seed=7)
    mask = np.asarray(eng.xp.to_numpy(mask))
    return eng, np.array([int(np.flatnonzero(row)[0]) for row in mask])


def snapshot(eng: Any) -> dict[str, bytes]:
    return {k: np.asarray(eng.xp.to_numpy(v)).tobytes() for k, v in eng.state_arrays().items()}


@pytest.mark.parametrize("game", sorted(MAKERS))
@pytest.mark.parametrize(
    ("actions", "match"),
    [
        (None, "got NoneType"),
        ("0123", "got str"),
        ([1.5, 0, 0, 0], "1.5, which is not a whole number"),
        ([float("nan")] * N, "not a whole number"),
        ([float("inf")] * N, "not a whole number"),
        ([True] * N, "got bool values"),
        ([2**70] * N, "got object values"),
        (np.array([2**63] * N, dtype=np.uint64), "past the int64 range"),
        ([1e300] * N, "past the int64 range"),
        ([0, 0, 0], "got 3"),
        ([[0, 0], [0]], "integer action ids"),
        ({"a": 1}, "got dict"),
    ],
)
def test_bad_actions_raise_and_change_nothing(game: str, actions: Any, match: str) -> None:
    eng, _legal = engine(game=game)
    before = snapshot(eng)
    with pytest.raises(IllegalActionError, match=match):
        eng.step(actions)
    assert snapshot(eng) == before


@pytest.mark.parametrize("game", sorted(MAKERS))
@pytest.mark.parametrize(
    "active",
    [[True] * (N - 1), [True] * (N + 1), np.ones((2, N), dtype=bool), [0.5] * N, [2] * N, "1111"],
)
def test_bad_active_raises_and_changes_nothing(game: str, active: Any) -> None:
    eng, legal = engine(game=game)
    before = snapshot(eng)
    with pytest.raises(UsageError, match="active must be 4 bools"):
        eng.step(legal, active=active)
    assert snapshot(eng) == before


@pytest.mark.parametrize("game", sorted(MAKERS))
def test_whole_number_floats_and_0_1_flags_are_accepted(game: str) -> None:
    eng, legal = engine(game=game)
    other, _ = engine(game=game)
    eng.step(legal.astype(np.float64), active=[1, 1, 0, 1])
    other.step(legal, active=np.array([True, True, False, True]))
    assert snapshot(eng) == snapshot(other)


@pytest.mark.parametrize("game", sorted(MAKERS))
def test_torch_float_and_bool_tensors_are_named(game: str) -> None:
    torch = pytest.importorskip("torch")
    eng, legal = engine("torch", game)
    before = snapshot(eng)
    with pytest.raises(IllegalActionError, match="fractional"):
        eng.step(torch.tensor([1.5] * N))
    with pytest.raises(IllegalActionError, match=r"torch\.bool"):
        eng.step(torch.ones(N, dtype=torch.bool))
    with pytest.raises(UsageError, match="got 3"):
        eng.step(torch.tensor(legal), active=torch.ones(3, dtype=torch.bool))
    assert snapshot(eng) == before
    eng.step(torch.tensor(legal, dtype=torch.float32))


@pytest.mark.parametrize(
    "options",
    [
        {"roles": [[0.5, 1, 2, 3]] * N},
        {"roles": [[0, 1, 2, 2]] * N},
        {"scores": [[True, 0, 0, 0]] * N},
        {"scores": 5},
        {"trade": "yes"},
        {"hands": np.zeros((N, 4, 14), dtype=np.int64)},
    ],
)
def test_bad_reset_presets_raise_and_change_nothing(options: dict[str, Any]) -> None:
    """Every preset is checked before any game changes (issue 12)."""
    from cardsuite.errors import PresetError

    eng, _legal = engine()
    before = snapshot(eng)
    with pytest.raises(PresetError):
        eng.reset(seed=3, **options)
    assert snapshot(eng) == before


def test_preset_trades_that_empty_the_president_are_refused() -> None:
    """J5 from five players: a one-card President and a one-card Scum would leave the
    President leading with no cards; the batched engine names the game instead."""
    from cardsuite.errors import PresetError

    eng = BatchedScum(2, num_players=5)
    cards = eng.rules.cards
    hands = np.zeros((2, 5, eng.K), dtype=np.int64)
    for p, names in enumerate([["3"], ["4", "5"], ["6", "7"], ["8", "9"], ["10"]]):
        hands[:, p] = cards.counts(names)
    roles = [list(range(5))] * 2
    with pytest.raises(PresetError, match="game 1: preset hands leave the President"):
        eng.reset(0, hands=hands, roles=roles, trade=np.array([False, True]))
    eng.reset(0, hands=hands, roles=roles, trade=False)
