"""The search's Scandal rollouts: the compiled kernel and the lockstep loop score alike.

* the deprecated ``choose_engine`` chooses from the rows' observations;
* `BatchedRollouts` scores the same leaf states the same with the compiled
  rollouts (``cardsuite.agents.search.kernels.scandal_heuristic``, with numba)
  and in the lockstep loop, and a search makes the same choices both ways.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from cardsuite.agents.base import table_info
from cardsuite.agents.baselines.batched_scandal import BatchedScandalHeuristic
from cardsuite.agents.baselines.heuristic import HeuristicAgent
from cardsuite.agents.registry import make_agent
from cardsuite.agents.search.rollouts import BatchedRollouts
from cardsuite.errors import ConfigError
from cardsuite.games import get_game
from scandal_env.batched import BatchedScandal


def test_choose_engine_is_deprecated_and_chooses_from_the_observations() -> None:
    eng = BatchedScandal(20, num_players=3)
    plain = BatchedScandalHeuristic(eng.config, eng.obs_spec, repeat_memory=False)
    obs, mask, _ = eng.reset(3)
    for _ in range(30):
        res = eng.step(plain(obs, mask))
        obs, mask = res.obs, res.mask
    rows = np.flatnonzero(mask.any(axis=1))
    with pytest.warns(DeprecationWarning, match="choose_engine is deprecated"):
        got = plain.choose_engine(eng, mask[rows].astype(bool), rows)
    assert got.tolist() == plain(obs[rows], mask[rows]).tolist()


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


def test_the_compiled_search_makes_the_lockstep_choices() -> None:
    pytest.importorskip("numba")
    from benchmarks.search_bench import play

    picks: dict[str, list[int]] = {}
    for flag in ("true", "false"):
        spec = f"ismcts-batched:budget=40,batch=20,compiled={flag}"
        make = functools.partial(make_agent, spec, "scandal", seed=0)
        play(
            "scandal", {"num_players": 2}, make, seed=4, limit=12, chosen=picks.setdefault(flag, [])
        )
    assert len(picks["true"]) == 12
    assert picks["true"] == picks["false"]


def test_compiled_must_be_a_bool() -> None:
    with pytest.raises(ConfigError, match="compiled must be true or false"):
        make_agent("ismcts-batched:compiled=maybe", "scandal", seed=0)
