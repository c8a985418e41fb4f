"""`ShardedEngine.step` is all or nothing (issue 25): a shard that raises undoes every shard.

Before, the shards that had stepped stayed stepped while another shard's
illegal action raised, so the batch was left half a step ahead. Now every
shard is restored: the state after a refused step is byte for byte the state
before it, and the batch then plays on exactly like a twin that never saw the
refused step (a differential test against the same seed).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from cardsuite.batched import ShardedEngine
from cardsuite.errors import IllegalActionError
from scandal_env.batched import ShardedScandal
from scum_env.batched import ShardedScum
from scum_env.party.batched import ShardedParty

N, THREADS = 7, 3  # shards of 3, 2 and 2 games (numpy.linspace bounds 0, 2, 4, 7)

MAKERS: dict[str, Callable[[], ShardedEngine]] = {
    "scum": lambda: ShardedScum(N, threads=THREADS, num_players=4),
    "scum_party": lambda: ShardedParty(N, threads=THREADS, num_players=8),
    "scandal": lambda: ShardedScandal(N, threads=THREADS, num_players=3),
}


def state(eng: ShardedEngine) -> list[bytes]:
    """Every array every shard holds, and the shared observation and mask."""
    out = [eng.obs.tobytes(), eng.mask.tobytes(), eng.to_act().tobytes()]
    for shard in eng.shards:
        out += [v.tobytes() for v in vars(shard).values() if isinstance(v, np.ndarray)]
    return out


def legal(eng: ShardedEngine, rng: np.random.Generator) -> np.ndarray:
    mask = eng.mask.astype(bool)
    return np.array([rng.choice(np.flatnonzero(row)) for row in mask], dtype=np.int64)


def illegal_action(eng: ShardedEngine, game: int) -> int:
    return int(np.flatnonzero(~eng.mask[game].astype(bool))[0])


@pytest.fixture(params=sorted(MAKERS))
def twins(request: pytest.FixtureRequest) -> Any:
    a, b = MAKERS[request.param](), MAKERS[request.param]()
    a.reset(seed=11)
    b.reset(seed=11)
    yield a, b
    a.close()
    b.close()


def test_the_batch_has_several_shards(twins: tuple[ShardedEngine, ShardedEngine]) -> None:
    assert [(s.start, s.stop) for s in twins[0].slices] == [(0, 2), (2, 4), (4, 7)]


@pytest.mark.parametrize("bad_game", [0, 3, 6])  # in the first, the middle and the last shard
def test_an_illegal_action_in_one_shard_changes_no_shard(
    twins: tuple[ShardedEngine, ShardedEngine], bad_game: int
) -> None:
    eng, twin = twins
    rng, twin_rng = np.random.default_rng(5), np.random.default_rng(5)
    for _ in range(3):  # a few steps in, so the games differ
        eng.step(legal(eng, rng))
        twin.step(legal(twin, twin_rng))
    before = state(eng)
    actions = legal(eng, np.random.default_rng(9))
    actions[bad_game] = illegal_action(eng, bad_game)
    with pytest.raises(IllegalActionError, match=rf"^game {bad_game}: .*illegal action"):
        eng.step(actions)
    assert state(eng) == before
    for _ in range(6):  # and it plays on exactly like the twin that never tried
        res = eng.step(legal(eng, rng))
        ref = twin.step(legal(twin, twin_rng))
        for name in ("obs", "mask", "to_act", "rewards", "done", "truncated"):
            want = getattr(ref, name, None)
            if want is not None:
                np.testing.assert_array_equal(getattr(res, name), want, err_msg=name)
    assert state(eng) == state(twin)


def test_any_error_in_a_shard_after_it_stepped_is_undone(
    twins: tuple[ShardedEngine, ShardedEngine], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Even a shard that changed itself and then failed is put back."""
    eng, _ = twins
    last = eng.shards[-1]
    real_step = last.step

    def step_then_fail(*args: Any) -> Any:
        real_step(*args)
        raise RuntimeError("the disk is on fire")

    monkeypatch.setattr(last, "step", step_then_fail)
    before = state(eng)
    with pytest.raises(RuntimeError, match="on fire"):
        eng.step(legal(eng, np.random.default_rng(0)))
    monkeypatch.undo()
    assert state(eng) == before


def test_fractional_and_missing_actions_are_refused_whole(
    twins: tuple[ShardedEngine, ShardedEngine],
) -> None:
    eng, _ = twins
    before = state(eng)
    actions = legal(eng, np.random.default_rng(1)).astype(float)
    actions[5] += 0.5  # used to be cut to an int silently
    with pytest.raises(IllegalActionError):
        eng.step(actions)
    with pytest.raises(IllegalActionError, match=f"step needs {N} actions, got 2"):
        eng.step([0, 1])
    with pytest.raises(IllegalActionError, match=f"step needs {N} integer action ids"):
        eng.step([[0], [1, 2]])
    assert state(eng) == before
