"""The batched Scandal engine's contract: backends, determinism, presets, errors, autoreset."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cardsuite.errors import ConfigError, IllegalActionError, PresetError, UsageError
from scandal_env.batched import BatchedScandal
from tests.scandal_batched.differential import host


def random_actions(rng: np.random.Generator, mask: Any) -> np.ndarray:
    """One uniformly random legal action per game (vectorised)."""
    m = host(mask).astype(bool)
    score = rng.random(m.shape) * m
    return np.asarray(score.argmax(axis=1), dtype=np.int64)


def play(eng: BatchedScandal, seed: int, steps: int) -> list[tuple[np.ndarray, ...]]:
    """Play ``steps`` random steps; every step's outputs as numpy."""
    rng = np.random.default_rng(seed)
    obs, mask, to_act = eng.reset(seed)
    out: list[tuple[np.ndarray, ...]] = [(host(obs).copy(), host(mask).copy(), host(to_act).copy())]
    for _ in range(steps):
        res = eng.step(random_actions(rng, mask))
        mask = res.mask
        out.append(tuple(host(x).copy() for x in (res.obs, res.mask, res.to_act, res.rewards,
                                                  res.done, res.truncated)))  # fmt: skip
    return out


def test_numpy_and_torch_play_identical_games() -> None:
    pytest.importorskip("torch")
    config: dict[str, Any] = {
        "num_players": 3,
        "episode": "game",
        "target_score": 60,
        "max_turns": 60,
    }
    a = play(BatchedScandal(48, **config), seed=5, steps=250)
    b = play(BatchedScandal(48, backend="torch", **config), seed=5, steps=250)
    for t, (x, y) in enumerate(zip(a, b, strict=True)):
        for u, v in zip(x, y, strict=True):
            assert np.array_equal(u, v), f"backends differ at step {t}"
    assert any(step[4].any() for step in a[1:])  # episodes ended and restarted


def test_deals_depend_on_game_index_only() -> None:
    small = BatchedScandal(3, num_players=4)
    big = BatchedScandal(9, num_players=4)
    shard = BatchedScandal(6, num_players=4, game_offset=3)
    o1, m1, t1 = (host(x).copy() for x in small.reset(seed=7))
    o2, m2, t2 = (host(x).copy() for x in big.reset(seed=7))
    o3 = host(shard.reset(seed=7)[0]).copy()
    assert np.array_equal(o1, o2[:3]) and np.array_equal(m1, m2[:3]) and np.array_equal(t1, t2[:3])
    assert np.array_equal(o3, o2[3:])
    assert not np.array_equal(o2[0], o2[1])  # games are dealt differently
    o4 = host(BatchedScandal(3, num_players=4).reset(seed=8)[0])
    assert not np.array_equal(o1, o4)


def test_illegal_action_raises_and_changes_nothing() -> None:
    eng = BatchedScandal(4, num_players=2)
    _, mask, _ = eng.reset(seed=1)
    before = {k: host(v).copy() for k, v in eng.state_arrays().items()}
    actions = random_actions(np.random.default_rng(0), mask)
    bad = int(np.flatnonzero(host(mask)[2] == 0)[0])
    actions[2] = bad
    with pytest.raises(IllegalActionError, match=r"game 2: player_\d: illegal action"):
        eng.step(actions)
    actions[2] = 10_000
    with pytest.raises(IllegalActionError, match="out of range"):
        eng.step(actions)
    with pytest.raises(IllegalActionError, match="got 3"):
        eng.step(actions[:3])
    with pytest.raises(IllegalActionError, match="integer action ids"):
        eng.step(actions + 0.5)
    with pytest.raises(IllegalActionError, match="integer action ids"):
        eng.step(np.zeros(4, dtype=bool))
    with pytest.raises(UsageError, match="active must be 4 bools"):
        eng.step(actions, active=[True, False])
    for k, v in eng.state_arrays().items():
        assert np.array_equal(host(v), before[k]), k
    eng.step(random_actions(np.random.default_rng(0), mask))  # still playable


