"""The search's Scandal rollouts without observations: the same choices and values.

Batched ISMCTS rollouts step `BatchedScandal` with ``observe=False`` and let
the heuristic read the engine's state arrays (`BatchedScandalHeuristic.choose_engine`)
instead of each row's observation. Differential tests against the observing
path:

* ``step(..., observe=False)`` changes the state, the mask, ``to_act``, the
  rewards and the flags exactly as ``step``, and leaves the observation
  buffer as it was;
* ``choose_engine`` makes, row for row, the choice of the memoryless heuristic
  on the row's observation (real play of 2 to 4 players, heuristic and
  random moves; a made-up too-deep draw falls back to ``ScandalPolicy`` as
  the observation path does);
* `BatchedRollouts` scores the same leaf states the same on both paths, and
  on the compiled rollouts (``cardsuite.agents.search.kernels.scandal_heuristic``, with numba),
  whose search makes the same choices as the lockstep loop's.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

from cardsuite.agents.base import table_info
from cardsuite.agents.baselines.batched_scandal import BatchedScandalHeuristic
from cardsuite.agents.baselines.heuristic import HeuristicAgent
from cardsuite.agents.registry import make_agent
from cardsuite.agents.search.batched import BatchedRollouts
from cardsuite.errors import ConfigError, UsageError
from cardsuite.games import get_game
from scandal_env.batched import BatchedScandal


def _random_legal(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """A uniformly random legal action per row (0 for rows without one)."""
    out = np.zeros(mask.shape[0], dtype=np.int64)
    for i in np.flatnonzero(mask.any(axis=1)).tolist():
        out[i] = rng.choice(np.flatnonzero(mask[i]))
    return out


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_a_step_without_observing_changes_everything_else_the_same(num_players: int) -> None:
    seen = BatchedScandal(16, num_players=num_players, autoreset=False, episode="hand")
    blind = BatchedScandal(16, num_players=num_players, autoreset=False, episode="hand")
    _obs, mask, _ = seen.reset(5)
    blind.reset(5)
    rng = np.random.default_rng(num_players)
    for _ in range(120):
        actions = _random_legal(rng, mask.astype(bool))
        active = mask.astype(bool).any(axis=1)
        before = blind.obs.copy()
        a = seen.step(actions, active=active)
        b = blind.step(actions, active=active, observe=False)
        assert np.array_equal(b.obs, before), "observe=False leaves the observation as it was"
        for name in ("mask", "to_act", "rewards", "done", "truncated"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), name
        for name, arr in seen.state_arrays().items():
            assert np.array_equal(arr, getattr(blind, name)), name
        assert np.array_equal(blind.observe_as(blind.cur)[active], a.obs[active])
        mask = a.mask
        if not active.any():
            break


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_choices_from_the_engine_equal_those_from_the_observation(num_players: int) -> None:
    eng = BatchedScandal(20, num_players=num_players)
    plain = BatchedScandalHeuristic(eng.config, eng.obs_spec, repeat_memory=False)
    rng = np.random.default_rng(10 + num_players)
    obs, mask, _ = eng.reset(num_players)
    phases = set()
    for t in range(150):
        mask_b = mask.astype(bool)
        rows = np.flatnonzero(mask_b.any(axis=1))
        want = plain(obs[rows], mask_b[rows])
        got = plain.choose_engine(eng, mask_b[rows], rows)
        assert got.tolist() == want.tolist(), f"step {t}"
        phases.update(eng.phase[rows].tolist())
        actions = want.copy()
        explore = rng.random(rows.size) < 0.3
        actions[explore] = _random_legal(rng, mask_b[rows])[explore]
        full = np.zeros(eng.num_games, dtype=np.int64)
        full[rows] = actions
        res = eng.step(full)
        obs, mask = res.obs, res.mask
    assert phases == {0, 1, 2}, "draw, meld and build rows were all compared"
    assert plain.fallbacks == 0 and not plain.memory


def test_a_too_deep_draw_falls_back_on_the_engine_path_too() -> None:
    eng = BatchedScandal(32, num_players=2)
    plain = BatchedScandalHeuristic(eng.config, eng.obs_spec, repeat_memory=False)
    obs, mask, _ = eng.reset(3)
    for _ in range(40):
        res = eng.step(plain(obs, mask))
        obs, mask = res.obs, res.mask
    mask_b = mask.astype(bool)
    lay = plain.lay
    size = eng.pile_len
    rows = np.flatnonzero((eng.phase == 0) & (size > 0) & (size < lay.MELD_START - 1))
    assert rows.size >= 2
    odd = rows[:2]
    mask_b[odd, lay.DRAW_DISCARD + size[odd]] = True  # one card deeper than the pile
    want = plain(obs, mask_b)
    assert plain.fallbacks == 2
    got = plain.choose_engine(eng, mask_b, np.arange(eng.num_games))
    assert plain.fallbacks == 4
    assert got.tolist() == want.tolist()


def test_choose_engine_refuses_other_tables_and_masks() -> None:
    eng = BatchedScandal(4, num_players=3)
    _obs, mask, _ = eng.reset(0)
    two = BatchedScandalHeuristic(BatchedScandal(1, num_players=2).config)
    with pytest.raises(UsageError, match="an engine of 2 players"):
        two.choose_engine(eng, mask.astype(bool), np.arange(4))
    three = BatchedScandalHeuristic(eng.config, eng.obs_spec)
    with pytest.raises(UsageError, match="mask"):
        three.choose_engine(eng, mask.astype(bool)[:3], np.arange(4))
    torch = pytest.importorskip("torch")
    assert torch is not None
    teng = BatchedScandal(4, num_players=3, backend="torch")
    teng.reset(0)
    with pytest.raises(UsageError, match="numpy"):
        three.choose_engine(teng, mask.astype(bool), np.arange(4))


def _leaves(count: int, seed: int) -> tuple[list[object], object]:
    """``count`` determinized states of one 2-player hand as seat 0 sees it, move by move."""
    env = get_game("scandal").make(num_players=2)
    env.reset(seed=seed)
    agent = HeuristicAgent("scandal")
    agent.reset(table_info(env, "scandal", "player_0"), seed=0)
    rng = np.random.default_rng(seed)
    states: list[object] = []
    for name in env.agent_iter():
        o, _r, term, trunc, _info = env.last()
        if term or trunc or len(states) == count:
            break
        states.append(env.unwrapped.determinize(name, rng))
        env.step(agent.act(o["observation"], o["action_mask"], {}))
    return states, env.unwrapped.config


@pytest.mark.parametrize("cutoff", [0, 20])
def test_rollouts_score_the_same_with_and_without_observations(cutoff: int) -> None:
    states, config = _leaves(24, seed=3)
    rollouts = BatchedRollouts("scandal", config, "heuristic", cutoff, 24, {})
    assert rollouts._direct is not None, "the Scandal heuristic rolls out from engine arrays"
    rng = np.random.default_rng(0)
    first = rollouts.values(states, rng)
    rollouts._compiled = None
    direct = rollouts.values(states, rng)
    rollouts._direct = None
    observed = rollouts.values(states, rng)
    assert np.array_equal(direct, observed)
    assert np.array_equal(first, direct)
    assert len({tuple(v) for v in direct.tolist()}) > 1, "the leaves differ"


@pytest.mark.parametrize(
    ("cutoff", "params"), [(0, {}), (40, {}), (40, {"take_cost": 0.5, "deep_margin": 5.0})]
)
def test_compiled_rollouts_score_as_the_lockstep_loop(
    cutoff: int, params: dict[str, float]
) -> None:
    pytest.importorskip("numba")
    states, config = _leaves(40, seed=8)
    compiled = BatchedRollouts("scandal", config, "heuristic", cutoff, 16, params)
    loop = BatchedRollouts("scandal", config, "heuristic", cutoff, 16, params, compiled=False)
    assert compiled._compiled is not None and loop._compiled is None
    rng = np.random.default_rng(0)
    got = compiled.values(states, rng)  # in three chunks of at most 16 rows
    assert np.array_equal(got, loop.values(states, rng))
    assert len({tuple(v) for v in got.tolist()}) > 1, "the leaves differ"
    # a caller of on_load (a guided search's priors) sees the loaded observations and
    # masks, and the compiled rollouts still score as the lockstep loop
    seen: dict[str, list[tuple[int, np.ndarray, np.ndarray]]] = {"compiled": [], "loop": []}
    for name, rollouts in (("compiled", compiled), ("loop", loop)):
        values = rollouts.values(
            states, rng, on_load=lambda start, obs, mask, n=name: seen[n].append((start, obs, mask))
        )
        assert np.array_equal(values, got)
    assert [s for s, _o, _m in seen["compiled"]] == [0, 16, 32]
    for (_s, obs_c, mask_c), (_t, obs_l, mask_l) in zip(
        seen["compiled"], seen["loop"], strict=True
    ):
        assert np.array_equal(obs_c, obs_l) and np.array_equal(mask_c, mask_l)


class _Recorder:
    """An ``ismcts-batched`` agent that records its choices (for `play`)."""

    def __init__(self, spec: str, chosen: list[int]) -> None:
        self.agent = make_agent(spec, "scandal", seed=0)
        self.chosen = chosen

    def reset(self, *args: Any, **kwargs: Any) -> None:
        self.agent.reset(*args, **kwargs)

    def act(self, obs: np.ndarray, mask: np.ndarray, info: Any) -> int:
        action = int(self.agent.act(obs, mask, info))
        self.chosen.append(action)
        return action


def test_the_compiled_search_makes_the_lockstep_choices() -> None:
    pytest.importorskip("numba")
    from benchmarks.search_bench import play

    picks: dict[str, list[int]] = {}
    for flag in ("true", "false"):
        chosen = picks[flag] = []
        spec = f"ismcts-batched:budget=40,batch=20,compiled={flag}"
        make = functools.partial(_Recorder, spec, chosen)
        play("scandal", {"num_players": 2}, make, seed=4, limit=12)
    assert len(picks["true"]) == 12
    assert picks["true"] == picks["false"]


def test_compiled_must_be_a_bool() -> None:
    with pytest.raises(ConfigError, match="compiled must be true or false"):
        make_agent("ismcts-batched:compiled=maybe", "scandal", seed=0)
