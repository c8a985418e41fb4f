"""Differential tests: the batched Scandal heuristic's array code against `ScandalPolicy`.

`BatchedScandalHeuristic` decides draws and discards as array operations over
all rows (`ScandalArrays.playable`, `ScandalArrays.usefulness`, one ranking
sort). Every choice must equal the per-game `ScandalPolicy.choose` of the same
view, row for row:

* on positions of real play (batched engines of 2 to 6 players, hands and
  whole games, heuristic and random moves mixed), at every repeat count (S4:
  0 is the rollout heuristic of ISMCTS, 1.. the repeat-memory choices);
* `playable` and `usefulness` on random hands, melds and piles (hypothesis),
  many gold cards included (the only cards shared by several scandals, S1).

The lockstep test with the repeat memories (`test_batched_heuristic_scandal.py`)
covers the memory bookkeeping.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardsuite.agents.baselines.batched_scandal import BatchedScandalHeuristic, ScandalArrays
from cardsuite.agents.baselines.scandal import ScandalPolicy, ScandalReader, ScandalView
from cardsuite.errors import UsageError
from scandal_env.batched import BatchedScandal
from scandal_env.config import ScandalConfig
from scandal_env.encoding import obs_spec
from scandal_env.state import make_rules

_POLICY = ScandalPolicy(ScandalConfig(num_players=2))
_ARRAYS = ScandalArrays(_POLICY)
_N, _NS = _POLICY.n, _POLICY.ns
_SPEC = obs_spec(make_rules(ScandalConfig(num_players=2)))


def _compare_play(
    config: dict[str, Any], games: int, steps: int, seed: int, **params: Any
) -> dict[str, int]:
    """Play a batch (heuristic and random moves), comparing every row at every step.

    Returns how often each path of the heuristic was taken (to show it was tested).
    """
    eng = BatchedScandal(games, **config)
    fast = BatchedScandalHeuristic(eng.config, eng.obs_spec, **params)
    plain = BatchedScandalHeuristic(eng.config, eng.obs_spec, repeat_memory=False, **params)
    reader = ScandalReader(eng.config, eng.obs_spec)
    policy = ScandalPolicy(eng.config, **params)
    lay = policy.lay
    rng = np.random.default_rng(seed)
    obs, mask, _ = eng.reset(seed)
    seen = dict.fromkeys(("rows", "deep", "top", "stock", "discard", "discard_repeat"), 0)
    for t in range(steps):
        mask_b = mask.astype(bool)
        repeat = np.where(rng.random(games) < 0.3, rng.integers(1, 5, games), 0)
        got = fast.choose_with_repeats(obs, mask_b, repeat)
        first = plain(obs, mask_b)
        for i in range(games):
            view = reader.view(obs[i], mask_b[i])
            want = policy.choose(view, int(repeat[i]))
            assert got[i] == want, f"step {t}, row {i}, repeat {repeat[i]} ({config})"
            if repeat[i] == 0:
                assert first[i] == want, f"step {t}, row {i}, no memory ({config})"
            a = int(want)
            seen["rows"] += 1
            seen["deep"] += lay.DRAW_DISCARD < a < lay.MELD_START
            seen["top"] += a == lay.DRAW_DISCARD
            seen["stock"] += a == lay.DRAW_STOCK
            if a >= lay.DISCARD:
                seen["discard"] += 1
                seen["discard_repeat"] += int(repeat[i] > 0 and a != policy.choose(view, 0))
        actions = got.copy()
        explore = np.flatnonzero(rng.random(games) < 0.3)
        for i in explore.tolist():
            actions[i] = rng.choice(np.flatnonzero(mask_b[i]))
        res = eng.step(actions)
        obs, mask = res.obs, res.mask
    assert fast.fallbacks == 0 and plain.fallbacks == 0, "engine positions need no fallback"
    assert not fast.memory, "choose_with_repeats must not touch the memory"
    return seen


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_choices_equal_the_per_game_policy_row_for_row(num_players: int) -> None:
    seen = _compare_play({"num_players": num_players}, games=12, steps=110, seed=num_players)
    assert seen["rows"] == 12 * 110
    for path in ("deep", "top", "stock", "discard", "discard_repeat"):
        assert seen[path] > 0, f"path {path} not exercised: {seen}"


def test_choices_equal_in_whole_games_with_other_knobs() -> None:
    """Game episodes (hands restart, S4 limits) and other take_cost / deep_margin."""
    config = {"num_players": 3, "episode": "game", "target_score": 60, "max_hands": 3}
    seen = _compare_play(config, games=10, steps=160, seed=11, take_cost=0.5, deep_margin=5.0)
    assert seen["deep"] > 0 and seen["discard_repeat"] > 0


_bits = st.integers(min_value=0, max_value=(1 << _N) - 1)


def _mask(bits: int, size: int) -> np.ndarray:
    return np.array([(bits >> i) & 1 for i in range(size)], dtype=bool)


@settings(max_examples=300, deadline=None)
@given(hand=_bits, golds=st.integers(0, 127), melded=st.integers(0, (1 << _NS) - 1))
def test_playable_equals_the_per_game_pass(hand: int, golds: int, melded: int) -> None:
    """Same points and cards as the greedy pass over the 16 scandals (gold cards shared)."""
    h = _mask(hand, _N)
    h[np.flatnonzero(_POLICY.deck.is_gold)] |= _mask(golds, 7)
    m = _mask(melded, _NS)
    pts, used = _ARRAYS.playable(h[None], m[None])
    want_pts, want_used = _POLICY.playable(h, m)
    assert pts[0] == want_pts
    assert set(np.flatnonzero(used[0]).tolist()) == want_used


@settings(max_examples=300, deadline=None)
@given(hand=_bits, opp=_bits, pile=_bits, melded=st.integers(0, (1 << _NS) - 1))
def test_usefulness_equals_the_per_game_one(hand: int, opp: int, pile: int, melded: int) -> None:
    h, o, p = _mask(hand, _N), _mask(opp, _N), _mask(pile, _N)
    m = _mask(melded, _NS)
    got = _ARRAYS.usefulness(h[None], m[None], o[None], p[None])[0]
    view = ScandalView(h, m, np.flatnonzero(p).tolist(), o, 1, -1, -1, np.zeros(1, bool))
    want = [_POLICY.usefulness(view, c) for c in range(_N)]
    assert got.tolist() == want


def _draw_rows(num_players: int = 2) -> tuple[BatchedScandal, np.ndarray, np.ndarray]:
    """A batch some way into its hands, and the rows at a draw with a pile."""
    eng = BatchedScandal(32, num_players=num_players)
    player = BatchedScandalHeuristic(eng.config, eng.obs_spec)
    obs, mask, _ = eng.reset(3)
    for _ in range(40):
        res = eng.step(player(obs, mask))
        obs, mask = res.obs, res.mask
    return eng, obs, mask.astype(bool)


def test_a_deep_draw_deeper_than_the_pile_falls_back_and_is_counted() -> None:
    """No engine position has one; a made-up mask gets the per-game answer, row by row."""
    eng, obs, mask = _draw_rows()
    fast = BatchedScandalHeuristic(eng.config, eng.obs_spec, repeat_memory=False)
    reader = ScandalReader(eng.config, eng.obs_spec)
    policy = ScandalPolicy(eng.config)
    lay = policy.lay
    phase = obs[:, eng.obs_spec.slices["phase"]].argmax(axis=1)
    size = (obs[:, eng.obs_spec.slices["discard_in"]] > 0.5).sum(axis=1)
    rows = np.flatnonzero((phase == 0) & (size > 0) & (size < lay.MELD_START - lay.DRAW_DISCARD))
    assert rows.size >= 2
    odd = rows[:2]
    mask[odd, lay.DRAW_DISCARD + size[odd]] = True  # depth = pile size: one card too deep
    got = fast(obs, mask)
    assert fast.fallbacks == 2
    want = [policy.choose(reader.view(obs[i], mask[i])) for i in range(obs.shape[0])]
    assert got.tolist() == want


def test_without_memory_a_position_met_again_is_played_the_same() -> None:
    eng, obs, mask = _draw_rows(3)
    plain = BatchedScandalHeuristic(eng.config, eng.obs_spec, repeat_memory=False)
    fast = BatchedScandalHeuristic(eng.config, eng.obs_spec)
    assert plain(obs, mask).tolist() == plain(obs, mask).tolist() == fast(obs, mask).tolist()
    again = fast(obs, mask)
    first = plain(obs, mask)
    assert (again != first).any(), "a repeated position changes some choice (S4)"
    assert not plain.memory


def test_bad_repeats_and_rows_without_moves_are_refused() -> None:
    eng, obs, mask = _draw_rows()
    fast = BatchedScandalHeuristic(eng.config, eng.obs_spec)
    m = obs.shape[0]
    with pytest.raises(UsageError, match="repeat"):
        fast.choose_with_repeats(obs, mask, np.zeros(m - 1, np.int64))
    with pytest.raises(UsageError, match="repeat"):
        fast.choose_with_repeats(obs, mask, -np.ones(m, np.int64))
    with pytest.raises(UsageError, match="repeat"):
        fast.choose_with_repeats(obs, mask, np.zeros(m))
    phase = obs[:, eng.obs_spec.slices["phase"]].argmax(axis=1)
    row = int(np.flatnonzero(phase == 0)[0])
    mask[row] = False
    with pytest.raises(UsageError, match=f"row {row} has no legal action"):
        fast(obs, mask)


def _draw_obs(
    hand: set[int], pile: list[int], melded: list[int], stock: int, deep: list[int]
) -> tuple[np.ndarray, np.ndarray]:
    """A 2-player draw observation and mask: ``pile`` bottom first, ``deep`` the legal depths."""
    sl, lay = _SPEC.slices, _POLICY.lay
    obs = np.zeros(_SPEC.size, dtype=np.float32)
    obs[sl["hand"].start + np.array(sorted(hand), dtype=np.int64)] = 1.0
    obs[sl["melded_by"].start + np.array(melded, dtype=np.int64)] = 1.0
    for pos, c in enumerate(pile):  # depth 0 is the top
        obs[sl["discard_in"].start + c] = 1.0
        obs[sl["discard_depth"].start + c] = (len(pile) - 1 - pos) / (_N - 1)
    obs[sl["stock_size"].start] = stock / _N
    obs[sl["phase"].start] = 1.0  # DRAW
    mask = np.zeros(lay.size, dtype=bool)
    mask[lay.DRAW_STOCK] = stock > 0
    mask[lay.DRAW_DISCARD] = bool(pile)
    mask[lay.DRAW_DISCARD + np.array(deep, dtype=np.int64)] = True
    if not mask.any():
        mask[lay.DRAW_STOCK] = True
    return obs, mask


@st.composite
def _draw_position(draw: Any) -> tuple[np.ndarray, np.ndarray, int]:
    """A made-up draw position around one or two scandals: their cards split between
    the hand and the pile, a few others, a stock of 0-3 cards (the last-cards rule of
    `ScandalPolicy.best_deep_draw`), every deep draw legal or not at random."""
    scandals = draw(st.lists(st.integers(0, _NS - 1), min_size=1, max_size=2, unique=True))
    cards = sorted({c for s in scandals for c in _POLICY.cards_of[s]})
    where = draw(st.lists(st.sampled_from("hpx"), min_size=len(cards), max_size=len(cards)))
    others = draw(st.lists(st.integers(0, _N - 1), max_size=6, unique=True))
    others_where = draw(st.lists(st.sampled_from("hp"), min_size=len(others), max_size=len(others)))
    hand = {c for c, w in zip(cards, where) if w == "h"}
    pile = [c for c, w in zip(cards, where) if w == "p"]
    for c, w in zip(others, others_where):
        if c in hand or c in pile:
            continue
        if w == "h":
            hand.add(c)
        else:
            pile.append(c)
    pile = draw(st.permutations(pile))
    melded = draw(st.lists(st.integers(0, _NS - 1), max_size=3))
    stock = draw(st.integers(0, 3))
    deep = [d for d in range(1, len(pile)) if draw(st.booleans())]
    obs, mask = _draw_obs(hand, pile, melded, stock, deep)
    return obs, mask, draw(st.integers(0, 2))


@settings(max_examples=400, deadline=None)
@given(position=_draw_position())
def test_deep_draws_near_the_last_cards_equal_the_per_game_choice(
    position: tuple[np.ndarray, np.ndarray, int],
) -> None:
    obs, mask, repeat = position
    fast = BatchedScandalHeuristic({"num_players": 2}, _SPEC)
    reader = ScandalReader(fast.config, _SPEC)
    got = fast.choose_with_repeats(obs[None], mask[None], np.array([repeat]))
    assert int(got[0]) == _POLICY.choose(reader.view(obs, mask), repeat)
    assert fast.fallbacks == 0


_DEEP = _POLICY.lay.DRAW_DISCARD + 1


@pytest.mark.parametrize(
    ("hand", "pile", "stock", "want"),
    [
        # the last two cards make four of scandal 0 with the title: all laid down, out (S8)
        ({0, 23}, [48, 36], 0, _DEEP),
        # three cards laid down, none left to discard: not out, so not the last cards
        ({0}, [23, 36], 0, _POLICY.lay.DRAW_DISCARD),
        # the same with cards left in the stock: the deep draw pays
        ({0}, [23, 36], 5, _DEEP),
        # two melds of three and nothing left to discard, in no common scandal: not out
        ({0, 23, 1, 16}, [49, 36], 0, _POLICY.lay.DRAW_DISCARD),
    ],
)
def test_the_last_cards_are_drawn_only_to_go_out(
    hand: set[int], pile: list[int], stock: int, want: int
) -> None:
    """`ScandalPolicy.best_deep_draw`: a deep draw leaving at most one card in the
    stock and pile (S4) is taken only when it goes out (S8)."""
    obs, mask = _draw_obs(hand, pile, [], stock, [1])
    reader = ScandalReader(ScandalConfig(num_players=2), _SPEC)
    assert _POLICY.choose(reader.view(obs, mask)) == want
    fast = BatchedScandalHeuristic({"num_players": 2}, _SPEC, repeat_memory=False)
    assert fast(obs[None], mask[None]).tolist() == [want]