def test_step_before_reset_and_bad_config() -> None:
    with pytest.raises(IllegalActionError, match="reset"):
        BatchedScandal(2).step([0, 0])
    with pytest.raises(ConfigError, match="num_games"):
        BatchedScandal(0)
    with pytest.raises(ConfigError, match="num_players"):
        BatchedScandal(2, num_players=7)
    with pytest.raises(ConfigError, match="seed"):
        BatchedScandal(2).reset(seed=-1)


def test_inactive_games_are_untouched() -> None:
    eng = BatchedScandal(4, num_players=2)
    _, mask, _ = eng.reset(seed=3)
    before = host(eng.hands).copy()
    active = np.array([True, False, True, False])
    actions = random_actions(np.random.default_rng(1), mask)
    actions[~active] = 9999  # ignored
    eng.step(actions, active=active)
    after = host(eng.hands)
    assert np.array_equal(after[1], before[1]) and np.array_equal(after[3], before[3])
    assert not np.array_equal(after[0], before[0])


def test_without_autoreset_a_finished_game_stays_over() -> None:
    eng = BatchedScandal(16, num_players=2, max_turns=4, autoreset=False)
    rng = np.random.default_rng(2)
    _, mask, _ = eng.reset(seed=2)
    finished = np.zeros(16, dtype=bool)
    for _ in range(200):
        res = eng.step(random_actions(rng, mask))
        mask = res.mask
        finished |= host(res.done)
        assert not host(res.mask)[finished].any()  # all-zero masks
        if finished.all():
            break
    assert finished.all()
    res = eng.step(np.zeros(16, dtype=np.int64))  # actions of finished games are ignored
    assert not host(res.done).any()


def _preset_arrays(eng: BatchedScandal) -> dict[str, Any]:
    n = eng.t.n
    g, p = eng.num_games, eng.P
    hands = np.zeros((g, p, n), dtype=bool)
    hands[:, 0, :40] = True
    hands[:, 1, 40:79] = True
    discard = np.full((g, n), -1)
    discard[:, 0] = 79
    stock = np.full((g, n), -1)
    return {"hands": hands, "discard": discard, "stock": stock}


def test_s7_one_card_pile_turned_over_may_not_be_discarded() -> None:
    """S7: with an empty stock and a one-card pile, drawing the stock turns the pile
    over and draws its card, which was the top discard: it may not be discarded."""
    eng = BatchedScandal(2, num_players=2)
    preset = _preset_arrays(eng)
    _, mask, to_act = eng.reset(seed=0, dealer=np.array([1, 1]), **preset)
    lay = eng.rules.layout
    assert host(to_act).tolist() == [0, 0]
    m = host(mask)
    assert m[0, lay.DRAW_STOCK] == 1 and m[0, lay.DRAW_DISCARD] == 1
    res = eng.step([lay.DRAW_STOCK, lay.DRAW_DISCARD])
    m = host(res.mask)
    for g in range(2):
        assert m[g, lay.DISCARD + 79] == 0  # the drawn card (S7)
        assert m[g, lay.DISCARD : lay.DISCARD + 40].all()
    assert host(eng.stock_public).tolist() == [True, False]


def test_preset_errors_name_the_field() -> None:
    eng = BatchedScandal(2, num_players=2)
    preset = _preset_arrays(eng)
    with pytest.raises(PresetError, match="discard and stock"):
        eng.reset(hands=preset["hands"])
    twice = {k: v.copy() for k, v in preset.items()}
    twice["stock"][1, 0] = 3  # card 3 is also in hand 0
    with pytest.raises(PresetError, match=r"game 1: every card must be in exactly one place"):
        eng.reset(**twice)
    gap = {k: v.copy() for k, v in preset.items()}
    gap["discard"][0, 2] = 5
    with pytest.raises(PresetError, match="padding"):
        eng.reset(**gap)
    with pytest.raises(PresetError, match="dealer"):
        eng.reset(dealer=np.array([0, 2]))
    with pytest.raises(PresetError, match="hands must be bools"):
        eng.reset(hands=np.zeros((2, 2, 3), bool), discard=preset["discard"], stock=preset["stock"])
    empty = {k: v.copy() for k, v in preset.items()}
    empty["hands"][0, 1] = False
    empty["stock"][0, :39] = np.arange(40, 79)
    with pytest.raises(PresetError, match="every player needs a card"):
        eng.reset(**empty)
    with pytest.raises(PresetError, match="scores"):
        eng.reset(scores=np.zeros((2, 3)))


