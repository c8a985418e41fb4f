"""Batched engine: determinism, backends, autoreset, presets and named errors."""

from __future__ import annotations

import numpy as np
import pytest

from cardsuite.errors import ConfigError, IllegalActionError, PresetError
from scum_env.batched.engine import BatchedScum, ShardedScum
from scum_env.batched.policies import RandomPolicy
from scum_env.config import ScumConfig
from scum_env.encoding import observation_spec
from scum_env.rules import scum_rules

torch = pytest.importorskip("torch")
torch.set_num_threads(1)


def _to_np(x: object) -> np.ndarray:
    return x.detach().cpu().numpy() if hasattr(x, "detach") else np.asarray(x)


def _trajectory(eng: BatchedScum, seed: int, steps: int) -> list[tuple[np.ndarray, ...]]:
    obs, mask, to_act = eng.reset(seed)
    policy = RandomPolicy(7)
    out = []
    for _ in range(steps):
        seen = (_to_np(obs).copy(), _to_np(mask).copy(), _to_np(to_act).copy())
        res = eng.step(policy(None, seen[1]))
        out.append((*seen, _to_np(res.rewards).copy(), _to_np(res.done).copy()))
        obs, mask, to_act = res.obs, res.mask, res.to_act
    return out


@pytest.mark.parametrize(
    "config", [{"num_players": 4}, {"num_players": 7, "color_clash": True, "carousel": True}]
)
def test_same_seed_and_n_give_the_same_games(config: dict) -> None:
    a = _trajectory(BatchedScum(32, **config), 11, 150)
    b = _trajectory(BatchedScum(32, **config), 11, 150)
    for x, y in zip(a, b, strict=True):
        for u, v in zip(x, y, strict=True):
            assert np.array_equal(u, v)


def test_other_seed_gives_other_deals() -> None:
    a = BatchedScum(8).reset(1)[0].copy()
    b = BatchedScum(8).reset(2)[0].copy()
    assert not np.array_equal(a, b)


def test_a_games_deal_does_not_depend_on_n() -> None:
    small = BatchedScum(3)
    big = BatchedScum(50)
    small.reset(9)
    big.reset(9)
    for g in range(3):
        assert np.array_equal(small.game_view(g)["hands"], big.game_view(g)["hands"])
        assert small.game_view(g)["order"] == big.game_view(g)["order"]


def test_deal_gives_every_card_once_president_first() -> None:
    """J1/J4: 54 cards per deck; the first players from the President get the extra cards."""
    eng = BatchedScum(20, num_players=8)
    eng.reset(4)
    rules = eng.rules
    for g in range(20):
        view = eng.game_view(g)
        assert np.array_equal(view["hands"].sum(axis=0), rules.deck)
        sizes = [int(view["hands"][p].sum()) for p in view["order"]]
        assert sizes == [14, 14, 14, 14, 13, 13, 13, 13]


@pytest.mark.parametrize(
    "config",
    [
        {"num_players": 5},
        {"num_players": 6, "color_clash": True, "wild_queen": True},
        {"num_players": 9, "carousel": True, "trade_rules": "spanish"},
        {"num_players": 4, "episode": "game", "target_score": 6, "reward": "centered"},
    ],
)
def test_torch_cpu_equals_numpy(config: dict) -> None:
    steps = 60 * config["num_players"] + 100
    a = _trajectory(BatchedScum(24, **config), 3, steps)
    b = _trajectory(BatchedScum(24, backend="torch", **config), 3, steps)
    assert sum(int(x[4].sum()) for x in a) > 0  # episodes ended in the run
    for x, y in zip(a, b, strict=True):
        for u, v in zip(x, y, strict=True):
            assert np.array_equal(u, v)


