"""The compiled heuristic (`cardsuite.agents.search.kernels.scandal_heuristic`) against its truths.

* its choices (`choose_rows`, the kernel's picks) against the per-game definition,
  ``ScandalPolicy.choose``, on positions of real 2- to 6-player play
  (heuristic and random moves) and with other knobs;
* `play_out`, each row played on its own, against the loop the search runs
  without numba: every row stepped together with ``BatchedScandal.step`` and
  ``BatchedScandalHeuristic(repeat_memory=False)``. Every state
  array must end the same, row for row, with and without a cutoff; the hands
  played to their end reach the ways a hand ends (going out, S8; the turn
  limit, S4) and turn the pile over (S4).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cardsuite.agents.baselines.batched_scandal import BatchedScandalHeuristic
from cardsuite.agents.baselines.scandal_rule import ScandalPolicy, view_from_state
from cardsuite.errors import UsageError
from scandal_env.batched import BatchedScandal
from scandal_env.batched.bridge import load_states, write_states
from scandal_env.batched.consts import END_MAX_TURNS, END_OUT, OVER
from scandal_env.config import ScandalConfig
from scandal_env.state import clone
from tests.scandal.real_play import (
    ROLLOUT_FIELDS,
    compiled_module,
    engine_arrays,
    heuristic_positions,
)

rollout = compiled_module("cardsuite.agents.search.kernels.scandal_heuristic")


def positions(num_players: int, count: int, seed: int, explore: float, **options: Any) -> list[Any]:
    """``count`` states of real play (a quarter of those reached), random moves at ``explore``."""
    return heuristic_positions(num_players, count, seed, explore=explore, keep=0.25, **options)


def lockstep(eng: BatchedScandal, states: list[Any] | int, cutoff: int, policy: Any = None) -> int:
    """The search's loop without compiled rollouts; the steps it took (``states``: the leaf
    states to load, or the number of rows already in the engine; ``policy``: a batch
    policy, by default the memoryless heuristic)."""
    plain = BatchedScandalHeuristic(eng.config, eng.obs_spec, repeat_memory=False)
    policy = plain if policy is None else policy
    if isinstance(states, int):
        m = states
        obs, mask, _ = eng._observe()
    else:
        m = len(states)
        obs, mask, _ = load_states(eng, states)
    steps = 0
    while cutoff == 0 or steps < cutoff:
        mask_h = mask[:m].astype(bool)
        rows = np.flatnonzero(mask_h.any(axis=1))
        if not rows.size:
            break
        actions = np.zeros(eng.num_games, dtype=np.int64)
        actions[rows] = policy(obs[rows], mask_h[rows])
        active = np.zeros(eng.num_games, dtype=bool)
        active[rows] = True
        res = eng.step(actions, active=active)
        obs, mask = res.obs, res.mask
        steps += 1
    assert plain.fallbacks == 0
    return steps


def choose_rows(eng: BatchedScandal, m: int, **knobs: float) -> np.ndarray:
    """``[m]`` the kernel's choice in each of rows ``0 .. m-1``, the move `play_out` would
    play there (the engine is left as it is)."""
    t = rollout.RolloutTables(eng)
    picks = np.full(m, -1, dtype=np.int64)
    knob = (float(knobs.get("take_cost", 0.2)), float(knobs.get("deep_margin", 0.0)))
    steps = np.zeros(m, dtype=np.int64)
    rollout._play_rows(
        m, 0, t.lay, t.tabs, *knob, rollout.base.state_arrays(eng), steps, picks, True
    )
    return picks


@pytest.mark.parametrize(
    ("num_players", "knobs"),
    [(2, {}), (3, {}), (4, {}), (5, {}), (6, {}), (2, {"take_cost": 0.5, "deep_margin": 5.0}),
     (3, {"take_cost": 0.0, "deep_margin": 0.0})],
)  # fmt: skip
def test_compiled_choices_equal_the_per_game_policy(
    num_players: int, knobs: dict[str, float]
) -> None:
    """The third copy of the decision rule, held to the definition state by state."""
    states = positions(num_players, 160, 40 + num_players + len(knobs), explore=0.3)
    eng = BatchedScandal(len(states), num_players=num_players, autoreset=False, episode="hand")
    write_states(eng, states)
    got = choose_rows(eng, len(states), **knobs)
    policy = ScandalPolicy(ScandalConfig(num_players=num_players), **knobs)
    views = [view_from_state(s) for s in states]
    want = [policy.choose(view) for view in views]
    bad = [i for i, (a, b) in enumerate(zip(got.tolist(), want, strict=True)) if a != b]
    assert not bad, f"rows {bad} differ"
    lay = policy.lay
    assert {int(v.phase) for v in views} == {0, 1, 2}, "draw, meld and build positions"
    assert any(lay.DRAW_DISCARD < a < lay.MELD_START for a in want), "a deep draw was chosen"
    assert any(a >= lay.DISCARD for a in want), "a discard was chosen"


CASES = [(2, 0.1, 0), (2, 0.5, 0), (3, 0.3, 0), (4, 0.3, 0), (6, 0.3, 0), (2, 0.3, 30)]


@pytest.mark.parametrize(("num_players", "explore", "max_turns"), CASES)
def test_play_out_ends_every_row_as_the_lockstep_loop(
    num_players: int, explore: float, max_turns: int
) -> None:
    options = {"max_turns": max_turns} if max_turns else {}
    seed = num_players * 10 + int(explore * 10) + max_turns
    states = positions(num_players, 48, seed, explore, **options)
    eng = BatchedScandal(48, num_players=num_players, autoreset=False, episode="hand", **options)
    ends: set[int] = set()
    for cutoff in (0, 40, 3):
        longest = lockstep(eng, [clone(s) for s in states], cutoff)
        want = engine_arrays(eng)
        if cutoff == 0:
            ends = set(want["hand_end"].tolist())
            assert (want["phase"] == OVER).all(), "every hand was played to its end"
        write_states(eng, [clone(s) for s in states])
        played = rollout.play_out(eng, len(states), cutoff)
        assert played.max() == longest
        if cutoff:
            assert played.max() <= cutoff
        for f in ROLLOUT_FIELDS:
            got = getattr(eng, f)
            bad = np.flatnonzero((got != want[f]).reshape(len(states), -1).any(axis=1))
            assert not bad.size, f"cutoff {cutoff}: {f} differs in rows {bad.tolist()}"
    assert END_OUT in ends or max_turns
    assert END_MAX_TURNS in ends or not max_turns


def test_turned_over_piles_end_as_the_lockstep_loop() -> None:
    """Rows far into their hand (stock draws drain the stock): S4 turn-overs, the turn limit."""
    eng = BatchedScandal(64, num_players=2, autoreset=False, episode="hand")
    _obs, mask, _ = eng.reset(7)
    rng = np.random.default_rng(7)
    for _ in range(260):
        m = mask.astype(bool)
        live = m.any(axis=1)
        if not live.any():
            break
        actions = np.zeros(64, dtype=np.int64)
        for i in np.flatnonzero(live).tolist():
            legal = np.flatnonzero(m[i])
            actions[i] = 0 if m[i, 0] and rng.random() < 0.9 else rng.choice(legal)
        mask = eng.step(actions, active=live).mask
    start = engine_arrays(eng)
    running = int((start["phase"] != OVER).sum())
    assert running >= 16
    ends: set[int] = set()
    for cutoff in (0, 25):
        for f in ROLLOUT_FIELDS:
            getattr(eng, f)[:] = start[f]
        lockstep(eng, 64, cutoff)
        want = engine_arrays(eng)
        if cutoff == 0:
            ends = set(want["hand_end"][start["phase"] != OVER].tolist())
        for f in ROLLOUT_FIELDS:
            getattr(eng, f)[:] = start[f]
        rollout.play_out(eng, 64, cutoff)
        for f in ROLLOUT_FIELDS:
            bad = np.flatnonzero((getattr(eng, f) != want[f]).reshape(64, -1).any(axis=1))
            assert not bad.size, f"cutoff {cutoff}: {f} differs in rows {bad.tolist()}"
    assert start["stock_public"].any(), "piles were turned over (S4)"
    assert {END_OUT, END_MAX_TURNS} <= ends, ends


def test_rows_past_m_and_finished_rows_are_left_alone() -> None:
    states = positions(2, 6, seed=1, explore=0.2)
    eng = BatchedScandal(8, num_players=2, autoreset=False, episode="hand")
    write_states(eng, states)
    before = engine_arrays(eng)
    played = rollout.play_out(eng, 4, 10)
    assert played.shape == (4,) and (played > 0).all()
    for f in ROLLOUT_FIELDS:
        assert np.array_equal(getattr(eng, f)[4:], before[f][4:]), f
    eng.phase[:4] = OVER
    again = engine_arrays(eng)
    assert rollout.play_out(eng, 4, 10).tolist() == [0, 0, 0, 0]
    for f in ROLLOUT_FIELDS:
        assert np.array_equal(getattr(eng, f), again[f]), f


def test_play_out_refuses_what_it_cannot_play() -> None:
    game = BatchedScandal(2, num_players=2, autoreset=False, episode="game")
    game.reset(0)
    with pytest.raises(UsageError, match='episode="hand"'):
        rollout.play_out(game, 2, 0)
    assert rollout.compiled_rollouts(game, 0.2, 0.0) is None
    hand = BatchedScandal(2, num_players=2, autoreset=False, episode="hand")
    hand.reset(0)
    with pytest.raises(UsageError, match=r"m must be in 0\.\.2"):
        rollout.play_out(hand, 3, 0)
    torch = pytest.importorskip("torch")
    assert torch is not None
    teng = BatchedScandal(2, num_players=2, backend="torch", autoreset=False, episode="hand")
    with pytest.raises(UsageError, match="numpy"):
        rollout.play_out(teng, 1, 0)
    assert rollout.compiled_rollouts(teng, 0.2, 0.0) is None


def test_without_numba_there_are_no_compiled_rollouts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search then keeps the lockstep loop (`BatchedRollouts` asks `compiled_rollouts`)."""
    from cardsuite.agents.search.kernels import base as moves
    from cardsuite.agents.search.rollouts import BatchedRollouts

    monkeypatch.setattr(moves, "numba", None)
    assert not rollout.available()
    eng = BatchedScandal(2, num_players=2, autoreset=False, episode="hand")
    eng.reset(0)
    assert rollout.compiled_rollouts(eng, 0.2, 0.0) is None
    with pytest.raises(UsageError, match="needs numba"):
        rollout.play_out(eng, 2, 0)
    rollouts = BatchedRollouts("scandal", eng.config, "heuristic", 40, 4, {})
    assert rollouts._compiled is None