def test_preset_scores_end_the_match() -> None:
    """S9: the game ends after the hand in which someone reaches the target, not before."""
    eng = BatchedScandal(
        16, num_players=2, episode="game", target_score=500, max_turns=6, autoreset=False
    )
    rng = np.random.default_rng(4)
    start = np.tile(np.array([[440, 499]]), (16, 1))
    _, mask, _ = eng.reset(seed=4, scores=start)
    hand_no = host(eng.hand_no).copy()
    ended_hands = 0
    for _ in range(120):
        res = eng.step(random_actions(rng, mask))
        mask = res.mask
        done, scores = host(res.done), host(eng.scores)
        ended = done | (host(eng.hand_no) != hand_no)
        ended_hands += int(ended.sum())
        reached = scores.max(axis=1) >= 500
        assert np.array_equal(done[ended], reached[ended])
        assert not host(res.truncated)[done].any()
        hand_no = host(eng.hand_no).copy()
    assert ended_hands > 0


def test_memory_and_layout() -> None:
    eng = BatchedScandal(4, num_players=6)
    obs, mask, _ = eng.reset(seed=0)
    assert obs.shape == (4, eng.obs_dim) and obs.dtype == np.float32
    assert mask.shape == (4, eng.num_actions) and mask.dtype == np.int8
    assert eng.num_actions == eng.rules.layout.size
    assert 0 < eng.bytes_per_game() < 20_000
    view = eng.game_view(0)
    assert sum(len(h) for h in view["hands"]) == 36 and len(view["discard"]) == 1


def test_s8_last_card_may_not_be_laid_off() -> None:
    """S8: a player can never lay off their last card, even on a melded scandal;
    with two cards left one of them may be laid off (the other is discarded)."""
    eng = BatchedScandal(1, num_players=2)
    lay, n = eng.rules.layout, eng.t.n
    # Player 0 (the non-dealer) holds Watergate's title, its blue cards 17 and 18,
    # its red card 38; the stock's top is Watergate's black card 51.
    hands = np.zeros((1, 2, n), dtype=bool)
    hands[0, 0, [2, 17, 18, 38]] = True
    hands[0, 1, [0, 23, 36, 48, 1, 16]] = True
    rest = [c for c in range(n) if not hands[0, :, c].any()]
    rest.remove(51)
    discard = np.full((1, n), -1)
    discard[0, 0] = rest.pop()
    stock = np.full((1, n), -1)
    stock[0, : len(rest) + 1] = [51, *rest]
    _, mask, to_act = eng.reset(hands=hands, discard=discard, stock=stock, dealer=np.array([1]))
    assert int(host(to_act)[0]) == 0
    pair = eng.rules.pair_of
    steps = [
        lay.DRAW_STOCK,  # hand: 2 17 18 38 51
        lay.MELD_START + 2,  # S5: title of Watergate
        lay.MELD_ADD + 17,
        lay.MELD_ADD + 18,
        lay.MELD_FINISH,  # hand: 38 51
        lay.LAYOFF + int(pair[38, 2]),  # S6: two cards left, one may go; hand: 51
    ]
    for a in steps:
        assert host(mask)[0, a] == 1, a
        mask = eng.step([a]).mask
    legal = np.flatnonzero(host(mask)[0]).tolist()
    assert legal == [lay.DISCARD + 51]  # not LAYOFF of 51 on Watergate (S8)