def test_series_restart_continues_the_game_with_trades() -> None:
    """A finished series restarts as the next series (J3 seating by finish, J5 trades)."""
    eng = BatchedScum(16, num_players=5)
    _, mask, _ = eng.reset(0)
    policy = RandomPolicy(1)
    for _ in range(400):
        before = [eng.game_view(g) for g in range(16)]
        res = eng.step(policy(None, mask))
        mask = res.mask
        for g in np.flatnonzero(res.done):
            old, new = before[g], eng.game_view(g)
            points = res.rewards[g].astype(int)
            finish = sorted(range(5), key=lambda p: -points[p])
            assert new["order"] == finish
            assert np.array_equal(new["scores"], old["scores"] + points)
            assert new["series"] == old["series"] + 1
            president, scum = new["order"][0], new["order"][-1]
            assert new["given"][scum].sum() == 2 and new["received"][president].sum() == 2
            assert new["phase"] == 0 and new["to_act"] == president  # gives back two (J5)
            return
    pytest.fail("no series ended")


def test_autoreset_off_keeps_finished_games_over() -> None:
    eng = BatchedScum(4, autoreset=False)
    _, mask, _ = eng.reset(0)
    policy = RandomPolicy(0)
    finished = np.zeros(4, dtype=bool)
    for _ in range(400):
        res = eng.step(policy(None, mask))
        finished |= res.done
        mask = res.mask
        assert not res.mask[finished].any()
        if finished.all():
            return
    pytest.fail("games did not finish")


def test_inactive_games_are_untouched() -> None:
    eng = BatchedScum(6)
    obs, mask, _ = eng.reset(0)
    before = obs.copy()
    active = np.array([True, False, True, False, True, False])
    res = eng.step(RandomPolicy(0)(None, mask), active=active)
    assert np.array_equal(res.obs[~active], before[~active])
    assert not np.array_equal(res.obs[active], before[active])


def test_observation_layout_matches_scum_v0() -> None:
    eng = BatchedScum(2, num_players=6, color_clash=True)
    obs, mask, _ = eng.reset(0)
    rules = scum_rules(ScumConfig(num_players=6, color_clash=True))
    assert obs.shape == (2, observation_spec(rules).size)
    assert mask.shape == (2, rules.num_actions) and mask.dtype == np.int8


def test_illegal_action_raises_and_changes_nothing() -> None:
    eng = BatchedScum(3)
    obs, mask, _ = eng.reset(0)
    actions = mask.argmax(axis=1)
    actions[1] = 0  # passing while leading (J6)
    before = obs.copy()
    with pytest.raises(IllegalActionError, match="game 1"):
        eng.step(actions)
    assert np.array_equal(eng.step(mask.argmax(axis=1)).obs.shape, before.shape)


def test_bad_inputs_raise_named_errors() -> None:
    with pytest.raises(ConfigError):
        BatchedScum(0)
    with pytest.raises(ConfigError):
        BatchedScum(2, num_players=3)
    with pytest.raises(ConfigError):
        BatchedScum(2, backend="jax")
    eng = BatchedScum(2)
    with pytest.raises(ConfigError):
        eng.reset(-1)
    with pytest.raises(PresetError):
        eng.reset(0, roles=[[0, 1, 2, 2], [0, 1, 2, 3]])
    with pytest.raises(PresetError):
        eng.reset(0, hands=np.full((2, 4, 14), 3))
    with pytest.raises(PresetError):
        eng.reset(0, trade=[True, False, True])
    with pytest.raises(PresetError):
        eng.reset(0, trade=1)
    with pytest.raises(IllegalActionError):
        BatchedScum(2).step([1, 1])
    with pytest.raises(IllegalActionError):
        eng.reset(0)
        eng.step([1, 2, 3])


def test_sharded_threads_play_exactly_like_one_batch() -> None:
    one = BatchedScum(50, num_players=6, carousel=True)
    sharded = ShardedScum(50, threads=3, num_players=6, carousel=True)
    try:
        a = _trajectory(one, 8, 250)
        b = _trajectory(sharded, 8, 250)  # type: ignore[arg-type]
    finally:
        sharded.close()
    assert sum(int(x[4].sum()) for x in a) > 0
    for x, y in zip(a, b, strict=True):
        for u, v in zip(x, y, strict=True):
            assert np.array_equal(u, v)
