"""Batched Scum Party engine: backends, shards, streams, errors and memory."""

from __future__ import annotations

import numpy as np
import pytest

from cardsuite.batched import RandomPolicy
from cardsuite.errors import ConfigError, IllegalActionError, PresetError
from scum_env.party.batched import BatchedParty, ShardedParty


def _play(eng: BatchedParty | ShardedParty, steps: int, seed: int = 0) -> list[np.ndarray]:
    """Random play from numpy masks; every step's (obs, mask, to_act, rewards, done)."""
    _obs, mask, _to_act = eng.reset(seed)
    rng = np.random.default_rng(7)
    out = []
    for _ in range(steps):
        m = np.asarray(mask.cpu() if hasattr(mask, "cpu") else mask)
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in m])
        res = eng.step(actions)
        host = [np.asarray(x.cpu()) if hasattr(x, "cpu") else np.array(x) for x in
                (res.obs, res.mask, res.to_act, res.rewards, res.done)]  # fmt: skip
        out.append(
            np.concatenate([h.reshape(len(actions), -1).astype(np.float64) for h in host], 1)
        )
        mask = res.mask
    return out


def test_numpy_and_torch_play_identical_games() -> None:
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    config = {"num_players": 23, "num_hands": 1}
    a = _play(BatchedParty(5, **config), 900)  # type: ignore[arg-type]
    b = _play(BatchedParty(5, backend="torch", **config), 900)  # type: ignore[arg-type]
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_shards_play_like_one_batch() -> None:
    config = {"num_players": 16, "num_hands": 1}
    a = _play(BatchedParty(7, **config), 700)  # type: ignore[arg-type]
    sharded = ShardedParty(7, threads=3, **config)  # type: ignore[arg-type]
    b = _play(sharded, 700)
    sharded.close()
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_a_game_deals_the_same_whatever_the_batch() -> None:
    big = BatchedParty(8, num_players=50)
    small = BatchedParty(1, num_players=50, game_offset=5)
    obs_big, _, act_big = big.reset(11)
    obs_small, _, act_small = small.reset(11)
    assert np.array_equal(obs_big[5], obs_small[0]) and act_big[5] == act_small[0]
    assert big.game_view(5)["members"] == small.game_view(0)["members"]
    assert all(
        np.array_equal(x, y)
        for x, y in zip(big.game_view(5)["hands"], small.game_view(0)["hands"], strict=True)
    )


def test_illegal_action_raises_and_changes_nothing() -> None:
    eng = BatchedParty(3, num_players=8)
    obs, mask, _ = eng.reset(0)
    before = obs.copy()
    actions = RandomPolicy(0)(obs, mask)
    actions[1] = 0  # the leader may not pass
    with pytest.raises(IllegalActionError, match="game 1: player_"):
        eng.step(actions)
    assert np.array_equal(eng._observe()[0], before)
    with pytest.raises(IllegalActionError):
        eng.step(np.array([1_000, 0, 0]))
    with pytest.raises(IllegalActionError, match="needs 3 integer action ids, got 1"):
        eng.step(np.array([1]))


def test_step_before_reset_and_bad_config() -> None:
    with pytest.raises(IllegalActionError):
        BatchedParty(1, num_players=5).step(np.array([1]))
    with pytest.raises(ConfigError):
        BatchedParty(0, num_players=5)
    with pytest.raises(ConfigError):
        BatchedParty(2, num_players=4)
    with pytest.raises(ConfigError):
        BatchedParty(2, num_players=10, table_sizes="6,3")


def test_bad_presets_name_what_is_wrong() -> None:
    eng = BatchedParty(2, num_players=5)
    with pytest.raises(PresetError, match="seating"):
        eng.reset(0, seating=np.zeros((2, 5), dtype=np.int64))
    with pytest.raises(PresetError, match="seating"):
        eng.reset(0, seating=np.arange(5)[None])
    too_many = np.zeros((2, 5, 14), dtype=np.int64)
    too_many[:, :, 13] = 1  # five Jokers at a two-deck table (P1)
    with pytest.raises(PresetError, match="pack"):
        eng.reset(0, hands=too_many)
    with pytest.raises(PresetError, match="at least one card"):
        eng.reset(0, hands=np.zeros((2, 5, 14), dtype=np.int64))
    with pytest.raises(PresetError, match="trade"):
        eng.reset(0, trade=np.array([1, 0]))
    with pytest.raises(PresetError, match="scores"):
        eng.reset(0, scores=np.zeros((2, 4), dtype=np.int64))
    with pytest.raises(ConfigError, match="seed"):
        eng.reset(-1)


def test_memory_per_game_is_reported() -> None:
    small = BatchedParty(4, num_players=8).bytes_per_game()
    large = BatchedParty(4, num_players=50).bytes_per_game()
    assert 0 < small < large < 16_000
